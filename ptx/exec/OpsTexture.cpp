// Texture fetches on texture objects (TexDesc): tex.{1d,2d,3d,a1d,a2d,cube,acube} with optional
// .level / .grad, tld4.{r,g,b,a}.{2d,a2d,cube,acube} (gather) and txq.
//
// Sampling follows the CUDA texture-fetching model: normalized coordinates scale by the size;
// point filtering takes texel floor(x); linear filtering takes the texels around x - 0.5 with
// the fraction rounded to 8 bits and the corner weights whole multiples of 1/256 that sum to 1
// (linearWeights: the hardware's fixed-point arithmetic, as native H100 runs show). Address modes
// apply to texel indices; wrap and mirror need normalized coordinates and act as clamp
// otherwise. Linear resources (tex1Dfetch) read element x, zero outside the buffer. Linear
// filtering applies only to float results (float formats or normalized-float reads).
//
// Layered textures take the layer (the first coordinate, an integer) clamped to the layers.
// Cubemaps: the major axis of the direction (x, y, z) selects the face (CUDA programming guide's
// table) and the face is sampled at ((s/m + 1) / 2, (t/m + 1) / 2) with clamp-to-edge addressing
// (filtering does not cross faces). Mipmaps: the level of detail is the .level operand, the log2
// of the longer gradient in texels (.grad), or 0; plus the bias, clamped to [minLod, maxLod] and
// the levels, all in 1/256 steps (pickLevels). Point mip filtering takes the nearest level,
// linear blends two levels. Textures without mipmaps ignore the level of detail.

#include "ptx/exec/OpsTexture.h"

#include "ptx/exec/OpsCommon.h"

#include <cmath>

namespace ptxsim::ptx::exec {

const TexDesc *checkedDescriptor(ExecCtx &ctx, const Warp &w, const ir::Inst &in, unsigned lane,
                                 uint64_t h, bool surface) {
  const Allocation *a = ctx.mem->find(h);
  const TexDesc *d = reinterpret_cast<const TexDesc *>(h);
  const char *what = surface ? "surface" : "texture";
  if (!a || a->base != h || a->kind != AllocKind::Const || a->size != sizeof(TexDesc) ||
      d->magic != (surface ? kSurfMagic : kTexMagic) || d->dims < 1 || d->dims > 3 ||
      d->width == 0 || d->height == 0 || d->depth == 0 || d->layers == 0 ||
      d->levels > kMaxMipLevels || (d->cubemap && d->layers % 6 != 0) ||
      (d->channels != 1 && d->channels != 2 && d->channels != 4) ||
      (d->bits != 8 && d->bits != 16 && d->bits != 32)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s: 0x%llx is not a %s object", surface ? "surface" : "tex",
                  (unsigned long long)h, what);
    ctx.fault(FaultKind::Invalid, w, in, lane, buf);
    return nullptr;
  }
  if (!ctx.mem->valid(d->data, texExtent(*d))) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s: %s object 0x%llx refers to freed or invalid memory",
                  surface ? "surface" : "tex", what, (unsigned long long)h);
    ctx.fault(FaultKind::OutOfBounds, w, in, lane, buf);
    return nullptr;
  }
  return d;
}

