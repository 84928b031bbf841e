#pragma once
// The one place that runs a kernel through the cycle-level model with the power model attached.
//
// Contract: the runtime (libcudart), the benches and the tests all simulate kernels through this
// class, so timing and power are joined the same way everywhere: run() executes one launch in
// timing mode (ptx/exec's functional core at issue, timing::Gpu for the cycles), and, when power
// is enabled, samples the cumulative statistics every PowerModel::traceInterval() cycles and
// turns the final statistics and the samples into the kernel's energy, power and trace. Power
// depends only on the statistics (base/Stats.h) and the configuration; this class is the only
// code that sees both the Gpu and the PowerModel.

#include "base/Diagnostics.h"
#include "power/PowerModel.h"
#include "ptx/exec/Engine.h"
#include "timing/TimingConfig.h"
#include "timing/gpu/Gpu.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ptxsim::sim {

/// Sampled simulation (docs/sampling.md): `Kernels` simulates representative launches of
/// repeated kernels in detail and runs the others functionally with estimated cycles; `Ctas`
/// simulates each kernel's CTAs until its IPC is steady and extrapolates the rest. Off by default.
enum class SampleMode : uint8_t { Off, Kernels, Ctas };
/// "off", "kernels", "ctas"; false for anything else.
bool parseSampleMode(const std::string &text, SampleMode &out);

struct KernelRun {
  ptx::exec::LaunchResult launch;
  timing::KernelTimingStats stats;
  std::optional<power::KernelPower> power; ///< when power is enabled
};

/// A power model read and checked before the simulator exists: the runtime reads its whole
/// configuration at start-up, so that a bad power file stops the program before any kernel, and
/// attaches the model when it creates the simulator (KernelSimulator::enablePower). Its users see
/// the model's name and idle power, not the model.
class PowerSetup {
public:
  /// Loads `xmlPath` for the GPU `cfg` (timing statistics are registered first so the model can
  /// check every counter it reads). False with diagnostics on errors.
  bool load(const std::string &xmlPath, const timing::TimingConfig &cfg, DiagEngine &diags);
  bool loaded() const { return model_.has_value(); }
  const std::string &name() const { return model_->name(); }
  bool hasIdle() const { return model_->hasIdle(); }
  double idleW() const { return model_->idleW(); }

private:
  friend class KernelSimulator;
  std::optional<power::PowerModel> model_;
};

class KernelSimulator {
public:
  KernelSimulator(const timing::TimingConfig &cfg, ptx::exec::Engine &engine);
  ~KernelSimulator();

  /// Attaches the power model from `xmlPath` (timing statistics are registered first so the
  /// model can check every counter it reads). False with diagnostics on errors.
  bool enablePower(const std::string &xmlPath, DiagEngine &diags);
  /// Attaches an already loaded power model.
  void enablePower(power::PowerModel model);
  void enablePower(const PowerSetup &setup) { enablePower(*setup.model_); }
  bool powerEnabled() const { return power_.has_value(); }
  const power::PowerModel &powerModel() const { return *power_; }

  KernelRun run(const ptx::exec::LaunchParams &p);

