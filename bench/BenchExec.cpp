// Functional-mode speed: simulated thread-instructions per host second on three kernels, with
// 1 and 2 host threads (best of 5 launches each). Usage: bench_exec [kernels.ptx]
// PTXSIM_SIMT=its|ipdom|auto picks the lane scheduling (EngineConfig::simt; the kernels are
// compiled for sm_75, so auto means its).
//
// Prints one line per (kernel, threads): thread instructions, host seconds, rate (millions of
// thread-instructions per second), and the speed-up of 2 threads over 1.

#include "ptx/exec/Engine.h"

#include <chrono>
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
};

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
  auto t0 = std::chrono::steady_clock::now();
  LaunchResult r = e.launch(p);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok()) {
    std::fprintf(stderr, "bench_exec: %s failed: %s\n", name, r.message.c_str());
    std::exit(1);
  }
  return {r.threadInsts, s};
}

} // namespace

int main(int argc, char **argv) {
  std::string path = argc > 1 ? argv[1] : PTXSIM_BENCH_PTX;
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
  std::printf("%-18s %7s %14s %9s %12s %8s\n", "kernel", "threads", "thread-insts", "seconds",
              "Minsts/s", "speedup");
  for (const char *kname : {"alu_bound", "memory_bound", "divergent_shuffle"}) {
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
      const uint64_t nMem = 1 << 24, nDiv = 1024 * 1024;
      uint64_t aluOut = m.allocate(256 * 256 * 4, AllocKind::Device);
      uint64_t x = m.allocate(nMem * 4, AllocKind::Device), y = m.allocate(nMem * 4, AllocKind::Device);
      uint64_t in = m.allocate(nDiv * 4, AllocKind::Device), out = m.allocate(nDiv * 4, AllocKind::Device);
      std::memset(reinterpret_cast<void *>(x), 0, nMem * 4);
      std::memset(reinterpret_cast<void *>(y), 0, nMem * 4);
      std::memset(reinterpret_cast<void *>(out), 0, nDiv * 4);
      auto *h = reinterpret_cast<uint32_t *>(in);
      for (uint64_t i = 0; i < nDiv; ++i)
        h[i] = (uint32_t)(i * 2654435761u >> 7);
      float a = 2.0f;
      uint32_t ab;
      std::memcpy(&ab, &a, 4);
      Run best{0, 1e30};
      for (int rep = 0; rep < 5; ++rep) {
        Run r;
        if (!std::strcmp(kname, "alu_bound"))
          r = launch(e, kname, {256}, {256}, {aluOut, 1600});
        else if (!std::strcmp(kname, "memory_bound"))
          r = launch(e, kname, {1024}, {256}, {x, y, ab, nMem});
        else
          r = launch(e, kname, {4096}, {256}, {in, out});
        if (r.seconds < best.seconds)
          best = r;
      }
      double rate = best.threadInsts / best.seconds / 1e6;
      if (threads == 1)
        base = rate;
      std::printf("%-18s %7u %14llu %9.3f %12.1f %8.2f\n", kname, threads,
                  (unsigned long long)best.threadInsts, best.seconds, rate, rate / base);
    }
  }
  return 0;
}
