// Executor warp-level matrix instructions with PTX-defined fragment layouts: mma.sync,
// ldmatrix, stmatrix and movmatrix.
//
// The mma kernels load each lane's fragment registers from memory, run one mma and store D's
// registers. The host builds those registers from random matrices with the per-shape formulas
// of the PTX ISA manual ("Matrix Fragments for mma.mMnNkK"), written out here case by case and
// independently of the executor's closed form, multiplies on the CPU with the executor's
// documented numerics (f32 sums in k order, one f64 fma per k, exact integer sums), packs D
// with the manual's layout and compares bit for bit.

#include "ExecHarness.h"

#include "ptx/exec/Numerics.h"

#include <climits>
#include <cmath>
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

// --- the manual's fragment layouts -----------------------------------------------------------

struct RC {
  unsigned row, col;
};

enum class Opd { A, B, C };

unsigned bitsOf(const std::string &t) {
  if (t == "f16" || t == "bf16")
    return 16;
  if (t == "s8" || t == "u8" || t == "e4m3" || t == "e5m2")
    return 8;
  if (t == "s4" || t == "u4")
    return 4;
  if (t == "b1")
    return 1;
  if (t == "f64")
    return 64;
  return 32;
}

/// Row and column of element i held by `lane`, transcribed from the PTX ISA manual.
RC layout(unsigned m, unsigned k, Opd o, const std::string &t, unsigned lane, unsigned i) {
  const unsigned groupID = lane >> 2, tig = lane % 4;
  const unsigned w = bitsOf(t);
  if (o == Opd::C) {
    if (m == 8) // m8n8k4 .f64, m8n8k16 .s32
      return {groupID, tig * 2 + i};
    return {i < 2 ? groupID : groupID + 8, tig * 2 + (i & 1)};
  }
  if (o == Opd::A) {
    if (w == 16) {
      if (k == 8)
        return {i < 2 ? groupID : groupID + 8, tig * 2 + (i & 1)};
      bool low = i < 2 || (4 <= i && i < 6);
      return {low ? groupID : groupID + 8, tig * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
    }
    if (w == 4) {
      if (m == 8)
        return {groupID, tig * 8 + i};
      if (k == 32)
        return {i < 8 ? groupID : groupID + 8, tig * 8 + (i & 7)};
      bool low = i < 8 || (16 <= i && i < 24);
      return {low ? groupID : groupID + 8, tig * 8 + (i & 7) + (i >= 16 ? 32 : 0)};
    }
    if (w == 1) {
      if (m == 8)
        return {groupID, tig * 32 + i};
      if (k == 128)
        return {i < 32 ? groupID : groupID + 8, tig * 32 + (i & 31)};
      bool low = i < 32 || (64 <= i && i < 96);
      return {low ? groupID : groupID + 8, tig * 32 + (i & 31) + (i >= 64 ? 128 : 0)};
    }
    if (w == 8) {
      if (m == 8)
        return {groupID, tig * 4 + i};
      if (k == 16)
        return {i < 4 ? groupID : groupID + 8, tig * 4 + (i & 3)};
      bool low = i < 4 || (8 <= i && i < 12);
      return {low ? groupID : groupID + 8, tig * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
    }
    // tf32, f64
    if (m == 8)
      return {lane >> 2, lane % 4};
    if (k == 4)
      return {i == 0 ? groupID : groupID + 8, tig};
    if (k == 8)
      return {(i == 0 || i == 2) ? groupID : groupID + 8, i < 2 ? tig : tig + 4};
    return {i % 2 == 0 ? groupID : groupID + 8, i % 2 == 0 ? i * 2 + tig : i * 2 - 2 + tig};
  }
  // B
  if (w == 16) {
    if (k == 8)
      return {tig * 2 + i, groupID};
    return {tig * 2 + (i & 1) + (i >= 2 ? 8 : 0), groupID};
  }
  if (w == 8) {
    if (k == 32)
      return {tig * 4 + (i & 3) + (i >= 4 ? 16 : 0), groupID};
    return {tig * 4 + i, groupID};
  }
  if (w == 4) {
    if (k == 64)
      return {tig * 8 + (i & 7) + (i >= 8 ? 32 : 0), groupID};
    return {tig * 8 + i, groupID};
  }
  if (w == 1) {
    if (k == 256)
      return {tig * 32 + (i & 31) + (i >= 32 ? 128 : 0), groupID};
    return {tig * 32 + i, groupID};
  }
  if (m == 8)
    return {lane % 4, lane >> 2};
  if (k == 4)
    return {tig, groupID};
  if (k == 8)
    return {i == 0 ? tig : tig + 4, groupID};
  return {tig + i * 4, groupID};
}

// --- one mma case ----------------------------------------------------------------------------

struct Case {
  unsigned m, n, k;
  std::string dt, at, bt, ct;
  bool satfinite = false;
  bool bigInts = false; ///< s8/u8 extremes and C near the s32 limits (overflow)
  std::string bitOp{};  ///< b1: ".xor" or ".and"
};

std::string shapeName(const Case &c) {
  return "m" + std::to_string(c.m) + "n" + std::to_string(c.n) + "k" + std::to_string(c.k);
}

unsigned perReg(const std::string &t) { return bitsOf(t) >= 32 ? 1 : 32 / bitsOf(t); }
unsigned elemsPerLane(unsigned rows, unsigned cols) { return rows * cols / 32; }
unsigned regsOf(const std::string &t, unsigned rows, unsigned cols) {
  return elemsPerLane(rows, cols) / perReg(t);
}

std::string regType(const std::string &t) {
  return t == "f32" ? "f32" : t == "f64" ? "f64" : t == "s32" ? "s32" : "b32";
}

std::string list(const std::string &name, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", " : "") + name + std::to_string(i);
  return s + "}";
}

/// Kernel: lane l loads register r of operand X from X[l * nX + r] (4 or 8 bytes each), runs
/// the mma and stores D's registers the same way.
std::string mmaKernel(const Case &c) {
  unsigned na = regsOf(c.at, c.m, c.k), nb = regsOf(c.bt, c.k, c.n);
  unsigned nc = regsOf(c.ct, c.m, c.n), nd = regsOf(c.dt, c.m, c.n);
  auto rb = [](const std::string &t) { return t == "f64" ? 8u : 4u; };
  std::string s = ptxHeader() +
                  ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd) {\n"
                  "  .reg ." + regType(c.at) + " %a<16>; .reg ." + regType(c.bt) + " %b<8>;\n"
                  "  .reg ." + regType(c.ct) + " %c<4>; .reg ." + regType(c.dt) + " %d<4>;\n"
                  "  .reg .b64 %rd<12>; .reg .u32 %t;\n"
                  "  mov.u32 %t, %tid.x;\n";
  const char *names[4] = {"pa", "pb", "pc", "pd"};
  unsigned counts[4] = {na, nb, nc, nd};
  unsigned bytes[4] = {rb(c.at), rb(c.bt), rb(c.ct), rb(c.dt)};
  for (unsigned o = 0; o < 4; ++o)
    s += "  ld.param.u64 %rd" + std::to_string(o) + ", [" + names[o] + "];\n"
         "  mul.wide.u32 %rd" + std::to_string(o + 4) + ", %t, " +
         std::to_string(counts[o] * bytes[o]) + ";\n"
         "  add.s64 %rd" + std::to_string(o) + ", %rd" + std::to_string(o) + ", %rd" +
         std::to_string(o + 4) + ";\n";
  const std::string types[4] = {c.at, c.bt, c.ct, c.dt};
  const char *regs[4] = {"%a", "%b", "%c", "%d"};
  for (unsigned o = 0; o < 3; ++o)
    for (unsigned r = 0; r < counts[o]; ++r)
      s += "  ld.global." + regType(types[o]) + " " + regs[o] + std::to_string(r) + ", [%rd" +
           std::to_string(o) + "+" + std::to_string(r * bytes[o]) + "];\n";
  s += "  mma.sync.aligned." + shapeName(c) + ".row.col" + (c.satfinite ? ".satfinite" : "") +
       "." + c.dt + "." + c.at + "." + c.bt + "." + c.ct + (c.bitOp.empty() ? "" : c.bitOp + ".popc") +
       " " + list("%d", nd) + ", " +
       list("%a", na) + ", " + list("%b", nb) + ", " + list("%c", nc) + ";\n";
  for (unsigned r = 0; r < nd; ++r)
    s += "  st.global." + regType(c.dt) + " [%rd3+" + std::to_string(r * bytes[3]) + "], %d" +
         std::to_string(r) + ";\n";
  return s + "  ret;\n}\n";
}

float fp8Value(uint8_t b, bool e5m2) {
  int sign = b & 0x80 ? -1 : 1;
  int e = e5m2 ? (b >> 2) & 31 : (b >> 3) & 15;
  int man = e5m2 ? b & 3 : b & 7;
  int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  double frac = (double)man / (1 << mbits);
  double v = e == 0 ? frac * std::pow(2.0, 1 - bias) : (1 + frac) * std::pow(2.0, e - bias);
  return (float)(sign * v);
}

uint64_t randomElem(const std::string &t, std::mt19937 &rng, bool big) {
  std::uniform_real_distribution<float> f(-4.0f, 4.0f);
  if (t == "f16")
    return f32ToF16(f(rng));
  if (t == "bf16")
    return f32ToBF16(f(rng));
  if (t == "f32")
    return bitsOfF32(f(rng));
  if (t == "tf32")
    return bitsOfF32(f(rng)) | (rng() & 0x1fff); // low bits the instruction ignores
  if (t == "f64")
    return bitsOfF64((double)f(rng) + (double)f(rng) * 0x1p-30);
  if (t == "e4m3") {
    uint8_t b;
    do b = (uint8_t)rng(); while ((b & 0x7f) == 0x7f); // no NaN
    return b;
  }
  if (t == "e5m2") {
    uint8_t b;
    do b = (uint8_t)rng(); while (((b >> 2) & 31) == 31 || ((b >> 2) & 31) > 20); // finite, small
    return b;
  }
  if (t == "s8")
    return big ? (uint8_t)(rng() % 2 ? 0x80 : 0x7f) : (uint8_t)(int8_t)(rng() % 256 - 128);
  if (t == "u8")
    return big ? 0xff : (uint8_t)(rng() % 256);
  if (t == "s4" || t == "u4")
    return big ? (t == "s4" ? 8 : 15) : rng() % 16;
  if (t == "b1")
    return rng() % 2;
  // s32
  if (big)
    return (uint32_t)(rng() % 2 ? INT32_MAX - (int32_t)(rng() % 1000) : INT32_MIN + (int32_t)(rng() % 1000));
  return (uint32_t)(int32_t)(rng() % 20001 - 10000);
}

float asF32(const std::string &t, uint64_t b) {
  if (t == "f16")
    return f16ToF32((uint16_t)b);
  if (t == "bf16")
    return bf16ToF32((uint16_t)b);
  if (t == "tf32")
    return f32OfBits((uint32_t)b & 0xffffe000u);
  if (t == "e4m3" || t == "e5m2")
    return fp8Value((uint8_t)b, t == "e5m2");
  return f32OfBits((uint32_t)b);
}

int64_t asInt(const std::string &t, uint64_t b) {
  if (t == "s8")
    return (int8_t)b;
  if (t == "u8")
    return (uint8_t)b;
  if (t == "s4")
    return (int64_t)((b & 15) ^ 8) - 8;
  if (t == "u4")
    return b & 15;
  return (int32_t)b;
}

/// Per-lane registers of a rows x cols matrix X (row-major element bits) in the manual's layout.
std::vector<uint64_t> toRegs(const Case &c, Opd o, const std::string &t, unsigned rows,
                             unsigned cols, const std::vector<uint64_t> &X) {
  unsigned p = perReg(t), w = bitsOf(t), per = elemsPerLane(rows, cols), nr = per / p;
  std::vector<uint64_t> regs(32 * nr, 0);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < per; ++i) {
      RC rc = layout(c.m, c.k, o, t, l, i);
      EXPECT_LT(rc.row, rows);
      EXPECT_LT(rc.col, cols);
      regs[l * nr + i / p] |= X[rc.row * cols + rc.col] << ((i % p) * w);
    }
  return regs;
}

