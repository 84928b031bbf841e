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
  double nd = double(n), mx = 0, my = 0;
  double lo = g.samples[0].second, hi = lo;
  for (auto &[c, w] : g.samples) {
    mx += w / nd;
    my += c / nd;
    lo = std::min(lo, w);
    hi = std::max(hi, w);
  }
  double se; // standard error of the estimate, in cycles
  if (hi - lo > mx * kMaxErrorPct / 100.0) {
    // The samples' instruction counts differ (a kernel parameter changes the work): cycles =
    // a + b x warpInsts fitted to them, so that a latency-bound kernel, whose cycles hardly
    // follow its instructions (b ~ 0), is not taken for a throughput-bound one.
    double sxx = 0, sxy = 0;
    for (auto &[c, w] : g.samples) {
      sxx += (w - mx) * (w - mx);
      sxy += (w - mx) * (c - my);
    }
    double b = std::max(0.0, sxy / sxx), a = my - b * mx, ss = 0;
    for (auto &[c, w] : g.samples)
      ss += (c - a - b * w) * (c - a - b * w);
    cycles = a + b * warpInsts;
    se = std::sqrt(ss / (nd - 2) * (1.0 / nd + (warpInsts - mx) * (warpInsts - mx) / sxx));
  } else {
    // cycles = fixed + cpi x warpInsts, the fixed part being the launch and drain latencies
    const timing::LaunchConfig &lc = gpu_.config().launch;
    double fixed = double(lc.kernelLaunchLatency) + double(lc.kernelDrainLatency);
    double sum = 0, sum2 = 0;
    for (auto &[c, w] : g.samples) {
      double cpi = w > 0 ? (c - fixed) / w : 0;
      sum += cpi;
      sum2 += cpi * cpi;
    }
    double mean = sum / nd;
    double var = std::max(0.0, (sum2 - sum * sum / nd) / (nd - 1));
    cycles = fixed + mean * warpInsts;
    se = std::sqrt(var / nd) * warpInsts;
    // A count outside the samples' (a launch unlike them): its cycles lie between those of a
    // latency-bound kernel (the samples' cycles) and a throughput-bound one (the estimate).
    double slack = kMaxErrorPct / 100.0;
    if (warpInsts < lo * (1 - slack) || warpInsts > hi * (1 + slack))
      se = std::max(se, std::fabs(cycles - my) / 2.0);
  }
  if (cycles <= 0)
    return false;
  // 95 % confidence (t ~ 2), as a share of the estimate
  errorPct = 100.0 * 2.0 * se / cycles;
  return errorPct <= kMaxErrorPct;
}

KernelRun KernelSimulator::runSkipped(const ptx::exec::LaunchParams &p, Signature &g) {
  KernelRun r;
  r.launch = engine_.launchGrid(p);
  if (!r.launch.ok())
    return r;
  double cycles = 0, err = 0;
  estimate(g, double(r.launch.warpInsts), cycles, err);
  // the bound: the confidence of the mean cycles per instruction, or the largest difference a
  // check of this signature measured, whichever is larger (docs/sampling.md)
  err = std::max(err, g.checkErrorPct);
  if (err > kMaxErrorPct)
    g.sinceDetail = g.interval; // unlike the samples: the next launch is simulated (a check)
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

KernelSimulator::Decision KernelSimulator::decide(const Signature &g) const {
  double c, e, meanInsts = 0;
  for (auto &sm : g.samples)
    meanInsts += sm.second / double(g.samples.size());
  if (g.checkNext)
    return Decision::Check;
  // fast-forward when the detailed samples predict well; a detailed launch now and then
  // (the instruction count is known only after the launch: decide on the error of the cycles
  // per instruction, checked again with the real count in runSkipped)
  if (g.sinceDetail + 1 < g.interval && estimate(g, meanInsts, c, e))
    return Decision::Estimate;
  // After functional launches, two detailed launches: the first warms the caches (they hold
  // what the last detailed launch left, not what the launches before this one would have
  // left) and is not learned from; the second checks the estimate.
  return g.sinceDetail > 0 ? Decision::Warm : Decision::Detail;
}

void KernelSimulator::learn(Signature &g, const timing::KernelTimingStats &st, bool checking) {
  if (checking) {
    // the estimate held: check less often; it did not: check often again. The difference is
    // a measured error of the estimate: the estimated launches' error bound includes it.
    double predicted = 0, e;
    estimate(g, double(st.warpInsts), predicted, e);
    double dev = st.cycles ? std::fabs(predicted - double(st.cycles)) / double(st.cycles) * 100.0
                           : 0.0;
    g.checkErrorPct = std::max(g.checkErrorPct, dev);
    g.interval = dev <= kMaxErrorPct ? std::min(g.interval * 2, kMaxResampleEvery) : kResampleEvery;
  }
  if (g.seen > 1) { // the first launch (cold caches, first fetches) is not representative
    g.samples.emplace_back(double(st.cycles), double(st.warpInsts));
    if (g.samples.size() > kWindow)
      g.samples.erase(g.samples.begin());
    // warm-up (caches filling over the first launches): when the newest kMinSamples agree
    // and the older ones spoil the estimate, the older ones were not yet steady
    if (g.samples.size() > kMinSamples) {
      double c, e, w = double(st.warpInsts);
      Signature recent;
      recent.samples.assign(g.samples.end() - kMinSamples, g.samples.end());
      if (!estimate(g, w, c, e) && estimate(recent, w, c, e))
        g.samples = std::move(recent.samples);
    }
  }
  g.last = st;
}

KernelRun KernelSimulator::run(const ptx::exec::LaunchParams &p) {
  // Signatures are followed also without sampling, to tell what `--sample kernels` would
  // estimate (wouldEstimate()): the same decisions, every launch simulated.
  Signature *sig = nullptr;
  bool checking = false, warming = false, shadowEstimate = false;
  if (sampleMode_ != SampleMode::Ctas && !p.cooperative) {
    SignatureKey key{p.kernel, p.grid.x, p.grid.y, p.grid.z, p.block.x, p.block.y, p.block.z,
                     p.dynamicShared};
    sig = &signatures_[key];
    ++sig->seen;
    Decision d = decide(*sig);
    if (d == Decision::Estimate) {
      ++sig->sinceDetail;
      if (sampleMode_ == SampleMode::Kernels)
        return runSkipped(p, *sig);
      shadowEstimate = true;
    } else {
      checking = d == Decision::Check;
      warming = d == Decision::Warm;
      sig->checkNext = warming;
      sig->sinceDetail = 0;
    }
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
  if (sig && r.launch.ok()) {
    if (shadowEstimate) {
      ++wouldEstimate_.launches;
      wouldEstimate_.hostSeconds += r.launch.seconds;
    } else if (!warming) {
      learn(*sig, r.stats, checking);
    }
  }
  if (sampleMode_ == SampleMode::Kernels) {
    // A launch that warms the caches after functional launches is simulated, but on caches
    // colder than in a full simulation: its error is (at most) its distance from the estimate.
    double warmErr = 0, predicted = 0, e;
    if (warming && r.launch.ok() && r.stats.cycles) {
      estimate(*sig, double(r.stats.warpInsts), predicted, e); // (0 without enough samples)
      if (predicted > 0)
        warmErr = std::fabs(double(r.stats.cycles) - predicted) / double(r.stats.cycles) * 100.0;
    }
    r.stats.set("sample.estimated", 0);
    r.stats.set("sample.error_pct", warmErr);
    r.stats.set("sample.detailed_ctas", double(p.grid.count()));
  }
  return r;
}

} // namespace ptxsim::sim
