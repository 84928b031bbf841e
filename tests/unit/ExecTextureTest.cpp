// Executor texture fetches (tex on TexDesc texture objects): point and linear filtering with
// every address mode, normalized and unnormalized coordinates, element and normalized-float
// read modes, integer results, 1D linear-memory fetches (zero outside), 3D, and faults for
// handles that are not texture descriptors. Descriptors are built on the host; expected values
// come from a CPU model of the texture unit (linear corner weights from linearWeights, whose own
// values are checked against numbers an H100 produced).

#include "ExecHarness.h"
#include "ptx/exec/OpsTexture.h"
#include "ptx/exec/TextureDesc.h"

#include <cmath>

using namespace ptxsim;
using namespace ptxsim::test;
using ptx::exec::AllocKind;
using ptx::exec::TexAddress;
using ptx::exec::TexDesc;
using ptx::exec::TexFilter;
using ptx::exec::TexFormat;
using ptx::exec::TexLevel;
using ptx::exec::TexResource;

namespace {

const char *kKernels = R"(
.visible .entry t2d(.param .u64 out, .param .u64 tex, .param .u64 xs, .param .u64 ys) {
  .reg .b32 %r<4>; .reg .b64 %rd<12>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex]; ld.param.u64 %rd3, [xs]; ld.param.u64 %rd4, [ys];
  mov.u32 %r1, %tid.x; mul.wide.u32 %rd5, %r1, 4; mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd5; add.s64 %rd8, %rd4, %rd5; add.s64 %rd9, %rd1, %rd6;
  ld.global.f32 %f1, [%rd7]; ld.global.f32 %f2, [%rd8];
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%f1, %f2}];
  st.global.v4.f32 [%rd9], {%f3, %f4, %f5, %f6};
  ret;
}
.visible .entry t2di(.param .u64 out, .param .u64 tex, .param .u64 xs, .param .u64 ys) {
  .reg .b32 %r<8>; .reg .b64 %rd<12>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex]; ld.param.u64 %rd3, [xs]; ld.param.u64 %rd4, [ys];
  mov.u32 %r1, %tid.x; mul.wide.u32 %rd5, %r1, 4; mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd5; add.s64 %rd8, %rd4, %rd5; add.s64 %rd9, %rd1, %rd6;
  ld.global.f32 %f1, [%rd7]; ld.global.f32 %f2, [%rd8];
  tex.2d.v4.s32.f32 {%r2, %r3, %r4, %r5}, [%rd2, {%f1, %f2}];
  st.global.v4.u32 [%rd9], {%r2, %r3, %r4, %r5};
  ret;
}
.visible .entry t1d(.param .u64 out, .param .u64 tex, .param .u32 lo) {
  .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex]; ld.param.u32 %r6, [lo];
  mov.u32 %r1, %tid.x; add.s32 %r7, %r1, %r6; mul.wide.u32 %rd6, %r1, 16; add.s64 %rd7, %rd1, %rd6;
  tex.1d.v4.u32.s32 {%r2, %r3, %r4, %r5}, [%rd2, {%r7}];
  st.global.v4.u32 [%rd7], {%r2, %r3, %r4, %r5};
  ret;
}
.visible .entry t3d(.param .u64 out, .param .u64 tex, .param .u64 xs, .param .u64 ys) {
  .reg .b32 %r<4>; .reg .b64 %rd<12>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex]; ld.param.u64 %rd3, [xs]; ld.param.u64 %rd4, [ys];
  mov.u32 %r1, %tid.x; mul.wide.u32 %rd5, %r1, 4; mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd5; add.s64 %rd8, %rd4, %rd5; add.s64 %rd9, %rd1, %rd6;
  ld.global.f32 %f1, [%rd7]; ld.global.f32 %f2, [%rd8];
  tex.3d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%f1, %f2, %f1, %f1}];
  st.global.v4.f32 [%rd9], {%f3, %f4, %f5, %f6};
  ret;
}
.visible .entry g4(.param .u64 out, .param .u64 tex, .param .u64 xs, .param .u64 ys) {
  .reg .b32 %r<4>; .reg .b64 %rd<12>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex]; ld.param.u64 %rd3, [xs]; ld.param.u64 %rd4, [ys];
  mov.u32 %r1, %tid.x; mul.wide.u32 %rd5, %r1, 4; mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd5; add.s64 %rd8, %rd4, %rd5; add.s64 %rd9, %rd1, %rd6;
  ld.global.f32 %f1, [%rd7]; ld.global.f32 %f2, [%rd8];
  tld4.g.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%f1, %f2}];
  st.global.v4.f32 [%rd9], {%f3, %f4, %f5, %f6};
  ret;
}
.visible .entry q(.param .u64 out, .param .u64 tex) {
  .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex];
  txq.width.b32 %r1, [%rd2]; txq.height.b32 %r2, [%rd2]; txq.depth.b32 %r3, [%rd2];
  txq.normalized_coords.b32 %r4, [%rd2]; txq.filter_mode.b32 %r5, [%rd2];
  txq.addr_mode_0.b32 %r6, [%rd2]; txq.addr_mode_1.b32 %r7, [%rd2]; txq.addr_mode_2.b32 %r8, [%rd2];
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  ret;
}
)";

/// CPU model: texel value(s) of channel c at integer indices, then filtering.
struct Model {
  TexDesc d;
  std::vector<float> v; ///< channels floats per texel, already converted by the read mode

