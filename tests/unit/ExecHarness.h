#pragma once
// Runs small PTX kernels through the engine API for executor unit tests.
//
// Usage:
//   ExecHarness h;                       // one engine, 1 host thread
//   ASSERT_TRUE(h.load(ptxText));        // parse + check + lower (diagnostics on failure)
//   uint64_t out = h.alloc(32 * 4);      // device memory (zero-filled)
//   auto r = h.launch("k", {1}, {32}, {out});   // 64-bit params (pointers / ints)
//   std::vector<uint32_t> v = h.read<uint32_t>(out, 32);

#include "ptx/exec/Engine.h"
#include "ptx/exec/Exec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace ptxsim::test {

class ExecHarness {
public:
  explicit ExecHarness(unsigned threads = 1,
                       ptx::exec::SimtMode simt = ptx::exec::SimtMode::Auto,
                       bool scheduleLoads = false, bool fusePairs = false,
                       bool mergeSharedLoads = false, uint32_t ifConvertMax = 0,
                       bool itsLeaveCalls = false, bool shareRegisterSlots = true) {
    ptx::exec::EngineConfig cfg;
    cfg.hostThreads = threads;
    cfg.simt = simt;
    cfg.scheduleLoads = scheduleLoads;
    cfg.fusePairs = fusePairs;
    cfg.mergeSharedLoads = mergeSharedLoads;
    cfg.ifConvertMax = ifConvertMax;
    cfg.itsLeaveCalls = itsLeaveCalls;
    cfg.shareRegisterSlots = shareRegisterSlots;
    cfg.arenaBytes = 4ull << 30;
    engine = std::make_unique<ptx::exec::Engine>(cfg);
    engine->setPrintfSink([this](const std::string &s) { printed += s; });
  }

  /// Loads a module; on failure records the diagnostics in `errors` and returns false.
  bool load(const std::string &ptx, const std::string &name = "test.ptx") {
    DiagEngine diags;
    module = engine->loadModule(ptx, name, diags);
    std::ostringstream os;
    diags.print(os);
    errors = os.str();
    return module >= 0;
  }

  uint64_t alloc(uint64_t bytes) { return engine->memory().allocate(bytes, ptx::exec::AllocKind::Device); }

