// Executor surface instructions on surface-object descriptors (TexDesc with kSurfMagic): suld.b
// and sust.b in every geometry (1d, 2d, 3d, a1d, a2d), vector width and data size with byte
// x coordinates; the .trap / .clamp / .zero out-of-range modes; misaligned accesses; sust.p
// (formatted, sample-addressed) stores; sured.b/.p reductions under contention; suq; and
// handles that are not surface objects. Descriptors are built on the host; expected values
// come from indexing the surface's memory directly.

#include "ExecHarness.h"
#include "ptx/exec/TextureDesc.h"

#include <cstring>

using namespace ptxsim;
using namespace ptxsim::test;
using ptx::exec::AllocKind;
using ptx::exec::kSurfMagic;
using ptx::exec::TexDesc;
using ptx::exec::TexFormat;
using ptx::exec::TexResource;

namespace {

/// A kernel around `body`: each lane loads its coordinates (x, y, z, layer: %c0..%c3) from cs,
/// and 32 bytes of values from out (%v0..%v3 as b32, or %w0..%w3 as b64 when `wide`); after
/// `body` the values go back to out.
std::string kernel(const std::string &name, const std::string &body, bool wide = false) {
  std::string ld = wide ? "ld.global.v2.b64 {%w0, %w1}, [%rd5]; ld.global.v2.b64 {%w2, %w3}, [%rd5+16];"
                        : "ld.global.v4.b32 {%v0, %v1, %v2, %v3}, [%rd5];";
  std::string st = wide ? "st.global.v2.b64 [%rd5], {%w0, %w1}; st.global.v2.b64 [%rd5+16], {%w2, %w3};"
                        : "st.global.v4.b32 [%rd5], {%v0, %v1, %v2, %v3};";
  return ".visible .entry " + name +
         "(.param .u64 out, .param .u64 s, .param .u64 cs) {\n"
         "  .reg .b32 %c<4>; .reg .b32 %v<4>; .reg .b64 %w<4>; .reg .b64 %rd<8>; .reg .b32 %t;\n"
         "  .reg .b16 %h<4>;\n"
         "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [s]; ld.param.u64 %rd3, [cs];\n"
         "  mov.u32 %t, %tid.x;\n"
         "  mul.wide.u32 %rd4, %t, 16; add.s64 %rd4, %rd3, %rd4;\n"
         "  ld.global.v4.b32 {%c0, %c1, %c2, %c3}, [%rd4];\n"
         "  mul.wide.u32 %rd5, %t, 32; add.s64 %rd5, %rd1, %rd5;\n  " +
         ld + "\n  " + body + "\n  " + st + "\n  ret;\n}\n";
}

struct Surface {
  TexDesc d;
  uint64_t handle = 0;
  uint8_t *bytes() const { return reinterpret_cast<uint8_t *>(d.data); }
  uint8_t *at(int64_t xb, int64_t y, int64_t z = 0, int64_t layer = 0) const {
    return bytes() + layer * d.layerPitch + z * d.slicePitch + y * d.pitch + xb;
  }
};

/// A surface of w x h x depth elements of `channels` x `bits`, with `layers` layers, filled with
/// a byte pattern.
Surface makeSurface(ExecHarness &h, unsigned w, unsigned hgt, unsigned depth, unsigned layers,
                    unsigned channels, unsigned bits, unsigned dims, bool layered,
                    TexFormat fmt = TexFormat::Unsigned) {
  Surface s;
  TexDesc &d = s.d;
  d.magic = kSurfMagic;
  d.resource = TexResource::Array;
  d.width = w;
  d.height = hgt;
  d.depth = depth;
  d.layers = layers;
  d.channels = (uint8_t)channels;
  d.bits = (uint8_t)bits;
  d.format = fmt;
  d.dims = (uint8_t)dims;
  d.layered = layered;
  d.pitch = (uint64_t)w * d.elemBytes();
  d.slicePitch = d.pitch * hgt;
  d.layerPitch = d.slicePitch * depth;
  uint64_t n = d.layerPitch * layers;
  d.data = h.alloc(n);
  for (uint64_t i = 0; i < n; ++i)
    s.bytes()[i] = (uint8_t)(i * 131 + 17);
  s.handle = h.engine->memory().allocate(sizeof(TexDesc), AllocKind::Const);
  std::memcpy(reinterpret_cast<void *>(s.handle), &d, sizeof d);
  return s;
}

struct Coord {
  int32_t x, y, z, layer;
};

struct SurfRun {
  ExecHarness h;
  uint64_t out = 0;
  explicit SurfRun(const std::string &kernels) {
    EXPECT_TRUE(h.load(ptxHeader("sm_80") + kernels)) << h.errors;
    out = h.alloc(32 * 32);
  }
  ptx::exec::LaunchResult go(const std::string &k, const Surface &s, const std::vector<Coord> &cs) {
    return h.launch(k, {1}, {(unsigned)cs.size()}, {out, s.handle, h.upload(cs)});
  }
  template <class T> T val(unsigned lane, unsigned i) {
    T v;
    std::memcpy(&v, reinterpret_cast<const uint8_t *>(out) + lane * 32 + i * sizeof(T), sizeof v);
    return v;
  }
  template <class T> void setVal(unsigned lane, unsigned i, T v) {
    std::memcpy(reinterpret_cast<uint8_t *>(out) + lane * 32 + i * sizeof(T), &v, sizeof v);
  }
};

template <class T> T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

TEST(ExecSurface, LoadsEveryGeometryWidthAndVectorWithByteCoordinates) {
  SurfRun r(kernel("l2d32", "suld.b.2d.b32.trap {%v0}, [%rd2, {%c0, %c1}];") +
        kernel("l2d8v4", "suld.b.2d.v4.b8.trap {%h0, %h1, %h2, %h3}, [%rd2, {%c0, %c1}];"
                         " cvt.u32.u16 %v0, %h0; cvt.u32.u16 %v1, %h1; cvt.u32.u16 %v2, %h2;"
                         " cvt.u32.u16 %v3, %h3;") +
        kernel("l1d16v2", "suld.b.1d.v2.b16.trap {%h0, %h1}, [%rd2, {%c0}];"
                          " cvt.u32.u16 %v0, %h0; cvt.u32.u16 %v1, %h1;") +
        kernel("l3d64", "suld.b.3d.b64.trap {%w0}, [%rd2, {%c0, %c1, %c2, %c2}];", true) +
        kernel("la2dv4", "suld.b.a2d.v4.b32.trap {%v0, %v1, %v2, %v3}, [%rd2, {%c3, %c0, %c1, %c1}];") +
        kernel("la1d64v2", "suld.b.a1d.v2.b64.trap {%w0, %w1}, [%rd2, {%c3, %c0}];", true));
  // 2D surface of uint (4-byte elements): x in bytes
  Surface s2 = makeSurface(r.h, 9, 5, 1, 1, 1, 32, 2, false);
  std::vector<Coord> cs;
  for (int l = 0; l < 32; ++l)
    cs.push_back({(l % 9) * 4, l % 5, 0, 0});
  auto res = r.go("l2d32", s2, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_EQ(r.val<uint32_t>(l, 0), load<uint32_t>(s2.at(cs[l].x, cs[l].y))) << l;
  // uchar4 surface: .v4.b8 at x * 4
  Surface s8 = makeSurface(r.h, 7, 3, 1, 1, 4, 8, 2, false);
  cs.clear();
  for (int l = 0; l < 32; ++l)
    cs.push_back({(l % 7) * 4, (l / 7) % 3, 0, 0});
  res = r.go("l2d8v4", s8, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned c = 0; c < 4; ++c)
      EXPECT_EQ(r.val<uint32_t>(l, c), s8.at(cs[l].x, cs[l].y)[c]) << l << " " << c;
  // 1D surface of short2
  Surface s16 = makeSurface(r.h, 40, 1, 1, 1, 2, 16, 1, false);
  cs.clear();
  for (int l = 0; l < 32; ++l)
    cs.push_back({(39 - l) * 4, 0, 0, 0});
  res = r.go("l1d16v2", s16, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(r.val<uint32_t>(l, 0), load<uint16_t>(s16.at(cs[l].x, 0))) << l;
    EXPECT_EQ(r.val<uint32_t>(l, 1), load<uint16_t>(s16.at(cs[l].x + 2, 0))) << l;
  }
  // 3D surface of 8-byte elements (uint2)
  Surface s3 = makeSurface(r.h, 4, 3, 5, 1, 2, 32, 3, false);
  cs.clear();
  for (int l = 0; l < 32; ++l)
    cs.push_back({(l % 4) * 8, (l / 4) % 3, (l * 7) % 5, 0});
  res = r.go("l3d64", s3, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_EQ(r.val<uint64_t>(l, 0), load<uint64_t>(s3.at(cs[l].x, cs[l].y, cs[l].z))) << l;
  // 2D layered surface of float4 (16-byte elements), 3 layers
  Surface sa = makeSurface(r.h, 3, 4, 1, 3, 4, 32, 2, true, TexFormat::Float);
  cs.clear();
  for (int l = 0; l < 32; ++l)
    cs.push_back({(l % 3) * 16, (l / 3) % 4, 0, l % 3});
  res = r.go("la2dv4", sa, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned c = 0; c < 4; ++c)
      EXPECT_EQ(r.val<uint32_t>(l, c), load<uint32_t>(sa.at(cs[l].x + 4 * c, cs[l].y, 0, cs[l].layer)))
          << l;
  // 1D layered surface of 16-byte elements read as two b64
  Surface s1a = makeSurface(r.h, 6, 1, 1, 4, 4, 32, 1, true);
  cs.clear();
  for (int l = 0; l < 32; ++l)
    cs.push_back({(l % 6) * 16, 0, 0, l % 4});
  res = r.go("la1d64v2", s1a, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(r.val<uint64_t>(l, 0), load<uint64_t>(s1a.at(cs[l].x, 0, 0, cs[l].layer))) << l;
    EXPECT_EQ(r.val<uint64_t>(l, 1), load<uint64_t>(s1a.at(cs[l].x + 8, 0, 0, cs[l].layer))) << l;
  }
}

TEST(ExecSurface, StoresEveryGeometryAndWidth) {
  SurfRun r(kernel("s2d32", "sust.b.2d.b32.trap [%rd2, {%c0, %c1}], {%v0};") +
        kernel("s3dv2", "sust.b.3d.v2.b32.trap [%rd2, {%c0, %c1, %c2, %c2}], {%v0, %v1};") +
        kernel("sa2d8", "cvt.u16.u32 %h0, %v0; sust.b.a2d.b8.trap [%rd2, {%c3, %c0, %c1, %c1}], {%h0};") +
        kernel("sa1d64", "sust.b.a1d.b64.trap [%rd2, {%c3, %c0}], %w0;", true) +
        kernel("s1dimm", "sust.b.1d.v2.b16.trap [%rd2, {%c0}], {0x1234, 0xbeef};"));
  Surface s = makeSurface(r.h, 8, 4, 1, 1, 1, 32, 2, false);
  std::vector<Coord> cs;
  for (int l = 0; l < 32; ++l) {
    cs.push_back({(l % 8) * 4, l / 8, 0, 0});
    r.setVal<uint32_t>(l, 0, 0x1000 + l);
  }
  auto res = r.go("s2d32", s, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_EQ(load<uint32_t>(s.at(cs[l].x, cs[l].y)), 0x1000u + l) << l;
  Surface s3 = makeSurface(r.h, 2, 2, 8, 1, 2, 32, 3, false);
  cs.clear();
  for (int l = 0; l < 32; ++l) {
    cs.push_back({(l % 2) * 8, (l / 2) % 2, l / 4, 0});
    r.setVal<uint32_t>(l, 0, 7 * l);
    r.setVal<uint32_t>(l, 1, 9 * l + 1);
  }
  res = r.go("s3dv2", s3, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(load<uint32_t>(s3.at(cs[l].x, cs[l].y, cs[l].z)), 7u * l) << l;
    EXPECT_EQ(load<uint32_t>(s3.at(cs[l].x + 4, cs[l].y, cs[l].z)), 9u * l + 1) << l;
  }
  Surface sa = makeSurface(r.h, 4, 2, 1, 4, 1, 8, 2, true);
  cs.clear();
  for (int l = 0; l < 32; ++l) {
    cs.push_back({l % 4, (l / 4) % 2, 0, l / 8});
    r.setVal<uint32_t>(l, 0, 200 + l);
  }
  res = r.go("sa2d8", sa, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_EQ(*sa.at(cs[l].x, cs[l].y, 0, cs[l].layer), (uint8_t)(200 + l)) << l;
  Surface s1 = makeSurface(r.h, 8, 1, 1, 4, 2, 32, 1, true);
  cs.clear();
  for (int l = 0; l < 32; ++l) {
    cs.push_back({(l % 8) * 8, 0, 0, l / 8});
    r.setVal<uint64_t>(l, 0, 0x0102030405060708ull * (l + 1));
  }
  res = r.go("sa1d64", s1, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_EQ(load<uint64_t>(s1.at(cs[l].x, 0, 0, cs[l].layer)), 0x0102030405060708ull * (l + 1));
  Surface si = makeSurface(r.h, 16, 1, 1, 1, 2, 16, 1, false);
  cs.clear();
  for (int l = 0; l < 16; ++l)
    cs.push_back({l * 4, 0, 0, 0});
  res = r.go("s1dimm", si, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 16; ++l) {
    EXPECT_EQ(load<uint16_t>(si.at(l * 4, 0)), 0x1234);
    EXPECT_EQ(load<uint16_t>(si.at(l * 4 + 2, 0)), 0xbeef);
  }
}

TEST(ExecSurface, OutOfRangeModes) {
  SurfRun r(kernel("lz", "suld.b.2d.b32.zero {%v0}, [%rd2, {%c0, %c1}];") +
        kernel("lc", "suld.b.2d.v2.b16.clamp {%h0, %h1}, [%rd2, {%c0, %c1}];"
                     " cvt.u32.u16 %v0, %h0; cvt.u32.u16 %v1, %h1;") +
        kernel("lt", "suld.b.2d.b32.trap {%v0}, [%rd2, {%c0, %c1}];") +
        kernel("sz", "sust.b.2d.b32.zero [%rd2, {%c0, %c1}], {%v0};") +
        kernel("sc", "sust.b.2d.b32.clamp [%rd2, {%c0, %c1}], {%v0};") +
        kernel("st", "sust.b.a1d.b32.trap [%rd2, {%c3, %c0}], {%v0};") +
        kernel("lmis", "suld.b.2d.b32.zero {%v0}, [%rd2, {%c0, %c1}];"));
  const unsigned W = 5, H = 3;
  Surface s = makeSurface(r.h, W, H, 1, 1, 1, 32, 2, false);
  std::vector<Coord> cs;
  for (int l = 0; l < 32; ++l)
    cs.push_back({(l % 9 - 2) * 4, l / 9 - 1, 0, 0});
  auto inRange = [&](const Coord &c) {
    return c.x >= 0 && c.x < (int)W * 4 && c.y >= 0 && c.y < (int)H;
  };
  auto res = r.go("lz", s, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_EQ(r.val<uint32_t>(l, 0), inRange(cs[l]) ? load<uint32_t>(s.at(cs[l].x, cs[l].y)) : 0u)
        << l;
  // clamp with 4-byte accesses of ushort2: x clamps to [0, W*4 - 4], y to [0, H - 1]
  res = r.go("lc", s, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l) {
    int x = std::max(0, std::min((int)W * 4 - 4, cs[l].x)), y = std::max(0, std::min((int)H - 1, cs[l].y));
    EXPECT_EQ(r.val<uint32_t>(l, 0), load<uint16_t>(s.at(x, y))) << l;
    EXPECT_EQ(r.val<uint32_t>(l, 1), load<uint16_t>(s.at(x + 2, y))) << l;
  }
  // trap: the first out-of-range lane faults with the coordinates and the surface
  res = r.go("lt", s, cs);
  EXPECT_FALSE(res.ok());
  EXPECT_NE(res.message.find("out-of-bounds surface read (.2d) of 4 bytes at byte offset -8, row -1"),
            std::string::npos)
      << res.message;
  EXPECT_NE(res.message.find("5 x 3 x 1 surface of 4-byte elements"), std::string::npos) << res.message;
  EXPECT_NE(res.message.find("thread (0,0,0)"), std::string::npos) << res.message;
  // zero drops stores; clamp stores at the nearest element
  std::vector<uint8_t> before(s.bytes(), s.bytes() + W * H * 4);
  for (unsigned l = 0; l < 32; ++l)
    r.setVal<uint32_t>(l, 0, 0xabc00 + l);
  res = r.go("sz", s, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  std::vector<uint8_t> expect = before;
  for (unsigned l = 0; l < 32; ++l)
    if (inRange(cs[l])) {
      uint32_t v = 0xabc00 + l;
      std::memcpy(&expect[cs[l].y * W * 4 + cs[l].x], &v, 4);
    }
  EXPECT_EQ(std::vector<uint8_t>(s.bytes(), s.bytes() + W * H * 4), expect);
  Surface sc = makeSurface(r.h, W, H, 1, 1, 1, 32, 2, false);
  std::vector<Coord> one = {{-12, 7, 0, 0}};
  r.setVal<uint32_t>(0, 0, 0x5151);
  res = r.go("sc", sc, one);
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(load<uint32_t>(sc.at(0, H - 1)), 0x5151u);
  // a layer past the last traps
  Surface la = makeSurface(r.h, 4, 1, 1, 2, 1, 32, 1, true);
  res = r.go("st", la, {{0, 0, 0, 2}});
  EXPECT_FALSE(res.ok());
  EXPECT_NE(res.message.find("out-of-bounds surface write (.a1d) of 4 bytes at byte offset 0, row 0, slice 0, layer 2"),
            std::string::npos)
      << res.message;
  // misaligned byte offsets fault whatever the mode
  res = r.go("lmis", s, {{6, 0, 0, 0}});
  EXPECT_FALSE(res.ok());
  EXPECT_NE(res.message.find("misaligned surface read of 4 bytes at byte offset 6"), std::string::npos)
      << res.message;
}

TEST(ExecSurface, FormattedStoresConvertToTheSurfaceFormat) {
  SurfRun r(kernel("pu8", "sust.p.1d.v4.b32.trap [%rd2, {%c0}], {%v0, %v1, %v2, %v3};") +
        kernel("pf16", "sust.p.2d.v2.b32.zero [%rd2, {%c0, %c1}], {%v0, %v1};"));
  // uchar4 at sample index x; values saturate to 255
  Surface s = makeSurface(r.h, 32, 1, 1, 1, 4, 8, 1, false);
  std::vector<Coord> cs;
  for (int l = 0; l < 32; ++l) {
    cs.push_back({31 - l, 0, 0, 0});
    for (unsigned c = 0; c < 4; ++c)
      r.setVal<uint32_t>(l, c, l * 10 + c);
  }
  auto res = r.go("pu8", s, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned c = 0; c < 4; ++c)
      EXPECT_EQ(s.at((31 - l) * 4, 0)[c], std::min(255u, l * 10 + c)) << l;
  // half2 surface: f32 values converted to half
  Surface h = makeSurface(r.h, 4, 2, 1, 1, 2, 16, 2, false, TexFormat::Float);
  cs.clear();
  for (int l = 0; l < 8; ++l) {
    cs.push_back({l % 4, l / 4, 0, 0});
    r.setVal<float>(l, 0, 0.5f * l);
    r.setVal<float>(l, 1, -2.0f);
  }
  res = r.go("pf16", h, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(load<uint16_t>(h.at(4, 0)), 0x3800);     // 0.5
  EXPECT_EQ(load<uint16_t>(h.at(6, 0)), 0xc000);     // -2
  EXPECT_EQ(load<uint16_t>(h.at(12, 1)), 0x4300);    // 3.5
}

TEST(ExecSurface, ReductionsUnderContention) {
  SurfRun r(kernel("add", "sured.b.add.2d.u32.trap [%rd2, {%c0, %c1}], %v0;") +
        kernel("smin", "sured.b.min.1d.s32.trap [%rd2, {%c0}], %v0;") +
        kernel("umax64", "sured.b.max.3d.u64.zero [%rd2, {%c0, %c1, %c2, %c2}], %w0;", true) +
        kernel("and", "sured.b.and.1d.b32.clamp [%rd2, {%c0}], %v0;") +
        kernel("or", "sured.b.or.1d.b32.trap [%rd2, {%c0}], %v0;") +
        kernel("padd", "sured.p.add.1d.b32.trap [%rd2, {%c0}], %v0;") +
        kernel("pmin", "sured.p.min.1d.b32.trap [%rd2, {%c0}], %v0;"));
  Surface s = makeSurface(r.h, 4, 2, 1, 1, 1, 32, 2, false);
  std::memset(s.bytes(), 0, 32);
  std::vector<Coord> cs;
  for (int l = 0; l < 32; ++l) {
    cs.push_back({(l % 4) * 4, (l / 4) % 2, 0, 0});
    r.setVal<uint32_t>(l, 0, l + 1);
  }
  auto res = r.go("add", s, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned e = 0; e < 8; ++e) {
    uint32_t want = 0;
    for (unsigned l = 0; l < 32; ++l)
      if ((l % 4) + 4 * ((l / 4) % 2) == e)
        want += l + 1;
    EXPECT_EQ(load<uint32_t>(s.bytes() + e * 4), want) << e;
  }
  Surface m = makeSurface(r.h, 2, 1, 1, 1, 1, 32, 1, false, TexFormat::Signed);
  int32_t init[2] = {5, -3};
  std::memcpy(m.bytes(), init, 8);
  cs.clear();
  for (int l = 0; l < 32; ++l) {
    cs.push_back({(l % 2) * 4, 0, 0, 0});
    r.setVal<int32_t>(l, 0, 20 - l);
  }
  res = r.go("smin", m, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(load<int32_t>(m.bytes()), -10);    // lane 30
  EXPECT_EQ(load<int32_t>(m.bytes() + 4), -11); // lane 31
  // sured.p.min on a signed surface compares as s32 with x in samples
  std::memcpy(m.bytes(), init, 8);
  cs.clear();
  for (int l = 0; l < 32; ++l)
    cs.push_back({l % 2, 0, 0, 0});
  res = r.go("pmin", m, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(load<int32_t>(m.bytes()), -10);
  EXPECT_EQ(load<int32_t>(m.bytes() + 4), -11);
  res = r.go("padd", m, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(load<int32_t>(m.bytes()), -10 + 16 * 20 - (0 + 2 + 4 + 6 + 8 + 10 + 12 + 14 + 16 + 18 + 20 + 22 + 24 + 26 + 28 + 30));
  Surface u = makeSurface(r.h, 2, 2, 2, 1, 2, 32, 3, false);
  std::memset(u.bytes(), 0, 64);
  cs.clear();
  for (int l = 0; l < 32; ++l) {
    cs.push_back({(l % 2) * 8, (l / 2) % 2, (l / 4) % 3, 0}); // z == 2 is out of range: dropped
    r.setVal<uint64_t>(l, 0, (uint64_t)l << 40);
  }
  res = r.go("umax64", u, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  for (unsigned e = 0; e < 8; ++e) {
    uint64_t want = 0;
    for (unsigned l = 0; l < 32; ++l)
      if ((l / 4) % 3 < 2 && (l % 2) + 2 * ((l / 2) % 2) + 4 * ((l / 4) % 3) == e)
        want = std::max(want, (uint64_t)l << 40);
    EXPECT_EQ(load<uint64_t>(u.bytes() + e * 8), want) << e;
  }
  Surface b = makeSurface(r.h, 1, 1, 1, 1, 1, 32, 1, false);
  uint32_t ones = ~0u;
  std::memcpy(b.bytes(), &ones, 4);
  cs.assign(32, {40, 0, 0, 0}); // clamps to element 0
  for (int l = 0; l < 32; ++l)
    r.setVal<uint32_t>(l, 0, ~(1u << l));
  res = r.go("and", b, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(load<uint32_t>(b.bytes()), 0u);
  cs.assign(32, {0, 0, 0, 0});
  for (int l = 0; l < 32; ++l)
    r.setVal<uint32_t>(l, 0, l % 3 ? 0 : 1u << l);
  res = r.go("or", b, cs);
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(load<uint32_t>(b.bytes()), 0x49249249u);
}

TEST(ExecSurface, QueriesAndBadHandles) {
  SurfRun r(kernel("q", "suq.width.b32 %v0, [%rd2]; suq.height.b32 %v1, [%rd2];"
                    " suq.depth.b32 %v2, [%rd2]; suq.array_size.b32 %v3, [%rd2];") +
        kernel("l", "suld.b.1d.b32.trap {%v0}, [%rd2, {%c0}];"));
  Surface s = makeSurface(r.h, 7, 3, 1, 5, 2, 16, 2, true);
  auto res = r.go("q", s, {{0, 0, 0, 0}});
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_EQ(r.val<uint32_t>(0, 0), 7u);
  EXPECT_EQ(r.val<uint32_t>(0, 1), 3u);
  EXPECT_EQ(r.val<uint32_t>(0, 2), 1u);
  EXPECT_EQ(r.val<uint32_t>(0, 3), 5u);
  // a texture descriptor is not a surface object
  Surface t = s;
  t.d.magic = ptx::exec::kTexMagic;
  t.handle = r.h.engine->memory().allocate(sizeof(TexDesc), AllocKind::Const);
  std::memcpy(reinterpret_cast<void *>(t.handle), &t.d, sizeof t.d);
  res = r.go("l", t, {{0, 0, 0, 0}});
  EXPECT_FALSE(res.ok());
  EXPECT_NE(res.message.find("is not a surface object"), std::string::npos) << res.message;
  // nor is a device buffer holding a surface descriptor
  Surface f = s;
  f.handle = r.h.alloc(sizeof(TexDesc));
  std::memcpy(reinterpret_cast<void *>(f.handle), &f.d, sizeof f.d);
  res = r.go("l", f, {{0, 0, 0, 0}});
  EXPECT_FALSE(res.ok());
  // the surface's memory freed: fault
  r.h.engine->memory().release(s.d.data);
  res = r.go("l", s, {{0, 0, 0, 0}});
  EXPECT_FALSE(res.ok());
  EXPECT_NE(res.message.find("refers to freed or invalid memory"), std::string::npos) << res.message;
}

} // namespace