  bool index(int k, long long &i) const {
    long long n = k == 0 ? d.width : k == 1 ? d.height : d.depth;
    TexAddress m = d.address[k];
    if (!d.normalizedCoords && (m == TexAddress::Wrap || m == TexAddress::Mirror))
      m = TexAddress::Clamp;
    if (m == TexAddress::Border)
      return i >= 0 && i < n;
    if (m == TexAddress::Clamp)
      i = std::max(0LL, std::min(n - 1, i));
    else if (m == TexAddress::Wrap)
      i = ((i % n) + n) % n;
    else {
      long long j = ((i % (2 * n)) + 2 * n) % (2 * n);
      i = j < n ? j : 2 * n - 1 - j;
    }
    return true;
  }
  float texel(const long long *idx, unsigned c) const {
    long long p[3] = {0, 0, 0};
    for (int k = 0; k < d.dims; ++k) {
      p[k] = idx[k];
      if (!index(k, p[k]))
        return d.border[c];
    }
    if (c >= d.channels)
      return c == 3 ? 1.0f : 0.0f;
    return v[((p[2] * d.height + p[1]) * d.width + p[0]) * d.channels + c];
  }
  float sample(const float *xyz, unsigned c) const {
    float x[3];
    long long size[3] = {d.width, d.height, d.depth};
    for (int k = 0; k < d.dims; ++k)
      x[k] = d.normalizedCoords ? ptx::exec::normalizedToTexels(xyz[k], (uint32_t)size[k]) : xyz[k];
    if (d.filter == TexFilter::Point) {
      long long idx[3];
      for (int k = 0; k < d.dims; ++k)
        idx[k] = (long long)std::floor(x[k]);
      return texel(idx, c);
    }
    long long i0[3];
    unsigned q[3], w[8];
    for (int k = 0; k < d.dims; ++k) {
      // clamp addressing clamps the coordinate to the outer texel centres first
      if (d.address[k] == TexAddress::Clamp || (!d.normalizedCoords && d.address[k] != TexAddress::Border))
        x[k] = std::max(0.5f, std::min((float)size[k] - 0.5f, x[k]));
      float t = x[k] - 0.5f;
      i0[k] = (long long)std::floor(t);
      q[k] = ptx::exec::linearFraction(t - std::floor(t));
    }
    ptx::exec::linearWeights(d.dims, q, w);
    float sum = 0;
    for (int corner = 0; corner < (1 << d.dims); ++corner) {
      long long idx[3];
      for (int k = 0; k < d.dims; ++k)
        idx[k] = i0[k] + (corner >> k & 1);
      sum += w[corner] / 256.0f * texel(idx, c);
    }
    return sum;
  }
};

uint64_t makeTex(ExecHarness &h, const TexDesc &d) {
  uint64_t a = h.engine->memory().allocate(sizeof(TexDesc), AllocKind::Const);
  std::memcpy(reinterpret_cast<void *>(a), &d, sizeof d);
  return a;
}

/// Coordinates for 32 lanes spanning [lo, hi) texels, offset from texel boundaries.
std::vector<float> coords(float lo, float hi, float scale, unsigned rot) {
  std::vector<float> c(32);
  for (unsigned i = 0; i < 32; ++i)
    c[i] = (lo + (hi - lo) * (float)((i * 7 + rot) % 32) / 32.0f + 1.0f / 128) / scale;
  return c;
}

TexDesc floatTex2D(ExecHarness &h, unsigned w, unsigned hgt, std::vector<float> &vals) {
  vals.resize(w * hgt);
  for (unsigned i = 0; i < w * hgt; ++i)
    vals[i] = (float)((i * 37) % 101) / 10.0f - 3.0f;
  TexDesc d;
  d.resource = TexResource::Array;
  d.data = h.upload(vals);
  d.width = w;
  d.height = hgt;
  d.pitch = w * 4;
  d.slicePitch = d.pitch * hgt;
  d.channels = 1;
  d.bits = 32;
  d.format = TexFormat::Float;
  d.dims = 2;
  d.border[0] = 42.5f;
  return d;
}

TEST(ExecTexture, Float2DEveryFilterAndAddressMode) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  const unsigned W = 7, H = 5;
  std::vector<float> vals;
  TexDesc base = floatTex2D(h, W, H, vals);
  uint64_t out = h.alloc(32 * 16);
  for (int norm = 0; norm < 2; ++norm)
    for (int filt = 0; filt < 2; ++filt)
      for (int mode = 0; mode < 4; ++mode) {
        TexDesc d = base;
        d.filter = (TexFilter)filt;
        d.address[0] = d.address[1] = (TexAddress)mode;
        d.normalizedCoords = (uint8_t)norm;
        uint64_t t = makeTex(h, d);
        auto xs = coords(-9, 16, norm ? W : 1, 0), ys = coords(-6, 11, norm ? H : 1, 3);
        auto r = h.launch("t2d", {1}, {32}, {out, t, h.upload(xs), h.upload(ys)});
        ASSERT_TRUE(r.ok()) << r.message;
        auto got = h.read<float>(out, 128);
        Model m{d, vals};
        for (unsigned l = 0; l < 32; ++l) {
          float c[2] = {xs[l], ys[l]};
          for (unsigned ch = 0; ch < 4; ++ch)
            EXPECT_NEAR(got[l * 4 + ch], ch == 0 ? m.sample(c, 0) : m.sample(c, ch), 1e-5)
                << "norm " << norm << " filter " << filt << " mode " << mode << " lane " << l
                << " ch " << ch << " at " << c[0] << "," << c[1];
        }
      }
}

TEST(ExecTexture, LinearWeightsAreQuantisedTo256ths) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  std::vector<float> vals = {0.0f, 1.0f};
  TexDesc d;
  d.resource = TexResource::Array;
  d.data = h.upload(vals);
  d.width = 2;
  d.height = 1;
  d.pitch = 8;
  d.slicePitch = 8;
  d.dims = 2;
  d.filter = TexFilter::Linear;
  uint64_t t = makeTex(h, d);
  std::vector<float> xs(32), ys(32, 0.5f);
  for (unsigned l = 0; l < 32; ++l)
    xs[l] = 0.5f + 0.3f * l / 31.0f + 0.001f; // between texel centres 0 and 1
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("t2d", {1}, {32}, {out, t, h.upload(xs), h.upload(ys)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<float>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    float q = got[l * 4] * 256.0f;
    EXPECT_EQ(q, std::round(q)) << "lane " << l;
    EXPECT_NEAR(got[l * 4], xs[l] - 0.5f, 1.0f / 512 + 1e-6);
  }
}

TEST(ExecTexture, NormalizedFloatReadsOfBytesAndShorts) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  const unsigned W = 6, H = 4;
  // uchar4, linear, wrap, normalized coordinates
  std::vector<uint8_t> px(W * H * 4);
  for (unsigned i = 0; i < px.size(); ++i)
    px[i] = (uint8_t)(i * 53 + 7);
  TexDesc d;
  d.resource = TexResource::Pitch2D;
  d.data = h.upload(px);
  d.width = W;
  d.height = H;
  d.pitch = W * 4;
  d.slicePitch = d.pitch * H;
  d.channels = 4;
  d.bits = 8;
  d.format = TexFormat::Unsigned;
  d.readNormalizedFloat = 1;
  d.filter = TexFilter::Linear;
  d.normalizedCoords = 1;
  d.address[0] = d.address[1] = TexAddress::Wrap;
  d.dims = 2;
  Model m{d, {}};
  for (uint8_t b : px)
    m.v.push_back(b / 255.0f);
  uint64_t out = h.alloc(32 * 16);
  auto xs = coords(-5, 12, W, 1), ys = coords(-3, 9, H, 5);
  auto r = h.launch("t2d", {1}, {32}, {out, makeTex(h, d), h.upload(xs), h.upload(ys)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<float>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    float c[2] = {xs[l], ys[l]};
    for (unsigned ch = 0; ch < 4; ++ch)
      EXPECT_NEAR(got[l * 4 + ch], m.sample(c, ch), 1e-5) << "lane " << l << " ch " << ch;
  }
  // signed shorts, point: v / 32767 clamped to -1
  std::vector<int16_t> sv = {-32768, -32767, -1, 0, 1, 16384, 32767, 100};
  TexDesc s;
  s.resource = TexResource::Array;
  s.data = h.upload(sv);
  s.width = 8;
  s.height = 1;
  s.pitch = 16;
  s.slicePitch = 16;
  s.channels = 1;
  s.bits = 16;
  s.format = TexFormat::Signed;
  s.readNormalizedFloat = 1;
  s.dims = 2;
  std::vector<float> xs2(32), ys2(32, 0.5f);
  for (unsigned l = 0; l < 32; ++l)
    xs2[l] = (float)(l % 8) + 0.5f;
  r = h.launch("t2d", {1}, {32}, {out, makeTex(h, s), h.upload(xs2), h.upload(ys2)});
  ASSERT_TRUE(r.ok()) << r.message;
  got = h.read<float>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    float want = std::max(-1.0f, sv[l % 8] / 32767.0f);
    EXPECT_FLOAT_EQ(got[l * 4], want) << l;
    EXPECT_EQ(got[l * 4 + 1], 0.0f);
    EXPECT_EQ(got[l * 4 + 3], 1.0f);
  }
}