namespace {

using ir::Inst;

/// Texture geometries (the instruction's, in.aux2 of tex).
enum Geom : uint8_t { G1d, G2d, G3d, GA1d, GA2d, GCube, GACube };

bool layeredGeom(unsigned g) { return g == GA1d || g == GA2d || g == GACube; }
bool cubeGeom(unsigned g) { return g == GCube || g == GACube; }

float halfToFloat(uint16_t h) {
  uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0)
    v = std::ldexp((float)m, -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = std::ldexp((float)(m | 1024), (int)e - 25);
  return s ? -v : v;
}

struct Texel {
  float f[4];
  uint32_t i[4];
};

bool floatResult(const TexDesc &d) {
  return d.format == TexFormat::Float || (d.readNormalizedFloat && d.bits < 32);
}

/// Address of the texel the current lane read last: tex and tld4 report it to timing models
/// as the lane's memory address (one texel of the filter footprint stands for it).
thread_local uint64_t tlLastTexel = 0;

/// Reads the texel at `p` as floats (float results) or raw integers.
void readTexel(const TexDesc &d, const uint8_t *p, Texel &t) {
  tlLastTexel = reinterpret_cast<uint64_t>(p);
  unsigned cb = d.bits / 8;
  bool fl = floatResult(d);
  for (unsigned c = 0; c < 4; ++c) {
    if (c >= d.channels) {
      t.i[c] = 0;
      t.f[c] = c == 3 && fl ? 1.0f : 0.0f;
      continue;
    }
    const uint8_t *q = p + c * cb;
    uint32_t raw = 0;
    std::memcpy(&raw, q, cb);
    if (d.format == TexFormat::Float) {
      float v;
      if (cb == 2)
        v = halfToFloat((uint16_t)raw);
      else
        std::memcpy(&v, &raw, 4);
      t.f[c] = v;
      t.i[c] = raw;
      continue;
    }
    int64_t sv;
    if (d.format == TexFormat::Signed)
      sv = cb == 1 ? (int8_t)raw : cb == 2 ? (int16_t)raw : (int32_t)raw;
    else
      sv = raw;
    t.i[c] = (uint32_t)sv;
    if (fl) {
      double maxv = d.format == TexFormat::Signed ? std::ldexp(1.0, d.bits - 1) - 1
                                                  : std::ldexp(1.0, d.bits) - 1;
      double v = (double)sv / maxv;
      t.f[c] = (float)(v < -1.0 ? -1.0 : v);
    } else {
      t.f[c] = 0;
    }
  }
}

void borderTexel(const TexDesc &d, Texel &t) {
  // Integers read as normalized floats take the border color clamped to their range ([0, 1]
  // unsigned, [-1, 1] signed): a GPU returns 0 for border -99 on a uchar texture.
  bool unorm = d.format != TexFormat::Float && floatResult(d);
  float lo = d.format == TexFormat::Signed ? -1.0f : 0.0f;
  for (unsigned c = 0; c < 4; ++c) {
    float b = d.border[c];
    t.f[c] = unorm ? (b < lo ? lo : b > 1.0f ? 1.0f : b) : b;
    std::memcpy(&t.i[c], &d.border[c], 4);
  }
}

/// Applies the address mode to index `i` of a dimension with `n` texels; false: border.
bool addressIndex(TexAddress mode, bool normalized, int64_t n, int64_t &i) {
  if (!normalized && (mode == TexAddress::Wrap || mode == TexAddress::Mirror))
    mode = TexAddress::Clamp;
  switch (mode) {
  case TexAddress::Wrap:
    i = ((i % n) + n) % n;
    return true;
  case TexAddress::Mirror: {
    int64_t j = ((i % (2 * n)) + 2 * n) % (2 * n);
    i = j >= n ? 2 * n - 1 - j : j;
    return true;
  }
  case TexAddress::Border:
    return i >= 0 && i < n;
  case TexAddress::Clamp:
  default:
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    return true;
  }
}

/// One layer of one mip level.
struct View {
  const uint8_t *base;
  uint64_t pitch, slice;
  int64_t size[3];
};

View viewOf(const TexDesc &d, unsigned level, uint32_t layer) {
  TexLevel l = texLevel(d, level);
  return {reinterpret_cast<const uint8_t *>(d.data + l.offset + (uint64_t)layer * l.layerPitch),
          l.pitch,
          l.slicePitch,
          {l.width, l.height, l.depth}};
}

/// The texel at indices `idx` after the address modes (clamp-to-edge when `edge`).
void fetchAt(const TexDesc &d, const View &v, const int64_t *idx, bool edge, Texel &t) {
  int64_t xyz[3] = {0, 0, 0};
  for (unsigned k = 0; k < d.dims; ++k) {
    int64_t i = idx[k];
    if (!addressIndex(edge ? TexAddress::Clamp : d.address[k], d.normalizedCoords, v.size[k], i)) {
      borderTexel(d, t);
      return;
    }
    xyz[k] = i;
  }
  readTexel(d, v.base + xyz[2] * v.slice + xyz[1] * v.pitch + xyz[0] * d.elemBytes(), t);
}

/// floor(x) as an index (NaN: 0; saturated far outside any texture).
float floorSat(float x) {
  float f = std::floor(x);
  if (std::isnan(f))
    return 0;
  return f < -1e9f ? -1e9f : f > 1e9f ? 1e9f : f;
}

} // namespace

unsigned linearFraction(float frac) {
  if (!(frac >= 0.0f && frac < 1.0f))
    return 0;
  return (unsigned)std::floor((double)frac * 256.0 + 0.5); // 256 (weight 1) just below 1
}

unsigned linearWeights(unsigned dims, const unsigned *q, unsigned *w, unsigned total) {
  // The weight 256 (1.0) is split one dimension at a time (3D: z, x, y; 2D: x, y): the upper
  // part of a weight p along a dimension with fraction q is p * q / 256 rounded to nearest, the
  // lower part the rest, so the weights sum to 256. Halves round up, except in the y split of
  // a group that is the lower texel in x, where they round down (which keeps 2D weights'
  // sums along x and y exact). This reproduces every weight a GPU (H200, sm_90) returned for
  // 256x256 2D fraction pairs and 3M 3D triples (one-hot texture probes).
  static const unsigned kOrder[3][3] = {{0, 0, 0}, {0, 1, 0}, {2, 0, 1}};
  unsigned cnt = 1u << dims;
  for (unsigned c = 0; c < cnt; ++c)
    w[c] = c ? 0 : total;
  for (unsigned s = 0; s < dims; ++s) {
    unsigned dim = kOrder[dims - 1][s], bit = 1u << dim;
    for (unsigned c = 0; c < cnt; ++c) {
      if (c & bit)
        continue;
      unsigned p = w[c]; // the weight of corner c's group, not yet split along `dim`
      unsigned half = dim == 1 && !(c & 1) ? 127 : 128;
      unsigned hi = (p * q[dim] + half) >> 8;
      w[c] = p - hi;
      w[c | bit] = hi;
    }
  }
  return cnt;
}

