#include "runtime/api/RunRecorder.h"

#include "base/Config.h"
#include "ptx/exec/Counters.h"
#include "ptx/jit/JitOps.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fstream>
#include <utility>

namespace ptxsim::runtime {

namespace {

std::string demangle(const std::string &name) {
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string r = status == 0 && d ? d : name;
  std::free(d);
  return r;
}

/// A kernel's demangled name cut to the summary's 40 columns.
std::string shortName(const std::string &name) {
  std::string n = demangle(name);
  if (n.size() > 40)
    n = n.substr(0, 37) + "...";
  return n;
}

} // namespace

void RunRecorder::recordGrid(const ptx::exec::LaunchParams &q, const ptx::exec::LaunchResult &r,
                             timing::KernelTimingStats *timing, double startSeconds) {
  if (timing)
    launchShapes_.push_back(
        {{q.grid.x, q.grid.y, q.grid.z}, {q.block.x, q.block.y, q.block.z}, startSeconds});
  const std::string &name = q.kernel->name;
  auto it = statsIndex_.find(name);
  if (it == statsIndex_.end()) {
    it = statsIndex_.emplace(name, stats_.size()).first;
    stats_.push_back({name, KernelStats{}});
  }
  KernelStats &st = stats_[it->second].second;
  ++st.launches;
  st.ctas += q.grid.count();
  st.threadInsts += r.threadInsts;
  st.warpInsts += r.warpInsts;
  st.seconds += r.seconds;
  if (st.counters.size() < r.counters.size())
    st.counters.resize(r.counters.size(), 0);
  for (size_t i = 0; i < r.counters.size(); ++i)
    st.counters[i] += r.counters[i];
  if (timing) {
    st.cycles += timing->cycles;
    st.simSeconds += timing->seconds;
    launchStats_.push_back(std::move(*timing));
  }
  char cfgText[96];
  std::snprintf(cfgText, sizeof cfgText, "(%u,%u,%u)x(%u,%u,%u)", q.grid.x, q.grid.y, q.grid.z,
                q.block.x, q.block.y, q.block.z);
  st.lastConfig = cfgText;
}

void RunRecorder::recordCopy(uint64_t bytes, double seconds) {
  copySeconds_ += seconds;
  ++copies_;
  copyBytes_ += bytes;
}

void RunRecorder::report(const RunInfo &info) const {
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const char *sum = std::getenv("PTXSIM_SUMMARY");
  if (!(sum && std::strcmp(sum, "0") == 0) && !stats_.empty()) {
    double kernelSeconds = 0;
    printKernels(info, wall, kernelSeconds);
    if (info.timing) {
      printSimulated(info, kernelSeconds);
      if (info.power)
        printPower(*info.power);
      printKernelTiming(info);
      printSampling(info, kernelSeconds);
    }
  }
  if (const char *path = std::getenv("PTXSIM_STATS_JSON"); path && *path) {
    std::ofstream os(path);
    if (!os) {
      std::fprintf(stderr, "ptxsim: cannot write PTXSIM_STATS_JSON file '%s'\n", path);
      return;
    }
    writeJson(os, info, wall);
  }
}

void RunRecorder::printKernels(const RunInfo &info, double wall, double &kernelSeconds) const {
  uint64_t launches = 0, insts = 0;
  double secs = 0;
  if (info.timing)
    std::fprintf(stderr, "\nptxsim: run summary (timing mode, %s, %u SMs at %.0f MHz)\n",
                 info.config->name.c_str(), info.config->numSms(), info.config->core.clockMHz);
  else
    std::fprintf(stderr, "\nptxsim: run summary (functional mode, %s host threads)\n",
                 info.hostThreads ? std::to_string(info.hostThreads).c_str() : "all");
  std::fprintf(stderr, "  %-40s %8s %24s %14s %10s %10s\n", "kernel", "launches",
               "last grid x block", "thread-insts", "seconds", "Minsts/s");
  for (auto &[name, st] : stats_) {
    std::fprintf(stderr, "  %-40s %8llu %24s %14llu %10.4f %10.1f\n", shortName(name).c_str(),
                 (unsigned long long)st.launches, st.lastConfig.c_str(),
                 (unsigned long long)st.threadInsts, st.seconds,
                 st.seconds > 0 ? st.threadInsts / st.seconds / 1e6 : 0.0);
    launches += st.launches;
    insts += st.threadInsts;
    secs += st.seconds;
  }
  std::fprintf(stderr,
               "  total: %llu launches, %llu thread instructions, %.4f s in kernels, %.3f s "
               "wall\n",
               (unsigned long long)launches, (unsigned long long)insts, secs, wall);
  std::fputs(ptx::jit::summaryText().c_str(), stderr); // PTXSIM_JIT: compiled, fallbacks, diff
  kernelSeconds = secs;
}

void RunRecorder::printSimulated(const RunInfo &info, double kernelSeconds) const {
  uint64_t cycles = 0;
  double ksec = 0;
  for (auto &[name, st] : stats_) {
    cycles += st.cycles;
    ksec += st.simSeconds;
  }
  std::fprintf(stderr,
               "  simulated: %llu cycles, %.6f s in kernels, %.6f s in %llu host-device "
               "copies (%llu bytes), %.6f s in all; %.0f simulated cycles per host second\n",
               (unsigned long long)cycles, ksec, copySeconds_, (unsigned long long)copies_,
               (unsigned long long)copyBytes_, info.simSeconds,
               kernelSeconds > 0 ? cycles / kernelSeconds : 0.0);
}

void RunRecorder::printPower(const sim::PowerSetup &power) const {
  double e = 0, t = 0, peak = 0;
  for (const auto &kp : powerStats_) {
    e += kp.energyJ;
    t += kp.seconds;
    peak = std::max(peak, kp.peakW);
  }
  std::fprintf(stderr, "  power (%s): %.6f J over %.6f s of kernels, average %.1f W, peak %.1f W\n",
               power.name().c_str(), e, t, t > 0 ? e / t : 0.0, peak);
  if (power.hasIdle())
    std::fprintf(stderr, "  idle power (no kernel running): %.1f W\n", power.idleW());
  // the biggest components over all kernels
  std::vector<std::pair<double, std::string>> comps;
  for (const auto &kp : powerStats_)
    for (size_t i = 0; i < kp.components.size(); ++i) {
      const auto &c = kp.components[i];
      if (i >= comps.size())
        comps.push_back({0, c.name});
      comps[i].first += c.dynamicJ + c.staticJ;
    }
  std::sort(comps.begin(), comps.end(), [](auto &a, auto &b) { return a.first > b.first; });
  std::string top;
  for (size_t i = 0; i < comps.size() && i < 5; ++i) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.0f%%", i ? ", " : "", comps[i].second.c_str(),
                  e > 0 ? 100 * comps[i].first / e : 0.0);
    top += buf;
  }
  std::fprintf(stderr, "  energy by component: %s\n", top.c_str());
  // how an extension's cores were charged (power::CoreAccounting), once
  if (!powerStats_.empty())
    for (const std::string &n : powerStats_.back().notes)
      std::fprintf(stderr, "  power note: %s\n", n.c_str());
}