std::vector<uint8_t> regBytes(const std::string &t, const std::vector<uint64_t> &regs) {
  unsigned rb = t == "f64" ? 8 : 4;
  std::vector<uint8_t> b(regs.size() * rb);
  for (size_t i = 0; i < regs.size(); ++i)
    std::memcpy(b.data() + i * rb, &regs[i], rb);
  return b;
}

void runMma(const Case &c, unsigned seed = 1) {
  std::string kernel = mmaKernel(c);
  SCOPED_TRACE(kernel);
  std::mt19937 rng(seed);
  std::vector<uint64_t> A(c.m * c.k), B(c.k * c.n), C(c.m * c.n), D(c.m * c.n);
  for (auto &e : A)
    e = randomElem(c.at, rng, c.bigInts);
  for (auto &e : B)
    e = randomElem(c.bt, rng, c.bigInts);
  for (auto &e : C)
    e = randomElem(c.ct, rng, c.bigInts);
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned j = 0; j < c.n; ++j) {
      uint64_t &out = D[i * c.n + j];
      if (c.at == "f64") {
        double acc = f64OfBits(C[i * c.n + j]);
        for (unsigned kk = 0; kk < c.k; ++kk)
          acc = std::fma(f64OfBits(A[i * c.k + kk]), f64OfBits(B[kk * c.n + j]), acc);
        out = bitsOfF64(acc);
      } else if (c.at == "b1") {
        uint32_t acc = (uint32_t)C[i * c.n + j];
        for (unsigned kk = 0; kk < c.k; ++kk)
          acc += c.bitOp == ".and" ? (A[i * c.k + kk] & B[kk * c.n + j]) : (A[i * c.k + kk] ^ B[kk * c.n + j]);
        out = acc;
      } else if (c.at == "s8" || c.at == "u8" || c.at == "s4" || c.at == "u4") {
        int64_t acc = asInt(c.ct, C[i * c.n + j]);
        for (unsigned kk = 0; kk < c.k; ++kk)
          acc += asInt(c.at, A[i * c.k + kk]) * asInt(c.bt, B[kk * c.n + j]);
        if (c.satfinite)
          acc = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
        out = (uint32_t)acc;
      } else {
        float acc = asF32(c.ct, C[i * c.n + j]);
        for (unsigned kk = 0; kk < c.k; ++kk)
          acc += asF32(c.at, A[i * c.k + kk]) * asF32(c.bt, B[kk * c.n + j]);
        out = c.dt == "f16" ? f32ToF16(acc) : bitsOfF32(acc);
      }
    }
  auto ra = toRegs(c, Opd::A, c.at, c.m, c.k, A), rbv = toRegs(c, Opd::B, c.bt, c.k, c.n, B);
  auto rc = toRegs(c, Opd::C, c.ct, c.m, c.n, C), rd = toRegs(c, Opd::C, c.dt, c.m, c.n, D);

  ExecHarness h;
  ASSERT_TRUE(h.load(kernel)) << h.errors;
  uint64_t da = h.upload(regBytes(c.at, ra)), db = h.upload(regBytes(c.bt, rbv));
  uint64_t dc = h.upload(regBytes(c.ct, rc));
  std::vector<uint8_t> want = regBytes(c.dt, rd);
  uint64_t dd = h.upload(std::vector<uint8_t>(want.size(), 0xa5));
  auto r = h.launch("k", {1}, {32}, {da, db, dc, dd});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<uint8_t> got = h.read<uint8_t>(dd, want.size());
  unsigned rbytes = c.dt == "f64" ? 8 : 4, nd = (unsigned)(want.size() / rbytes / 32);
  unsigned bad = 0;
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r2 = 0; r2 < nd; ++r2) {
      size_t off = (l * nd + r2) * rbytes;
      if (std::memcmp(got.data() + off, want.data() + off, rbytes) != 0 && bad++ < 5) {
        uint64_t g = 0, x = 0;
        std::memcpy(&g, got.data() + off, rbytes);
        std::memcpy(&x, want.data() + off, rbytes);
        ADD_FAILURE() << "lane " << l << " d" << r2 << " = 0x" << std::hex << g << " expected 0x" << x;
      }
    }
}