float normalizedToTexels(float u, uint32_t size) {
  // the GPU takes a normalized coordinate in fixed point with 21 fraction bits (truncated)
  // before scaling it by the size (normalized-coordinate probe, W = 13: all 3000 samples)
  double f = std::floor((double)u * 2097152.0);
  return (float)(f * size / 2097152.0);
}

namespace {

/// Point or linear filtering of `v` at texel-space coordinates `x`. Linear filtering splits the
/// weight `total` (in 1/256; 256 unless two mip levels share it) among the texels, so its
/// result is already scaled by total / 256; point filtering returns the texel unscaled.
void filterAt(const TexDesc &d, const View &v, const float *x, bool edge, Texel &out,
              unsigned total = 256) {
  if (d.filter == TexFilter::Point || !floatResult(d)) {
    int64_t idx[3];
    for (unsigned k = 0; k < d.dims; ++k)
      idx[k] = (int64_t)floorSat(x[k]);
    fetchAt(d, v, idx, edge, out);
    return;
  }
  // linear: base index and 8-bit fraction per dimension, then the corner weights
  int64_t base[3] = {0, 0, 0};
  unsigned q[3] = {0, 0, 0};
  for (unsigned k = 0; k < d.dims; ++k) {
    // Clamp addressing clamps the coordinate to the outer texel centres before filtering: the
    // clamped dimension then weighs 0 and 1, which changes how the other weights round (a GPU's
    // trilinear results at clamped coordinates, 50_textures)
    float xk = x[k];
    TexAddress mode = edge ? TexAddress::Clamp : d.address[k];
    if (mode == TexAddress::Clamp || (!d.normalizedCoords && mode != TexAddress::Border)) {
      float hiC = (float)v.size[k] - 0.5f;
      xk = xk < 0.5f ? 0.5f : xk > hiC ? hiC : xk;
    }
    float xb = xk - 0.5f;
    float f = floorSat(xb);
    base[k] = (int64_t)f;
    q[k] = linearFraction(xb - f);
  }
  unsigned w[8];
  unsigned corners = linearWeights(d.dims, q, w, total);
  // The weighted sum rounded once: a GPU returns the correctly rounded fp32 sum in most cases
  // (57 of 64 probe samples; the rest within 4 ulps), closer than fp32 accumulation.
  double acc[4] = {0, 0, 0, 0};
  for (unsigned cidx = 0; cidx < corners; ++cidx) {
    if (w[cidx] == 0)
      continue;
    int64_t idx[3] = {base[0] + (cidx & 1), base[1] + ((cidx >> 1) & 1), base[2] + ((cidx >> 2) & 1)};
    double weight = (double)w[cidx] * (1.0 / 256.0);
    Texel t;
    fetchAt(d, v, idx, edge, t);
    for (unsigned ch = 0; ch < 4; ++ch)
      acc[ch] += weight * t.f[ch];
  }
  for (unsigned ch = 0; ch < 4; ++ch) {
    out.f[ch] = (float)acc[ch];
    out.i[ch] = 0;
  }
}

/// Cube face (0..5) of direction (x, y, z) and the face coordinates in [0, 1]; `major` gets
/// the major axis' magnitude.
unsigned cubeFace(float x, float y, float z, float &u, float &v, float &major) {
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  float m, s, t;
  unsigned f;
  if (ax >= ay && ax >= az) {
    m = ax;
    f = x >= 0 ? 0 : 1;
    s = x >= 0 ? -z : z;
    t = -y;
  } else if (ay >= az) {
    m = ay;
    f = y >= 0 ? 2 : 3;
    s = x;
    t = y >= 0 ? z : -z;
  } else {
    m = az;
    f = z >= 0 ? 4 : 5;
    s = z >= 0 ? x : -x;
    t = -y;
  }
  major = m;
  u = (s / m + 1.0f) * 0.5f;
  v = (t / m + 1.0f) * 0.5f;
  return f;
}

/// Mip levels to sample and the weight of the second.
struct MipPick {
  unsigned lv[2] = {0, 0};
  unsigned n = 1;
  unsigned w = 0; ///< weight of the second level, in 1/256
};

/// `v` in fixed point with 8 fraction bits, truncated toward zero; saturated far outside any
/// level range.
int64_t lodFixed(float v) {
  if (std::isnan(v))
    return 0;
  double f = std::trunc((double)v * 256.0);
  return f < -1e6 ? -1000000 : f > 1e6 ? 1000000 : (int64_t)f;
}

MipPick pickLevels(const TexDesc &d, float lod) {
  // The level of detail in 1/256 steps, as a GPU computes it (tex2DLod sweeps on an H200): the
  // lod and the bias each truncated toward zero, added, clamped to the level clamps and the
  // levels; point mip filtering takes the nearest level (halves up), linear blends level
  // floor(l) with the next by the fraction.
  MipPick p;
  if (!d.levels)
    return p;
  int64_t l = lodFixed(lod) + lodFixed(d.lodBias);
  int64_t lo = lodFixed(d.minLod), hi = lodFixed(d.maxLod);
  l = l < lo ? lo : l;
  l = l > hi ? hi : l;
  int64_t top = (int64_t)(d.levels - 1) * 256;
  l = l < 0 ? 0 : l > top ? top : l;
  if (d.mipFilter == TexFilter::Point || !floatResult(d)) {
    p.lv[0] = (unsigned)((l + 128) >> 8);
    if (p.lv[0] > d.levels - 1u)
      p.lv[0] = d.levels - 1u;
    return p;
  }
  unsigned l0 = (unsigned)(l >> 8), frac = (unsigned)(l & 255);
  p.lv[0] = l0;
  if (frac && l0 + 1 < d.levels) {
    p.lv[1] = l0 + 1;
    p.n = 2;
    p.w = frac;
  }
  return p;
}

/// Samples `d` with geometry `g` at coordinates `c` (floats) or `ic` (integers when
/// `intCoords`), layer `layerIn` (layered geometries) and level of detail `lod`.
void sample(const TexDesc &d, unsigned g, const float *c, const int32_t *ic, bool intCoords,
            uint32_t layerIn, float lod, Texel &out) {
  if (d.resource == TexResource::Linear) {
    int64_t x = intCoords ? ic[0] : (int64_t)floorSat(c[0]);
    if (x < 0 || x >= (int64_t)d.width) {
      std::memset(&out, 0, sizeof out);
      return;
    }
    readTexel(d, reinterpret_cast<const uint8_t *>(d.data) + x * d.elemBytes(), out);
    return;
  }
  uint32_t layer = 0;
  bool edge = false, norm = d.normalizedCoords;
  float cc[3] = {c[0], c[1], c[2]};
  if (cubeGeom(g)) {
    float major;
    unsigned face = cubeFace(c[0], c[1], c[2], cc[0], cc[1], major);
    uint32_t cube = g == GACube ? layerIn : 0, cubes = d.layers / 6;
    layer = (cube < cubes ? cube : cubes - 1) * 6 + face;
    edge = norm = true;
  } else if (layeredGeom(g)) {
    layer = layerIn < d.layers ? layerIn : d.layers - 1;
  }
  MipPick mp = pickLevels(d, lod);
  if (intCoords) {
    View v = viewOf(d, mp.lv[0], layer);
    int64_t idx[3] = {ic[0], ic[1], ic[2]};
    fetchAt(d, v, idx, false, out);
    return;
  }
  float acc[4] = {0, 0, 0, 0};
  for (unsigned i = 0; i < mp.n; ++i) {
    View v = viewOf(d, mp.lv[i], layer);
    float x[3];
    for (unsigned k = 0; k < d.dims; ++k)
      x[k] = norm ? normalizedToTexels(cc[k], (uint32_t)v.size[k]) : cc[k];
    if (mp.n == 1) {
      filterAt(d, v, x, edge, out);
      return;
    }
    // Two levels: the level weight is split first, then the texel weights within each level
    // (trilinear weights are whole 1/256 steps too, as a GPU returns them)
    Texel t;
    unsigned total = i ? mp.w : 256 - mp.w;
    filterAt(d, v, x, edge, t, total);
    bool pointTexels = d.filter == TexFilter::Point || !floatResult(d);
    float wt = pointTexels ? (float)total * (1.0f / 256.0f) : 1.0f;
    for (unsigned ch = 0; ch < 4; ++ch)
      acc[ch] += wt * t.f[ch];
  }
  for (unsigned ch = 0; ch < 4; ++ch) {
    out.f[ch] = acc[ch];
    out.i[ch] = 0;
  }
}

/// Level of detail of tex.grad: log2 of the longer of the two gradients, in texels of level 0.
float gradLod(const TexDesc &d, unsigned g, const float *c, const float *dx, const float *dy) {
  double lx = 0, ly = 0;
  if (cubeGeom(g)) {
    float u, v, major;
    cubeFace(c[0], c[1], c[2], u, v, major);
    for (unsigned k = 0; k < 3; ++k) {
      lx += (double)dx[k] * dx[k];
      ly += (double)dy[k] * dy[k];
    }
    double s = major > 0 ? d.width * 0.5 / major : 0;
    lx *= s * s;
    ly *= s * s;
  } else {
    const double size[3] = {(double)d.width, (double)d.height, (double)d.depth};
    for (unsigned k = 0; k < d.dims; ++k) {
      double sc = d.normalizedCoords ? size[k] : 1.0;
      lx += dx[k] * sc * dx[k] * sc;
      ly += dy[k] * sc * dy[k] * sc;
    }
  }
  double rho2 = lx > ly ? lx : ly;
  return rho2 > 0 ? (float)(0.5 * std::log2(rho2)) : -1e30f;
}

/// Destination kinds of tex (in.off) and tld4 (in.aux).
enum : uint8_t { kOutF32, kOutS32, kOutU32, kOutF16, kOutF16x2 };

/// Channel `ch` of `t` as the 32-bit value of an f32/s32/u32 destination.
uint32_t outBits(const TexDesc &d, const Texel &t, unsigned ch, unsigned kind) {
  uint32_t bits;
  if (floatResult(d)) {
    if (kind == kOutF32)
      std::memcpy(&bits, &t.f[ch], 4);
    else
      bits = kind == kOutS32 ? (uint32_t)(int32_t)t.f[ch] : (uint32_t)t.f[ch];
  } else if (d.format == TexFormat::Float) {
    bits = t.i[ch];
  } else if (kind == kOutF32) {
    float f = d.format == TexFormat::Signed ? (float)(int32_t)t.i[ch] : (float)t.i[ch];
    std::memcpy(&bits, &f, 4);
  } else {
    bits = t.i[ch];
  }
  return bits;
}

/// Writes the four channels of `t` into res[.][l] for destination kind `kind`.
void storeTexel(const TexDesc &d, const Texel &t, unsigned kind, unsigned l,
                uint64_t (*res)[kWarpSize]) {
  if (kind == kOutF16 || kind == kOutF16x2) {
    uint16_t hb[4];
    for (unsigned ch = 0; ch < 4; ++ch)
      hb[ch] = f64ToF16Bits(fromBits<float>(outBits(d, t, ch, kOutF32)));
    if (kind == kOutF16) {
      for (unsigned ch = 0; ch < 4; ++ch)
        res[ch][l] = hb[ch];
    } else {
      res[0][l] = hb[0] | (uint32_t)hb[1] << 16;
      res[1][l] = hb[2] | (uint32_t)hb[3] << 16;
    }
    return;
  }
  for (unsigned ch = 0; ch < 4; ++ch) {
    uint32_t bits = outBits(d, t, ch, kind);
    res[ch][l] = kind == kOutS32 ? (uint64_t)(int64_t)(int32_t)bits : (uint64_t)bits;
  }
}

/// Operands of tex.level / tex.grad that do not fit in an ir::Inst.
struct TexExtra {
  ir::Opnd lod;
  ir::Opnd dx[3], dy[3];
};

AppendOnlyTable<TexExtra> &texExtras() {
  static auto *t = new AppendOnlyTable<TexExtra>; // lives as long as the IR that indexes it
  return *t;
}

enum : uint8_t { kIntCoords = 1, kLevel = 2, kGrad = 4, kIntLod = 8 };

/// in.src[0]: handle; in.src[1..aux]: coordinates; in.src[4]: layer (layered geometries);
/// in.aux2: Geom; in.flags: kIntCoords/kLevel/kGrad/kIntLod; in.target: TexExtra index;
/// in.off: destination kind; in.dst[0..ndst). Per-lane texel addresses go to w.addr.
void texFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *h = w.src(in.src[0]);
  unsigned nc = in.aux, g = in.aux2;
  const uint64_t *cs[3] = {nullptr, nullptr, nullptr};
  for (unsigned k = 0; k < nc; ++k)
    cs[k] = w.src(in.src[1 + k]);
  const uint64_t *ls = layeredGeom(g) ? w.src(in.src[4]) : nullptr;
  const uint64_t *lods = nullptr, *dxs[3] = {}, *dys[3] = {};
  if (in.flags & kLevel)
    lods = w.src(texExtras().at(in.target).lod);
  if (in.flags & kGrad) {
    const TexExtra &ex = texExtras().at(in.target);
    for (unsigned k = 0; k < 3; ++k) {
      dxs[k] = w.src(ex.dx[k]);
      dys[k] = w.src(ex.dy[k]);
    }
  }
  bool intCoords = in.flags & kIntCoords;
  uint64_t res[4][kWarpSize];
  uint64_t lastH = 0;
  const TexDesc *d = nullptr;
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    if (!d || h[l] != lastH) {
      d = checkedDescriptor(ctx, w, in, l, h[l], false);
      lastH = h[l];
      if (d && cubeGeom(g) && !d->cubemap) {
        ctx.fault(FaultKind::Invalid, w, in, l,
                  "tex: a cubemap fetch from a texture object that is not a cubemap");
        d = nullptr;
      }
      if (!d) {
        bad = true;
        return;
      }
    }
    float c[3] = {0, 0, 0};
    int32_t ic[3] = {0, 0, 0};
    for (unsigned k = 0; k < nc; ++k) {
      c[k] = fromBits<float>(cs[k][l]);
      ic[k] = (int32_t)cs[k][l];
    }
    float lod = 0;
    if (d->levels) {
      if (lods)
        lod = in.flags & kIntLod ? (float)(int32_t)lods[l] : fromBits<float>(lods[l]);
      else if (dxs[0]) {
        float dx[3], dy[3];
        for (unsigned k = 0; k < 3; ++k) {
          dx[k] = fromBits<float>(dxs[k][l]);
          dy[k] = fromBits<float>(dys[k][l]);
        }
        lod = gradLod(*d, g, c, dx, dy);
      }
    }
    Texel t;
    tlLastTexel = d->data;
    sample(*d, g, c, ic, intCoords, ls ? (uint32_t)ls[l] : 0, lod, t);
    w.addr[l] = tlLastTexel;
    storeTexel(*d, t, (unsigned)in.off, l, res);
  });
  if (bad)
    return;
  for (unsigned ch = 0; ch < in.ndst; ++ch) {
    uint64_t *dst = w.reg(in.dst[ch]);
    forLanes(m, [&](unsigned l) { dst[l] = res[ch][l]; });
  }
}

