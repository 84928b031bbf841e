// Executor warp matrix instructions (wmma): hand-written kernels load A, B and C, multiply and
// store D for every shape and type the executor supports, in row and column layouts, with
// default and explicit strides, in global, generic and shared space. The expected D comes from
// a CPU matrix multiply that sums in f32 in k order (the executor's documented numerics), so
// results compare bit for bit; memory around each tile must stay untouched.

#include "ExecHarness.h"

#include "ptx/exec/Numerics.h"

#include <climits>
#include <cstring>
#include <random>

using namespace ptxsim;
using namespace ptxsim::test;
using ptx::exec::bf16ToF32;
using ptx::exec::bitsOfF32;
using ptx::exec::bitsOfF64;
using ptx::exec::f16ToF32;
using ptx::exec::f32OfBits;
using ptx::exec::f32ToBF16;
using ptx::exec::f32ToF16;
using ptx::exec::f64OfBits;

namespace {

struct Case {
  unsigned m = 16, n = 16, k = 16;
  std::string ab = "f16";         ///< f16, bf16, s8, u8, tf32, f64
  std::string bt;                 ///< B type when it differs from A (s8/u8 mixes)
  std::string ct = "f32", dt = "f32";
  bool aCol = false, bCol = true, cCol = false, dCol = false;
  unsigned lda = 0, ldb = 0, ldc = 0, ldd = 0; ///< 0: no stride operand (the default)
  bool strideInReg = false;
  std::string space = ".global";  ///< "" for generic addressing
  bool satfinite = false;
  bool doubleD = false;           ///< multiply each D element by 2 before the store (f32 D)
  std::string rnd;                ///< f64 rounding modifier (".rz" ...)
};

unsigned bytesOf(const std::string &t) {
  if (t == "f16" || t == "bf16")
    return 2;
  if (t == "s8" || t == "u8")
    return 1;
  if (t == "f64")
    return 8;
  return 4;
}

/// Registers of a fragment holding `count` elements of type t: the counts PTX specifies (f16
/// A/B fragments are always eight .b32 registers).
unsigned regsOf(const std::string &t, unsigned count, bool ab) {
  if (t == "f16" && ab)
    return 8;
  unsigned perReg = t == "f64" ? 1 : 4 / bytesOf(t);
  return count / 32 / perReg;
}

std::string regList(const std::string &name, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", " : "") + name + std::to_string(i);
  return s + "}";
}

std::string layout(bool col) { return col ? ".col" : ".row"; }

std::string strideOperand(const Case &c, unsigned ld, const std::string &reg) {
  if (!ld)
    return "";
  return ", " + (c.strideInReg ? reg : std::to_string(ld));
}

std::string shape(const Case &c) {
  return ".m" + std::to_string(c.m) + "n" + std::to_string(c.n) + "k" + std::to_string(c.k);
}

std::string regType(const std::string &t) {
  return t == "f32" ? "f32" : t == "f64" ? "f64" : t == "s32" ? "s32" : "b32";
}

