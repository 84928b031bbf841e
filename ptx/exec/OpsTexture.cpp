// Texture fetches: tex.{1d,2d,3d}.v4.{f32,s32,u32}.{f32,s32}, tld4.{r,g,b,a}.2d (gather) and
// txq (size, normalization, filter and address-mode queries) on texture objects (TexDesc).
//
// Sampling follows the CUDA texture-fetching model: normalized coordinates scale by the size;
// point filtering takes texel floor(x); linear filtering takes the texels around x - 0.5 with
// weights quantised to 9-bit fixed point (8 fraction bits, like the hardware). Address modes
// apply to texel indices; wrap and mirror need normalized coordinates and act as clamp
// otherwise. Linear resources (tex1Dfetch) read element x, zero outside the buffer. Linear
// filtering applies only to float results (float formats or normalized-float reads).

#include "ptx/exec/OpsCommon.h"
#include "ptx/exec/TextureDesc.h"

#include <cmath>

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

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

/// Reads texel (x, y, z) (already in range) as floats (float results) or raw integers.
void readTexel(const TexDesc &d, int64_t x, int64_t y, int64_t z, Texel &t) {
  unsigned cb = d.bits / 8;
  const uint8_t *p = reinterpret_cast<const uint8_t *>(d.data + (uint64_t)z * d.slicePitch +
                                                       (uint64_t)y * d.pitch +
                                                       (uint64_t)x * d.channels * cb);
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
  for (unsigned c = 0; c < 4; ++c) {
    t.f[c] = d.border[c];
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

void fetchAt(const TexDesc &d, const int64_t *idx, Texel &t) {
  int64_t xyz[3] = {0, 0, 0};
  const int64_t size[3] = {d.width, d.height, d.depth};
  for (unsigned k = 0; k < d.dims; ++k) {
    int64_t i = idx[k];
    if (!addressIndex(d.address[k], d.normalizedCoords, size[k], i)) {
      borderTexel(d, t);
      return;
    }
    xyz[k] = i;
  }
  readTexel(d, xyz[0], xyz[1], xyz[2], t);
}

/// Samples descriptor `d` at coordinates `c` (floats, or integers when `intCoords`).
void sample(const TexDesc &d, const float *c, const int32_t *ic, bool intCoords, Texel &out) {
  if (d.resource == TexResource::Linear) {
    int64_t x = intCoords ? ic[0] : (int64_t)std::floor(c[0]);
    if (x < 0 || x >= (int64_t)d.width) {
      std::memset(&out, 0, sizeof out);
      return;
    }
    readTexel(d, x, 0, 0, out);
    return;
  }
  const int64_t size[3] = {d.width, d.height, d.depth};
  if (intCoords) {
    int64_t idx[3] = {ic[0], ic[1], ic[2]};
    fetchAt(d, idx, out);
    return;
  }
  float x[3];
  for (unsigned k = 0; k < d.dims; ++k)
    x[k] = d.normalizedCoords ? c[k] * (float)size[k] : c[k];
  if (d.filter == TexFilter::Point || !floatResult(d)) {
    int64_t idx[3];
    for (unsigned k = 0; k < d.dims; ++k) {
      float f = std::floor(x[k]);
      idx[k] = std::isnan(f) ? 0 : f < -1e9f ? -1000000000 : f > 1e9f ? 1000000000 : (int64_t)f;
    }
    fetchAt(d, idx, out);
    return;
  }
  // linear: base index and 9-bit fixed-point fraction per dimension
  int64_t base[3] = {0, 0, 0};
  float w[3] = {0, 0, 0};
  for (unsigned k = 0; k < d.dims; ++k) {
    float xb = x[k] - 0.5f;
    float f = std::floor(xb);
    if (std::isnan(f))
      f = 0;
    f = f < -1e9f ? -1e9f : f > 1e9f ? 1e9f : f;
    base[k] = (int64_t)f;
    float frac = xb - f;
    w[k] = std::nearbyint(frac * 256.0f) / 256.0f;
  }
  float acc[4] = {0, 0, 0, 0};
  unsigned corners = 1u << d.dims;
  for (unsigned cidx = 0; cidx < corners; ++cidx) {
    int64_t idx[3] = {base[0], base[1], base[2]};
    float weight = 1.0f;
    for (unsigned k = 0; k < d.dims; ++k) {
      bool hi = (cidx >> k) & 1;
      idx[k] += hi;
      weight *= hi ? w[k] : 1.0f - w[k];
    }
    if (weight == 0.0f)
      continue;
    Texel t;
    fetchAt(d, idx, t);
    for (unsigned ch = 0; ch < 4; ++ch)
      acc[ch] += weight * t.f[ch];
  }
  for (unsigned ch = 0; ch < 4; ++ch) {
    out.f[ch] = acc[ch];
    out.i[ch] = 0;
  }
}

/// Reads and checks the descriptor a handle points at; null after reporting a fault.
const TexDesc *descriptor(ExecCtx &ctx, Warp &w, const Inst &in, unsigned lane, uint64_t h) {
  const Allocation *a = ctx.mem->find(h);
  const TexDesc *d = reinterpret_cast<const TexDesc *>(h);
  if (!a || a->base != h || a->kind != AllocKind::Const || a->size != sizeof(TexDesc) ||
      d->magic != kTexMagic || d->dims < 1 || d->dims > 3 || d->width == 0 || d->height == 0 ||
      d->depth == 0 || (d->channels != 1 && d->channels != 2 && d->channels != 4) ||
      (d->bits != 8 && d->bits != 16 && d->bits != 32)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "tex: 0x%llx is not a texture object", (unsigned long long)h);
    ctx.fault(FaultKind::Invalid, w, in, lane, buf);
    return nullptr;
  }
  uint64_t extent = d->resource == TexResource::Linear
                        ? (uint64_t)d->width * d->channels * (d->bits / 8)
                        : (uint64_t)(d->depth - 1) * d->slicePitch +
                              (uint64_t)(d->height - 1) * d->pitch +
                              (uint64_t)d->width * d->channels * (d->bits / 8);
  if (!ctx.mem->valid(d->data, extent)) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "tex: texture object 0x%llx refers to freed or invalid memory",
                  (unsigned long long)h);
    ctx.fault(FaultKind::OutOfBounds, w, in, lane, buf);
    return nullptr;
  }
  return d;
}

