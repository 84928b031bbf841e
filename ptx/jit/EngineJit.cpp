// The engine's side of the JIT (docs/executor.md, "The JIT engine"): the mode, compiling a
// kernel and the functions it calls before its first launch, and the differential mode.

#include "ptx/exec/Engine.h"
#include "ptx/exec/Program.h"
#include "ptx/jit/JitOps.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptxsim::ptx::exec {

void Engine::initJit() {
  jit::Mode m = jit::Mode::Off;
  std::string err;
  if (!jit::parseMode(std::getenv("PTXSIM_JIT"), m, err)) {
    std::fprintf(stderr, "ptxsim: %s; the interpreter runs every kernel\n", err.c_str());
    m = jit::Mode::Off;
  }
  jitMode_ = (uint8_t)m;
}

namespace {
/// The largest function (in PTX instructions) the JIT compiles: PTXSIM_JIT_MAX_INSTS, else 1,024.
size_t jitMaxInsts() {
  static const size_t max = [] {
    const char *v = std::getenv("PTXSIM_JIT_MAX_INSTS");
    if (!v || !*v)
      return size_t(1024);
    char *end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 10);
    if (*end || n == 0) {
      std::fprintf(stderr, "ptxsim: PTXSIM_JIT_MAX_INSTS must be a positive number of "
                           "instructions, not '%s'; the limit stays 1024\n", v);
      return size_t(1024);
    }
    return size_t(n);
  }();
  return max;
}
} // namespace

bool Engine::prepareJit(const Kernel &k) {
  jit::Stats &st = jit::stats();
  if (k.fn->jit) {
    std::lock_guard<std::mutex> lock(st.mu);
    ++st.launchesJit;
    return true;
  }
  // the kernel and every function it reaches by direct calls (indirect callees are interpreted)
  std::vector<const ir::Function *> todo{k.fn}, fns;
  while (!todo.empty()) {
    const ir::Function *f = todo.back();
    todo.pop_back();
    if (!f || !f->hasBody || f->jit || std::find(fns.begin(), fns.end(), f) != fns.end())
      continue;
    fns.push_back(f);
    for (const ir::CallSite &c : f->calls)
      if (!c.builtin)
        todo.push_back(prog_->function(c.callee));
  }
  std::string err;
  jit::Backend *be = jit::backend(err);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<const jit::FunctionCode *> code;
  const size_t maxInsts = jitMaxInsts();
  for (const ir::Function *f : fns) {
    if (!be)
      break;
    if (f->code.size() > maxInsts) {
      err = (f == k.fn ? std::string("it") : "function '" + f->name + "'") + " has " +
            std::to_string(f->code.size()) +
            " instructions, above the JIT's limit of " + std::to_string(maxInsts) +
            " (LLVM's time grows with the square of a function's size: 625 take 4 s, 3,249 "
            "take 117 s; PTXSIM_JIT_MAX_INSTS sets the limit)";
      break;
    }
    const jit::FunctionCode *c = be->compile(*f, jit::describedOp, err);
    if (!c)
      break;
    code.push_back(c);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard<std::mutex> lock(st.mu);
  if (code.size() != fns.size()) {
    ++st.launchesFallback;
    // named once per kernel: it keeps running interpreted
    std::string line = "kernel '" + k.name + "': " + err;
    if (std::find(st.fallbacks.begin(), st.fallbacks.end(), line) == st.fallbacks.end())
      st.fallbacks.push_back(line);
    return false;
  }
  for (size_t i = 0; i < fns.size(); ++i) {
    fns[i]->jit = code[i];
    st.nativeInsts += code[i]->nativeInsts;
    st.calledInsts += code[i]->calledInsts;
    st.branches += code[i]->branches;
  }
  ++st.kernelsCompiled;
  ++st.launchesJit;
  st.compileSeconds += secs;
  return true;
}

namespace {
/// The bytes of every allocation a kernel may write (not the launch's own parameter buffers).
struct Snapshot {
  std::vector<Allocation> allocs;
  std::vector<std::vector<uint8_t>> bytes;
};
Snapshot snapshot(const DeviceMemory &mem) {
  Snapshot s;
  for (const Allocation &a : mem.allocations()) {
    if (a.kind == AllocKind::Param)
      continue;
    s.allocs.push_back(a);
    const uint8_t *p = static_cast<const uint8_t *>(DeviceMemory::host(a.base));
    s.bytes.emplace_back(p, p + a.size);
  }
  return s;
}
void restore(const Snapshot &s) {
  for (size_t i = 0; i < s.allocs.size(); ++i)
    if (!s.bytes[i].empty())
      std::memcpy(DeviceMemory::host(s.allocs[i].base), s.bytes[i].data(), s.bytes[i].size());
}
/// The first address where memory differs from `s` ("" when none).
std::string firstDifference(const Snapshot &s) {
  for (size_t i = 0; i < s.allocs.size(); ++i) {
    const uint8_t *p = static_cast<const uint8_t *>(DeviceMemory::host(s.allocs[i].base));
    const std::vector<uint8_t> &b = s.bytes[i];
    if (b.empty() || std::memcmp(p, b.data(), b.size()) == 0)
      continue;
    size_t j = 0;
    while (p[j] == b[j])
      ++j;
    char buf[160];
    std::snprintf(buf, sizeof buf, "global memory differs at 0x%llx (%s allocation 0x%llx + %zu): "
                  "interpreter 0x%02x, jit 0x%02x", (unsigned long long)(s.allocs[i].base + j),
                  std::string(allocKindName(s.allocs[i].kind)).c_str(),
                  (unsigned long long)s.allocs[i].base, j, b[j], p[j]);
    return buf;
  }
  return {};
}
} // namespace

LaunchResult Engine::launchDiff(const LaunchParams &p) {
  const Snapshot before = snapshot(*mem_);
  const Program::HeapState heap = prog_->heapState();
  auto sink = printfSink_;
  std::string outInterp, outJit;
  printfSink_ = [&](const std::string &s) { outInterp += s; };
  LaunchResult ri = runGrid(p, false);
  const Snapshot interp = snapshot(*mem_);
  restore(before);
  prog_->restoreHeap(heap);
  printfSink_ = [&](const std::string &s) { outJit += s; };
  LaunchResult rj = runGrid(p, true);
  printfSink_ = sink;
  if (!outJit.empty() && printfSink_)
    printfSink_(outJit);
  std::string what;
  if (ri.status != rj.status || ri.message != rj.message)
    what = "the interpreter's result was '" + (ri.ok() ? std::string("ok") : ri.message) +
           "', the jit's '" + (rj.ok() ? std::string("ok") : rj.message) + "'";
  else if (!p.cooperative && (ri.threadInsts != rj.threadInsts || ri.warpInsts != rj.warpInsts))
    what = "instruction counts differ (interpreter " + std::to_string(ri.warpInsts) + " warp / " +
           std::to_string(ri.threadInsts) + " thread, jit " + std::to_string(rj.warpInsts) +
           " / " + std::to_string(rj.threadInsts) + ")";
  else if (outInterp != outJit)
    what = "device printf output differs";
  else
    what = firstDifference(interp);
  jit::Stats &st = jit::stats();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    ++st.diffLaunches;
    st.diffMismatches += !what.empty();
  }
  if (!what.empty()) {
    rj.status = LaunchStatus::Fault;
    rj.message = "kernel '" + p.kernel->name + "': PTXSIM_JIT=diff: " + what;
  }
  return rj;
}

} // namespace ptxsim::ptx::exec
