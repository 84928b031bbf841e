// Functional-mode speed: simulated thread-instructions per host second on three kernels, with
// 1 and 2 host threads (best of 5 launches each), against the same work done by a plain
// single-thread C++ loop (best of 5 runs; of 15 for the shuffle kernel's loop). Usage:
// bench_exec [--kernel NAME] [kernels.ptx]
// PTXSIM_SIMT=its|ipdom|auto picks the lane scheduling (EngineConfig::simt; the kernels are
// compiled for sm_75, so auto means its); PTXSIM_JIT=on|auto|diff the engine (unset: off, the
// interpreter, not the simulator's default auto).
//
// Prints one line per (kernel, threads): thread instructions, host seconds, rate (millions of
// thread-instructions per second), the speed-up of 2 threads over 1, the slowdown against
// native code (simulated seconds / seconds of the native loop, best of 5 each (the shuffle
// kernel's loop of 15), the native loop measured just before), and the same in CPU time: cpu-s
// is the process CPU seconds of the best launch (all host threads), cpu-x that over the native
// loop's CPU seconds. On a machine shared
// with other work, wall time counts the time others hold the cores; with 1 thread, cpu-x does not.

#include "ptx/exec/Engine.h"
#include "ptx/jit/JitOps.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ptxsim;
using namespace ptxsim::ptx::exec;

namespace {

struct Run {
  uint64_t threadInsts = 0;
  double seconds = 0;
  double cpu = 0; ///< CPU seconds of the whole process (all host threads)
};

/// CPU seconds this process has used: on a loaded machine, unlike wall time, it does not count
/// the time other processes hold the cores.
double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

Run launch(Engine &e, const char *name, Dim3 grid, Dim3 block, const std::vector<uint64_t> &args) {
  const Kernel *k = e.findKernel(name);
  if (!k) {
    std::fprintf(stderr, "bench_exec: no kernel %s\n", name);
    std::exit(1);
  }
  std::vector<uint8_t> buf(k->paramBytes + 8);
  for (size_t i = 0; i < args.size(); ++i)
    std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
  LaunchParams p;
  p.kernel = k;
  p.grid = grid;
  p.block = block;
  p.params = buf.data();
  double c0 = cpuSeconds();
  auto t0 = std::chrono::steady_clock::now();
  LaunchResult r = e.launch(p);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double c = cpuSeconds() - c0;
  if (!r.ok()) {
    std::fprintf(stderr, "bench_exec: %s failed: %s\n", name, r.message.c_str());
    std::exit(1);
  }
  return {r.threadInsts, s, c};
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The kernels of exec_kernels.cu as plain single-thread C++ loops over all threads (the
// "native" baseline): each returns its host seconds. Each is a function of its own that starts
// on a 64-byte boundary, so that its loops' placement (which moved the divergent loop's time by
// up to 60 % between builds when it was inlined into main) does not depend on the code around it.
#define PTXSIM_NATIVE_LOOP __attribute__((noinline, aligned(64)))

PTXSIM_NATIVE_LOOP double nativeAlu(uint32_t *out, unsigned threads, int iters) {
  auto t0 = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t) {
    unsigned x = t, y = x * 2654435761u;
    float f = (float)x;
    for (int i = 0; i < iters; ++i) {
      x = x * 1664525u + 1013904223u;
      y ^= x >> 7;
      y += (x << 3) | (y >> 29);
      f = f * 0.999f + 1.0f;
    }
    uint32_t fb;
    std::memcpy(&fb, &f, 4);
    out[t] = x ^ y ^ fb;
  }
  return seconds(t0);
}

PTXSIM_NATIVE_LOOP double nativeSaxpy(const float *x, float *y, float a, uint64_t n) {
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
  return seconds(t0);
}

PTXSIM_NATIVE_LOOP double nativeDivergent(const uint32_t *in, uint32_t *out, uint64_t threads) {
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t w = 0; w < threads; w += 32) {
    uint32_t acc[32];
    for (unsigned l = 0; l < 32; ++l) {
      uint32_t n = in[w + l] & 31, a = 0;
      for (uint32_t i = 0; i < n; ++i)
        a = (a & 1) ? a * 3 + 1 : (a >> 1) + i;
      acc[l] = a;
    }
    for (unsigned off = 16; off > 0; off >>= 1) {
      uint32_t next[32];
      for (unsigned l = 0; l < 32; ++l)
        next[l] = acc[l] + acc[l ^ off];
      std::memcpy(acc, next, sizeof acc);
    }
    std::memcpy(out + w, acc, sizeof acc);
  }
  return seconds(t0);
}

} // namespace

