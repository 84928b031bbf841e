#include "sim/KernelSimulator.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ptxsim::sim {

bool parseSampleMode(const std::string &text, SampleMode &out) {
  if (text == "off" || text.empty())
    out = SampleMode::Off;
  else if (text == "kernels")
    out = SampleMode::Kernels;
  else if (text == "ctas")
    out = SampleMode::Ctas;
  else
    return false;
  return true;
}

KernelSimulator::KernelSimulator(const timing::TimingConfig &cfg, ptx::exec::Engine &engine)
    : gpu_(cfg, engine), engine_(engine) {}

void KernelSimulator::setSampling(SampleMode m) {
  sampleMode_ = m;
  gpu_.setCtaSampling(m == SampleMode::Ctas);
}

KernelSimulator::~KernelSimulator() = default;

bool KernelSimulator::enablePower(const std::string &xmlPath, DiagEngine &diags) {
  timing::registerTimingStatistics();
  power::PowerModel m;
  if (!power::PowerModel::load(xmlPath, gpu_.config(), m, diags))
    return false;
  power_ = std::move(m);
  return true;
}

void KernelSimulator::enablePower(power::PowerModel model) { power_ = std::move(model); }

bool PowerSetup::load(const std::string &xmlPath, const timing::TimingConfig &cfg,
                      DiagEngine &diags) {
  timing::registerTimingStatistics();
  power::PowerModel m;
  if (!power::PowerModel::load(xmlPath, cfg, m, diags))
    return false;
  model_ = std::move(m);
  return true;
}

namespace {
constexpr size_t kWindow = 16; ///< detailed samples kept per signature (recent ones: drift)
} // namespace

bool KernelSimulator::estimate(const Signature &g, double warpInsts, double &cycles,
                               double &errorPct) const {
  size_t n = g.samples.size();
  if (n < kMinSamples)
    return false;
  // cycles = fixed + cpi * warpInsts, the fixed part being the launch and drain latencies
  const timing::LaunchConfig &lc = gpu_.config().launch;
  double fixed = double(lc.kernelLaunchLatency) + double(lc.kernelDrainLatency);
  double sum = 0, sum2 = 0;
  for (auto &[c, w] : g.samples) {
    double cpi = w > 0 ? (c - fixed) / w : 0;
    sum += cpi;
    sum2 += cpi * cpi;
  }
  double mean = sum / double(n);
  double var = n > 1 ? std::max(0.0, (sum2 - sum * sum / double(n)) / double(n - 1)) : 0;
  cycles = fixed + mean * warpInsts;
  if (cycles <= 0)
    return false;
  // 95 % confidence of the mean (t ~ 2), as a share of the estimate
  errorPct = 100.0 * 2.0 * std::sqrt(var / double(n)) * warpInsts / cycles;
  return errorPct <= kMaxErrorPct;
}

KernelRun KernelSimulator::runSkipped(const ptx::exec::LaunchParams &p, Signature &g) {
  KernelRun r;
  r.launch = engine_.launchGrid(p);
  if (!r.launch.ok())
    return r;
  double cycles = 0, err = 0;
  estimate(g, double(r.launch.warpInsts), cycles, err);
  timing::Cycle c = timing::Cycle(std::llround(cycles));
  gpu_.skipKernel(c);
  // The statistics of the last detailed launch of this signature, scaled: counts by the
  // instruction ratio, cycle-valued ones by the cycle ratio; ratios stay.
  const timing::KernelTimingStats &rep = g.last;
  double insts = rep.warpInsts ? double(r.launch.warpInsts) / double(rep.warpInsts) : 1;
  double cyc = rep.cycles ? double(c) / double(rep.cycles) : 1;
  timing::KernelTimingStats &st = r.stats;
  st.kernel = p.kernel->name;
  st.cycles = c;
  st.seconds = double(c) / (gpu_.config().core.clockMHz * 1e6);
  st.warpInsts = r.launch.warpInsts;
  st.threadInsts = r.launch.threadInsts;
  static_cast<stats::Snapshot &>(st) = rep;
  timing::scaleStats(st, insts, cyc);
  st.set("gpu.cycles", double(c));
  st.set("gpu.sim_seconds", st.seconds);
  st.set("gpu.warp_insts", double(st.warpInsts));
  st.set("gpu.thread_insts", double(st.threadInsts));
  st.set("gpu_tot_sim_cycle", double(c));
  st.set("gpu_tot_sim_insn", double(st.threadInsts));
  st.set("gpu.ctas", double(p.grid.count()));
  st.set("sample.estimated", 1);
  st.set("sample.error_pct", err);
  st.set("sample.detailed_ctas", 0);
  if (power_)
    r.power = power_->kernel(st.kernel, st, {});
  return r;
}

