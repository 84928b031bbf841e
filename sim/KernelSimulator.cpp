#include "sim/KernelSimulator.h"

#include "ptx/exec/Memory.h"
#include "ptx/exec/TextureDesc.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
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

/// Whether any of the samples before the last kMinSamples of `all` is within kMaxErrorPct of
/// the cycles per instruction of the mean of `recent` (those last ones).
bool recurs(const std::vector<std::pair<double, double>> &recent,
            const std::vector<std::pair<double, double>> &all) {
  double c = 0, w = 0;
  for (auto &[rc, rw] : recent) {
    c += rc;
    w += rw;
  }
  double cpi = w > 0 ? c / w : 0;
  for (size_t i = 0; i + recent.size() < all.size(); ++i) {
    double own = all[i].second > 0 ? all[i].first / all[i].second : 0;
    if (std::fabs(own - cpi) <= cpi * KernelSimulator::kMaxErrorPct / 100.0)
      return true;
  }
  return false;
}

/// Appends to `out` what parameter `i` of `p` says about the launch's work: the bytes of a
/// scalar of at most 8 bytes that is not an address of device memory; for a texture or surface
/// object (the address of its descriptor, ptx/exec/TextureDesc.h), the descriptor's settings
/// and geometry (not its data address); nothing for a pointer (pointers move with allocations
/// without changing the work) or a larger parameter.
void appendValue(const ptx::exec::LaunchParams &p, const ptx::exec::DeviceMemory &mem, size_t i,
                 std::string &out) {
  uint32_t size = p.kernel->paramSizes[i];
  const char *bytes = static_cast<const char *>(p.params) + p.kernel->paramOffsets[i];
  if (size == 0 || size > 8)
    return;
  if (size == 8) {
    uint64_t v;
    std::memcpy(&v, bytes, 8);
    const ptx::exec::Allocation *a = mem.find(v);
    if (a && a->base == v && a->kind == ptx::exec::AllocKind::Const &&
        a->size == sizeof(ptx::exec::TexDesc)) {
      const char *desc = static_cast<const char *>(ptx::exec::DeviceMemory::host(v));
      uint64_t magic;
      std::memcpy(&magic, desc, 8);
      if (magic == ptx::exec::kTexMagic || magic == ptx::exec::kSurfMagic) {
        size_t from = offsetof(ptx::exec::TexDesc, pitch);
        out.append(desc + from, sizeof(ptx::exec::TexDesc) - from);
        return;
      }
    }
    if (a || mem.inArena(v))
      return;
  }
  out.append(bytes, size);
}
} // namespace

namespace {
/// Whether `v`'s cycles and instructions, past the first (cold caches), lie within kMaxErrorPct
/// of their mean.
bool alike(const std::vector<std::pair<double, double>> &v) {
  for (int axis = 0; axis < 2; ++axis) {
    double lo = 0, hi = 0, sum = 0;
    for (size_t i = 1; i < v.size(); ++i) {
      double x = axis ? v[i].second : v[i].first;
      lo = i == 1 ? x : std::min(lo, x);
      hi = i == 1 ? x : std::max(hi, x);
      sum += x;
    }
    double mean = v.size() > 1 ? sum / double(v.size() - 1) : 0;
    if (hi - lo > mean * KernelSimulator::kMaxErrorPct / 100.0)
      return false;
  }
  return true;
}
} // namespace