/// in.src[0]: handle; in.src[1..ncoords]: coordinates; in.aux: coordinates; in.flags bit0:
/// integer coordinates; in.width: 0 f32, 1 s32, 2 u32 destinations; in.dst[0..3].
void texFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *h = w.src(in.src[0]);
  unsigned nc = in.aux;
  const uint64_t *cs[3] = {nullptr, nullptr, nullptr};
  for (unsigned k = 0; k < nc; ++k)
    cs[k] = w.src(in.src[1 + k]);
  bool intCoords = in.flags & 1;
  uint64_t res[4][kWarpSize];
  uint64_t lastH = 0;
  const TexDesc *d = nullptr;
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    if (!d || h[l] != lastH) {
      d = descriptor(ctx, w, in, l, h[l]);
      lastH = h[l];
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
    Texel t;
    sample(*d, c, ic, intCoords, t);
    bool fl = floatResult(*d);
    for (unsigned ch = 0; ch < 4; ++ch) {
      uint32_t bits;
      if (fl) {
        if (in.width == 0)
          std::memcpy(&bits, &t.f[ch], 4);
        else
          bits = in.width == 1 ? (uint32_t)(int32_t)t.f[ch] : (uint32_t)t.f[ch];
      } else if (d->format == TexFormat::Float) {
        bits = t.i[ch];
      } else if (in.width == 0) {
        float f = d->format == TexFormat::Signed ? (float)(int32_t)t.i[ch] : (float)t.i[ch];
        std::memcpy(&bits, &f, 4);
      } else {
        bits = t.i[ch];
      }
      res[ch][l] = in.width == 1 ? (uint64_t)(int64_t)(int32_t)bits : (uint64_t)bits;
    }
  });
  if (bad)
    return;
  for (unsigned ch = 0; ch < 4; ++ch) {
    uint64_t *dst = w.reg(in.dst[ch]);
    forLanes(m, [&](unsigned l) { dst[l] = res[ch][l]; });
  }
}