  /// Sampling (SampleMode). Contract for `Kernels`: launches are grouped by signature (kernel,
  /// grid, block, dynamic shared memory and the values of the scalar parameters, pointers
  /// excepted: signatureOf). Launches of one signature run in detail until kMinSamples of them
  /// after the first predict the cycles per warp instruction within kMaxErrorPct (95 %
  /// confidence of the mean), then functionally (Engine::launchGrid: same results for race-free
  /// programs), each with estimated statistics (sample.estimated = 1, sample.error_pct), except
  /// every n-th launch, which runs in detail again to check the estimate and follow drift: n
  /// starts at kResampleEvery and doubles (up to kMaxResampleEvery) each time the check agrees
  /// within kMaxErrorPct; a check that disagrees sets it back. A launch that follows a launch
  /// of another signature (or a host write) than every detailed launch of its signature
  /// followed runs in detail: the caches hold a state its samples never saw.
  void setSampling(SampleMode m);
  SampleMode sampling() const { return sampleMode_; }
  /// Detailed launches after the first before any estimate: enough to see a pattern over
  /// several launches (a converging iteration's 9-launch cycle) rather than 3 alike ones.
  static constexpr uint32_t kMinSamples = 8;
  static constexpr double kMaxErrorPct = 2.0;
  static constexpr uint32_t kResampleEvery = 25;
  static constexpr uint32_t kMaxResampleEvery = 400;
  /// Sets of parameter values of one kernel and shape after which the sampler decides whether
  /// the values change the work (signatureOf)
  static constexpr uint32_t kMaxValueSets = 8;
  /// Signatures one shape may have when its values change the work; launches with further
  /// values are simulated in full
  static constexpr uint32_t kMaxSignaturesPerShape = 1024;

  // Between kernels: host-device copies and memsets (timing::Gpu), for the runtime.
  /// Simulated seconds of a host-device copy of `bytes`.
  double copySeconds(uint64_t bytes) const { return gpu_.copySeconds(bytes); }
  /// The host wrote `bytes` of device memory at `dst` (a copy or memset: through the L2).
  void noteDeviceWrite(const void *dst, uint64_t bytes) {
    gpu_.noteDeviceWrite(dst, bytes);
    context_ = kHostWrite;
  }
  /// (testing: the parallel timing engine's threads even for few busy SMs; docs/timing.md)
  void setParallelMinBusySms(uint32_t n) { gpu_.setParallelMinBusySms(n); }

  /// Without sampling: what `--sample kernels` would have estimated in this run so far (the
  /// same decisions on the same launches; every launch is simulated all the same).
  struct WouldEstimate {
    uint64_t launches = 0; ///< launches kernel sampling would have run functionally
    double hostSeconds = 0; ///< host seconds their detailed simulation took
  };
  const WouldEstimate &wouldEstimate() const { return wouldEstimate_; }