TEST(ExecMma, M16n8k16F16F32) { runMma({16, 8, 16, "f32", "f16", "f16", "f32"}); }
TEST(ExecMma, M16n8k16F16F16) { runMma({16, 8, 16, "f16", "f16", "f16", "f16"}, 2); }
TEST(ExecMma, M16n8k16F16MixedAccumulators) {
  runMma({16, 8, 16, "f32", "f16", "f16", "f16"}, 3);
  runMma({16, 8, 16, "f16", "f16", "f16", "f32"}, 4);
}
TEST(ExecMma, M16n8k16Bf16) { runMma({16, 8, 16, "f32", "bf16", "bf16", "f32"}, 5); }
TEST(ExecMma, M16n8k8F16) {
  runMma({16, 8, 8, "f32", "f16", "f16", "f32"}, 6);
  runMma({16, 8, 8, "f16", "f16", "f16", "f16"}, 7);
}
TEST(ExecMma, M16n8k8Bf16) { runMma({16, 8, 8, "f32", "bf16", "bf16", "f32"}, 8); }
TEST(ExecMma, Tf32) {
  runMma({16, 8, 8, "f32", "tf32", "tf32", "f32"}, 9);
  runMma({16, 8, 4, "f32", "tf32", "tf32", "f32"}, 10);
}
TEST(ExecMma, F64) {
  runMma({8, 8, 4, "f64", "f64", "f64", "f64"}, 11);
  runMma({16, 8, 4, "f64", "f64", "f64", "f64"}, 12);
  runMma({16, 8, 8, "f64", "f64", "f64", "f64"}, 13);
  runMma({16, 8, 16, "f64", "f64", "f64", "f64"}, 14);
}
TEST(ExecMma, Int8) {
  runMma({16, 8, 16, "s32", "s8", "s8", "s32"}, 15);
  runMma({16, 8, 16, "s32", "u8", "s8", "s32"}, 16);
  runMma({16, 8, 32, "s32", "s8", "u8", "s32"}, 17);
  runMma({16, 8, 32, "s32", "u8", "u8", "s32"}, 18);
  runMma({8, 8, 16, "s32", "s8", "s8", "s32"}, 19);
}
TEST(ExecMma, Int8OverflowWrapsOrSaturates) {
  Case c{16, 8, 32, "s32", "u8", "u8", "s32"};
  c.bigInts = true;
  runMma(c, 20); // wraps
  c.satfinite = true;
  runMma(c, 20);
  Case s{16, 8, 16, "s32", "s8", "s8", "s32"};
  s.bigInts = true;
  s.satfinite = true;
  runMma(s, 21);
}
TEST(ExecMma, Int4) {
  runMma({8, 8, 32, "s32", "s4", "s4", "s32"}, 24);
  runMma({8, 8, 32, "s32", "u4", "s4", "s32"}, 25);
  runMma({16, 8, 32, "s32", "u4", "u4", "s32"}, 26);
  runMma({16, 8, 64, "s32", "s4", "u4", "s32"}, 27);
  Case c{16, 8, 64, "s32", "u4", "u4", "s32"};
  c.bigInts = true;
  c.satfinite = true;
  runMma(c, 28);
}
TEST(ExecMma, B1XorAndPopc) {
  for (const char *op : {".xor", ".and"})
    for (unsigned k : {128u, 256u}) {
      Case c{16, 8, k, "s32", "b1", "b1", "s32"};
      c.bitOp = op;
      runMma(c, 29 + k);
    }
  Case c{8, 8, 128, "s32", "b1", "b1", "s32"};
  c.bitOp = ".and";
  runMma(c, 31);
}
TEST(ExecMma, Fp8) {
  runMma({16, 8, 32, "f32", "e4m3", "e5m2", "f32"}, 22);
  runMma({16, 8, 16, "f16", "e4m3", "e4m3", "f16"}, 23);
}