KernelSimulator::Signature *KernelSimulator::signatureOf(const ptx::exec::LaunchParams &p) {
  ShapeKey shape{p.kernel, p.grid.x, p.grid.y, p.grid.z, p.block.x, p.block.y, p.block.z,
                 p.dynamicShared};
  std::string values;
  const ptx::exec::Kernel &k = *p.kernel;
  if (p.params)
    for (size_t i = 0; i < k.paramSizes.size() && i < k.paramOffsets.size(); ++i)
      if (k.paramOffsets[i] + k.paramSizes[i] <= k.paramBytes)
        appendValue(p, engine_.memory(), i, values);
  ShapeValues &sv = shapeValues_[shape];
  using Kind = ShapeValues::Kind;
  if (sv.kind != Kind::Alike && !sv.seen.count(values)) {
    if (sv.kind == Kind::Undecided && sv.seen.size() == kMaxValueSets) {
      // as many sets as kMaxValueSets: do the values change the work?
      sv.kind = alike(sv.firsts) ? Kind::Alike : Kind::Different;
      sv.firsts.clear();
      if (sv.kind == Kind::Alike)
        sv.seen.clear();
    }
    if (sv.kind == Kind::Different && sv.seen.size() >= kMaxSignaturesPerShape)
      return nullptr;
    if (sv.kind != Kind::Alike)
      sv.seen.insert(values);
  }
  if (sv.kind == Kind::Alike)
    values = "*"; // (no parameter bytes: a key of its own)
  auto [it, fresh] = signatures_.try_emplace(SignatureKey{shape, std::move(values)});
  if (fresh) {
    it->second.id = uint32_t(signatures_.size() - 1);
    it->second.shape = &sv;
  }
  return &it->second;
}

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
    // (the error of one launch: the scatter around the line and the line's own uncertainty)
    se = std::sqrt(ss / (nd - 2) * (1.0 + 1.0 / nd + (warpInsts - mx) * (warpInsts - mx) / sxx));
    // A count no sample had (a sort step between two others): the line has no support there;
    // its cycles may be anywhere between the nearest sample's (latency-bound) and that
    // sample's cycles per instruction times the count (throughput-bound).
    const std::pair<double, double> *near = &g.samples[0];
    for (auto &sm : g.samples)
      if (std::fabs(sm.second - warpInsts) < std::fabs(near->second - warpInsts))
        near = &sm;
    if (std::fabs(near->second - warpInsts) > warpInsts * kMaxErrorPct / 100.0 &&
        near->second > 0) {
      double lat = near->first, thr = near->first * warpInsts / near->second;
      double top = std::max({lat, thr, cycles}), bottom = std::min({lat, thr, cycles});
      se = std::max(se, (top - bottom) / 2.0);
    }
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
    // (the error of one launch, not of the mean: launches that vary in a pattern, such as a
    // converging iteration's, are estimated only when each is predictable)
    se = std::sqrt(var * (1.0 + 1.0 / nd)) * warpInsts;
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
  if (err > kMaxErrorPct) {
    g.sinceDetail = g.interval; // unlike the samples: the next launch is simulated (a check)
    // values taken for alike do change the work: further new values are signatures of their own
    if (g.shape->kind == ShapeValues::Kind::Alike)
      g.shape->kind = ShapeValues::Kind::Different;
  }
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
  // (by position: the kinds of rep's entries are looked up once, not a name per entry and launch)
  if (g.lastKinds.empty())
    timing::statScaleKinds(rep, g.lastKinds);
  timing::scaleStats(st, g.lastKinds, insts, cyc);
  // (by handle: the copy keeps rep's positions by id, where a name would build a name index)
  static const struct Handles {
    stats::Stat cycles, seconds, warpInsts, threadInsts, totCycle, totInsn, ctas, estimated,
        errorPct, detailedCtas;
  } h = [] {
    timing::registerTimingStatistics();
    const stats::Catalog &cat = stats::Catalog::global();
    return Handles{cat.resolve("gpu.cycles"),       cat.resolve("gpu.sim_seconds"),
                   cat.resolve("gpu.warp_insts"),   cat.resolve("gpu.thread_insts"),
                   cat.resolve("gpu_tot_sim_cycle"), cat.resolve("gpu_tot_sim_insn"),
                   cat.resolve("gpu.ctas"),         cat.resolve("sample.estimated"),
                   cat.resolve("sample.error_pct"), cat.resolve("sample.detailed_ctas")};
  }();
  st.set(h.cycles, double(c));
  st.set(h.seconds, st.seconds);
  st.set(h.warpInsts, double(st.warpInsts));
  st.set(h.threadInsts, double(st.threadInsts));
  st.set(h.totCycle, double(c));
  st.set(h.totInsn, double(st.threadInsts));
  st.set(h.ctas, double(p.grid.count()));
  st.set(h.estimated, 1);
  st.set(h.errorPct, err);
  st.set(h.detailedCtas, 0);
  if (power_)
    r.power = power_->kernel(st.kernel, st, {});
  return r;
}