/// The geometry modifier of a tex/tld4 instruction; false when it has none we implement.
bool geometry(LowerCtx &c, Geom &g, unsigned &ncoords) {
  static const Mod kMods[] = {Mod::_1d, Mod::_2d, Mod::_3d, Mod::a1d, Mod::a2d, Mod::cube,
                              Mod::acube};
  static const unsigned kCoords[] = {1, 2, 3, 1, 2, 3, 3};
  Mod m = c.first({Mod::_1d, Mod::_2d, Mod::_3d, Mod::a1d, Mod::a2d, Mod::cube, Mod::acube});
  for (unsigned i = 0; i < 7; ++i)
    if (m == kMods[i]) {
      g = (Geom)i;
      ncoords = kCoords[i];
      return true;
    }
  return false;
}

/// Coordinates of a texture operand `[h, {...}]`: the layer (layered geometries) and `n`
/// coordinates; false when the operand has another shape.
bool coordOperands(const Operand &a, unsigned g, unsigned n, const Operand *&layer,
                   const Operand **coords) {
  if (a.kind != Operand::Kind::Address || a.elems.size() != 2)
    return false;
  const Operand &co = a.elems[1];
  std::vector<const Operand *> v;
  if (co.kind == Operand::Kind::Vector)
    for (const Operand &e : co.elems)
      v.push_back(&e);
  else
    v.push_back(&co);
  unsigned first = layeredGeom(g) ? 1 : 0;
  if (v.size() < first + n)
    return false;
  layer = first ? v[0] : nullptr;
  for (unsigned k = 0; k < n; ++k)
    coords[k] = v[first + k];
  return true;
}