std::string kernelFor(const Case &c) {
  std::string bt = c.bt.empty() ? c.ab : c.bt;
  unsigned na = regsOf(c.ab, c.m * c.k, true), nb = regsOf(bt, c.k * c.n, true);
  unsigned nc = regsOf(c.ct, c.m * c.n, false), nd = regsOf(c.dt, c.m * c.n, false);
  std::string s = ptxHeader() +
                  ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd) {\n"
                  "  .reg ." + regType(c.ab) + " %a<8>; .reg ." + regType(bt) + " %b<8>;\n"
                  "  .reg ." + regType(c.ct) + " %c<8>; .reg ." + regType(c.dt) + " %d<8>;\n"
                  "  .reg .b64 %rd<8>; .reg .u32 %s<4>;\n"
                  "  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb];\n"
                  "  ld.param.u64 %rd3, [pc]; ld.param.u64 %rd4, [pd];\n"
                  "  mov.u32 %s0, " + std::to_string(c.lda) + "; mov.u32 %s1, " + std::to_string(c.ldb) +
                  "; mov.u32 %s2, " + std::to_string(c.ldc) + "; mov.u32 %s3, " + std::to_string(c.ldd) + ";\n";
  std::string sync = ".sync.aligned";
  s += "  wmma.load.a" + sync + layout(c.aCol) + shape(c) + c.space + "." + c.ab + " " +
       regList("%a", na) + ", [%rd1]" + strideOperand(c, c.lda, "%s0") + ";\n";
  s += "  wmma.load.b" + sync + layout(c.bCol) + shape(c) + c.space + "." + bt + " " +
       regList("%b", nb) + ", [%rd2]" + strideOperand(c, c.ldb, "%s1") + ";\n";
  s += "  wmma.load.c" + sync + layout(c.cCol) + shape(c) + c.space + "." + c.ct + " " +
       regList("%c", nc) + ", [%rd3]" + strideOperand(c, c.ldc, "%s2") + ";\n";
  std::string types = c.ab == "f16" ? "." + c.dt + "." + c.ct
                                    : "." + c.dt + "." + c.ab + "." + bt + "." + c.ct;
  s += "  wmma.mma" + sync + layout(c.aCol) + layout(c.bCol) + shape(c) + c.rnd + types +
       (c.satfinite ? ".satfinite" : "") + " " + regList("%d", nd) + ", " + regList("%a", na) +
       ", " + regList("%b", nb) + ", " + regList("%c", nc) + ";\n";
  if (c.doubleD)
    for (unsigned i = 0; i < nd; ++i)
      s += "  mul.f32 %d" + std::to_string(i) + ", %d" + std::to_string(i) + ", 0f40000000;\n";
  s += "  wmma.store.d" + sync + layout(c.dCol) + shape(c) + c.space + "." + c.dt + " [%rd4], " +
       regList("%d", nd) + strideOperand(c, c.ldd, "%s3") + ";\n";
  return s + "  ret;\n}\n";
}

/// A rows x cols matrix stored in `ld`-strided rows (or columns) of raw element bits.
struct Mat {
  unsigned rows, cols, ld, esize;
  bool col;
  std::vector<uint64_t> elems; ///< every element of the buffer, padding included

  Mat(unsigned r, unsigned c, unsigned ldIn, bool colMajor, unsigned es)
      : rows(r), cols(c), ld(ldIn ? ldIn : (colMajor ? r : c)), esize(es), col(colMajor) {
    elems.resize((size_t)(col ? cols : rows) * ld);
  }
  size_t index(unsigned r, unsigned c) const { return col ? (size_t)c * ld + r : (size_t)r * ld + c; }
  uint64_t &at(unsigned r, unsigned c) { return elems[index(r, c)]; }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b(elems.size() * esize);
    for (size_t i = 0; i < elems.size(); ++i)
      std::memcpy(b.data() + i * esize, &elems[i], esize);
    return b;
  }
};

/// Random element bits of type t (f16/bf16 values in about [-4, 4] with random mantissas).
uint64_t randomElem(const std::string &t, std::mt19937 &rng) {
  std::uniform_real_distribution<float> f(-4.0f, 4.0f);
  if (t == "f16")
    return f32ToF16(f(rng));
  if (t == "bf16")
    return f32ToBF16(f(rng));
  if (t == "f32" || t == "tf32")
    return bitsOfF32(f(rng));
  if (t == "f64")
    return bitsOfF64((double)f(rng) + (double)f(rng) * 0x1p-30);
  if (t == "s8")
    return (uint8_t)(int8_t)(rng() % 256 - 128);
  if (t == "u8")
    return (uint8_t)(rng() % 256);
  return (uint32_t)(int32_t)(rng() % 20001 - 10000); // s32
}

float asF32(const std::string &t, uint64_t b) {
  if (t == "f16")
    return f16ToF32((uint16_t)b);
  if (t == "bf16")
    return bf16ToF32((uint16_t)b);
  if (t == "tf32")
    return f32OfBits((uint32_t)b & 0xffffe000u);
  return f32OfBits((uint32_t)b);
}

