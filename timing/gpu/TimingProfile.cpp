#include "timing/gpu/TimingProfile.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace ptxsim::timing {

namespace {
std::mutex gMutex;
TimingProfile gTotal;
bool gRegistered = false;

void printAtExit() {
  std::lock_guard<std::mutex> lk(gMutex);
  gTotal.print(stderr);
}
} // namespace

const char *TimingProfile::stepName(unsigned s) {
  static const char *const names[kSteps] = {"setup (per launch)",
                                            "CTA dispatch",
                                            "interconnect",
                                            "SM+partition phase, threads",
                                            "SM+partition phase, 1 thread",
                                            "SM+partition phase, few busy SMs",
                                            "memory end of cycle",
                                            "ordered phase + summaries",
                                            "bookkeeping",
                                            "idle skip",
                                            "finish (per launch)"};
  return s < kSteps ? names[s] : "?";
}

const char *TimingProfile::windowEndName(unsigned e) {
  static const char *const names[kWindowEnds] = {
      "an instruction beyond the SM", "work for the ordered phase", "the LD/ST unit sending",
      "a response that may arrive",   "a CTA to dispatch",          "an idle tick next",
      "the window's length",          "other"};
  return e < kWindowEnds ? names[e] : "?";
}

namespace {
std::atomic<int> gEnabled{-1}; ///< -1: not decided yet (the environment decides)
} // namespace

bool TimingProfile::enabled() {
  int on = gEnabled.load(std::memory_order_relaxed);
  if (on < 0) {
    const char *v = std::getenv("PTXSIM_TIMING_PROFILE");
    on = v && *v && std::string_view(v) != "0";
    gEnabled.store(on, std::memory_order_relaxed);
  }
  return on != 0;
}

void TimingProfile::setEnabled(bool on) { gEnabled.store(on, std::memory_order_relaxed); }

TimingProfile TimingProfile::total() {
  std::lock_guard<std::mutex> lk(gMutex);
  return gTotal;
}

void TimingProfile::reset() {
  std::lock_guard<std::mutex> lk(gMutex);
  gTotal = TimingProfile{};
}

void TimingProfile::accumulate(const TimingProfile &p) {
  std::lock_guard<std::mutex> lk(gMutex);
  for (unsigned s = 0; s < kSteps; ++s)
    gTotal.seconds[s] += p.seconds[s];
  gTotal.launches += p.launches;
  gTotal.cycles += p.cycles;
  gTotal.ticked += p.ticked;
  gTotal.threadCycles += p.threadCycles;
  gTotal.clearGainCycles += p.clearGainCycles;
  gTotal.tunerSerialCycles += p.tunerSerialCycles;
  gTotal.fewSmsCycles += p.fewSmsCycles;
  gTotal.jobs += p.jobs;
  gTotal.probes += p.probes;
  gTotal.aheadTicks += p.aheadTicks;
  for (unsigned e = 0; e < kWindowEnds; ++e)
    gTotal.clockTicksBy[e] += p.clockTicksBy[e];
  gTotal.smTicks += p.smTicks;
  gTotal.threadTicks += p.threadTicks;
  gTotal.criticalTicks += p.criticalTicks;
  gTotal.threadWork += p.threadWork;
  gTotal.callerWait += p.callerWait;
  gTotal.threads = std::max(gTotal.threads, p.threads);
  if (!gRegistered) {
    gRegistered = true;
    std::atexit(printAtExit);
  }
}