/// A layout spot check written from the manual's figure for m16n8k16 A (f16): lane 5 holds
/// a0 = A[1][2], a1 = A[1][3], a2 = A[9][2], a3 = A[9][3], a4 = A[1][10] ... a7 = A[9][11].
TEST(ExecMma, LayoutSpotCheck) {
  const RC want[8] = {{1, 2}, {1, 3}, {9, 2}, {9, 3}, {1, 10}, {1, 11}, {9, 10}, {9, 11}};
  for (unsigned i = 0; i < 8; ++i) {
    RC rc = layout(16, 16, Opd::A, "f16", 5, i);
    EXPECT_EQ(rc.row, want[i].row) << i;
    EXPECT_EQ(rc.col, want[i].col) << i;
  }
}

// --- ldmatrix / stmatrix / movmatrix ---------------------------------------------------------

/// Memory row that lane l addresses: a permutation, so rows are neither contiguous nor in order.
unsigned rowOf(unsigned l) { return (l * 7 + 3) % 32; }

/// Element (r, c) of matrix j as the instruction sees it, given shared memory `mem` (32 rows of
/// 8 b16 elements) addressed through rowOf.
uint16_t matElem(const std::vector<uint16_t> &mem, unsigned j, unsigned r, unsigned c, bool trans) {
  return trans ? mem[rowOf(8 * j + c) * 8 + r] : mem[rowOf(8 * j + r) * 8 + c];
}