KernelSimulator::Decision KernelSimulator::decide(const Signature &g, uint32_t context) const {
  double c, e, meanInsts = 0;
  for (auto &sm : g.samples)
    meanInsts += sm.second / double(g.samples.size());
  if (g.checkNext)
    return Decision::Check;
  // after a launch (or host write) that no detailed launch of `g` followed, the caches hold a
  // state the samples never saw (another kernel's lines, textures): simulate it and learn
  if (std::find(g.contexts.begin(), g.contexts.end(), context) == g.contexts.end())
    return g.sinceDetail > 0 ? Decision::Warm : Decision::Detail;
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
  if (g.seen == 1 && g.shape->kind == ShapeValues::Kind::Undecided)
    g.shape->firsts.emplace_back(double(st.cycles), double(st.warpInsts));
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
    // warm-up (caches filling over the first launches): when the newest kMinSamples agree,
    // the older ones spoil the estimate and none of them is like the newest (a transient, not
    // a pattern that comes back, such as a converging iteration's), the older were not steady
    if (g.samples.size() > kMinSamples) {
      double c, e, w = double(st.warpInsts);
      Signature recent;
      recent.samples.assign(g.samples.end() - kMinSamples, g.samples.end());
      if (!estimate(g, w, c, e) && estimate(recent, w, c, e) && !recurs(recent.samples, g.samples))
        g.samples = std::move(recent.samples);
    }
  }
  // the statistics estimated launches scale (kept only where estimates can come: a snapshot of
  // every counter is large, and a shape whose values change the work has many signatures; and
  // only when launches are estimated: a copy of thousands of named values per launch)
  if (g.samples.size() >= kMinSamples && sampleMode_ == SampleMode::Kernels) {
    g.last = st;
    g.lastKinds.clear();
  }
}

double KernelSimulator::distanceFromSamples(const Signature &g,
                                            const timing::KernelTimingStats &st) const {
  if (g.samples.empty() || !st.cycles)
    return -1;
  double predicted = 0, e;
  if (!estimate(g, double(st.warpInsts), predicted, e) && predicted <= 0) {
    // fewer samples than an estimate needs: their mean cycles per instruction
    double c = 0, w = 0;
    for (auto &[sc, sw] : g.samples) {
      c += sc;
      w += sw;
    }
    predicted = w > 0 ? c / w * double(st.warpInsts) : c / double(g.samples.size());
  }
  return std::fabs(double(st.cycles) - predicted) / double(st.cycles) * 100.0;
}

KernelRun KernelSimulator::run(const ptx::exec::LaunchParams &p) {
  // Signatures are followed also without sampling, to tell what `--sample kernels` would
  // estimate (wouldEstimate()): the same decisions, every launch simulated.
  Signature *sig = nullptr;
  bool checking = false, warming = false, shadowEstimate = false, stale = false;
  uint32_t context = context_;
  context_ = kNoContext;
  bool afterFunctional = afterFunctional_;
  afterFunctional_ = false;
  if (sampleMode_ != SampleMode::Ctas && !p.cooperative)
    sig = signatureOf(p);
  if (sig) {
    context_ = sig->id;
    ++sig->seen;
    Decision d = decide(*sig, context);
    if (d == Decision::Estimate && cleanWanted_ > 0) {
      // another signature's next launch wants to follow detailed launches
      --cleanWanted_;
      d = Decision::Warm;
      warming = true;
    } else if (d == Decision::Estimate) {
      ++sig->sinceDetail;
      afterFunctional_ = true;
      if (sampleMode_ == SampleMode::Kernels)
        return runSkipped(p, *sig);
      shadowEstimate = true;
    } else if (afterFunctional) {
      // on stale caches: neither learned from nor a check (a check stays due)
      stale = true;
      sig->checkNext = sig->checkNext || d == Decision::Warm;
      sig->sinceDetail = 0;
      cleanWanted_ = kCleanWindow;
    } else {
      checking = d == Decision::Check;
      warming = d == Decision::Warm;
      sig->checkNext = warming;
      sig->sinceDetail = 0;
      if (!warming && std::find(sig->contexts.begin(), sig->contexts.end(), context) ==
                          sig->contexts.end())
        sig->contexts.push_back(context);
      if (!warming)
        cleanWanted_ = 0; // (the launch it waited for)
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
    } else if (!warming && !stale) {
      learn(*sig, r.stats, checking);
    }
  }
  if (sampleMode_ == SampleMode::Kernels) {
    // A launch that warms the caches after functional launches, or runs on caches they left
    // stale, is simulated, but on caches colder than in a full simulation: its error is (at
    // most) its distance from what its samples predict, or without samples the largest such
    // distance measured in the run, and no less than kUnmeasuredStalePct.
    double coldErr = 0;
    if ((warming || stale) && r.launch.ok()) {
      double d = distanceFromSamples(*sig, r.stats);
      if (d >= 0)
        staleErrorPct_ = std::max(staleErrorPct_, d);
      // (no samples to measure it against: the largest effect measured, at least
      // kUnmeasuredStalePct)
      coldErr = d >= 0 ? d : std::max(staleErrorPct_, kUnmeasuredStalePct);
    }
    r.stats.set("sample.estimated", 0);
    r.stats.set("sample.error_pct", coldErr);
    r.stats.set("sample.detailed_ctas", double(p.grid.count()));
  }
  return r;
}

} // namespace ptxsim::sim
