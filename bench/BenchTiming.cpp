// Timing-mode speed: simulated cycles, warp instructions and thread instructions per host
// second on a compute-bound, a memory-bound and a divergent kernel (bench/exec_kernels.cu),
// each filling the GPU (grids scale with the SM count), with a GPU
// configuration (default: configs/gtx480.config), with the power model attached when the
// configuration has a .power.xml beside it (the cost users pay with --power).
// Usage: bench_timing [--threads N] [--kernel NAME] [--ctas-per-sm N] [--sample MODE]
//                     [--min-busy-sms N] [--sm-window N] [--fork-join] [config] [kernels.ptx]   (N: host threads
// of the timing engine, default 1; cycles and statistics are the same for any N; --fork-join
// also times the engine's per-cycle fork-join alone: jobs of one empty call per SM and memory
// partition)

#include "ptx/exec/Engine.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/WorkerPool.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ptxsim;
using namespace ptxsim::ptx::exec;

int main(int argc, char **argv) {
  unsigned threads = 1;
  std::string only; // --kernel NAME: just that one
  uint32_t minBusy = ~0u; // --min-busy-sms N: Gpu::setParallelMinBusySms (0: always threads)
  uint32_t smWindow = ~0u; // --sm-window N: Gpu::setSmWindow (0: off; unset: the default)
  uint32_t ctasPerSm = 0; // --ctas-per-sm N: grids of N CTAs per SM instead of 4, 8, 4
  sim::SampleMode sample = sim::SampleMode::Off;
  bool forkJoin = false;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = (unsigned)std::strtoul(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc)
      only = argv[++i];
    else if (!std::strcmp(argv[i], "--min-busy-sms") && i + 1 < argc)
      minBusy = (uint32_t)std::strtoul(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--sm-window") && i + 1 < argc)
      smWindow = (uint32_t)std::strtoul(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--fork-join"))
      forkJoin = true;
    else if (!std::strcmp(argv[i], "--ctas-per-sm") && i + 1 < argc)
      ctasPerSm = (uint32_t)std::strtoul(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--sample") && i + 1 < argc) {
      if (!sim::parseSampleMode(argv[++i], sample)) {
        std::fprintf(stderr, "bench_timing: --sample kernels|ctas|off\n");
        return 2;
      }
    }
    else
      pos.push_back(argv[i]);
  }
  std::string cfgPath = pos.size() > 0 ? pos[0] : PTXSIM_SOURCE_DIR "/configs/gtx480.config";
  std::string ptxPath = pos.size() > 1 ? pos[1] : PTXSIM_BENCH_PTX;
  timing::TimingConfig cfg;
  DiagEngine diags;
  if (!timing::loadTimingConfig({cfgPath}, false, cfg, diags) ||
      !timing::validateTimingConfig(cfg, diags)) {
    diags.print(std::cerr);
    return 1;
  }
  std::ifstream f(ptxPath);
  std::stringstream ss;
  ss << f.rdbuf();
  std::printf("config %s (%s, %u SMs), scheduler %s, %u host thread(s)\n", cfgPath.c_str(),
              cfg.name.c_str(), cfg.numSms(), cfg.core.scheduler.c_str(), threads);
  std::printf("%-17s %6s %12s %14s %9s %12s %14s %14s\n", "kernel", "CTAs", "sim cycles",
              "thread-insts", "seconds", "cycles/s", "warp-insts/s", "thread-insts/s");
  // Grids scale with the SM count so every preset is filled alike (the GTX480's 15 SMs get the
  // 60 and 120 CTAs this bench always used): compute-bound, memory-bound (DRAM saturated) and
  // divergent with warp shuffles.
  const uint32_t sms = cfg.numSms();
  if (forkJoin && threads > 1) {
    timing::WorkerPool pool(threads);
    const size_t items = sms + cfg.mem.numPartitions, jobs = 20000;
    auto empty = [](void *, size_t) {};
    for (size_t i = 0; i < 1000; ++i) // warm up: threads started and spinning
      pool.run(items, empty, nullptr);
    auto f0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < jobs; ++i)
      pool.run(items, empty, nullptr);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
    std::printf("fork-join: %.2f us per cycle's job (%zu empty calls, %u threads)\n",
                s / double(jobs) * 1e6, items, threads);
  }
  for (const char *kname : {"alu_bound", "memory_bound", "divergent_shuffle"}) {
    if (!only.empty() && only != kname)
      continue;
    EngineConfig ecfg;
    ecfg.hostThreads = 1;
    ecfg.arenaBytes = 8ull << 30;
    ecfg.scheduleLoads = cfg.core.scheduleLoads;
    ecfg.fusePairs = cfg.core.fusePairs;
    Engine e(ecfg);
    if (e.loadModule(ss.str(), ptxPath, diags) < 0) {
      diags.print(std::cerr);
      return 1;
    }
    sim::KernelSimulator sim(cfg, e);
    sim.gpu().setHostThreads(threads);
    sim.setSampling(sample);
    if (minBusy != ~0u)
      sim.gpu().setParallelMinBusySms(minBusy);
    if (smWindow != ~0u)
      sim.gpu().setSmWindow(smWindow);
    std::string xml = cfgPath.substr(0, cfgPath.rfind(".config")) + ".power.xml";
    if (std::ifstream(xml).good() && !sim.enablePower(xml, diags)) {
      diags.print(std::cerr);
      return 1;
    }
    DeviceMemory &m = e.memory();
    const Kernel *k = e.findKernel(kname);
    std::vector<uint8_t> buf(k->paramBytes + 8);
    auto put = [&](size_t i, uint64_t v) { std::memcpy(buf.data() + k->paramOffsets[i], &v, k->paramSizes[i]); };
    LaunchParams p;
    p.kernel = k;
    p.block = {256};
    if (!std::strcmp(kname, "alu_bound")) {
      p.grid = {(ctasPerSm ? ctasPerSm : 4) * sms};
      put(0, m.allocate(uint64_t(p.grid.x) * 256 * 4, AllocKind::Device));
      put(1, 50);
    } else if (!std::strcmp(kname, "memory_bound")) {
      const uint64_t n = 1 << 20;
      uint64_t x = m.allocate(n * 4, AllocKind::Device), y = m.allocate(n * 4, AllocKind::Device);
      std::memset(reinterpret_cast<void *>(x), 0, n * 4);
      std::memset(reinterpret_cast<void *>(y), 0, n * 4);
      float a = 2.0f;
      uint32_t ab;
      std::memcpy(&ab, &a, 4);
      put(0, x);
      put(1, y);
      put(2, ab);
      put(3, n);
      p.grid = {(ctasPerSm ? ctasPerSm : 8) * sms};
    } else {
      p.grid = {(ctasPerSm ? ctasPerSm : 4) * sms};
      uint64_t n = uint64_t(p.grid.x) * 256;
      uint64_t in = m.allocate(n * 4, AllocKind::Device), out = m.allocate(n * 4, AllocKind::Device);
      auto *h = reinterpret_cast<uint32_t *>(in);
      for (uint64_t i = 0; i < n; ++i)
        h[i] = (uint32_t)(i * 2654435761u >> 7); // trip counts 0..31, different in every lane
      std::memset(reinterpret_cast<void *>(out), 0, n * 4);
      put(0, in);
      put(1, out);
    }
    p.params = buf.data();
    auto t0 = std::chrono::steady_clock::now();
    sim::KernelRun run = sim.run(p);
    const timing::KernelTimingStats &st = run.stats;
    const LaunchResult &r = run.launch;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok()) {
      std::fprintf(stderr, "bench_timing: %s\n", r.message.c_str());
      return 1;
    }
    std::printf("%-17s %6u %12llu %14llu %9.3f %12.0f %14.0f %14.0f", kname, p.grid.x,
                (unsigned long long)st.cycles, (unsigned long long)st.threadInsts, s, st.cycles / s,
                st.warpInsts / s, st.threadInsts / s);
    if (st.get("sample.estimated") != 0)
      std::printf("  (sampled: %.0f CTAs simulated, own error estimate %.2f %%)",
                  st.get("sample.detailed_ctas"), st.get("sample.error_pct"));
    std::printf("\n");
    if (run.power)
      std::printf("%-17s energy %.6g J, average %.1f W\n", "", run.power->energyJ, run.power->avgW);
  }
  return 0;
}