TEST(ExecTexture, ElementReadsOfIntegersIgnoreLinearFiltering) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  std::vector<int32_t> vals = {-5, 6, -7, 8, 100, -200, 300, -400};
  TexDesc d;
  d.resource = TexResource::Array;
  d.data = h.upload(vals);
  d.width = 2;
  d.height = 2;
  d.pitch = 16;
  d.slicePitch = 32;
  d.channels = 2;
  d.bits = 32;
  d.format = TexFormat::Signed;
  d.filter = TexFilter::Linear; // integer results: point sampling
  d.dims = 2;
  std::vector<float> xs(32), ys(32);
  for (unsigned l = 0; l < 32; ++l) {
    xs[l] = -1.25f + 0.25f * (l % 16);
    ys[l] = l < 16 ? 0.75f : 1.5f;
  }
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("t2di", {1}, {32}, {out, makeTex(h, d), h.upload(xs), h.upload(ys)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<int32_t>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    int x = std::max(0, std::min(1, (int)std::floor(xs[l])));
    int y = std::max(0, std::min(1, (int)std::floor(ys[l])));
    EXPECT_EQ(got[l * 4], vals[(y * 2 + x) * 2]) << l;
    EXPECT_EQ(got[l * 4 + 1], vals[(y * 2 + x) * 2 + 1]) << l;
    EXPECT_EQ(got[l * 4 + 2], 0) << l;
  }
}

TEST(ExecTexture, Fetch1DLinearMemoryZeroOutside) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  std::vector<uint32_t> vals(20);
  for (unsigned i = 0; i < 20; ++i)
    vals[i] = 1000 + i * 3;
  TexDesc d;
  d.resource = TexResource::Linear;
  d.data = h.upload(vals);
  d.width = 20;
  d.pitch = 80;
  d.slicePitch = 80;
  d.bits = 32;
  d.format = TexFormat::Unsigned;
  d.address[0] = TexAddress::Wrap; // ignored for linear memory
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("t1d", {1}, {32}, {out, makeTex(h, d), (uint64_t)(uint32_t)-6});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<uint32_t>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    int k = (int)l - 6;
    EXPECT_EQ(got[l * 4], k >= 0 && k < 20 ? vals[k] : 0u) << l;
  }
}

// Numbers from native H100 runs (tools/hw/data/h100-2026-11-26/failures.txt): the corner weights
// are whole 1/256 steps summing to 1, not the products of the fractions.
TEST(ExecTexture, LinearWeightsMatchTheHardware) {
  using ptx::exec::linearFraction;
  using ptx::exec::linearWeights;
  unsigned w[8];
  // 50_textures at texel (0.6953125, 0.5234375): fractions 50/256 and 6/256; the GPU's
  // 0.0863672 over texels 0, 0.37, 0.77, 0.13 is weights 201, 49, 5, 1
  unsigned q2[2] = {50, 6};
  ASSERT_EQ(linearWeights(2, q2, w), 4u);
  EXPECT_EQ(w[0], 201u);
  EXPECT_EQ(w[1], 49u);
  EXPECT_EQ(w[2], 5u);
  EXPECT_EQ(w[3], 1u);
  // tex_layered_cube: fractions 230 and 225 (the GPU's 14.660156 over 6.5, -1, -16.5, 20.5)
  unsigned q2b[2] = {230, 225};
  linearWeights(2, q2b, w);
  EXPECT_EQ(w[0], 3u);
  EXPECT_EQ(w[1], 28u);
  EXPECT_EQ(w[2], 23u);
  EXPECT_EQ(w[3], 202u);
  // tex_3d_memcpy3d: fractions 168, 52, 106; the GPU's 4.290039 needs the two corners with
  // y and z high to weigh 21/256 together (the exact product gives 21.53)
  unsigned q3[3] = {168, 52, 106};
  ASSERT_EQ(linearWeights(3, q3, w), 8u);
  EXPECT_EQ(w[6] + w[7], 21u);
  const float t3[8] = {-10, -3, 3, 10, 19.125f, 26.125f, -28.875f, -21.875f};
  double v = 0;
  for (unsigned c = 0; c < 8; ++c)
    v += w[c] * (double)t3[c] / 256;
  EXPECT_NEAR(v, 4.290039, 1e-6);
  // ties, as a GPU rounds them (one-hot texture probes on an H200): in 2D the y split rounds
  // halves up on the upper texel in x and down on the lower one
  const unsigned ties2[][6] = {{128, 1, 128, 127, 0, 1}, {64, 2, 191, 63, 1, 1}, {192, 2, 64, 190, 0, 2}};
  for (const auto &t : ties2) {
    linearWeights(2, t, w);
    EXPECT_EQ(w[0], t[2]);
    EXPECT_EQ(w[1], t[3]);
    EXPECT_EQ(w[2], t[4]);
    EXPECT_EQ(w[3], t[5]);
  }
  // 3D: z first, then x (halves up), then y
  const unsigned ties3[][11] = {{64, 0, 106, 112, 38, 0, 0, 79, 27, 0, 0},
                                {218, 1, 106, 22, 127, 0, 1, 16, 90, 0, 0},
                                {37, 1, 106, 128, 22, 0, 0, 91, 15, 0, 0},
                                {101, 2, 106, 90, 59, 1, 0, 64, 42, 0, 0}};
  for (const auto &t : ties3) {
    linearWeights(3, t, w);
    for (unsigned c = 0; c < 8; ++c)
      EXPECT_EQ(w[c], t[3 + c]) << t[0] << "," << t[1] << "," << t[2] << " corner " << c;
  }
  // normalized coordinates: 21 fraction bits, truncated, then times the size
  EXPECT_EQ(ptx::exec::normalizedToTexels(0.5f, 13), 6.5f);
  EXPECT_EQ(ptx::exec::normalizedToTexels(0x1.7b2766p-1f, 13), (float)(1553014.0 * 13 / 2097152));
  // every fraction: whole weights that sum to 256 and keep each dimension's fraction
  for (unsigned a = 0; a <= 256; a += 3)
    for (unsigned b = 0; b <= 256; b += 5) {
      unsigned q[3] = {a, b, (a * 7 + b) % 257};
      linearWeights(3, q, w);
      unsigned sum = 0;
      for (unsigned c = 0; c < 8; ++c)
        sum += w[c];
      ASSERT_EQ(sum, 256u) << a << " " << b;
      linearWeights(2, q, w);
      ASSERT_EQ(w[0] + w[1] + w[2] + w[3], 256u);
      ASSERT_EQ(w[1] + w[3], a);
      ASSERT_EQ(w[2] + w[3], b);
    }
  // the fraction: 8 bits, rounded to nearest; 256 just below the next texel
  EXPECT_EQ(linearFraction(0.0f), 0u);
  EXPECT_EQ(linearFraction(0.1953125f), 50u);
  EXPECT_EQ(linearFraction(0.99f), 253u);
  EXPECT_EQ(linearFraction(0.999f), 256u);
  EXPECT_EQ(linearFraction(NAN), 0u);
}