bool lowerTex(LowerCtx &c) {
  Geom g;
  unsigned nc;
  if (!geometry(c, g, nc))
    return c.unsupported("geometry");
  ScalarType dt = c.type(0), ct = c.type(1);
  unsigned dkind, nd = 4;
  if (dt == ScalarType::f32)
    dkind = kOutF32;
  else if (dt == ScalarType::s32)
    dkind = kOutS32;
  else if (dt == ScalarType::u32)
    dkind = kOutU32;
  else if (dt == ScalarType::f16)
    dkind = kOutF16;
  else if (dt == ScalarType::f16x2)
    dkind = kOutF16x2, nd = 2;
  else
    return c.unsupported("destination type");
  if (ct != ScalarType::f32 && ct != ScalarType::s32)
    return c.unsupported("coordinate type");
  if (c.vecWidth() != nd)
    return c.unsupported("vector width");
  bool level = c.has(Mod::level), grad = c.has(Mod::grad);
  if ((cubeGeom(g) || grad) && ct != ScalarType::f32)
    return c.unsupported("integer coordinates");
  unsigned extra = level ? 1 : grad ? 2 : 0;
  if (c.numOps() > 2 + extra)
    return c.unsupported("offset or depth-compare operand");
  const Operand *layer = nullptr, *coords[3];
  if (!coordOperands(c.op(1), g, nc, layer, coords))
    return c.unsupported("texture operand (separate samplers are not supported)");
  const Operand &dop = c.op(0);
  if (dop.kind != Operand::Kind::Vector || dop.elems.size() != nd)
    return c.unsupported("destination");
  TexExtra ex;
  if (level) {
    ex.lod = c.src(c.op(2), ct);
  } else if (grad) {
    unsigned ng = g == G1d || g == GA1d ? 1 : g == G2d || g == GA2d ? 2 : 3;
    for (unsigned j = 0; j < 2; ++j) {
      const Operand &gv = c.op(2 + j);
      if (gv.kind != Operand::Kind::Vector || gv.elems.size() < ng)
        return c.unsupported("gradient operand");
      ir::Opnd *dst = j ? ex.dy : ex.dx;
      for (unsigned k = 0; k < 3; ++k)
        dst[k] = k < ng ? c.src(gv.elems[k], ScalarType::f32) : c.constant(0);
    }
  }
  uint32_t extraIdx = 0;
  if (level || grad) {
    extraIdx = texExtras().add(ex);
    if (extraIdx == AppendOnlyTable<TexExtra>::kFull)
      return c.unsupported("too many tex.level/tex.grad instructions");
  }
  ir::Opnd hs = c.src(c.op(1).elems[0], ScalarType::u64);
  ir::Opnd cs[3], ls;
  for (unsigned k = 0; k < nc; ++k)
    cs[k] = c.src(*coords[k], ct);
  if (layer)
    ls = c.src(*layer, ScalarType::u32);
  uint32_t d[4];
  for (unsigned i = 0; i < nd; ++i)
    d[i] = c.dst(dop.elems[i]);
  // A memory instruction for timing models: one 4-byte global access per lane (the texel
  // address texFn records); ptxsim has no separate texture cache, so it goes through L1.
  ir::Inst &in = c.emit(texFn, ir::OpClass::Mem);
  in.space = ir::MemSpace::Global;
  in.src[0] = hs;
  for (unsigned k = 0; k < nc; ++k)
    in.src[1 + k] = cs[k];
  in.src[4] = ls;
  in.nsrc = 5;
  in.aux = nc;
  in.aux2 = g;
  in.flags = (ct == ScalarType::s32 ? kIntCoords : 0) | (level ? kLevel : 0) |
             (grad ? kGrad : 0) | (level && ct == ScalarType::s32 ? kIntLod : 0);
  in.target = extraIdx;
  in.off = dkind;
  in.width = 4;
  in.vec = 1;
  in.ndst = (uint8_t)nd;
  for (unsigned i = 0; i < nd; ++i)
    in.dst[i] = d[i];
  return true;
}