bool lowerTex(LowerCtx &c) {
  unsigned nc;
  Mod g = c.first({Mod::_1d, Mod::_2d, Mod::_3d});
  if (g == Mod::_1d)
    nc = 1;
  else if (g == Mod::_2d)
    nc = 2;
  else if (g == Mod::_3d)
    nc = 3;
  else
    return c.unsupported("geometry (only .1d, .2d, .3d)");
  if (c.has(Mod::grad))
    return c.unsupported(".grad");
  ScalarType dt = c.type(0), ct = c.type(1);
  unsigned dkind;
  if (dt == ScalarType::f32)
    dkind = 0;
  else if (dt == ScalarType::s32)
    dkind = 1;
  else if (dt == ScalarType::u32)
    dkind = 2;
  else
    return c.unsupported("destination type");
  if (ct != ScalarType::f32 && ct != ScalarType::s32)
    return c.unsupported("coordinate type");
  if (c.vecWidth() != 4)
    return c.unsupported("vector width");
  unsigned extra = c.has(Mod::level) ? 1 : 0; // no mipmaps: the level of detail is ignored
  if (c.numOps() > 2 + extra)
    return c.unsupported("offset or depth-compare operand");
  const Operand &a = c.op(1);
  if (a.kind != Operand::Kind::Address || a.elems.size() != 2)
    return c.unsupported("texture operand (separate samplers are not supported)");
  const Operand &co = a.elems[1];
  std::vector<const Operand *> coords;
  if (co.kind == Operand::Kind::Vector)
    for (const Operand &e : co.elems)
      coords.push_back(&e);
  else
    coords.push_back(&co);
  if (coords.size() < nc)
    return c.unsupported("coordinate count");
  const Operand &dop = c.op(0);
  if (dop.kind != Operand::Kind::Vector || dop.elems.size() != 4)
    return c.unsupported("destination");
  ir::Opnd hs = c.src(a.elems[0], ScalarType::u64);
  ir::Opnd cs[3];
  for (unsigned k = 0; k < nc; ++k)
    cs[k] = c.src(*coords[k], ct);
  uint32_t d[4];
  for (unsigned i = 0; i < 4; ++i)
    d[i] = c.dst(dop.elems[i]);
  ir::Inst &in = c.emit(texFn, ir::OpClass::Misc); // no per-lane addresses for timing
  in.src[0] = hs;
  for (unsigned k = 0; k < nc; ++k)
    in.src[1 + k] = cs[k];
  in.nsrc = (uint8_t)(1 + nc);
  in.aux = nc;
  in.flags = ct == ScalarType::s32 ? 1 : 0;
  in.width = (uint8_t)dkind;
  in.ndst = 4;
  for (unsigned i = 0; i < 4; ++i)
    in.dst[i] = d[i];
  return true;
}

/// tld4 (tex2Dgather): component in.aux2 of the four texels bilinear filtering at (x, y) would
/// blend, in the order (i0,j1), (i1,j1), (i1,j0), (i0,j0). in.width: 0 f32, 1 s32, 2 u32.
void tld4Fn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *h = w.src(in.src[0]);
  const uint64_t *xs = w.src(in.src[1]);
  const uint64_t *ys = w.src(in.src[2]);
  unsigned comp = in.aux2;
  uint64_t res[4][kWarpSize];
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    const TexDesc *d = descriptor(ctx, w, in, l, h[l]);
    if (!d) {
      bad = true;
      return;
    }
    float c[2] = {fromBits<float>(xs[l]), fromBits<float>(ys[l])};
    int64_t base[2] = {0, 0};
    const int64_t size[2] = {d->width, d->height};
    for (unsigned k = 0; k < 2; ++k) {
      float x = d->normalizedCoords ? c[k] * (float)size[k] : c[k];
      float f = std::floor(x - 0.5f);
      if (std::isnan(f))
        f = 0;
      f = f < -1e9f ? -1e9f : f > 1e9f ? 1e9f : f;
      base[k] = (int64_t)f;
    }
    static const int kOff[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    bool fl = floatResult(*d);
    for (unsigned q = 0; q < 4; ++q) {
      int64_t idx[3] = {base[0] + kOff[q][0], base[1] + kOff[q][1], 0};
      Texel t;
      if (d->resource == TexResource::Linear || d->dims != 2) {
        std::memset(&t, 0, sizeof t);
      } else {
        fetchAt(*d, idx, t);
      }
      uint32_t bits;
      if (fl && in.width == 0)
        std::memcpy(&bits, &t.f[comp], 4);
      else if (fl)
        bits = in.width == 1 ? (uint32_t)(int32_t)t.f[comp] : (uint32_t)t.f[comp];
      else if (d->format != TexFormat::Float && in.width == 0) {
        float f = d->format == TexFormat::Signed ? (float)(int32_t)t.i[comp] : (float)t.i[comp];
        std::memcpy(&bits, &f, 4);
      } else
        bits = t.i[comp];
      res[q][l] = in.width == 1 ? (uint64_t)(int64_t)(int32_t)bits : (uint64_t)bits;
    }
  });
  if (bad)
    return;
  for (unsigned q = 0; q < 4; ++q) {
    uint64_t *dst = w.reg(in.dst[q]);
    forLanes(m, [&](unsigned l) { dst[l] = res[q][l]; });
  }
}