  timing::Gpu &gpu() { return gpu_; }
  const timing::TimingConfig &config() const { return gpu_.config(); }

private:
  struct ShapeValues;
  struct Signature {
    uint32_t id = 0;          ///< order of creation (the context of the launches that follow)
    ShapeValues *shape = nullptr; ///< its kernel and shape's values
    uint32_t seen = 0;        ///< launches so far
    uint32_t sinceDetail = 0; ///< functional launches since the last detailed one
    uint32_t interval = kResampleEvery; ///< a detailed launch every `interval` launches
    /// Detailed launches after the first: (cycles, warp instructions), the last kWindow kept
    std::vector<std::pair<double, double>> samples;
    /// What preceded its detailed launches (contextOf): cache states its samples saw
    std::vector<uint32_t> contexts;
    /// The last detailed launch's statistics (once kMinSamples; kept under kernel sampling
    /// only, the one mode that estimates from them), and their entries' kinds for scaling
    /// (timing::statScaleKinds; empty until the first estimate from them)
    timing::KernelTimingStats last;
    std::vector<uint8_t> lastKinds;
    double checkErrorPct = 0; ///< the largest difference a check measured, in percent
    bool checkNext = false;   ///< the last launch warmed the caches for a check
  };
  /// Detail: simulated and learned from; Warm: simulated, not learned from (caches warm up for
  /// the Check that follows); Check: simulated and compared with the estimate; Estimate: run
  /// functionally with estimated statistics.
  enum class Decision : uint8_t { Detail, Warm, Check, Estimate };
  /// Whether the next launch of `g`, which follows `context`, is estimated, simulated as a
  /// check of the estimate or simulated to learn.
  Decision decide(const Signature &g, uint32_t context) const;
  /// Learns from a detailed launch of `g` with statistics `st` (a check when `checking`).
  void learn(Signature &g, const timing::KernelTimingStats &st, bool checking);
  /// Kernel, grid, block and dynamic shared memory
  using ShapeKey = std::tuple<const void *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                              uint32_t, uint32_t>;
  /// The shape and the bytes of the parameters that are values (signatureOf)
  using SignatureKey = std::pair<ShapeKey, std::string>;
  /// The signature of launch `p`: its shape and the bytes of its scalar parameters (up to 8
  /// bytes and not an address of device memory: a CUB pass's bit offset, a sort step, a
  /// texture), so that launches doing different work are not taken for repeats. Once a shape
  /// has taken kMaxValueSets sets of values, the first launches of those (the first set's
  /// excepted: cold caches) tell whether the values change the work: when their instructions
  /// and cycles are alike within kMaxErrorPct (a time step, a seed, an offset), the values
  /// leave the shape's key (one signature, learning anew); otherwise each set stays its own
  /// signature, up to kMaxSignaturesPerShape (null past that: simulated in full).
  Signature *signatureOf(const ptx::exec::LaunchParams &p);
  /// The sets of values of one shape and whether they change its work
  struct ShapeValues {
    enum class Kind : uint8_t { Undecided, Alike, Different };
    Kind kind = Kind::Undecided;
    std::set<std::string> seen; ///< (while not Alike)
    /// (cycles, warp instructions) of each set's first launch, while Undecided
    std::vector<std::pair<double, double>> firsts;
  };
  /// The context of the next launch: the signature of the previous launch, kHostWrite after a
  /// host write to device memory, kNoContext after an unsampled launch (cooperative).
  static constexpr uint32_t kHostWrite = 0xffffffffu, kNoContext = 0xfffffffeu;
  /// The kernel-sampling estimate for `warpInsts` warp instructions: cycles and the error
  /// estimate in percent (95 % confidence); false when the samples do not predict well enough
  /// yet. Samples of one instruction count: cycles per instruction over the launch and drain
  /// latencies; of several: a line fitted to (instructions, cycles).
  bool estimate(const Signature &g, double warpInsts, double &cycles, double &errorPct) const;
  KernelRun runSkipped(const ptx::exec::LaunchParams &p, Signature &g);

  timing::Gpu gpu_;
  ptx::exec::Engine &engine_;
  std::optional<power::PowerModel> power_;
  SampleMode sampleMode_ = SampleMode::Off;
  std::map<SignatureKey, Signature> signatures_;
  std::map<ShapeKey, ShapeValues> shapeValues_;
  uint32_t context_ = kNoContext; ///< what preceded the next launch (kHostWrite, ...)
  /// Caches after functional launches hold what the last detailed launches left, not what the
  /// functional ones would have: `afterFunctional_` when the previous launch was estimated
  /// (or, without sampling, would have been). A detailed launch then runs on stale caches: it
  /// is not learned from nor compared, and asks for a clean launch (cleanWanted_): until its
  /// signature's next launch, or kCleanWindow launches, launches that would be estimated are
  /// simulated (not learned from), so that its next launch follows a detailed one.
  bool afterFunctional_ = false;
  uint32_t cleanWanted_ = 0; ///< launches still simulated for a stale signature's next launch
  static constexpr uint32_t kCleanWindow = 16;
  /// The largest distance of a launch on stale caches from its signature's samples, in percent
  /// (the error stated for one whose signature has no samples yet: at least
  /// kUnmeasuredStalePct, above the largest measured over tests/ and samples/, 3.9 %)
  double staleErrorPct_ = 0;
  static constexpr double kUnmeasuredStalePct = 5.0;
  /// Distance of `st` from what `g`'s samples predict, in percent; -1 without samples.
  double distanceFromSamples(const Signature &g, const timing::KernelTimingStats &st) const;
  WouldEstimate wouldEstimate_;
};

} // namespace ptxsim::sim