TEST(ExecTexture, Trilinear3D) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  const unsigned n = 4;
  std::vector<float> vals(n * n * n);
  for (unsigned i = 0; i < vals.size(); ++i)
    vals[i] = (float)((i * 29) % 61);
  TexDesc d;
  d.resource = TexResource::Array;
  d.data = h.upload(vals);
  d.width = d.height = d.depth = n;
  d.pitch = n * 4;
  d.slicePitch = n * n * 4;
  d.filter = TexFilter::Linear;
  d.dims = 3;
  d.address[0] = TexAddress::Clamp;
  d.address[1] = TexAddress::Border;
  d.address[2] = TexAddress::Clamp;
  d.border[0] = -1.0f;
  auto xs = coords(-2, 6, 1, 0), ys = coords(-1, 5, 1, 9);
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("t3d", {1}, {32}, {out, makeTex(h, d), h.upload(xs), h.upload(ys)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<float>(out, 128);
  Model m{d, vals};
  for (unsigned l = 0; l < 32; ++l) {
    float c[3] = {xs[l], ys[l], xs[l]};
    EXPECT_NEAR(got[l * 4], m.sample(c, 0), 1e-4) << l;
  }
}

TEST(ExecTexture, BadHandlesFault) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  uint64_t out = h.alloc(32 * 16);
  uint64_t xs = h.upload(std::vector<float>(32, 0.5f));
  // not an allocation
  auto r = h.launch("t2d", {1}, {32}, {out, 0x1234, xs, xs});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("not a texture object"), std::string::npos) << r.message;
  // a device buffer holding a valid-looking descriptor is still not a texture object
  std::vector<float> vals;
  TexDesc d = floatTex2D(h, 2, 2, vals);
  uint64_t fake = h.alloc(sizeof(TexDesc));
  std::memcpy(reinterpret_cast<void *>(fake), &d, sizeof d);
  r = h.launch("t2d", {1}, {32}, {out, fake, xs, xs});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("not a texture object"), std::string::npos) << r.message;
  // a Const allocation with the wrong magic
  TexDesc bad = d;
  bad.magic = 0;
  r = h.launch("t2d", {1}, {32}, {out, makeTex(h, bad), xs, xs});
  EXPECT_FALSE(r.ok());
  // the real one works; after its data is freed it faults
  uint64_t good = makeTex(h, d);
  r = h.launch("t2d", {1}, {32}, {out, good, xs, xs});
  EXPECT_TRUE(r.ok()) << r.message;
  h.engine->memory().release(d.data);
  r = h.launch("t2d", {1}, {32}, {out, good, xs, xs});
  EXPECT_FALSE(r.ok());
}

TEST(ExecTexture, Tld4GathersOneComponentOfTheFourBilinearTexels) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  const unsigned W = 5, H = 4;
  std::vector<float> vals(W * H * 2);
  for (unsigned i = 0; i < vals.size(); ++i)
    vals[i] = (float)i;
  TexDesc d;
  d.resource = TexResource::Array;
  d.data = h.upload(vals);
  d.width = W;
  d.height = H;
  d.pitch = W * 8;
  d.slicePitch = d.pitch * H;
  d.channels = 2;
  d.dims = 2;
  d.address[0] = d.address[1] = TexAddress::Clamp;
  auto xs = coords(-2, 7, 1, 0), ys = coords(-2, 6, 1, 4);
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("g4", {1}, {32}, {out, makeTex(h, d), h.upload(xs), h.upload(ys)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<float>(out, 128);
  auto at = [&](long long x, long long y) {
    x = std::max(0LL, std::min<long long>(W - 1, x));
    y = std::max(0LL, std::min<long long>(H - 1, y));
    return vals[(y * W + x) * 2 + 1];
  };
  for (unsigned l = 0; l < 32; ++l) {
    long long i0 = (long long)std::floor(xs[l] - 0.5f), j0 = (long long)std::floor(ys[l] - 0.5f);
    EXPECT_EQ(got[l * 4 + 0], at(i0, j0 + 1)) << l;
    EXPECT_EQ(got[l * 4 + 1], at(i0 + 1, j0 + 1)) << l;
    EXPECT_EQ(got[l * 4 + 2], at(i0 + 1, j0)) << l;
    EXPECT_EQ(got[l * 4 + 3], at(i0, j0)) << l;
  }
}

TEST(ExecTexture, TxqReportsTheDescriptor) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  std::vector<float> vals;
  TexDesc d = floatTex2D(h, 6, 3, vals);
  d.normalizedCoords = 1;
  d.filter = TexFilter::Linear;
  d.address[0] = TexAddress::Wrap;
  d.address[1] = TexAddress::Mirror;
  d.address[2] = TexAddress::Border;
  uint64_t out = h.alloc(32);
  auto r = h.launch("q", {1}, {1}, {out, makeTex(h, d)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 8), (std::vector<uint32_t>{6, 3, 1, 1, 1, 0, 1, 4}));
  r = h.launch("q", {1}, {1}, {out, out});
  EXPECT_FALSE(r.ok());
}