/// ldmatrix kernel: copies 512 bytes from pin to shared memory, ldmatrix with each lane's row
/// address (lanes past the addressing ones give an out-of-range address, which must be
/// ignored), stores the registers to pout[lane * n + j].
std::string ldKernel(unsigned n, bool trans, bool generic) {
  std::string regs = list("%r", n);
  std::string s = ptxHeader() + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .shared .align 16 .b8 sm[512];
  .reg .b32 %r<4>; .reg .u32 %t, %row, %a; .reg .b64 %rd<8>; .reg .pred %p;
  mov.u32 %t, %tid.x;
  ld.param.u64 %rd0, [pin]; ld.param.u64 %rd1, [pout];
  mul.wide.u32 %rd2, %t, 16; add.s64 %rd3, %rd0, %rd2;
  ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%rd3];
  mov.u32 %a, sm; mul.lo.u32 %row, %t, 16; add.u32 %a, %a, %row;
  st.shared.v4.b32 [%a], {%r0, %r1, %r2, %r3};
  bar.sync 0;
  mul.lo.u32 %row, %t, 7; add.u32 %row, %row, 3; rem.u32 %row, %row, 32;
  mul.lo.u32 %row, %row, 16; mov.u32 %a, sm; add.u32 %a, %a, %row;
  setp.ge.u32 %p, %t, )" + std::to_string(8 * n) + R"(;
  @%p mov.u32 %a, 0x100000;
)";
  if (generic)
    s += "  cvt.u64.u32 %rd4, %a; cvta.shared.u64 %rd4, %rd4;\n"
         "  ldmatrix.sync.aligned.m8n8.x" + std::to_string(n) + (trans ? ".trans" : "") +
         ".b16 " + regs + ", [%rd4];\n";
  else
    s += "  ldmatrix.sync.aligned.m8n8.x" + std::to_string(n) + (trans ? ".trans" : "") +
         ".shared.b16 " + regs + ", [%a];\n";
  s += "  mul.wide.u32 %rd2, %t, " + std::to_string(4 * n) + "; add.s64 %rd3, %rd1, %rd2;\n";
  for (unsigned j = 0; j < n; ++j)
    s += "  st.global.b32 [%rd3+" + std::to_string(4 * j) + "], %r" + std::to_string(j) + ";\n";
  return s + "  ret;\n}\n";
}