/// tld4 (tex2Dgather): component in.off of the four texels bilinear filtering at (x, y) would
/// blend, in the order (i0,j1), (i1,j1), (i1,j0), (i0,j0). in.aux2: Geom; in.src as tex;
/// in.aux: destination kind. Per-lane texel addresses go to w.addr.
void tld4Fn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  unsigned g = in.aux2, comp = (unsigned)in.off;
  const uint64_t *h = w.src(in.src[0]);
  const uint64_t *cs[3] = {w.src(in.src[1]), w.src(in.src[2]), w.src(in.src[3])};
  const uint64_t *ls = layeredGeom(g) ? w.src(in.src[4]) : nullptr;
  uint64_t res[4][kWarpSize];
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    const TexDesc *d = checkedDescriptor(ctx, w, in, l, h[l], false);
    if (d && cubeGeom(g) && !d->cubemap) {
      ctx.fault(FaultKind::Invalid, w, in, l,
                "tld4: a cubemap gather from a texture object that is not a cubemap");
      d = nullptr;
    }
    if (!d) {
      bad = true;
      return;
    }
    float c[3] = {fromBits<float>(cs[0][l]), fromBits<float>(cs[1][l]),
                  fromBits<float>(cs[2][l])};
    uint32_t layer = 0;
    bool norm = d->normalizedCoords, edge = false;
    if (cubeGeom(g)) {
      float major;
      unsigned face = cubeFace(c[0], c[1], c[2], c[0], c[1], major);
      uint32_t cube = ls ? (uint32_t)ls[l] : 0, cubes = d->layers / 6;
      layer = (cube < cubes ? cube : cubes - 1) * 6 + face;
      norm = edge = true;
    } else if (ls) {
      layer = (uint32_t)ls[l] < d->layers ? (uint32_t)ls[l] : d->layers - 1;
    }
    View v = viewOf(*d, 0, layer);
    int64_t base[2];
    for (unsigned k = 0; k < 2; ++k)
      base[k] = (int64_t)floorSat((norm ? normalizedToTexels(c[k], (uint32_t)v.size[k]) : c[k]) - 0.5f);
    static const int kOff[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    tlLastTexel = d->data;
    Texel q[4];
    for (unsigned i = 0; i < 4; ++i) {
      int64_t idx[3] = {base[0] + kOff[i][0], base[1] + kOff[i][1], 0};
      if (d->resource == TexResource::Linear || d->dims != 2)
        std::memset(&q[i], 0, sizeof q[i]);
      else
        fetchAt(*d, v, idx, edge, q[i]);
    }
    Texel t; // the gathered component of the four texels as the four channels
    for (unsigned i = 0; i < 4; ++i) {
      t.f[i] = q[i].f[comp];
      t.i[i] = q[i].i[comp];
    }
    w.addr[l] = tlLastTexel;
    storeTexel(*d, t, in.aux, l, res);
  });
  if (bad)
    return;
  for (unsigned i = 0; i < 4; ++i) {
    uint64_t *dst = w.reg(in.dst[i]);
    forLanes(m, [&](unsigned l) { dst[l] = res[i][l]; });
  }
}

