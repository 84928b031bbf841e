#pragma once
// `ptxsim report`: one self-contained HTML page from one or more PTXSIM_STATS_JSON files.
//
// Contract: buildRunModel() turns one stats file into the numbers the page shows (per-kernel
// aggregates over launches, per-launch rows, stall and power breakdowns, the power trace on the
// run's simulated timeline, the flattened configuration); renderReport() writes the page from
// those models only, so every number on the page is one a unit test can recompute from the JSON.
// The page needs no network: the chart library (uPlot) is inlined when it was found, and when it
// was not the page still shows every table and says why the charts are missing. Tables are
// written as HTML (readable without JavaScript); the script adds sorting, expanding a kernel into
// its launches (rendered on demand, so 10,000+ launches stay responsive) and the charts.

#include "runtime/report/Json.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::report {

/// The uPlot release scripts/setup.sh fetches (npm, integrity-checked) and the page inlines.
inline constexpr const char *kUplotVersion = "1.6.32";

/// One kernel of one run, summed (or cycle-weighted) over its launches.
struct KernelRow {
  std::string name;      ///< mangled (matches the JSON)
  std::string demangled; ///< as the JSON's kernels[] gives it (the name when absent)
  std::string shortName; ///< demangled without its parameter list, for chart labels
  uint64_t launches = 0;
  uint64_t ctas = 0;
  std::string gridBlock; ///< "(gx,gy,gz)x(bx,by,bz)" of the last launch; empty when unknown
  bool gridVaries = false; ///< launches used more than one grid x block
  double cycles = 0, warpInsts = 0, threadInsts = 0;
  double occupancy = 0; ///< sm.occupancy weighted by each launch's cycles
  double stallCycles = 0;
  std::vector<double> stalls; ///< by RunModel::stallReasons
  double l1Accesses = 0, l1Hits = 0, l1Misses = 0, l2Accesses = 0, l2Hits = 0;
  double dramReadBytes = 0, dramWriteBytes = 0;
  double simSeconds = 0;  ///< simulated kernel time (timing) or host seconds (functional)
  double energyJ = 0;     ///< power mode
  double powerSeconds = 0;
  std::vector<double> componentJ; ///< by RunModel::powerComponents (dynamic + static)
  std::vector<uint32_t> launchIndex; ///< into RunModel::launches

  /// hits / accesses in [0,1], or -1 without accesses (a hit on a line already being fetched
  /// counts as a miss here).
  /// warp instructions per cycle (gpu.warp_insts / gpu.cycles, the whole GPU)
  double ipc() const { return cycles > 0 ? warpInsts / cycles : 0; }
  double l1HitRate() const { return l1Accesses > 0 ? l1Hits / l1Accesses : -1; }
  double l2HitRate() const { return l2Accesses > 0 ? l2Hits / l2Accesses : -1; }
  double dramBytes() const { return dramReadBytes + dramWriteBytes; }
  /// energy / simulated seconds of the launches the power model saw; 0 without power.
  double avgWatts() const { return powerSeconds > 0 ? energyJ / powerSeconds : 0; }
  /// L1D misses per 1000 warp instructions (GPGPU-Sim's MISSES_PER_1000_INSTR).
  double l1MissesPerKiloInst() const { return warpInsts > 0 ? 1000 * l1Misses / warpInsts : 0; }
};

/// One launch (timing mode), for the expanded rows of a kernel.
struct LaunchRow {
  uint32_t kernel = 0; ///< into RunModel::kernels
  std::string gridBlock;
  double start = 0; ///< simulated seconds since the run began (-1 when the file has no times)
  double cycles = 0, ipc = 0, occupancy = 0, warpInsts = 0, stallCycles = 0;
  double l1HitRate = -1, l2HitRate = -1, dramBytes = 0, energyJ = 0, avgWatts = 0;
};

struct RunModel {
  std::string label; ///< shown in every table and legend (the file's stem unless given)
  std::string path;
  std::string program; ///< command line of the program, when the file records it
  std::string mode;    ///< "timing" or "functional"
  std::string configName;
  std::vector<std::string> configSources;
  bool timing = false, power = false;
  double wallSeconds = 0, simSeconds = 0, kernelSimSeconds = 0;
  double copies = 0, copyBytes = 0, copySeconds = 0;
  double energyJ = 0, peakWatts = 0;
  /// Sampled simulation (docs/sampling.md): the file's launches carry sample.* statistics;
  /// launches and cycles estimated, and the bound on the error of the total in cycles (each
  /// launch's sample.error_pct of its cycles, summed).
  bool sampled = false;
  double estimatedLaunches = 0, estimatedCycles = 0, errorBoundCycles = 0;
  std::vector<std::string> stallReasons;    ///< "memory", "barrier", ... (sm.stall.<reason>)
  std::vector<std::string> powerComponents; ///< in the power model's order
  std::vector<KernelRow> kernels;           ///< in order of first launch
  std::vector<LaunchRow> launches;
  std::vector<std::pair<double, double>> trace; ///< (simulated s, W), at most kMaxTracePoints
  std::vector<std::pair<std::string, std::string>> config; ///< flattened "core.numSms" = "15"

  static constexpr size_t kMaxTracePoints = 4000;
  /// Totals over kernels.
  double totalCycles() const;
  double totalWarpInsts() const;
};

/// Builds the model of one stats file. Returns false with `error` when `json` is not a ptxsim
/// stats file (no "kernels" array).
bool buildRunModel(const JsonValue &json, RunModel &out, std::string &error);

/// Reads and parses `path` and builds its model; `error` names the file (and line:column).
bool loadRun(const std::string &path, RunModel &out, std::string &error);

struct ChartLibrary {
  std::string js, css; ///< empty when not found
  std::string license;  ///< the library's LICENSE text, kept with the inlined copy
  std::string where;   ///< the directory it came from, or why it is missing
  bool available() const { return !js.empty(); }
};

/// Finds uPlot: $PTXSIM_UPLOT_DIR, then <ptxsim>/../share/ptxsim/uplot, then
/// ${XDG_CACHE_HOME:-~/.cache}/ptxsim/uplot-<kUplotVersion> (where scripts/setup.sh puts it).
ChartLibrary findChartLibrary();

/// The page for `runs` (the first is the baseline of the comparison). `title` heads the page.
std::string renderReport(const std::vector<RunModel> &runs, const ChartLibrary &charts,
                         const std::string &title);

/// `ptxsim report STATS.json... [-o FILE] [--label NAME]... [--title TEXT]`.
int reportCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

/// Writes the report of the given stats files to `output`; used by `ptxsim run --report`.
/// Returns false after printing why on `err`.
/// `shownPaths` replaces the file names the summary shows (e.g. for a temporary file).
bool writeReport(const std::vector<std::string> &files, const std::vector<std::string> &labels,
                 const std::string &title, const std::string &output, std::ostream &err,
                 const std::vector<std::string> &shownPaths = {});

} // namespace ptxsim::report