int main(int argc, char **argv) {
  // the interpreter's figures unless PTXSIM_JIT asks for an engine (the default, auto, would
  // switch engines between the measured launches)
  setenv("PTXSIM_JIT", "off", 0);
  std::string path = PTXSIM_BENCH_PTX, only;
  uint64_t nMem = 1 << 24; // elements of the memory-bound kernel's arrays
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc)
      only = argv[++i];
    else if (!std::strcmp(argv[i], "--elements") && i + 1 < argc)
      nMem = std::strtoull(argv[++i], nullptr, 0);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (argv[i][0] == '-') {
      std::fprintf(stderr, "usage: bench_exec [--kernel alu_bound|memory_bound|divergent_shuffle] "
                           "[--elements N (memory_bound arrays, default 16M)] [--reps N (default 5)] "
                           "[kernels.ptx]\n");
      return 1;
    } else
      path = argv[i];
  }
  if (nMem == 0 || nMem > (1ull << 28)) {
    std::fprintf(stderr, "bench_exec: --elements must be 1 to 2^28\n");
    return 1;
  }
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "bench_exec: cannot open %s\n", path.c_str());
    return 1;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  SimtMode simt = SimtMode::Auto;
  if (const char *v = std::getenv("PTXSIM_SIMT"); v && *v && !parseSimtMode(v, simt)) {
    std::fprintf(stderr, "bench_exec: PTXSIM_SIMT must be its, ipdom or auto\n");
    return 1;
  }
  std::printf("lane scheduling: %s\n", simt == SimtMode::Its     ? "its"
                                       : simt == SimtMode::Ipdom ? "ipdom"
                                                                 : "auto");
  std::printf("%-18s %7s %14s %9s %12s %8s %9s %9s %9s %9s\n", "kernel", "threads", "thread-insts",
              "seconds", "Minsts/s", "speedup", "native-s", "slowdown", "cpu-s", "cpu-x");
  for (const char *kname : {"alu_bound", "memory_bound", "divergent_shuffle"}) {
    if (!only.empty() && only != kname)
      continue;
    double base = 0;
    for (unsigned threads : {1u, 2u}) {
      EngineConfig cfg;
      cfg.hostThreads = threads;
      cfg.arenaBytes = 8ull << 30;
      cfg.simt = simt;
      Engine e(cfg);
      DiagEngine diags;
      if (e.loadModule(ss.str(), path, diags) < 0) {
        diags.print(std::cerr);
        return 1;
      }
      DeviceMemory &m = e.memory();
      // Buffers are allocated and touched once, outside the timed launches (first-touch page
      // faults are the host kernel's cost, not the simulator's).
      const uint64_t nDiv = 1024 * 1024;
      uint64_t aluOut = m.allocate(256 * 256 * 4, AllocKind::Device);
      uint64_t x = m.allocate(nMem * 4, AllocKind::Device), y = m.allocate(nMem * 4, AllocKind::Device);
      uint64_t in = m.allocate(nDiv * 4, AllocKind::Device), out = m.allocate(nDiv * 4, AllocKind::Device);
      // small integers: a * x + y stays exact, so the native loop's result must match bit for bit
      auto *hx = reinterpret_cast<float *>(x);
      for (uint64_t i = 0; i < nMem; ++i)
        hx[i] = (float)(i & 1023);
      std::memset(reinterpret_cast<void *>(y), 0, nMem * 4);
      std::memset(reinterpret_cast<void *>(out), 0, nDiv * 4);
      auto *h = reinterpret_cast<uint32_t *>(in);
      for (uint64_t i = 0; i < nDiv; ++i)
        h[i] = (uint32_t)(i * 2654435761u >> 7);
      float a = 2.0f;
      uint32_t ab;
      std::memcpy(&ab, &a, 4);
      // The native baseline, on buffers of the same arena (same pages, same first-touch state).
      const unsigned aluThreads = 256 * 256;
      const int aluIters = 1600;
      uint64_t nOut = m.allocate(std::max<uint64_t>(nMem, nDiv) * 4, AllocKind::Device);
      uint64_t ny = m.allocate(nMem * 4, AllocKind::Device);
      std::memset(reinterpret_cast<void *>(nOut), 0, std::max<uint64_t>(nMem, nDiv) * 4);
      std::memset(reinterpret_cast<void *>(ny), 0, nMem * 4);
      // the best of as many native runs as launches; three times as many for the shuffle
      // kernel's loop, which is short (13 ms) and whose best of 5 still moved with the load (its
      // best run is its own speed: a shared machine only ever makes a run slower). SAXPY adds
      // into y, so its result is compared after as many runs as the simulator's.
      const int nativeReps = std::strcmp(kname, "divergent_shuffle") ? reps : 3 * reps;
      double native = 1e30, nativeCpu = 1e30;
      for (int rep = 0; rep < nativeReps; ++rep) {
        double s, c0 = cpuSeconds();
        if (!std::strcmp(kname, "alu_bound"))
          s = nativeAlu(reinterpret_cast<uint32_t *>(nOut), aluThreads, aluIters);
        else if (!std::strcmp(kname, "memory_bound"))
          s = nativeSaxpy(hx, reinterpret_cast<float *>(ny), a, nMem);
        else
          s = nativeDivergent(h, reinterpret_cast<uint32_t *>(nOut), nDiv);
        native = std::min(native, s);
        nativeCpu = std::min(nativeCpu, cpuSeconds() - c0);
      }
      Run best{0, 1e30};
      double bestCpu = 1e30;
      for (int rep = 0; rep < reps; ++rep) {
        Run r;
        if (!std::strcmp(kname, "alu_bound"))
          r = launch(e, kname, {256}, {256}, {aluOut, (uint64_t)aluIters});
        else if (!std::strcmp(kname, "memory_bound"))
          r = launch(e, kname, {1024}, {256}, {x, y, ab, nMem});
        else
          r = launch(e, kname, {4096}, {256}, {in, out});
        if (r.seconds < best.seconds)
          best = r;
        bestCpu = std::min(bestCpu, r.cpu);
      }
      // Both did the same work five times: the results must agree (the ALU kernel's float
      // chain is contracted to fma by nvcc, which plain C++ on x86-64 does not do, so only its
      // thread count is compared there).
      const void *simOut = !std::strcmp(kname, "memory_bound") ? reinterpret_cast<void *>(y)
                                                               : reinterpret_cast<void *>(out);
      if (std::strcmp(kname, "alu_bound") &&
          std::memcmp(simOut, reinterpret_cast<void *>(!std::strcmp(kname, "memory_bound") ? ny : nOut),
                      (!std::strcmp(kname, "memory_bound") ? nMem : nDiv) * 4)) {
        std::fprintf(stderr, "bench_exec: %s: the simulated result differs from the native loop's\n",
                     kname);
        return 1;
      }
      double rate = best.threadInsts / best.seconds / 1e6;
      if (threads == 1)
        base = rate;
      std::printf("%-18s %7u %14llu %9.3f %12.1f %8.2f %9.4f %8.2fx %9.3f %8.2fx\n", kname, threads,
                  (unsigned long long)best.threadInsts, best.seconds, rate, rate / base, native,
                  best.seconds / native, bestCpu, bestCpu / nativeCpu);
    }
  }
  std::fputs(ptx::jit::summaryText().c_str(), stderr); // PTXSIM_JIT=on|diff
  return 0;
}