bool lowerTld4(LowerCtx &c) {
  Geom g;
  unsigned nc;
  if (!geometry(c, g, nc) || (g != G2d && g != GA2d && g != GCube && g != GACube))
    return c.unsupported("geometry");
  Mod cm = c.first({Mod::r, Mod::g, Mod::b, Mod::a});
  unsigned comp = cm == Mod::r ? 0 : cm == Mod::g ? 1 : cm == Mod::b ? 2 : 3;
  ScalarType dt = c.type(0);
  unsigned dkind = dt == ScalarType::f32 ? kOutF32 : dt == ScalarType::s32 ? kOutS32 : kOutU32;
  if (c.numOps() > 2)
    return c.unsupported("offset or depth-compare operand");
  const Operand *layer = nullptr, *coords[3];
  if (!coordOperands(c.op(1), g, nc, layer, coords))
    return c.unsupported("texture operand (separate samplers are not supported)");
  const Operand &dop = c.op(0);
  if (dop.kind != Operand::Kind::Vector || dop.elems.size() != 4)
    return c.unsupported("destination");
  ir::Opnd hs = c.src(c.op(1).elems[0], ScalarType::u64);
  ir::Opnd cs[3], ls;
  for (unsigned k = 0; k < 3; ++k)
    cs[k] = k < nc ? c.src(*coords[k], ScalarType::f32) : c.constant(0);
  if (layer)
    ls = c.src(*layer, ScalarType::u32);
  uint32_t d[4];
  for (unsigned i = 0; i < 4; ++i)
    d[i] = c.dst(dop.elems[i]);
  ir::Inst &in = c.emit(tld4Fn, ir::OpClass::Mem); // like tex, for timing models
  in.src[0] = hs;
  for (unsigned k = 0; k < 3; ++k)
    in.src[1 + k] = cs[k];
  in.src[4] = ls;
  in.nsrc = 5;
  in.aux2 = g;
  in.off = comp;
  in.aux = dkind;
  in.width = 4;
  in.vec = 1;
  in.space = ir::MemSpace::Global;
  in.ndst = 4;
  for (unsigned i = 0; i < 4; ++i)
    in.dst[i] = d[i];
  return true;
}