std::vector<uint16_t> sharedPattern() {
  std::vector<uint16_t> mem(256);
  for (unsigned i = 0; i < 256; ++i)
    mem[i] = (uint16_t)(0x1000 + i * 37);
  return mem;
}

void runLd(unsigned n, bool trans, bool generic) {
  SCOPED_TRACE("x" + std::to_string(n) + (trans ? " trans" : "") + (generic ? " generic" : ""));
  ExecHarness h;
  ASSERT_TRUE(h.load(ldKernel(n, trans, generic))) << h.errors;
  auto mem = sharedPattern();
  uint64_t in = h.upload(mem), out = h.alloc(32 * 4 * n);
  auto r = h.launch("k", {1}, {32}, {in, out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<uint32_t>(out, 32 * n);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned j = 0; j < n; ++j) {
      // thread l receives row l / 4, columns 2 * (l % 4) and the next, of matrix j
      unsigned row = l / 4, col = 2 * (l % 4);
      uint32_t want = matElem(mem, j, row, col, trans) | (uint32_t)matElem(mem, j, row, col + 1, trans) << 16;
      EXPECT_EQ(got[l * n + j], want) << "lane " << l << " matrix " << j;
    }
}

TEST(ExecMmaLdmatrix, X1X2X4) {
  for (unsigned n : {1u, 2u, 4u})
    runLd(n, false, false);
}
TEST(ExecMmaLdmatrix, Trans) {
  for (unsigned n : {1u, 2u, 4u})
    runLd(n, true, false);
}
TEST(ExecMmaLdmatrix, GenericAddresses) {
  runLd(4, false, true);
  runLd(2, true, true);
}

TEST(ExecMmaLdmatrix, GlobalGenericAddressFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 pin) {
  .reg .b32 %r0; .reg .b64 %rd0;
  ld.param.u64 %rd0, [pin];
  ldmatrix.sync.aligned.m8n8.x1.b16 {%r0}, [%rd0];
  ret;
}
)")) << h.errors;
  auto r = h.launch("k", {1}, {32}, {h.alloc(256)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("not a shared-memory address"), std::string::npos) << r.message;
}