TEST(ExecTexture, LevelIsIgnoredWithoutMipmapsAndUnsupportedFormsFault) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + R"(
.visible .entry lv(.param .u64 out, .param .u64 tex) {
  .reg .b64 %rd<4>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex];
  mov.f32 %f1, 1.5; mov.f32 %f2, 0.5; mov.f32 %f7, 3.0;
  tex.level.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%f1, %f2}], %f7;
  st.global.v4.f32 [%rd1], {%f3, %f4, %f5, %f6};
  ret;
}
.visible .entry ms(.param .u64 out, .param .u64 tex) {
  .reg .b32 %r<2>; .reg .b64 %rd<4>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex];
  mov.u32 %r1, 0;
  tex.2dms.v4.f32.s32 {%f3, %f4, %f5, %f6}, [%rd2, {%r1, %r1, %r1, %r1}];
  st.global.v4.f32 [%rd1], {%f3, %f4, %f5, %f6};
  ret;
}
.visible .entry cube(.param .u64 out, .param .u64 tex) {
  .reg .b64 %rd<4>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex];
  mov.f32 %f1, 1.0;
  tex.cube.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%f1, %f1, %f1, %f1}];
  st.global.v4.f32 [%rd1], {%f3, %f4, %f5, %f6};
  ret;
}
)")) << h.errors;
  std::vector<float> vals;
  TexDesc d = floatTex2D(h, 4, 2, vals);
  uint64_t t = makeTex(h, d), out = h.alloc(16);
  auto r = h.launch("lv", {1}, {1}, {out, t});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<float>(out, 1)[0], vals[1]);
  r = h.launch("ms", {1}, {1}, {out, t});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("unsupported PTX instruction 'tex.2dms"), std::string::npos) << r.message;
  r = h.launch("cube", {1}, {1}, {out, t});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("not a cubemap"), std::string::npos) << r.message;
}

// --- layered, cubemap and mipmapped textures -----------------------------------------------

/// A kernel around `body`: each lane loads %f1, %f2, %f3 from buffers a, b, c and an integer %r4
/// (the layer) from buffer l; `body` fills %f4..%f7, which go to out (16 bytes per lane).
std::string texKernel(const std::string &name, const std::string &body) {
  return ".visible .entry " + name +
         "(.param .u64 out, .param .u64 tex, .param .u64 a, .param .u64 b, .param .u64 c,"
         " .param .u64 l) {\n"
         "  .reg .b32 %r<8>; .reg .b64 %rd<16>; .reg .f32 %f<12>;\n"
         "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex]; ld.param.u64 %rd3, [a];\n"
         "  ld.param.u64 %rd4, [b]; ld.param.u64 %rd5, [c]; ld.param.u64 %rd6, [l];\n"
         "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd7, %r1, 4; mul.wide.u32 %rd8, %r1, 16;\n"
         "  add.s64 %rd3, %rd3, %rd7; add.s64 %rd4, %rd4, %rd7; add.s64 %rd5, %rd5, %rd7;\n"
         "  add.s64 %rd6, %rd6, %rd7; add.s64 %rd1, %rd1, %rd8;\n"
         "  ld.global.f32 %f1, [%rd3]; ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd5];\n"
         "  ld.global.u32 %r4, [%rd6]; mov.f32 %f8, 0f00000000;\n  " +
         body + "\n  st.global.v4.f32 [%rd1], {%f4, %f5, %f6, %f7};\n  ret;\n}\n";
}

/// Single-channel float texture with layers and mip levels, and its CPU model.
struct LayeredModel {
  TexDesc d;
  std::vector<std::vector<float>> level; ///< per level: layers x depth x height x width
  TexLevel geom(unsigned m) const { return ptx::exec::texLevel(d, m); }

  float texel(unsigned m, unsigned layer, long long x, long long y, bool edge) const {
    TexLevel g = geom(m);
    long long idx[2] = {x, y}, n[2] = {g.width, g.height};
    for (int k = 0; k < d.dims; ++k) {
      TexAddress am = edge ? TexAddress::Clamp : d.address[k];
      if (!d.normalizedCoords && am != TexAddress::Border)
        am = TexAddress::Clamp;
      if (am == TexAddress::Border && (idx[k] < 0 || idx[k] >= n[k]))
        return d.border[0];
      if (am == TexAddress::Clamp)
        idx[k] = std::max(0LL, std::min(n[k] - 1, idx[k]));
      if (am == TexAddress::Wrap)
        idx[k] = ((idx[k] % n[k]) + n[k]) % n[k];
    }
    return level[m][(layer * g.height + idx[1]) * g.width + idx[0]];
  }
  /// Filters level m of `layer` at normalized-or-not coordinates (u, v), times total / 256 (the
  /// level's share in 1/256 when two levels are blended; linear filtering splits it).
  float filter(unsigned m, unsigned layer, float u, float v, bool norm, bool edge, unsigned total = 256) const {
    TexLevel g = geom(m);
    float x = norm ? ptx::exec::normalizedToTexels(u, g.width) : u,
          y = norm ? ptx::exec::normalizedToTexels(v, g.height) : v;
    if (d.filter == TexFilter::Point)
      return total / 256.0f * texel(m, layer, (long long)std::floor(x), (long long)std::floor(y), edge);
    float *c[2] = {&x, &y};
    long long n[2] = {g.width, g.height};
    for (int k = 0; k < (d.dims == 1 ? 1 : 2); ++k) {
      TexAddress am = edge ? TexAddress::Clamp : d.address[k];
      if (am == TexAddress::Clamp || (!norm && am != TexAddress::Border))
        *c[k] = std::max(0.5f, std::min((float)n[k] - 0.5f, *c[k]));
    }
    float xb = x - 0.5f, yb = y - 0.5f;
    long long i = (long long)std::floor(xb), j = (long long)std::floor(yb);
    unsigned q[2] = {ptx::exec::linearFraction(xb - std::floor(xb)),
                     ptx::exec::linearFraction(yb - std::floor(yb))},
             w[4];
    ptx::exec::linearWeights(d.dims == 1 ? 1 : 2, q, w, total);
    if (d.dims == 1)
      return w[0] / 256.0f * texel(m, layer, i, 0, edge) + w[1] / 256.0f * texel(m, layer, i + 1, 0, edge);
    return (w[0] * texel(m, layer, i, j, edge) + w[1] * texel(m, layer, i + 1, j, edge) +
            w[2] * texel(m, layer, i, j + 1, edge) + w[3] * texel(m, layer, i + 1, j + 1, edge)) /
           256.0f;
  }
};