int64_t asInt(const std::string &t, uint64_t b) {
  if (t == "s8")
    return (int8_t)b;
  if (t == "u8")
    return (uint8_t)b;
  return (int32_t)b;
}

/// Runs case `c` on random inputs (C from `cInit` when given) and checks D bit for bit and
/// that the padding of D's buffer is untouched.
void runCase(const Case &c, unsigned seed = 1, const std::vector<uint64_t> &cInit = {}) {
  SCOPED_TRACE(kernelFor(c));
  std::mt19937 rng(seed);
  std::string bt = c.bt.empty() ? c.ab : c.bt;
  Mat A(c.m, c.k, c.lda, c.aCol, bytesOf(c.ab)), B(c.k, c.n, c.ldb, c.bCol, bytesOf(bt));
  Mat C(c.m, c.n, c.ldc, c.cCol, bytesOf(c.ct)), D(c.m, c.n, c.ldd, c.dCol, bytesOf(c.dt));
  for (auto &e : A.elems)
    e = randomElem(c.ab, rng);
  for (auto &e : B.elems)
    e = randomElem(bt, rng);
  for (auto &e : C.elems)
    e = randomElem(c.ct, rng);
  for (unsigned i = 0; i < c.m && !cInit.empty(); ++i)
    for (unsigned j = 0; j < c.n; ++j)
      C.at(i, j) = cInit[i * c.n + j];
  const uint64_t kPad = 0x5a5a5a5a5a5a5a5aull & (D.esize == 8 ? ~0ull : (1ull << (8 * D.esize)) - 1);
  for (auto &e : D.elems)
    e = kPad;
  std::vector<uint64_t> expect(c.m * c.n);
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned j = 0; j < c.n; ++j) {
      uint64_t &out = expect[i * c.n + j];
      if (c.ab == "f64") {
        double acc = f64OfBits(C.at(i, j));
        for (unsigned kk = 0; kk < c.k; ++kk)
          acc = ptx::exec::fmaF64(f64OfBits(A.at(i, kk)), f64OfBits(B.at(kk, j)), acc,
                                  c.rnd == ".rz"   ? ptx::exec::Rnd::RZ
                                  : c.rnd == ".rm" ? ptx::exec::Rnd::RM
                                  : c.rnd == ".rp" ? ptx::exec::Rnd::RP
                                                   : ptx::exec::Rnd::RN);
        out = bitsOfF64(acc);
      } else if (c.ab == "s8" || c.ab == "u8") {
        int64_t acc = asInt(c.ct, C.at(i, j));
        for (unsigned kk = 0; kk < c.k; ++kk)
          acc += asInt(c.ab, A.at(i, kk)) * asInt(bt, B.at(kk, j));
        if (c.satfinite)
          acc = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
        out = (uint32_t)acc;
      } else {
        float acc = asF32(c.ct, C.at(i, j));
        for (unsigned kk = 0; kk < c.k; ++kk)
          acc += asF32(c.ab, A.at(i, kk)) * asF32(bt, B.at(kk, j));
        if (c.doubleD)
          acc *= 2.0f;
        out = c.dt == "f16" ? f32ToF16(acc) : bitsOfF32(acc);
      }
    }

  ExecHarness h;
  ASSERT_TRUE(h.load(kernelFor(c))) << h.errors;
  uint64_t da = h.upload(A.bytes()), db = h.upload(B.bytes()), dc = h.upload(C.bytes());
  uint64_t dd = h.upload(D.bytes());
  auto r = h.launch("k", {1}, {32}, {da, db, dc, dd});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<uint8_t> got = h.read<uint8_t>(dd, D.elems.size() * D.esize);
  std::vector<bool> inTile(D.elems.size());
  unsigned bad = 0;
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned j = 0; j < c.n; ++j) {
      size_t x = D.index(i, j);
      inTile[x] = true;
      uint64_t v = 0;
      std::memcpy(&v, got.data() + x * D.esize, D.esize);
      if (v != expect[i * c.n + j] && bad++ < 5)
        ADD_FAILURE() << "D[" << i << "][" << j << "] = 0x" << std::hex << v << " expected 0x"
                      << expect[i * c.n + j];
    }
  for (size_t x = 0; x < D.elems.size(); ++x) {
    uint64_t v = 0;
    std::memcpy(&v, got.data() + x * D.esize, D.esize);
    if (!inTile[x] && v != kPad && bad++ < 5)
      ADD_FAILURE() << "padding element " << x << " of D was overwritten";
  }
  EXPECT_EQ(bad, 0u);
}