TEST(ExecMmaLdmatrix, MisalignedAndOutOfBoundsRowsFault) {
  const char *body = R"(
.visible .entry k(.param .u32 off) {
  .shared .align 16 .b8 sm[128];
  .reg .b32 %r0; .reg .u32 %t, %a, %o;
  ld.param.u32 %o, [off];
  mov.u32 %t, %tid.x; mul.lo.u32 %a, %t, 16; add.u32 %a, %a, %o;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r0}, [%a];
  ret;
}
)";
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + body)) << h.errors;
  EXPECT_TRUE(h.launch("k", {1}, {32}, {0}).ok());
  auto r = h.launch("k", {1}, {32}, {8});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("misaligned shared read of 16 bytes"), std::string::npos) << r.message;
  r = h.launch("k", {1}, {32}, {16});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("out-of-bounds shared read of 16 bytes"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("thread (7,0,0)"), std::string::npos) << r.message;
}

/// stmatrix: lane l holds, in register j, the value (j << 24 | l << 16 | l) -> two b16 halves;
/// the rows go to shared memory through rowOf and the whole buffer is copied out.
std::string stKernel(unsigned n, bool trans) {
  std::string s = ptxHeader("sm_90") + R"(
.visible .entry k(.param .u64 pout) {
  .shared .align 16 .b8 sm[512];
  .reg .b32 %r<4>; .reg .u32 %t, %row, %a, %v, %lo, %hi; .reg .b64 %rd<4>; .reg .pred %p;
  mov.u32 %t, %tid.x;
  ld.param.u64 %rd0, [pout];
  mov.u32 %a, sm; mul.lo.u32 %row, %t, 16; add.u32 %a, %a, %row;
  mov.u32 %v, 0xeeee; st.shared.v4.b32 [%a], {%v, %v, %v, %v};
  bar.sync 0;
)";
  for (unsigned j = 0; j < n; ++j)
    s += "  mul.lo.u32 %lo, %t, 2; add.u32 %lo, %lo, " + std::to_string(0x100 * (j + 1)) +
         "; add.u32 %hi, %lo, 1; shl.b32 %hi, %hi, 16; or.b32 %r" + std::to_string(j) +
         ", %lo, %hi;\n";
  s += R"(
  mul.lo.u32 %row, %t, 7; add.u32 %row, %row, 3; rem.u32 %row, %row, 32;
  mul.lo.u32 %row, %row, 16; mov.u32 %a, sm; add.u32 %a, %a, %row;
  setp.ge.u32 %p, %t, )" + std::to_string(8 * n) + R"(;
  @%p mov.u32 %a, 0x100000;
  stmatrix.sync.aligned.m8n8.x)" + std::to_string(n) + (trans ? ".trans" : "") +
       ".shared.b16 [%a], " + list("%r", n) + R"(;
  bar.sync 0;
  mov.u32 %a, sm; mul.lo.u32 %row, %t, 16; add.u32 %a, %a, %row;
  ld.shared.v4.b32 {%r0, %r1, %r2, %r3}, [%a];
  mul.wide.u32 %rd1, %t, 16; add.s64 %rd2, %rd0, %rd1;
  st.global.v4.b32 [%rd2], {%r0, %r1, %r2, %r3};
  ret;
}
)";
  return s;
}