void RunRecorder::printKernelTiming(const RunInfo &info) const {
  // per kernel, summed over its launches (every launch is in the JSON stats)
  std::vector<std::string> order;
  std::unordered_map<std::string, timing::KernelTimingStats> sums;
  for (const auto &ks : launchStats_) {
    auto it = sums.find(ks.kernel);
    if (it == sums.end()) {
      order.push_back(ks.kernel);
      sums[ks.kernel] = ks;
      continue;
    }
    timing::KernelTimingStats &t = it->second;
    t.cycles += ks.cycles;
    // (launches of one kernel report the same statistics in the same order: summed by
    // position, without a name lookup each; by name otherwise)
    const auto &add = ks.values();
    bool same = add.size() == std::as_const(t).values().size();
    for (size_t i = 0; same && i < add.size(); ++i)
      same = add[i].first == std::as_const(t).values()[i].first;
    if (same) {
      auto &sum = t.values();
      for (size_t i = 0; i < add.size(); ++i)
        sum[i].second += add[i].second;
      continue;
    }
    for (const auto &kv : ks.values())
      t.add(kv.first, kv.second);
  }
  bool power = info.power != nullptr;
  std::fprintf(stderr, "  %-40s %12s %7s %12s %10s %10s %10s %10s%s\n", "kernel (all launches)",
               "cycles", "IPC", "stall cyc", "mem stall", "l1d miss", "l2 miss", "dram rd",
               power ? "   energy J    avg W" : "");
  // energy and time per kernel name, over its launches
  std::unordered_map<std::string, std::pair<double, double>> kEnergy;
  for (const auto &kp : powerStats_) {
    kEnergy[kp.kernel].first += kp.energyJ;
    kEnergy[kp.kernel].second += kp.seconds;
  }
  for (const std::string &k : order) {
    const timing::KernelTimingStats &t = sums[k];
    char pw[64] = "";
    if (power) {
      auto &ke = kEnergy[k];
      std::snprintf(pw, sizeof pw, " %11.6f %8.1f", ke.first,
                    ke.second > 0 ? ke.first / ke.second : 0.0);
    }
    std::fprintf(stderr, "  %-40s %12llu %7.2f %12.0f %10.0f %10.0f %10.0f %10.0f%s\n",
                 shortName(k).c_str(), (unsigned long long)t.cycles,
                 t.cycles ? t.get("gpu.warp_insts") / t.cycles : 0.0, t.get("sm.stall_cycles"),
                 t.get("sm.stall.memory"), t.get("l1d.misses"), t.get("l2.misses"),
                 t.get("dram.reads"), pw);
  }
}