bool lowerTld4(LowerCtx &c) {
  if (!c.has(Mod::_2d))
    return c.unsupported("geometry (only .2d)");
  Mod cm = c.first({Mod::r, Mod::g, Mod::b, Mod::a});
  unsigned comp = cm == Mod::r ? 0 : cm == Mod::g ? 1 : cm == Mod::b ? 2 : 3;
  ScalarType dt = c.type(0);
  unsigned dkind = dt == ScalarType::f32 ? 0 : dt == ScalarType::s32 ? 1 : 2;
  if (c.numOps() > 2)
    return c.unsupported("offset or depth-compare operand");
  const Operand &a = c.op(1);
  if (a.kind != Operand::Kind::Address || a.elems.size() != 2 ||
      a.elems[1].kind != Operand::Kind::Vector || a.elems[1].elems.size() < 2)
    return c.unsupported("texture operand (separate samplers are not supported)");
  const Operand &dop = c.op(0);
  if (dop.kind != Operand::Kind::Vector || dop.elems.size() != 4)
    return c.unsupported("destination");
  ir::Opnd hs = c.src(a.elems[0], ScalarType::u64);
  ir::Opnd xs = c.src(a.elems[1].elems[0], ScalarType::f32);
  ir::Opnd ys = c.src(a.elems[1].elems[1], ScalarType::f32);
  uint32_t d[4];
  for (unsigned i = 0; i < 4; ++i)
    d[i] = c.dst(dop.elems[i]);
  ir::Inst &in = c.emit(tld4Fn, ir::OpClass::Misc);
  in.src[0] = hs;
  in.src[1] = xs;
  in.src[2] = ys;
  in.nsrc = 3;
  in.aux2 = comp;
  in.width = (uint8_t)dkind;
  in.ndst = 4;
  for (unsigned i = 0; i < 4; ++i)
    in.dst[i] = d[i];
  return true;
}

/// txq: in.aux = query (0 width, 1 height, 2 depth, 3 normalized_coords, 4 filter_mode,
/// 5..7 addr_mode_0..2, 8 num_mipmap_levels).
void txqFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *h = w.src(in.src[0]);
  uint64_t res[kWarpSize];
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    const TexDesc *d = descriptor(ctx, w, in, l, h[l]);
    if (!d) {
      bad = true;
      return;
    }
    uint32_t v = 0;
    switch (in.aux) {
    case 0: v = d->width; break;
    case 1: v = d->height; break;
    case 2: v = d->depth; break;
    case 3: v = d->normalizedCoords; break;
    case 4: v = d->filter == TexFilter::Linear ? 1 : 0; break;
    case 8: v = 1; break;
    default: {
      // PTX enum: wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border
      TexAddress am = d->address[in.aux - 5];
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
  if (c.has(Mod::level))
    return c.unsupported(".level");
  static const Mod kQ[] = {Mod::width, Mod::height, Mod::depth, Mod::normalized_coords,
                           Mod::filter_mode, Mod::addr_mode_0, Mod::addr_mode_1,
                           Mod::addr_mode_2, Mod::num_mipmap_levels};
  unsigned q = 0;
  while (q < 9 && !c.has(kQ[q]))
    ++q;
  if (q == 9)
    return c.unsupported("query");
  const Operand &a = c.op(1);
  if (a.kind != Operand::Kind::Address || a.elems.empty())
    return c.unsupported("texture operand");
  ir::Opnd hs = c.src(a.elems[0], ScalarType::u64);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(txqFn, ir::OpClass::Misc);
  in.src[0] = hs;
  in.nsrc = 1;
  in.aux = q;
  in.dst[0] = d;
  in.ndst = 1;
  return true;
}

} // namespace

void registerTextureOps() {
  registerLowering("tex", lowerTex);
  registerLowering("tld4", lowerTld4);
  registerLowering("txq", lowerTxq);
}

} // namespace ptxsim::ptx::exec