void TimingProfile::print(std::FILE *out) const {
  if (!launches)
    return;
  double total = 0;
  for (double s : seconds)
    total += s;
  std::fprintf(out,
               "ptxsim timing profile: %llu launch(es), %u host thread(s), %.3f host s in the "
               "timing engine\n",
               (unsigned long long)launches, threads, total);
  std::fprintf(out,
               "  cycles: %llu simulated, %llu ticked (%llu skipped idle); ticked on the "
               "threads %llu (%llu of them for the SMs' expected ticks, without the tuner), on "
               "1 thread by the tuner's choice (or without threads) %llu, on 1 thread for too "
               "few busy SMs (< 2, or < half the threads; with SM windows, SMs ticking and partitions awake) "
               "%llu; tuner probes %llu\n",
               (unsigned long long)cycles, (unsigned long long)ticked,
               (unsigned long long)(cycles - ticked), (unsigned long long)threadCycles,
               (unsigned long long)clearGainCycles, (unsigned long long)tunerSerialCycles,
               (unsigned long long)fewSmsCycles, (unsigned long long)probes);
  std::fprintf(out,
               "  SM ticks (not idle): %llu, %llu of them ahead of the GPU's clock in SM windows "
               "(%.1f %%)\n",
               (unsigned long long)smTicks, (unsigned long long)aheadTicks,
               smTicks ? 100.0 * double(aheadTicks) / double(smTicks) : 0.0);
  uint64_t onClock = 0;
  for (uint64_t t : clockTicksBy)
    onClock += t;
  if (onClock) {
    std::fprintf(out, "  SM ticks on the GPU's clock (not idle) by what ended the SM's window before them:");
    for (unsigned e = 0; e < kWindowEnds; ++e)
      std::fprintf(out, "%s %s %.1f %%", e ? "," : "", windowEndName(e),
                   100.0 * double(clockTicksBy[e]) / double(onClock));
    std::fprintf(out, "\n");
  }
  for (unsigned s = 0; s < kSteps; ++s)
    std::fprintf(out, "  %-38s %9.3f s %5.1f %%  %7.2f us/ticked cycle\n", stepName(s), seconds[s],
                 total > 0 ? 100.0 * seconds[s] / total : 0.0,
                 ticked ? 1e6 * seconds[s] / double(ticked) : 0.0);
  const double threadWall = seconds[PhaseThreads];
  if (jobs)
    std::fprintf(out,
                 "  fork-joins: %llu, %.2f us wall each; the threads' summed time in the calls "
                 "%.3f s (%.2f us per job), the caller's wait for the others %.3f s (%.2f us "
                 "per job)\n",
                 (unsigned long long)jobs, 1e6 * threadWall / double(jobs), threadWork,
                 1e6 * threadWork / double(jobs), callerWait, 1e6 * callerWait / double(jobs));
  if (threadTicks && threads > 1)
    std::fprintf(out,
                 "  balance on the threads: %llu SM ticks in the cycles on the threads; one SM's "
                 "ticks of a cycle are one item, so %u threads need the time of at least %llu "
                 "(an even share: %llu), %.0f %% of an even share's speed\n",
                 (unsigned long long)threadTicks, threads, (unsigned long long)criticalTicks,
                 (unsigned long long)((threadTicks + threads - 1) / threads),
                 criticalTicks ? 100.0 * double(threadTicks) / double(threads) /
                                     double(criticalTicks)
                               : 100.0);
  // Amdahl: what stays on one thread whatever the pool (S), what the threads share (W: the
  // phase's summed call time on the threads, the phase on one thread where the tuner kept it
  // there). Cycles with too few busy SMs stay serial: the engine does not use the threads there;
  // so does idle skipping.
  const double par = seconds[PhaseThreads] + seconds[PhaseSerial];
  const double serial = total - par;
  const double work = threadWork + seconds[PhaseSerial];
  const double one = serial + work; // about what one thread needs
  if (one <= 0)
    return;
  std::fprintf(out,
               "  serial part %.3f s (%.1f %%), parallel work %.3f s (%.1f %%) of about %.3f s "
               "on one thread\n",
               serial, 100.0 * serial / one, work, 100.0 * work / one, one);
  // the fork-join's own cost per job in this run: wall time beyond an even share of the work
  const double forkJoin =
      jobs && threads > 1 ? std::max(0.0, (threadWall - threadWork / threads) / double(jobs)) : 0.0;
  const double wouldJob = double(jobs + tunerSerialCycles);
  std::fprintf(out, "  Amdahl speed-up over one thread, no fork-join cost:");
  for (unsigned m : {2u, 4u, 8u, 16u})
    std::fprintf(out, " %u thr %.2fx", m, one / (serial + work / m));
  std::fprintf(out, "\n");
  if (forkJoin > 0) {
    std::fprintf(out, "  ... with this run's fork-join cost (%.2f us per job, %.0f jobs):",
                 1e6 * forkJoin, wouldJob);
    for (unsigned m : {2u, 4u, 8u, 16u})
      std::fprintf(out, " %u thr %.2fx", m, one / (serial + work / m + wouldJob * forkJoin));
    std::fprintf(out, "\n");
  }
}

} // namespace ptxsim::timing
