// The JIT's handler descriptions, mode, backend loading and run-summary counters.

#include "ptx/jit/JitOps.h"

#include <cstdio>
#include <dlfcn.h>
#include <string_view>
#include <unistd.h>
#include <unordered_map>

namespace ptxsim::ptx::jit {

namespace {
std::unordered_map<ir::ExecFn, OpDesc> &table() {
  // never destroyed: the runtime library registers no static destructors
  static auto &t = *new std::unordered_map<ir::ExecFn, OpDesc>;
  return t;
}
} // namespace

void describe(ir::ExecFn fn, Op op, Type type) {
  if (fn)
    table()[fn] = OpDesc{op, type};
}

OpDesc describedOp(ir::ExecFn fn) {
  auto it = table().find(fn);
  return it == table().end() ? OpDesc{} : it->second;
}

bool parseMode(const char *text, Mode &out, std::string &err) {
  std::string_view v = text ? text : "";
  if (v == "off" || v == "0") {
    out = Mode::Off;
  } else if (v.empty() || v == "auto") {
    out = Mode::Auto;
  } else if (v == "on" || v == "1") {
    out = Mode::On;
  } else if (v == "diff") {
    out = Mode::Diff;
  } else {
    err = "PTXSIM_JIT must be 'on', 'off', 'auto' or 'diff', not '" + std::string(v) + "'";
    return false;
  }
  return true;
}

namespace {
/// The places the JIT module may be, in the order backend() tries them: next to the library
/// (or executable) this code is linked into, in ../lib from there, where the build put it.
std::vector<std::string> moduleCandidates() {
#ifdef PTXSIM_JIT_MODULE
  Dl_info info{};
  std::string dir;
  if (dladdr(reinterpret_cast<void *>(&backend), &info) && info.dli_fname) {
    dir = info.dli_fname;
    size_t slash = dir.rfind('/');
    dir = slash == std::string::npos ? std::string() : dir.substr(0, slash + 1);
  }
  return {dir + PTXSIM_JIT_MODULE, dir + "../lib/" PTXSIM_JIT_MODULE, PTXSIM_JIT_MODULE_PATH};
#else
  return {};
#endif
}
} // namespace

std::string moduleFile() {
  for (const std::string &c : moduleCandidates())
    if (::access(c.c_str(), R_OK) == 0)
      return c;
  return {};
}

Backend *backend(std::string &err) {
  static std::mutex mu;
  static Backend *b = nullptr;
  static std::string &loadErr = *new std::string;
  static bool tried = false;
  std::lock_guard<std::mutex> lock(mu);
  if (!tried) {
    tried = true;
#ifdef PTXSIM_JIT_MODULE
    void *h = nullptr;
    for (const std::string &c : moduleCandidates())
      if ((h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!h) {
      const char *e = dlerror();
      loadErr = "cannot load the JIT module " PTXSIM_JIT_MODULE ": " + std::string(e ? e : "?");
    } else if (auto create = reinterpret_cast<CreateBackendFn>(dlsym(h, "ptxsimJitCreate"))) {
      b = create(kBackendAbi);
      if (!b)
        loadErr = "the JIT module " PTXSIM_JIT_MODULE " was built for another ptxsim";
    } else {
      loadErr = "the JIT module " PTXSIM_JIT_MODULE " has no entry point";
    }
#else
    loadErr = "this ptxsim was built without LLVM (cmake -DPTXSIM_JIT=ON with llvm-14-dev)";
#endif
  }
  if (!b)
    err = loadErr;
  return b;
}

Stats &stats() {
  static Stats &s = *new Stats;
  return s;
}

std::string summaryText() {
  Stats &s = stats();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.kernelsCompiled && !s.launchesFallback && !s.diffLaunches)
    return {}; // (--jit auto that never switched: nothing to say)
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  jit: %llu kernel(s) ready (%llu in the background), %llu function(s) compiled "
                "in %.3f s, %llu loaded from cache (%llu without LLVM) in %.3f s (%llu instructions native, %llu as "
                "handler calls, %llu branches); %llu launch(es) compiled, %llu interpreted "
                "(fallback)",
                (unsigned long long)s.kernelsCompiled, (unsigned long long)s.backgroundCompiles,
                (unsigned long long)s.functionsCompiled, s.compileSeconds,
                (unsigned long long)s.functionsCached, (unsigned long long)s.functionsLoaded,
                s.cacheSeconds,
                (unsigned long long)s.nativeInsts, (unsigned long long)s.calledInsts,
                (unsigned long long)s.branches,
                (unsigned long long)s.launchesJit, (unsigned long long)s.launchesFallback);
  std::string out = buf;
  if (s.stackChanges) {
    std::snprintf(buf, sizeof buf, ", %llu divergence(s) and reconvergence(s) in compiled code",
                  (unsigned long long)s.stackChanges);
    out += buf;
  }
  if (s.launchesInterpreted) {
    std::snprintf(buf, sizeof buf, ", %llu interpreted while not hot or compiling (auto)",
                  (unsigned long long)s.launchesInterpreted);
    out += buf;
  }
  if (s.kernelsEarly) {
    std::snprintf(buf, sizeof buf, ", %llu kernel(s) hot at their first launch by the hotness record",
                  (unsigned long long)s.kernelsEarly);
    out += buf;
  }
  if (s.diffLaunches) {
    std::snprintf(buf, sizeof buf, "; diff: %llu launch(es) compared, %llu mismatch(es)",
                  (unsigned long long)s.diffLaunches, (unsigned long long)s.diffMismatches);
    out += buf;
  }
  out += "\n";
  for (const std::string &f : s.fallbacks)
    out += "  jit fallback: " + f + "\n";
  return out;
}

} // namespace ptxsim::ptx::jit