/// Builds a float texture of w x h texels, `layers` layers and `levels` mip levels (0: none),
/// packed as TextureDesc.h lays mipmapped resources out.
LayeredModel layeredTex(ExecHarness &h, unsigned w, unsigned hgt, unsigned dims, unsigned layers,
                        unsigned levels) {
  LayeredModel m;
  TexDesc &d = m.d;
  d.resource = TexResource::Array;
  d.width = w;
  d.height = hgt;
  d.dims = (uint8_t)dims;
  d.layers = layers;
  d.layered = 1;
  d.levels = (uint8_t)levels;
  d.pitch = w * 4;
  d.slicePitch = d.pitch * hgt;
  d.layerPitch = d.slicePitch;
  std::vector<float> all;
  for (unsigned lv = 0; lv < std::max(1u, levels); ++lv) {
    d.levelOffset[lv] = all.size() * 4;
    TexLevel g = ptx::exec::texLevel(d, lv);
    std::vector<float> v(g.width * g.height * layers);
    for (unsigned i = 0; i < v.size(); ++i)
      v[i] = (float)((i * 53 + lv * 17) % 97) - 40.0f;
    all.insert(all.end(), v.begin(), v.end());
    m.level.push_back(v);
  }
  d.data = h.upload(all);
  return m;
}

TEST(ExecTexture, LayeredFetchesPickTheLayerAndClampIt) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") +
                     texKernel("a2d", "tex.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%r4, %f1, %f2, %f2}];") +
                     texKernel("a1d", "tex.a1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%r4, %f1}];") +
                     texKernel("a2di", "cvt.rzi.s32.f32 %r5, %f1; cvt.rzi.s32.f32 %r6, %f2;"
                                       " tex.a2d.v4.s32.s32 {%r0, %r1, %r2, %r3}, [%rd2, {%r4, %r5, %r6, %r6}];"
                                       " mov.b32 %f4, %r0; mov.b32 %f5, %r1; mov.b32 %f6, %r2; mov.b32 %f7, %r3;")))
      << h.errors;
  LayeredModel m = layeredTex(h, 5, 4, 2, 3, 0);
  uint64_t out = h.alloc(32 * 16);
  std::vector<float> xs(32), ys(32), zs(32, 0);
  std::vector<uint32_t> ls(32);
  for (unsigned l = 0; l < 32; ++l) {
    xs[l] = -1.0f + 0.23f * l + 1.0f / 128;
    ys[l] = 4.5f - 0.17f * l + 1.0f / 128;
    ls[l] = l % 5; // layers 3 and 4 clamp to 2
  }
  for (int filt = 0; filt < 2; ++filt)
    for (int norm = 0; norm < 2; ++norm) {
      TexDesc d = m.d;
      d.filter = (TexFilter)filt;
      d.normalizedCoords = (uint8_t)norm;
      d.address[0] = d.address[1] = norm ? TexAddress::Wrap : TexAddress::Border;
      d.border[0] = 9.5f;
      d.border[3] = 1.0f; // a missing channel reads as alpha 1, the border too
      LayeredModel mm = m;
      mm.d = d;
      std::vector<float> u = xs, v = ys;
      if (norm)
        for (unsigned l = 0; l < 32; ++l)
          u[l] /= 5, v[l] /= 4;
      auto r = h.launch("a2d", {1}, {32}, {out, makeTex(h, d), h.upload(u), h.upload(v), h.upload(zs), h.upload(ls)});
      ASSERT_TRUE(r.ok()) << r.message;
      auto got = h.read<float>(out, 128);
      for (unsigned l = 0; l < 32; ++l) {
        EXPECT_NEAR(got[l * 4], mm.filter(0, std::min(2u, ls[l]), u[l], v[l], norm, false), 1e-4)
            << "filter " << filt << " norm " << norm << " lane " << l;
        EXPECT_EQ(got[l * 4 + 3], 1.0f);
      }
    }
  // integer coordinates
  auto r = h.launch("a2di", {1}, {32}, {out, makeTex(h, m.d), h.upload(xs), h.upload(ys), h.upload(zs), h.upload(ls)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto gi = h.read<float>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    float want = m.texel(0, std::min(2u, ls[l]), (long long)xs[l], (long long)ys[l], true);
    int32_t bits;
    std::memcpy(&bits, &gi[l * 4], 4);
    EXPECT_EQ(bits, (int32_t)want) << l;
  }
  // 1D layered: 7 texels, 4 layers
  LayeredModel m1 = layeredTex(h, 7, 1, 1, 4, 0);
  m1.d.filter = TexFilter::Linear;
  r = h.launch("a1d", {1}, {32}, {out, makeTex(h, m1.d), h.upload(xs), h.upload(ys), h.upload(zs), h.upload(ls)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto g1 = h.read<float>(out, 128);
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_NEAR(g1[l * 4], m1.filter(0, std::min(3u, ls[l]), xs[l], 0, false, false), 1e-4) << l;
}

/// Cube face and face coordinates of a direction, straight from the CUDA programming guide's
/// table (the tests avoid ties between axes).
unsigned guideFace(float x, float y, float z, float &u, float &v) {
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z), s, t, m;
  unsigned f;
  if (ax > ay && ax > az)
    f = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, t = -y;
  else if (ay > ax && ay > az)
    f = y >= 0 ? 2 : 3, m = ay, s = x, t = y >= 0 ? z : -z;
  else
    f = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, t = -y;
  u = (s / m + 1) / 2;
  v = (t / m + 1) / 2;
  return f;
}

TEST(ExecTexture, CubemapsSelectTheFaceByTheMajorAxis) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") +
                     texKernel("cube", "tex.cube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%f1, %f2, %f3, %f3}];") +
                     texKernel("acube", "tex.acube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%r4, %f1, %f2, %f3}];") +
                     texKernel("g4", "tld4.r.cube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%f1, %f2, %f3, %f3}];")))
      << h.errors;
  const unsigned W = 4;
  LayeredModel m = layeredTex(h, W, W, 2, 12, 0); // two cubes
  m.d.cubemap = 1;
  std::vector<float> xs, ys, zs;
  std::vector<uint32_t> ls;
  // six directions per face, away from ties and face edges' exact texel boundaries
  const float dirs[6][3] = {{1, 0.3f, -0.55f}, {-1, -0.62f, 0.21f}, {0.41f, 1, -0.77f},
                            {-0.33f, -1, 0.58f}, {0.71f, -0.13f, 1}, {-0.27f, 0.49f, -1}};
  for (unsigned l = 0; l < 32; ++l) {
    const float *dv = dirs[l % 6];
    float k = 0.5f + 0.37f * (l / 6); // the length of the direction does not matter
    xs.push_back(dv[0] * k);
    ys.push_back(dv[1] * k);
    zs.push_back(dv[2] * k);
    ls.push_back(l % 3); // cube 2 clamps to cube 1
  }
  uint64_t out = h.alloc(32 * 16);
  for (int filt = 0; filt < 2; ++filt) {
    TexDesc d = m.d;
    d.filter = (TexFilter)filt;
    LayeredModel mm = m;
    mm.d = d;
    uint64_t t = makeTex(h, d);
    for (int layered = 0; layered < 2; ++layered) {
      auto r = h.launch(layered ? "acube" : "cube", {1}, {32},
                        {out, t, h.upload(xs), h.upload(ys), h.upload(zs), h.upload(ls)});
      ASSERT_TRUE(r.ok()) << r.message;
      auto got = h.read<float>(out, 128);
      for (unsigned l = 0; l < 32; ++l) {
        float u, v;
        unsigned face = guideFace(xs[l], ys[l], zs[l], u, v);
        EXPECT_EQ(face, l % 6);
        unsigned layer = (layered ? std::min(1u, ls[l]) : 0) * 6 + face;
        EXPECT_NEAR(got[l * 4], mm.filter(0, layer, u, v, true, true), 1e-4)
            << "filter " << filt << " layered " << layered << " lane " << l;
      }
    }
  }
  // gather on a cube face: the four texels around the face coordinates, clamped to the face
  auto r = h.launch("g4", {1}, {32}, {out, makeTex(h, m.d), h.upload(xs), h.upload(ys), h.upload(zs), h.upload(ls)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<float>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    float u, v;
    unsigned face = guideFace(xs[l], ys[l], zs[l], u, v);
    long long i = (long long)std::floor(ptx::exec::normalizedToTexels(u, W) - 0.5f),
              j = (long long)std::floor(ptx::exec::normalizedToTexels(v, W) - 0.5f);
    EXPECT_EQ(got[l * 4 + 0], m.texel(0, face, i, j + 1, true)) << l;
    EXPECT_EQ(got[l * 4 + 1], m.texel(0, face, i + 1, j + 1, true)) << l;
    EXPECT_EQ(got[l * 4 + 2], m.texel(0, face, i + 1, j, true)) << l;
    EXPECT_EQ(got[l * 4 + 3], m.texel(0, face, i, j, true)) << l;
  }
}