void RunRecorder::printWouldSave(const RunInfo &info, double kernelSeconds) const {
  // repeated kernels simulated in full: say what kernel sampling would have saved (only where
  // it is worth a line: a tenth of the kernels' host time and at least a second, or the seconds
  // PTXSIM_SAMPLE_HINT_SECONDS gives: a test's host may be fast enough to stay under one)
  const sim::KernelSimulator::WouldEstimate &w = info.wouldEstimate;
  double least = 1.0;
  if (const char *v = std::getenv("PTXSIM_SAMPLE_HINT_SECONDS"); v && *v) {
    char *end = nullptr;
    const double s = std::strtod(v, &end);
    if (end && !*end && s >= 0)
      least = s;
    else
      std::fprintf(stderr, "ptxsim: PTXSIM_SAMPLE_HINT_SECONDS=%s is not a number of seconds >= 0; "
                           "using 1\n", v);
  }
  if (w.launches && w.hostSeconds >= least && w.hostSeconds >= 0.1 * kernelSeconds)
    std::fprintf(stderr,
                 "  --sample kernels would estimate %llu of %zu launches (repeats of one kernel "
                 "and shape) instead of simulating them: about %.1f of the %.1f host seconds in "
                 "kernels, with a stated error (docs/sampling.md)\n",
                 (unsigned long long)w.launches, launchStats_.size(), w.hostSeconds,
                 kernelSeconds);
}

void RunRecorder::printSampling(const RunInfo &info, double kernelSeconds) const {
  if (info.sampling == sim::SampleMode::Off) {
    printWouldSave(info, kernelSeconds);
    return;
  }
  // The bound on the error of a total: each launch's sample.error_pct (estimated launches: 95 %
  // confidence of the estimate, at least the largest error a check of its signature measured)
  // weighted by its cycles, without letting errors of opposite signs cancel.
  struct Share {
    uint64_t launches = 0, estimated = 0;
    double cycles = 0, estCycles = 0, errCycles = 0;
  };
  Share all;
  std::vector<std::string> order;
  std::unordered_map<std::string, Share> byKernel;
  for (const auto &ks : launchStats_) {
    auto [it, fresh] = byKernel.try_emplace(ks.kernel);
    if (fresh)
      order.push_back(ks.kernel);
    double c = double(ks.cycles);
    bool est = ks.get("sample.estimated") > 0;
    for (Share *s : {&all, &it->second}) {
      ++s->launches;
      s->cycles += c;
      // (simulated launches that warmed the caches after functional ones have an error too)
      s->errCycles += c * ks.get("sample.error_pct") / 100.0;
      if (est) {
        ++s->estimated;
        s->estCycles += c;
      }
    }
  }
  const char *mode = info.sampling == sim::SampleMode::Kernels ? "kernels" : "ctas";
  auto pct = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  if (info.sampling == sim::SampleMode::Ctas) {
    std::fprintf(stderr,
                 "  sampling (--sample ctas): %llu of %llu launches partly estimated (%.1f %% of "
                 "the cycles); estimated error of the total within %.2f %% (--sample off: all "
                 "simulated)\n",
                 (unsigned long long)all.estimated, (unsigned long long)all.launches,
                 pct(all.estCycles, all.cycles), pct(all.errCycles, all.cycles));
    return;
  }
  std::fprintf(stderr,
               "  sampling (--sample %s): %llu of %llu launches estimated (%.1f %% of the "
               "cycles); estimated error of the total within %.2f %% (--sample off: all "
               "simulated)\n",
               mode, (unsigned long long)all.estimated, (unsigned long long)all.launches,
               pct(all.estCycles, all.cycles), pct(all.errCycles, all.cycles));
  for (const std::string &k : order) {
    const Share &s = byKernel[k];
    if (s.estimated || s.errCycles > 0)
      std::fprintf(stderr, "    %-40s %llu of %llu launches estimated, error within %.2f %%\n",
                   shortName(k).c_str(), (unsigned long long)s.estimated,
                   (unsigned long long)s.launches, pct(s.errCycles, s.cycles));
  }
}