  template <class T> uint64_t upload(const std::vector<T> &v) {
    uint64_t a = alloc(v.size() * sizeof(T));
    std::memcpy(reinterpret_cast<void *>(a), v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T> std::vector<T> read(uint64_t addr, size_t n) {
    std::vector<T> v(n);
    std::memcpy(v.data(), reinterpret_cast<const void *>(addr), n * sizeof(T));
    return v;
  }

  /// Runs `kernel(.param .u64 out)` as one warp and returns the 32 words it stores to out[lane]
  /// (empty, with a test failure, when the launch fails).
  std::vector<uint32_t> runOneWarp(const std::string &kernel) {
    uint64_t out = alloc(32 * 4);
    auto r = launch(kernel, {1}, {32}, {out});
    EXPECT_TRUE(r.ok()) << r.message;
    return r.ok() ? read<uint32_t>(out, 32) : std::vector<uint32_t>();
  }

  /// Launches `kernel` with parameters given as 64-bit values, each stored with the size of
  /// the kernel's parameter (so 32-bit parameters take the low bytes).
  ptx::exec::LaunchResult launch(const std::string &kernel, ptx::exec::Dim3 grid,
                                 ptx::exec::Dim3 block, std::vector<uint64_t> params,
                                 uint32_t dynShared = 0) {
    const ptx::exec::Kernel *k = engine->findKernel(kernel, module);
    if (!k) {
      ptx::exec::LaunchResult r;
      r.status = ptx::exec::LaunchStatus::InvalidConfig;
      r.message = "no kernel " + kernel;
      return r;
    }
    std::vector<uint8_t> buf(k->paramBytes + 8);
    for (size_t i = 0; i < params.size() && i < k->paramOffsets.size(); ++i)
      std::memcpy(buf.data() + k->paramOffsets[i], &params[i], std::min<uint32_t>(k->paramSizes[i], 8));
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = grid;
    p.block = block;
    p.dynamicShared = dynShared;
    p.params = buf.data();
    return engine->launch(p);
  }

  std::unique_ptr<ptx::exec::Engine> engine;
  int module = -1;
  std::string errors;
  std::string printed;
};

/// A minimal module header for hand-written test kernels.
inline std::string ptxHeader(const char *target = "sm_90") {
  return std::string(".version 8.8\n.target ") + target + "\n.address_size 64\n";
}

/// Bytes of a PTX scalar type named without its dot ("f32" -> "4").
inline const char *sizeOfPtxType(const std::string &t) {
  if (t == "f64" || t == "b64" || t == "u64" || t == "s64")
    return "8";
  if (t == "b16" || t == "u16" || t == "s16" || t == "f16" || t == "bf16")
    return "2";
  if (t == "b8" || t == "u8" || t == "s8")
    return "1";
  return "4";
}

/// Runs `body` once per element in one block: %a, %b, %c (type st) are loaded from the inputs
/// (b and c default to a), %d (type dt) is stored; predicates %p, %q, %t and a u32 %i
/// (= %tid.x) are available. With `failure`, a launch fault is returned there instead of
/// failing the test.
template <class D, class S>
std::vector<D> runElementwise(const std::string &st, const std::string &dt, const std::string &body,
                              std::vector<S> a, std::vector<S> b = {}, std::vector<S> c = {},
                              std::string *failure = nullptr) {
  if (b.empty())
    b = a;
  if (c.empty())
    c = a;
  std::string ptx = ptxHeader() + ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd) {\n"
                                  "  .reg .b64 %x<8>; .reg .u32 %i;\n"
                                  "  .reg ." + st + " %a, %b, %c; .reg ." + dt + " %d; .reg .pred %p, %q, %t;\n"
                                  "  ld.param.u64 %x0, [pa]; ld.param.u64 %x1, [pb]; ld.param.u64 %x2, [pc]; ld.param.u64 %x3, [pd];\n"
                                  "  mov.u32 %i, %tid.x;\n"
                                  "  mul.wide.u32 %x4, %i, " + sizeOfPtxType(st) + ";\n"
                                  "  add.s64 %x0, %x0, %x4; add.s64 %x1, %x1, %x4; add.s64 %x2, %x2, %x4;\n"
                                  "  ld.global." + st + " %a, [%x0]; ld.global." + st + " %b, [%x1]; ld.global." + st + " %c, [%x2];\n"
                                  "  " + body + "\n"
                                  "  mul.wide.u32 %x5, %i, " + sizeOfPtxType(dt) + ";\n"
                                  "  add.s64 %x3, %x3, %x5;\n"
                                  "  st.global." + dt + " [%x3], %d;\n"
                                  "  ret;\n}\n";
  ExecHarness h;
  EXPECT_TRUE(h.load(ptx)) << h.errors << "\n" << ptx;
  if (h.module < 0)
    return {};
  uint64_t da = h.upload(a), db = h.upload(b), dc = h.upload(c), dd = h.alloc(a.size() * sizeof(D) + 8);
  auto r = h.launch("k", {1}, {(unsigned)a.size()}, {da, db, dc, dd});
  if (failure) {
    *failure = r.ok() ? "" : r.message;
    return {};
  }
  EXPECT_TRUE(r.ok()) << r.message << "\n" << body;
  return h.read<D>(dd, a.size());
}

/// Guards that leave many, some and few lanes of a warp: the handlers' full-warp, vector-blend and
/// per-lane forms. The kernel sets %p to (lane % 3 != 0) and %q to (lane % 8 == 0) before the
/// guarded instruction; `on(lane)` says whether the lane runs it.
struct LaneGuard {
  const char *text; ///< the guard in PTX, with its trailing space ("" for none)
  bool (*on)(uint32_t lane);
};
inline constexpr LaneGuard kLaneGuards[] = {
    {"", [](uint32_t) { return true; }},
    {"@%p ", [](uint32_t l) { return l % 3 != 0; }},  // 21 lanes
    {"@!%p ", [](uint32_t l) { return l % 3 == 0; }}, // 11 lanes
    {"@%q ", [](uint32_t l) { return l % 8 == 0; }},  // 4 lanes
};

} // namespace ptxsim::test