TEST(ExecTexture, MipmapsSelectAndBlendLevels) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") +
                     texKernel("lvl", "tex.level.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%f1, %f2}], %f3;") +
                     texKernel("grad", "tex.grad.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%f1, %f2}], {%f3, %f8}, {%f8, %f3};") +
                     texKernel("plain", "tex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%f1, %f2}];") +
                     texKernel("q", "txq.num_mipmap_levels.b32 %r0, [%rd2]; txq.level.width.b32 %r1, [%rd2], %r4;"
                                    " txq.level.height.b32 %r2, [%rd2], %r4; txq.array_size.b32 %r3, [%rd2];"
                                    " mov.b32 %f4, %r0; mov.b32 %f5, %r1; mov.b32 %f6, %r2; mov.b32 %f7, %r3;")))
      << h.errors;
  LayeredModel m = layeredTex(h, 16, 8, 2, 1, 5); // 16x8, 8x4, 4x2, 2x1, 1x1
  m.d.layered = 0;
  m.d.normalizedCoords = 1;
  m.d.address[0] = m.d.address[1] = TexAddress::Wrap;
  m.d.maxLod = 100;
  std::vector<float> us(32), vs(32), lods(32);
  std::vector<uint32_t> ls(32);
  for (unsigned l = 0; l < 32; ++l) {
    us[l] = 0.031f * l + 0.0041f;
    vs[l] = 0.9f - 0.027f * l;
    lods[l] = -1.2f + 0.19f * l; // -1.2 .. 4.69: below the first and past the last level
    ls[l] = l % 6;
  }
  uint64_t out = h.alloc(32 * 16);
  auto expectLevels = [&](const LayeredModel &mm, const std::vector<float> &lod, const char *what) {
    auto got = h.read<float>(out, 128);
    for (unsigned l = 0; l < 32; ++l) {
      // level of detail and bias in 1/256 steps, truncated toward zero (as the GPU)
      auto fix = [](float f) { return (int)std::max(-1e6, std::min(1e6, std::trunc((double)f * 256))); };
      int x = fix(lod[l]) + fix(mm.d.lodBias);
      x = std::max(fix(mm.d.minLod), std::min(fix(mm.d.maxLod), x));
      x = std::max(0, std::min(4 * 256, x));
      float want;
      if (mm.d.mipFilter == TexFilter::Point) {
        want = mm.filter(std::min(4, (x + 128) >> 8), 0, us[l], vs[l], true, false);
      } else {
        unsigned l0 = x >> 8, f = x & 255;
        if (f == 0 || l0 >= 4)
          want = mm.filter(l0, 0, us[l], vs[l], true, false);
        else
          want = mm.filter(l0, 0, us[l], vs[l], true, false, 256 - f) +
                 mm.filter(l0 + 1, 0, us[l], vs[l], true, false, f);
      }
      EXPECT_NEAR(got[l * 4], want, 1e-4) << what << " lane " << l << " lod " << lod[l];
    }
  };
  for (int mf = 0; mf < 2; ++mf)
    for (int filt = 0; filt < 2; ++filt) {
      LayeredModel mm = m;
      mm.d.mipFilter = (TexFilter)mf;
      mm.d.filter = (TexFilter)filt;
      mm.d.lodBias = mf ? 0.25f : 0;
      uint64_t t = makeTex(h, mm.d);
      auto r = h.launch("lvl", {1}, {32}, {out, t, h.upload(us), h.upload(vs), h.upload(lods), h.upload(ls)});
      ASSERT_TRUE(r.ok()) << r.message;
      expectLevels(mm, lods, "tex.level");
      // tex.grad: a gradient of g texels-per-pixel in normalized units is g / width
      std::vector<float> gs(32), glod(32);
      for (unsigned l = 0; l < 32; ++l) {
        float texels = std::exp2(lods[l]);
        gs[l] = texels / 16.0f;
        glod[l] = std::log2(gs[l] * 16.0f);
      }
      r = h.launch("grad", {1}, {32}, {out, t, h.upload(us), h.upload(vs), h.upload(gs), h.upload(ls)});
      ASSERT_TRUE(r.ok()) << r.message;
      expectLevels(mm, glod, "tex.grad");
      // a plain fetch samples level of detail 0 (plus the bias)
      r = h.launch("plain", {1}, {32}, {out, t, h.upload(us), h.upload(vs), h.upload(lods), h.upload(ls)});
      ASSERT_TRUE(r.ok()) << r.message;
      expectLevels(mm, std::vector<float>(32, 0.0f), "tex");
    }
  // the level clamps of the descriptor
  LayeredModel mc = m;
  mc.d.minLod = 1.0f;
  mc.d.maxLod = 2.0f;
  auto r = h.launch("lvl", {1}, {32}, {out, makeTex(h, mc.d), h.upload(us), h.upload(vs), h.upload(lods), h.upload(ls)});
  ASSERT_TRUE(r.ok()) << r.message;
  expectLevels(mc, lods, "clamped");
  r = h.launch("q", {1}, {6}, {out, makeTex(h, m.d), h.upload(us), h.upload(vs), h.upload(lods), h.upload(ls)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto q = h.read<uint32_t>(out, 24);
  const uint32_t ws[6] = {16, 8, 4, 2, 1, 0}, hs[6] = {8, 4, 2, 1, 1, 0};
  for (unsigned l = 0; l < 6; ++l) {
    EXPECT_EQ(q[l * 4], 5u);
    EXPECT_EQ(q[l * 4 + 1], ws[l]) << l;
    EXPECT_EQ(q[l * 4 + 2], hs[l]) << l;
    EXPECT_EQ(q[l * 4 + 3], 0u);
  }
  // array_size of a layered texture; no mip levels
  LayeredModel la = layeredTex(h, 4, 4, 2, 7, 0);
  r = h.launch("q", {1}, {1}, {out, makeTex(h, la.d), h.upload(us), h.upload(vs), h.upload(lods), h.upload(ls)});
  ASSERT_TRUE(r.ok()) << r.message;
  q = h.read<uint32_t>(out, 4);
  EXPECT_EQ(q, (std::vector<uint32_t>{0, 4, 4, 7}));
}

TEST(ExecTexture, HalfResultsRoundToNearest) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + R"(
.visible .entry hv(.param .u64 out, .param .u64 tex) {
  .reg .b64 %rd<4>; .reg .f32 %f<4>; .reg .b16 %h<4>; .reg .b32 %r<4>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [tex];
  mov.f32 %f1, 1.5; mov.f32 %f2, 0.5;
  tex.2d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd2, {%f1, %f2}];
  st.global.v4.b16 [%rd1], {%h0, %h1, %h2, %h3};
  tex.2d.v2.f16x2.f32 {%r0, %r1}, [%rd2, {%f1, %f2}];
  st.global.v2.b32 [%rd1+8], {%r0, %r1};
  ret;
}
)")) << h.errors;
  std::vector<float> vals = {0.0f, 1.0f / 3.0f, 2.0f, -65520.0f};
  TexDesc d;
  d.resource = TexResource::Array;
  d.data = h.upload(vals);
  d.width = 2;
  d.height = 1;
  d.pitch = 8;
  d.slicePitch = 8;
  d.channels = 2;
  d.dims = 2;
  uint64_t out = h.alloc(16);
  auto r = h.launch("hv", {1}, {1}, {out, makeTex(h, d)});
  ASSERT_TRUE(r.ok()) << r.message;
  // texel 1 = (2, -65520): -65520 rounds to -inf in half; missing channels read (0, 1)
  EXPECT_EQ(h.read<uint16_t>(out, 8),
            (std::vector<uint16_t>{0x4000, 0xfc00, 0x0000, 0x3c00, 0x4000, 0xfc00, 0x0000, 0x3c00}));
}