void RunRecorder::writeJson(std::ostream &os, const RunInfo &info, double wall) const {
  // the program's command line (for reports), from /proc: arguments separated by NULs
  std::string cmdline;
  if (std::ifstream cl("/proc/self/cmdline", std::ios::binary); cl) {
    std::string arg;
    while (std::getline(cl, arg, '\0'))
      cmdline += (cmdline.empty() ? "" : " ") + arg;
  }
  os << "{\n  \"mode\": \"" << (info.timing ? "timing" : "functional")
     << "\",\n  \"program\": " << jsonQuote(cmdline) << ",\n  \"wall_seconds\": " << wall
     << ",\n  \"kernels\": [";
  writeKernelsJson(os);
  os << "\n  ]";
  if (info.timing)
    writeTimingJson(os, info);
  os << "\n}\n";
}

void RunRecorder::writeKernelsJson(std::ostream &os) const {
  bool first = true;
  for (auto &[name, st] : stats_) {
    os << (first ? "\n" : ",\n") << "    {\"name\": " << jsonQuote(name)
       << ", \"demangled\": " << jsonQuote(demangle(name)) << ", " << sim::functionalStatsJson(st);
    if (!st.lastConfig.empty())
      os << ", \"last_grid_block\": " << jsonQuote(st.lastConfig);
    // extension counters that saw activity (ptx/exec/Counters.h)
    const auto &names = ptx::exec::execCounters();
    for (size_t i = 0; i < st.counters.size() && i < names.size(); ++i)
      if (st.counters[i])
        os << ", " << jsonQuote(names[i].name) << ": " << st.counters[i];
    os << "}";
    first = false;
  }
}

void RunRecorder::writeTimingJson(std::ostream &os, const RunInfo &info) const {
  os << ",\n  \"config\": " << timing::timingConfigJson(*info.config)
     << ",\n  \"copies\": {\"count\": " << copies_ << ", \"bytes\": " << copyBytes_
     << ", \"sim_seconds\": " << copySeconds_ << "},\n  \"sim_seconds\": " << info.simSeconds
     << ",\n  \"launches\": [";
  bool f = true;
  for (size_t li = 0; li < launchStats_.size(); ++li) {
    const timing::KernelTimingStats &ks = launchStats_[li];
    os << (f ? "\n    " : ",\n    ");
    f = false;
    if (li >= launchShapes_.size()) {
      os << timing::kernelStatsJson(ks);
      continue;
    }
    const LaunchShape &sh = launchShapes_[li];
    std::string members = ks.jsonMembers();
    os << "{\"kernel\": " << jsonQuote(ks.kernel) << ", \"grid\": [" << sh.grid[0] << ", "
       << sh.grid[1] << ", " << sh.grid[2] << "], \"block\": [" << sh.block[0] << ", "
       << sh.block[1] << ", " << sh.block[2]
       << "], \"start_seconds\": " << stats::formatValue(sh.startSeconds, true)
       << (members.empty() ? "" : ", ") << members << "}";
  }
  os << "\n  ]";
  if (info.power) {
    os << ",\n  \"power\": [";
    bool pf = true;
    for (const auto &kp : powerStats_) {
      os << (pf ? "\n    " : ",\n    ") << power::kernelPowerJson(kp);
      pf = false;
    }
    os << "\n  ],\n  \"power_idle_w\": " << info.power->idleW();
  }
}

} // namespace ptxsim::runtime