TEST(ExecMatrix, F16RowColF32DefaultStrides) {
  Case c;
  runCase(c);
}

TEST(ExecMatrix, F16EveryLayoutWithStrides) {
  for (int mask = 0; mask < 16; ++mask) {
    Case c;
    c.aCol = mask & 1, c.bCol = mask & 2, c.cCol = mask & 4, c.dCol = mask & 8;
    c.lda = 24, c.ldb = 32, c.ldc = 20, c.ldd = 40;
    c.strideInReg = mask & 1;
    c.space = mask & 2 ? "" : ".global";
    runCase(c, 100 + mask);
  }
}

TEST(ExecMatrix, F16AccumulatorTypeCombinations) {
  for (const char *ct : {"f16", "f32"})
    for (const char *dt : {"f16", "f32"}) {
      Case c;
      c.ct = ct, c.dt = dt;
      c.cCol = true, c.ldc = 24, c.ldd = 16;
      runCase(c, 7);
    }
}

TEST(ExecMatrix, FragmentElementwiseOpBeforeStore) {
  Case c;
  c.doubleD = true;
  c.dCol = true;
  runCase(c, 3);
}

TEST(ExecMatrix, OtherShapesF16AndBf16) {
  const unsigned shapes[][3] = {{32, 8, 16}, {8, 32, 16}, {16, 16, 16}};
  for (auto &sh : shapes)
    for (const char *ab : {"f16", "bf16"})
      for (int lay = 0; lay < 4; ++lay) {
        Case c;
        c.m = sh[0], c.n = sh[1], c.k = sh[2];
        c.ab = ab;
        c.aCol = lay & 1, c.bCol = lay & 2, c.dCol = lay & 1;
        if (std::string(ab) == "f16" && (lay & 1))
          c.ct = "f16", c.dt = "f16";
        if (lay == 3)
          c.lda = c.m + 8, c.ldb = c.k + 8, c.ldd = c.m + 16;
        runCase(c, 40 + lay);
      }
}