KernelRun KernelSimulator::run(const ptx::exec::LaunchParams &p) {
  Signature *sig = nullptr;
  bool checking = false;
  double predicted = 0;
  if (sampleMode_ == SampleMode::Kernels && !p.cooperative) {
    SignatureKey key{p.kernel, p.grid.x, p.grid.y, p.grid.z, p.block.x, p.block.y, p.block.z,
                     p.dynamicShared};
    sig = &signatures_[key];
    ++sig->seen;
    double c, e, meanInsts = 0;
    for (auto &sm : sig->samples)
      meanInsts += sm.second / double(sig->samples.size());
    // fast-forward when the detailed samples predict well; a detailed launch now and then
    if (sig->sinceDetail + 1 < sig->interval && estimate(*sig, meanInsts, c, e)) {
      // (the instruction count is known only after the launch: decide on the error of the
      // cycles per instruction, checked again with the real count in runSkipped)
      ++sig->sinceDetail;
      return runSkipped(p, *sig);
    }
    // a detailed launch while estimating: a check of the estimate
    checking = sig->sinceDetail > 0 && estimate(*sig, meanInsts, predicted, e);
    sig->sinceDetail = 0;
  }
  KernelRun r;
  std::vector<stats::Snapshot> samples;
  if (power_)
    gpu_.setSampler(power_->traceInterval(),
                    [&samples](const timing::KernelTimingStats &s) { samples.push_back(s); });
  r.launch = gpu_.runKernel(p, r.stats);
  if (power_) {
    gpu_.setSampler(0, {});
    r.power = power_->kernel(r.stats.kernel, r.stats, samples);
  }
  if (sig && r.launch.ok() && checking) {
    // the estimate held: check less often; it did not: check often again
    double fixed = double(config().launch.kernelLaunchLatency + config().launch.kernelDrainLatency);
    double cpiNow = r.stats.warpInsts ? (double(r.stats.cycles) - fixed) / double(r.stats.warpInsts) : 0;
    double meanInsts = 0;
    for (auto &sm : sig->samples)
      meanInsts += sm.second / double(sig->samples.size());
    double want = fixed + cpiNow * meanInsts;
    bool held = want > 0 && std::fabs(predicted - want) / want * 100.0 <= kMaxErrorPct;
    sig->interval = held ? std::min(sig->interval * 2, kMaxResampleEvery) : kResampleEvery;
  }
  if (sig && r.launch.ok()) {
    if (sig->seen > 1) { // the first launch (cold caches, first fetches) is not representative
      sig->samples.emplace_back(double(r.stats.cycles), double(r.stats.warpInsts));
      if (sig->samples.size() > kWindow)
        sig->samples.erase(sig->samples.begin());
      // warm-up (caches filling over the first launches): when the newest kMinSamples agree
      // and the older ones spoil the estimate, the older ones were not yet steady
      if (sig->samples.size() > kMinSamples) {
        double c, e, w = double(r.stats.warpInsts);
        Signature recent;
        recent.samples.assign(sig->samples.end() - kMinSamples, sig->samples.end());
        if (!estimate(*sig, w, c, e) && estimate(recent, w, c, e))
          sig->samples = std::move(recent.samples);
      }
    }
    sig->last = r.stats;
  }
  if (sampleMode_ == SampleMode::Kernels) {
    r.stats.set("sample.estimated", 0);
    r.stats.set("sample.error_pct", 0);
    r.stats.set("sample.detailed_ctas", double(p.grid.count()));
  }
  return r;
}

} // namespace ptxsim::sim