/// txq queries (in.aux).
enum : uint8_t {
  kQWidth, kQHeight, kQDepth, kQNormalized, kQFilter, kQAddr0, kQAddr1, kQAddr2, kQLevels,
  kQArraySize, kQCount
};

/// txq: in.aux = query; in.flags bit 0: txq.level with the level in in.src[1].
void txqFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *h = w.src(in.src[0]);
  const uint64_t *lv = in.flags & 1 ? w.src(in.src[1]) : nullptr;
  uint64_t res[kWarpSize];
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    const TexDesc *d = checkedDescriptor(ctx, w, in, l, h[l], false);
    if (!d) {
      bad = true;
      return;
    }
    uint32_t v = 0;
    switch (in.aux) {
    case kQWidth:
    case kQHeight:
    case kQDepth: {
      uint32_t level = lv ? (uint32_t)lv[l] : 0;
      if (level >= (d->levels ? d->levels : 1u))
        break; // no such level: 0
      TexLevel tl = texLevel(*d, level);
      v = in.aux == kQWidth ? tl.width : in.aux == kQHeight ? tl.height : tl.depth;
      break;
    }
    case kQNormalized: v = d->normalizedCoords; break;
    case kQFilter: v = d->filter == TexFilter::Linear ? 1 : 0; break;
    case kQLevels: v = d->levels; break;
    case kQArraySize: v = d->layered ? (d->cubemap ? d->layers / 6 : d->layers) : 0; break;
    default: {
      // PTX enum: wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border
      TexAddress am = d->address[in.aux - kQAddr0];
      v = am == TexAddress::Wrap ? 0 : am == TexAddress::Mirror ? 1 : am == TexAddress::Clamp ? 3 : 4;
      break;
    }
    }
    res[l] = v;
  });
  if (bad)
    return;
  uint64_t *dst = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { dst[l] = res[l]; });
}

bool lowerTxq(LowerCtx &c) {
  static const Mod kQ[] = {Mod::width, Mod::height, Mod::depth, Mod::normalized_coords,
                           Mod::filter_mode, Mod::addr_mode_0, Mod::addr_mode_1,
                           Mod::addr_mode_2, Mod::num_mipmap_levels, Mod::array_size};
  unsigned q = 0;
  while (q < kQCount && !c.has(kQ[q]))
    ++q;
  if (q == kQCount)
    return c.unsupported("query");
  const Operand &a = c.op(1);
  if (a.kind != Operand::Kind::Address || a.elems.empty())
    return c.unsupported("texture operand");
  bool level = c.has(Mod::level);
  ir::Opnd hs = c.src(a.elems[0], ScalarType::u64);
  ir::Opnd ls = level ? c.src(c.op(2), ScalarType::u32) : ir::Opnd{};
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(txqFn, ir::OpClass::Misc);
  in.src[0] = hs;
  in.src[1] = ls;
  in.nsrc = level ? 2 : 1;
  in.aux = q;
  in.flags = level ? 1 : 0;
  in.dst[0] = d;
  in.ndst = 1;
  return true;
}

} // namespace

void registerTextureOps() {
  registerLowering("tex", lowerTex);
  registerLowering("tld4", lowerTld4);
  registerLowering("txq", lowerTxq);
  registerSurfaceOps();
}

} // namespace ptxsim::ptx::exec