TEST(ExecMatrix, Int8ToS32) {
  const unsigned shapes[][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
  for (auto &sh : shapes)
    for (const char *ab : {"s8", "u8"})
      for (const char *bt : {"s8", "u8"}) {
        Case c;
        c.m = sh[0], c.n = sh[1], c.k = sh[2];
        c.ab = ab, c.bt = bt, c.ct = "s32", c.dt = "s32";
        c.aCol = sh[0] == 32, c.bCol = sh[1] != 32;
        runCase(c, 9);
      }
}

TEST(ExecMatrix, Int8SatfiniteClampsAndPlainWraps) {
  // C near INT32_MAX / INT32_MIN: u8 x u8 products push every sum past the limit
  std::vector<uint64_t> cInit(256);
  for (unsigned i = 0; i < 256; ++i)
    cInit[i] = (uint32_t)(i % 2 ? INT32_MAX - 5 : INT32_MIN + 5);
  for (bool sat : {false, true}) {
    Case c;
    c.ab = "u8", c.ct = "s32", c.dt = "s32", c.satfinite = sat;
    runCase(c, 11, cInit);
    c.ab = "s8";
    runCase(c, 12, cInit);
  }
}

TEST(ExecMatrix, Tf32M16n16k8) {
  for (int lay = 0; lay < 4; ++lay) {
    Case c;
    c.k = 8, c.ab = "tf32";
    c.aCol = lay & 1, c.bCol = lay & 2, c.cCol = lay & 2;
    if (lay == 3)
      c.lda = 24, c.ldb = 12;
    runCase(c, 60 + lay);
  }
}

TEST(ExecMatrix, F64M8n8k4InEveryRoundingMode) {
  for (const char *rnd : {"", ".rn", ".rz", ".rm", ".rp"}) {
    Case c;
    c.m = 8, c.n = 8, c.k = 4, c.ab = "f64", c.ct = "f64", c.dt = "f64", c.rnd = rnd;
    c.aCol = true, c.ldd = 12;
    runCase(c, 70);
  }
}

/// Stores C into shared memory row-major, reads it back column-major (its transpose), and
/// stores that to global memory.
TEST(ExecMatrix, SharedSpaceRoundTripTransposes) {
  std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 pc, .param .u64 pd) {
  .shared .align 16 .f32 tile[512];
  .reg .f32 %c<8>; .reg .f32 %e<8>; .reg .b64 %rd<4>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [pc]; ld.param.u64 %rd2, [pd];
  mov.u32 %r0, tile;
  wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%c0,%c1,%c2,%c3,%c4,%c5,%c6,%c7}, [%rd1];
  wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%r0+64], {%c0,%c1,%c2,%c3,%c4,%c5,%c6,%c7}, 20;
  bar.sync 0;
  wmma.load.c.sync.aligned.col.m16n16k16.shared.f32 {%e0,%e1,%e2,%e3,%e4,%e5,%e6,%e7}, [tile+64], 20;
  wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd2], {%e0,%e1,%e2,%e3,%e4,%e5,%e6,%e7};
  ret;
}
)";
  ExecHarness h;
  ASSERT_TRUE(h.load(ptx)) << h.errors;
  std::vector<float> cv(256);
  for (unsigned i = 0; i < 256; ++i)
    cv[i] = (float)i;
  uint64_t dc = h.upload(cv), dd = h.alloc(256 * 4);
  auto r = h.launch("k", {1}, {32}, {dc, dd});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<float> d = h.read<float>(dd, 256);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 16; ++j)
      ASSERT_EQ(d[i * 16 + j], cv[j * 16 + i]) << i << "," << j;
}

const char *kLoadKernel = R"(
.visible .entry k(.param .u64 pa) {
  .reg .b32 %a<8>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [pa];
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0,%a1,%a2,%a3,%a4,%a5,%a6,%a7}, [%rd1];
  ret;
}
)";

TEST(ExecMatrix, PartialWarpFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kLoadKernel)) << h.errors;
  uint64_t da = h.alloc(512);
  auto r = h.launch("k", {1}, {16}, {da});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("wmma.load executed by 16 of 32 lanes"), std::string::npos) << r.message;
  // the engine stays usable
  EXPECT_TRUE(h.launch("k", {1}, {32}, {da}).ok());
}

TEST(ExecMatrix, OutOfBoundsLoadFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kLoadKernel)) << h.errors;
  uint64_t da = h.alloc(200); // element 100 = (6,4) is the first one past the end
  auto r = h.launch("k", {1}, {32}, {da});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("out-of-bounds global read of 2 bytes"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("wmma.load.a element (6,4)"), std::string::npos) << r.message;
}