void runSt(unsigned n, bool trans) {
  SCOPED_TRACE("x" + std::to_string(n) + (trans ? " trans" : ""));
  ExecHarness h;
  ASSERT_TRUE(h.load(stKernel(n, trans))) << h.errors;
  uint64_t out = h.alloc(512);
  auto r = h.launch("k", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<uint16_t>(out, 256);
  std::vector<uint16_t> want(256, 0xeeee);
  for (unsigned i = 0; i < 256; i += 2)
    want[i + 1] = 0; // the fill wrote 0x0000eeee words
  for (unsigned j = 0; j < n; ++j)
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned h2 = 0; h2 < 2; ++h2) {
        // lane l's register j holds elements (l / 4, 2 * (l % 4) + h2) of matrix j
        unsigned row = l / 4, col = 2 * (l % 4) + h2;
        uint16_t v = (uint16_t)(0x100 * (j + 1) + 2 * l + h2);
        unsigned memRow = trans ? rowOf(8 * j + col) : rowOf(8 * j + row);
        unsigned memCol = trans ? row : col;
        want[memRow * 8 + memCol] = v;
      }
  for (unsigned i = 0; i < 256; ++i)
    EXPECT_EQ(got[i], want[i]) << "row " << i / 8 << " element " << i % 8;
}

TEST(ExecMmaStmatrix, X1X2X4) {
  for (unsigned n : {1u, 2u, 4u})
    runSt(n, false);
}
TEST(ExecMmaStmatrix, Trans) {
  for (unsigned n : {1u, 2u, 4u})
    runSt(n, true);
}

TEST(ExecMmaMovmatrix, Transposes) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 pout) {
  .reg .b32 %r<2>; .reg .u32 %t, %lo, %hi; .reg .b64 %rd<3>;
  mov.u32 %t, %tid.x;
  ld.param.u64 %rd0, [pout];
  // lane t holds elements (t / 4, 2 * (t % 4) + h) = 0x100 + 2t + h: element (r, c) = 0x100 + 8r + c
  mul.lo.u32 %lo, %t, 2; add.u32 %lo, %lo, 0x100; add.u32 %hi, %lo, 1;
  shl.b32 %hi, %hi, 16; or.b32 %r0, %lo, %hi;
  movmatrix.sync.aligned.m8n8.trans.b16 %r0, %r0;
  mul.wide.u32 %rd1, %t, 4; add.s64 %rd2, %rd0, %rd1;
  st.global.b32 [%rd2], %r0;
  ret;
}
)")) << h.errors;
  auto got = h.runOneWarp("k");
  ASSERT_EQ(got.size(), 32u);
  for (unsigned l = 0; l < 32; ++l) {
    unsigned row = l / 4, col = 2 * (l % 4);
    // result element (row, col) is source element (col, row)
    uint32_t want = (0x100 + 8 * col + row) | (uint32_t)(0x100 + 8 * (col + 1) + row) << 16;
    EXPECT_EQ(got[l], want) << "lane " << l;
  }
}

// --- .sync.aligned --------------------------------------------------------------------------

TEST(ExecMma, PartialWarpFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k() {
  .reg .b32 %a<4>, %b<2>; .reg .f32 %c<4>, %d<4>;
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3},
      {%b0, %b1}, {%c0, %c1, %c2, %c3};
  ret;
}
)")) << h.errors;
  auto r = h.launch("k", {1}, {16}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("mma executed by 16 of 32 lanes"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(".sync.aligned requires every lane"), std::string::npos) << r.message;
  EXPECT_TRUE(h.launch("k", {1}, {32}, {}).ok());
}

TEST(ExecMmaLdmatrix, DivergentWarpFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k() {
  .shared .align 16 .b8 sm[128];
  .reg .b32 %r0, %r1; .reg .u32 %t, %a; .reg .pred %p;
  mov.u32 %t, %tid.x; setp.lt.u32 %p, %t, 24;
  mov.u32 %a, sm;
  @%p ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r0}, [%a];
  @%p movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r0;
  ret;
}
)")) << h.errors;
  auto r = h.launch("k", {1}, {32}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("ldmatrix executed by 24 of 32 lanes of the warp (active mask 0xffffff)"),
            std::string::npos)
      << r.message;
}

TEST(ExecMma, UnsupportedFormFaultsWhenReached) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k() {
  .reg .b32 %a<2>, %b<2>, %c<4>, %d<4>;
  mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%d0, %d1, %d2, %d3}, {%a0, %a1}, {%b0, %b1},
      {%c0, %c1, %c2, %c3};
  ret;
}
)")) << h.errors;
  auto r = h.launch("k", {1}, {32}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("unsupported"), std::string::npos) << r.message;
}

} // namespace