TEST(ExecTexture, Tld4OnLayers) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") +
                     texKernel("g", "tld4.r.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%r4, %f1, %f2, %f2}];")))
      << h.errors;
  LayeredModel m = layeredTex(h, 6, 5, 2, 3, 0);
  std::vector<float> xs(32), ys(32), zs(32);
  std::vector<uint32_t> ls(32);
  for (unsigned l = 0; l < 32; ++l) {
    xs[l] = -0.7f + 0.23f * l;
    ys[l] = 5.6f - 0.19f * l;
    ls[l] = l % 3;
  }
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("g", {1}, {32}, {out, makeTex(h, m.d), h.upload(xs), h.upload(ys), h.upload(zs), h.upload(ls)});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<float>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    long long i = (long long)std::floor(xs[l] - 0.5f), j = (long long)std::floor(ys[l] - 0.5f);
    EXPECT_EQ(got[l * 4 + 0], m.texel(0, ls[l], i, j + 1, true)) << l;
    EXPECT_EQ(got[l * 4 + 1], m.texel(0, ls[l], i + 1, j + 1, true)) << l;
    EXPECT_EQ(got[l * 4 + 2], m.texel(0, ls[l], i + 1, j, true)) << l;
    EXPECT_EQ(got[l * 4 + 3], m.texel(0, ls[l], i, j, true)) << l;
  }
}

// For timing models a tex is a global memory access: each lane reports the address of a texel
// it read (point filtering: exactly the texel the coordinates select).
TEST(ExecTexture, SteppingReportsTexelAddresses) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kKernels)) << h.errors;
  const unsigned W = 16, H = 8;
  std::vector<float> vals;
  TexDesc d = floatTex2D(h, W, H, vals);
  uint64_t t = makeTex(h, d);
  std::vector<float> xs(32), ys(32);
  for (unsigned l = 0; l < 32; ++l) {
    xs[l] = (float)(l % W) + 0.5f;
    ys[l] = (float)((l * 3) % H) + 0.25f;
  }
  uint64_t out = h.alloc(32 * 16);
  uint64_t params[4] = {out, t, h.upload(xs), h.upload(ys)};
  ptx::exec::LaunchParams p;
  p.kernel = h.engine->findKernel("t2d");
  ASSERT_NE(p.kernel, nullptr);
  p.grid = {1};
  p.block = {32};
  p.params = params;
  ptx::exec::LaunchResult err;
  auto g = h.engine->beginGrid(p, err);
  ASSERT_TRUE(g) << err.message;
  ptx::exec::Cta *cta = g->startCta(0);
  ptx::exec::WarpInstRecord rec;
  int texes = 0;
  for (int steps = 0; !g->ctaDone(cta) && steps < 100; ++steps) {
    ptx::exec::Warp &wp = g->warp(cta, 0);
    ASSERT_TRUE(g->step(wp, rec));
    if (rec.inst->cls != ptx::ir::OpClass::Mem || rec.accessBytes != 4 || rec.inst->vec != 1 ||
        !rec.isMemory || rec.addr[0] < d.data || rec.addr[0] >= d.data + W * H * 4)
      continue;
    ++texes;
    for (unsigned l = 0; l < 32; ++l)
      EXPECT_EQ(rec.addr[l], d.data + ((l * 3) % H) * d.pitch + (l % W) * 4) << l;
  }
  EXPECT_EQ(texes, 1);
  ASSERT_TRUE(g->finish().ok());
}

} // namespace