/// Sub-byte wmma: m8n8k32 s4/u4 and m8n8k128 b1 (xor/and .popc). A is 8 x K row-major, B is
/// K x 8 column-major, both packed from the low bits of each byte with a padded stride (in
/// elements); C and D are 8 x 8 s32.
std::vector<int32_t> runSubByte(const std::string &type, const std::string &mmaMods, unsigned k, unsigned ld,
                                const std::vector<uint8_t> &a, const std::vector<uint8_t> &b,
                                const std::vector<int32_t> &c) {
  std::string shape = k == 32 ? ".m8n8k32" : ".m8n8k128";
  std::string ptx = ptxHeader() + ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc) {\n"
                    "  .reg .b32 %a<2>; .reg .b32 %b<2>; .reg .s32 %c<2>; .reg .s32 %d<2>; .reg .b64 %rd<4>;\n"
                    "  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];\n"
                    "  wmma.load.a.sync.aligned.row" + shape + ".global." + type + " {%a0}, [%rd1], " +
                    std::to_string(ld) + ";\n"
                    "  wmma.load.b.sync.aligned.col" + shape + "." + type + " {%b0}, [%rd2], " + std::to_string(ld) + ";\n"
                    "  wmma.load.c.sync.aligned.row" + shape + ".s32 {%c0, %c1}, [%rd3];\n"
                    "  wmma.mma" + mmaMods + ".sync.aligned.row.col" + shape + ".s32." + type + "." + type +
                    ".s32 {%d0, %d1}, {%a0}, {%b0}, {%c0, %c1};\n"
                    "  wmma.store.d.sync.aligned.col" + shape + ".global.s32 [%rd3], {%d0, %d1};\n"
                    "  ret;\n}\n";
  ExecHarness h;
  EXPECT_TRUE(h.load(ptx)) << h.errors;
  uint64_t da = h.upload(a), db = h.upload(b), dc = h.upload(c);
  auto r = h.launch("k", {1}, {32}, {da, db, dc});
  EXPECT_TRUE(r.ok()) << r.message;
  return h.read<int32_t>(dc, 64);
}

TEST(ExecMatrix, SubByteS4U4AndB1) {
  std::mt19937 rng(5);
  const unsigned ld4 = 64, ld1 = 256; // elements: one padding group per row / column
  std::vector<int32_t> c(64);
  for (auto &v : c)
    v = (int32_t)(rng() % 2001) - 1000;
  for (bool sgn : {false, true}) {
    std::vector<uint8_t> a(8 * ld4 / 2), b(8 * ld4 / 2);
    for (auto &x : a)
      x = (uint8_t)rng();
    for (auto &x : b)
      x = (uint8_t)rng();
    auto nib = [&](const std::vector<uint8_t> &m, unsigned e) {
      int v = (m[e / 2] >> (4 * (e % 2))) & 15;
      return sgn && v >= 8 ? v - 16 : v;
    };
    auto d = runSubByte(sgn ? "s4" : "u4", "", 32, ld4, a, b, c);
    for (unsigned i = 0; i < 8; ++i)
      for (unsigned j = 0; j < 8; ++j) {
        int32_t want = c[i * 8 + j];
        for (unsigned kk = 0; kk < 32; ++kk)
          want += nib(a, i * ld4 + kk) * nib(b, j * ld4 + kk);
        EXPECT_EQ(d[j * 8 + i], want) << (sgn ? "s4 " : "u4 ") << i << "," << j; // D stored col-major
      }
  }
  for (bool useAnd : {false, true}) {
    std::vector<uint8_t> a(8 * ld1 / 8), b(8 * ld1 / 8);
    for (auto &x : a)
      x = (uint8_t)rng();
    for (auto &x : b)
      x = (uint8_t)rng();
    auto bit = [](const std::vector<uint8_t> &m, unsigned e) { return (m[e / 8] >> (e % 8)) & 1; };
    auto d = runSubByte("b1", useAnd ? ".and.popc" : ".xor.popc", 128, ld1, a, b, c);
    for (unsigned i = 0; i < 8; ++i)
      for (unsigned j = 0; j < 8; ++j) {
        int32_t want = c[i * 8 + j];
        for (unsigned kk = 0; kk < 128; ++kk) {
          int x = bit(a, i * ld1 + kk), y = bit(b, j * ld1 + kk);
          want += useAnd ? (x & y) : (x ^ y);
        }
        EXPECT_EQ(d[j * 8 + i], want) << (useAnd ? "and " : "xor ") << i << "," << j;
      }
  }
}

} // namespace
