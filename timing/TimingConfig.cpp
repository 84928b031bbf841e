#include "timing/TimingConfig.h"

#include "base/Config.h"
#include "base/ExtensionOptions.h"
#include "timing/ConfigParts.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

// Every field of TimingConfig is bound to one option (GPGPU-Sim's name where GPGPU-Sim has the
// concept, `-ptxsim_...` otherwise) by the part of the configuration that owns it, in a file
// beside its component (timing/ConfigParts.h and .def); this file drives the parts and binds the
// GPU-wide options (name, clocks, copies, kernel launch, GPGPU-Sim's ignored options).
// docs/config.md is generated from the bindings (ConfigDoc test); the dumps of every preset are
// compared byte for byte (config_print_* tests). A few GPGPU-Sim options describe a field
// differently from ptxsim; their values are folded in after all input is read (ConfigPart::finish):
//  - `-gpgpu_cache:dl2` is per memory sub-partition: the L2 slice of a partition has
//    `-gpgpu_n_sub_partition_per_mchannel` times its sets and MSHR entries (two caches told apart
//    by one address bit behave as one with twice the sets);
//  - `-gpgpu_dram_buswidth` is per DRAM chip: a partition's bus is `-gpgpu_n_mem_per_ctrlr` chips
//    wide;
//  - GPGPU-Sim derives tRTW, tWTR and the burst time from CL, WL, CDLR, the burst length and the
//    data/command clock ratio; so does ptxsim unless RTW, WTR or BURST are given.

namespace ptxsim::timing {

namespace config {

bool isPow2(uint64_t v) { return v && !(v & (v - 1)); }

std::vector<std::string> split(const std::string &s, const std::string &seps) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (seps.find(c) != std::string::npos)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return s.substr(b, e - b);
}

bool toU32(const std::string &s, uint32_t &out) {
  std::string t = trim(s);
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0])))
    return false;
  char *end = nullptr;
  unsigned long long v = std::strtoull(t.c_str(), &end, 10);
  if (*end != '\0' || v > UINT32_MAX)
    return false;
  out = uint32_t(v);
  return true;
}

bool toDouble(const std::string &s, double &out) {
  std::string t = trim(s);
  if (t.empty())
    return false;
  char *end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return *end == '\0';
}
void checkAtLeastOne(std::initializer_list<std::pair<const char *, uint32_t>> values,
                     const ConfigFail &fail) {
  for (const auto &[opt, v] : values)
    if (v == 0)
      fail(opt, "must be at least 1");
}

} // namespace config

namespace {

using config::split;
using config::toDouble;
using config::trim;

/// Accepted clock frequencies (-gpgpu_clock_domains), in MHz.
constexpr double kMinClockMHz = 1.0, kMaxClockMHz = 100000.0;
/// The largest latency, interval or cycle count an option accepts when it names no other bound.
constexpr double kMaxCycleOption = 1e6;

/// GPGPU-Sim options with no effect in ptxsim: accepted with a warning.
const char *const kIgnored[][2] = {
    {"-gpgpu_ptx_sim_mode", "functional-only simulation switch (use ptxsim run --mode)"},
    {"-gpgpu_ptx_instruction_classification", "instruction classification statistics"},
    {"-gpgpu_ptx_force_max_capability", "highest PTX/SASS version it loads"},
    {"-gpgpu_ptx_convert_to_ptxplus", "PTXPlus (SASS) execution"},
    {"-gpgpu_ptx_save_converted_ptxplus", "save PTXPlus files"},
    {"-gpgpu_ptx_use_cuobjdump", "extract PTX with cuobjdump"},
    {"-gpgpu_ptx_inst_debug_to_file", "instruction debug trace"},
    {"-gpgpu_ptx_inst_debug_file", "instruction debug trace file"},
    {"-gpgpu_ptx_inst_debug_thread_uid", "instruction debug trace thread"},
    {"-save_embedded_ptx", "save the PTX embedded in the binary"},
    {"-keep", "keep intermediate files"},
    {"-gpgpu_stack_size_limit", "per-thread stack size (cudaLimitStackSize)"},
    {"-gpgpu_heap_size_limit", "device malloc heap size (cudaLimitMallocHeapSize)"},
    {"-gpgpu_runtime_sync_depth_limit", "CDP synchronization depth"},
    {"-gpgpu_runtime_pending_launch_count_limit", "CDP pending launches"},
    {"-gpgpu_cdp_enabled", "CUDA dynamic parallelism"},
    {"-cdp_latency", "CDP launch latencies"},
    {"-gpgpu_compute_capability_major", "reported compute capability"},
    {"-gpgpu_compute_capability_minor", "reported compute capability"},
    {"-gpgpu_occupancy_sm_number", "SM version used for occupancy"},
    {"-gpgpu_registers_per_block", "register limit per CTA"},
    {"-gpgpu_shmem_per_block", "shared memory limit per CTA"},
    {"-gpgpu_shmem_sizeDefault", "default shared memory carve-out"},
    {"-gpgpu_shmem_size_PrefL1", "shared memory with cudaFuncCachePreferL1"},
    {"-gpgpu_shmem_size_PrefShared", "shared memory with cudaFuncCachePreferShared"},
    {"-gpgpu_cache:dl1PrefL1", "L1D with cudaFuncCachePreferL1"},
    {"-gpgpu_cache:dl1PrefShared", "L1D with cudaFuncCachePreferShared"},
    {"-gpgpu_cache:dl2_texture_only", "L2 for texture accesses only"},
    {"-gpgpu_tex_cache:l1", "texture cache"},
    {"-gpgpu_simd_model", "SIMD model (1: PDOM reconvergence; ptxsim: -ptxsim_simt ipdom or its)"},
    {"-gpgpu_pipeline_widths", "pipeline register widths"},
    {"-gpgpu_num_int_units", "INT pipelines (ptxsim runs INT on the SP pipelines)"},
    {"-gpgpu_num_mem_units", "LD/ST units (see -ptxsim_ldst_units)"},
    {"-gpgpu_tensor_core_avail", "tensor cores present (see -gpgpu_num_tensor_core_units)"},
    {"-gpgpu_sub_core_model", "schedulers with private register files and units"},
    {"-gpgpu_dual_issue_diff_exec_units", "dual issue to different units"},
    {"-gpgpu_enable_specialized_operand_collector", "per-unit operand collectors"},
    {"-gpgpu_operand_collector_num_units_sp", "SP operand collectors"},
    {"-gpgpu_operand_collector_num_units_dp", "DP operand collectors"},
    {"-gpgpu_operand_collector_num_units_sfu", "SFU operand collectors"},
    {"-gpgpu_operand_collector_num_units_int", "INT operand collectors"},
    {"-gpgpu_operand_collector_num_units_mem", "MEM operand collectors"},
    {"-gpgpu_operand_collector_num_units_tensor_core", "tensor operand collectors"},
    {"-gpgpu_operand_collector_num_in_ports_sp", "operand collector ports"},
    {"-gpgpu_operand_collector_num_in_ports_dp", "operand collector ports"},
    {"-gpgpu_operand_collector_num_in_ports_sfu", "operand collector ports"},
    {"-gpgpu_operand_collector_num_in_ports_int", "operand collector ports"},
    {"-gpgpu_operand_collector_num_in_ports_mem", "operand collector ports"},
    {"-gpgpu_operand_collector_num_in_ports_gen", "operand collector ports"},
    {"-gpgpu_operand_collector_num_in_ports_tensor_core", "operand collector ports"},
    {"-gpgpu_operand_collector_num_out_ports_sp", "operand collector ports"},
    {"-gpgpu_operand_collector_num_out_ports_dp", "operand collector ports"},
    {"-gpgpu_operand_collector_num_out_ports_sfu", "operand collector ports"},
    {"-gpgpu_operand_collector_num_out_ports_int", "operand collector ports"},
    {"-gpgpu_operand_collector_num_out_ports_mem", "operand collector ports"},
    {"-gpgpu_operand_collector_num_out_ports_gen", "operand collector ports"},
    {"-gpgpu_operand_collector_num_out_ports_tensor_core", "operand collector ports"},
    {"-gpgpu_reg_bank_use_warp_id", "register bank selection by warp id"},
    {"-gpgpu_reg_file_port_throughput", "register file ports"},
    {"-gpgpu_inst_fetch_throughput", "instruction fetch width"},
    {"-ptx_opcode_initiation_int", "INT initiation intervals (ptxsim: -ptxsim_sp_interval)"},
    {"-gpgpu_shmem_limited_broadcast", "limited shared memory broadcast"},
    {"-gpgpu_shmem_warp_parts", "shared memory accesses per warp part"},
    {"-gpgpu_coalesce_arch", "coalescing rules by SM version"},
    {"-gpgpu_gmem_skip_L1D", "global accesses bypass L1D (use -gpgpu_cache:dl1 none)"},
    {"-gpgpu_l1_banks", "L1D banks"},
    {"-gpgpu_l1_banks_byte_interleaving", "L1D bank interleaving"},
    {"-gpgpu_l1_banks_hashing_function", "L1D bank hashing"},
    {"-gpgpu_l1_cache_write_ratio", "L1D write ratio for the adaptive carve-out"},
    {"-gpgpu_mem_unit_ports", "L1D ports"},
    {"-gpgpu_n_cluster_ejection_buffer_size", "interconnect ejection buffer"},
    {"-gpgpu_n_ldst_response_buffer_size", "LD/ST response buffer"},
    {"-gpgpu_num_cta_barriers", "barriers per CTA"},
    {"-gpgpu_local_mem_map", "local memory address mapping"},
    {"-gpgpu_perfect_mem", "ideal memory"},
    {"-gpgpu_perfect_inst_const_cache", "ideal instruction/constant caches"},
    {"-l2_ideal", "ideal L2"},
    {"-gpgpu_mem_address_mask", "address mask"},
    {"-gpgpu_mem_addr_test", "address mapping self-test"},
    {"-gpgpu_dram_partition_queues", "partition queue sizes"},
    {"-gpgpu_dram_return_queue_size", "DRAM return queue"},
    {"-gpgpu_simple_dram_model", "fixed-latency DRAM model"},
    {"-dram_bnk_indexing_policy", "bank index hashing"},
    {"-dram_bnkgrp_indexing_policy", "bank group index hashing"},
    {"-dram_dual_bus_interface", "HBM dual command bus"},
    {"-dram_elimnate_rw_turnaround", "no read/write turnaround"},
    {"-dram_seperate_write_queue_enable", "separate DRAM write queue"},
    {"-dram_write_queue_size", "DRAM write queue and watermarks"},
    {"-inter_config_file", "intersim configuration file"},
    {"-icnt_in_buffer_limit", "local crossbar input buffer"},
    {"-icnt_out_buffer_limit", "local crossbar output buffer"},
    {"-icnt_subnets", "local crossbar subnets"},
    {"-icnt_arbiter_algo", "local crossbar arbiter"},
    {"-icnt_verbose", "interconnect debug output"},
    {"-icnt_grant_cycles", "local crossbar grant cycles"},
    {"-gpgpu_max_cycle", "stop after this many cycles"},
    {"-gpgpu_max_insn", "stop after this many instructions"},
    {"-gpgpu_max_cta", "stop after this many CTAs"},
    {"-gpgpu_max_completed_cta", "stop after this many completed CTAs"},
    {"-gpgpu_max_concurrent_kernel", "concurrent kernels"},
    {"-gpgpu_concurrent_kernel_sm", "concurrent kernels per SM"},
    {"-gpgpu_TB_launch_latency", "CTA launch latency"},
    {"-gpgpu_simt_core_sim_order", "SM simulation order"},
    {"-gpgpu_deadlock_detect", "deadlock detection"},
    {"-gpgpu_experimental_lib_support", "experimental library support"},
    {"-gpgpu_ignore_resources_limitation", "ignore occupancy limits"},
    {"-gpgpu_memlatency_stat", "memory latency statistics"},
    {"-gpgpu_runtime_stat", "periodic statistics"},
    {"-gpgpu_cflog_interval", "control-flow log"},
    {"-gpgpu_warpdistro_shader", "warp distribution statistics"},
    {"-gpgpu_warp_issue_shader", "warp issue statistics"},
    {"-enable_ptx_file_line_stats", "per-PTX-line statistics"},
    {"-ptx_line_stats_filename", "per-PTX-line statistics file"},
    {"-liveness_message_freq", "progress messages"},
    {"-visualizer_enabled", "AerialVision log"},
    {"-visualizer_outputfile", "AerialVision log file"},
    {"-visualizer_zlevel", "AerialVision log compression"},
    {"-trace_enabled", "debug traces"},
    {"-trace_components", "debug trace components"},
    {"-trace_sampling_core", "debug trace SM"},
    {"-trace_sampling_memory_partition", "debug trace partition"},
    {"-power_simulation_enabled", "GPUWattch/AccelWattch power (ptxsim: ptxsim run --power)"},
    {"-power_simulation_mode", "AccelWattch mode"},
    {"-power_per_cycle_dump", "per-cycle power dump"},
    {"-power_trace_enabled", "power trace"},
    {"-power_trace_zlevel", "power trace compression"},
    {"-steady_power_levels_enabled", "steady-state power"},
    {"-steady_state_definition", "steady-state power definition"},
    {"-aggregate_power_stats", "aggregate power statistics"},
    {"-gpuwattch_xml_file", "GPUWattch configuration"},
    {"-accelwattch_xml_file", "AccelWattch configuration"},
    {"-dvfs_enabled", "DVFS"},
    {"-gpgpu_clock_gated_lanes", "lane clock gating (power)"},
    {"-gpgpu_clock_gated_reg_file", "register file clock gating (power)"},
    {"-n_regfile_gating_group", "register file gating groups (power)"},
    {"-hw_perf_file_name", "hardware counters for AccelWattch hybrid mode"},
    {"-hw_perf_bench_name", "hardware counters for AccelWattch hybrid mode"},
    {"-checkpoint_option", "checkpointing"},
    {"-checkpoint_kernel", "checkpointing"},
    {"-checkpoint_CTA", "checkpointing"},
    {"-checkpoint_CTA_t", "checkpointing"},
    {"-checkpoint_insn_Y", "checkpointing"},
    {"-resume_option", "checkpoint resume"},
    {"-resume_kernel", "checkpoint resume"},
    {"-resume_CTA", "checkpoint resume"},
};

const char *const kAccelWattchHybrid[] = {
    "CC_ACC", "CYCLES",      "DRAM_RD",   "DRAM_WR",    "L1_RH",  "L1_RM",
    "L1_WH",  "L1_WM",       "L2_RH",     "L2_RM",      "L2_WH",  "L2_WM",
    "NOC",    "NUM_SM_IDLE", "PIPE_DUTY", "SHARED_ACC", "VOLTAGE"};

/// Other spellings GPGPU-Sim versions and configs use (e.g. its Volta configs).
const char *const kAliases[][2] = {
    {"-l1_latency", "-gpgpu_l1_latency"},
    {"-smem_latency", "-gpgpu_smem_latency"},
    {"-rop_latency", "-gpgpu_l2_rop_latency"},
    {"-gmem_skip_L1D", "-gpgpu_gmem_skip_L1D"},
    {"-perf_sim_memcpy", "-gpgpu_perf_sim_memcpy"},
    {"-memory_partition_indexing", "-gpgpu_memory_partition_indexing"},
    {"-adaptive_volta_cache_config", "-gpgpu_adaptive_cache_config"},
    {"-mem_unit_ports", "-gpgpu_mem_unit_ports"},
    {"-sub_core_model", "-gpgpu_sub_core_model"},
    {"-enable_specialized_operand_collector", "-gpgpu_enable_specialized_operand_collector"},
    {"-dual_bus_interface", "-dram_dual_bus_interface"},
    {"-Seperate_Write_Queue_Enable", "-dram_seperate_write_queue_enable"},
    {"-Write_Queue_Size", "-dram_write_queue_size"},
    {"-ptx_opcode_latency_tensor", "-ptx_opcode_latency_tesnor"},
};

/// Every part of the configuration, in the order of ConfigParts.def.
const ConfigPart *const kParts[] = {
#define PTXSIM_CONFIG_PART(part) &part,
#include "timing/ConfigParts.def"
#undef PTXSIM_CONFIG_PART
};

/// The options of one TimingConfig, bound to `cfg`.
class TimingOptions {
public:
  explicit TimingOptions(TimingConfig &cfg);
  /// Folds the GPGPU-Sim-shaped values into the fields (call once, after all input).
  void finish();

  OptionSet opts;

private:
  void limitCycleOptions();

  TimingConfig &cfg_;
  ConfigFolds folds_;
  OptionContext ctx_{opts, cfg_, folds_};
};

TimingOptions::TimingOptions(TimingConfig &cfg) : cfg_(cfg) {
  for (const ConfigPart *p : kParts)
    p->describe(ctx_);
  limitCycleOptions();
  // options of registered extensions and studies (base/ExtensionOptions.h), stored in cfg.ext
  bindExtensionOptions(opts, cfg_.ext);
}

void TimingOptions::finish() {
  for (const ConfigPart *p : kParts)
    if (p->finish)
      p->finish(ctx_);
}

/// Caps options counted in cycles that have no range of their own.
void TimingOptions::limitCycleOptions() {
  // A latency, interval or cycle count past a million cycles is a value in the wrong unit (ps,
  // ns, Hz), and a run with it would take hours: an error naming the option, file and line.
  for (const Option *o : opts.options()) {
    const std::string &n = o->name();
    bool numeric = o->kind() == OptionKind::UInt32 || o->kind() == OptionKind::UInt64 ||
                   o->kind() == OptionKind::Double;
    if (numeric && !o->upperBound() &&
        (n.find("latency") != std::string::npos || n.find("interval") != std::string::npos ||
         n.find("cycles") != std::string::npos))
      opts.find(n)->max(kMaxCycleOption);
  }
}


void describeConfigName(OptionContext &ctx) {
  ctx.opts.add("-ptxsim_config_name", &ctx.cfg.name, "name of this configuration (shown in dumps)");
}

/// Clock domains (core, interconnect, L2, DRAM).
void describeClocks(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  TimingConfig &cfg = ctx.cfg;
  // --- clocks
  opts.addCustom(
      "-gpgpu_clock_domains", "core:icnt:l2:dram",
      [&cfg](const std::string &v, std::string &err) {
        std::vector<std::string> p = split(v, ":");
        double f[4];
        if (p.size() != 4) {
          err = "expected <core>:<interconnect>:<l2>:<dram> in MHz";
          return false;
        }
        static const char *kDomain[4] = {"core", "interconnect", "L2", "DRAM"};
        for (int i = 0; i < 4; ++i) {
          if (!toDouble(p[i], f[i]) || !(f[i] > 0)) {
            err = std::string(kDomain[i]) + " clock '" + trim(p[i]) +
                  "' is not a positive number of MHz";
            return false;
          }
          // A clock in Hz or kHz by mistake (1.4e9), or a tiny one, makes every picosecond
          // tick conversion absurd and a run take hours: GPUs clock between tens of MHz and
          // a few GHz.
          if (f[i] < kMinClockMHz || f[i] > kMaxClockMHz) {
            err = std::string(kDomain[i]) + " clock " + trim(p[i]) + " MHz is outside " +
                  formatDouble(kMinClockMHz) + " to " + formatDouble(kMaxClockMHz) +
                  " MHz (the clocks are in MHz)";
            return false;
          }
        }
        cfg.core.clockMHz = f[0];
        cfg.mem.icntClockMHz = f[1];
        cfg.mem.l2ClockMHz = f[2];
        cfg.dram.clockMHz = f[3];
        return true;
      },
      [&cfg] {
        return formatDouble(cfg.core.clockMHz) + ":" + formatDouble(cfg.mem.icntClockMHz) + ":" +
               formatDouble(cfg.mem.l2ClockMHz) + ":" + formatDouble(cfg.dram.clockMHz);
      },
      "clock frequencies in MHz: SM core, interconnect, L2, DRAM command clock");
}


/// Host <-> device copies (PCIe).
void describeCopies(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  TimingConfig &cfg = ctx.cfg;
  // --- host <-> device copies
  opts.add("-ptxsim_pcie_gbps", &cfg.pcieGBps, "host<->device copy bandwidth in GB/s")
      .range(0.001, 1e6);
  opts.add("-ptxsim_pcie_latency_us", &cfg.pcieLatencyUs,
           "host<->device copy latency in microseconds")
      .range(0, 1e6);

}

void checkClocksAndCopies(const TimingConfig &cfg, const ConfigFail &fail) {
  const CoreConfig &c = cfg.core;
  const MemoryConfig &m = cfg.mem;
  const DramConfig &d = cfg.dram;
  for (auto [opt, v] : {std::pair<const char *, double>{"-gpgpu_clock_domains", c.clockMHz},
                        {"-gpgpu_clock_domains", m.icntClockMHz},
                        {"-gpgpu_clock_domains", m.l2ClockMHz},
                        {"-gpgpu_clock_domains", d.clockMHz},
                        {"-ptxsim_pcie_gbps", cfg.pcieGBps}})
    if (!(v > 0))
      fail(opt, "must be positive");
  if (!(cfg.pcieLatencyUs >= 0))
    fail("-ptxsim_pcie_latency_us", "must not be negative");
}

/// Kernel launch fixed costs and cache state between kernels.
void describeLaunch(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  TimingConfig &cfg = ctx.cfg;
  // --- kernel launch fixed costs and cache state between kernels
  LaunchConfig &l = cfg.launch;
  opts.add("-gpgpu_kernel_launch_latency", &l.kernelLaunchLatency,
           "core cycles from a kernel's launch to its first CTA dispatch (counted in its cycles)");
  opts.add("-ptxsim_cta_dispatch_interval", &l.ctaDispatchInterval,
           "core cycles between two CTA starts on one SM (0 or 1: a CTA per SM per cycle)");
  opts.add("-ptxsim_kernel_drain_latency", &l.kernelDrainLatency,
           "core cycles a kernel takes after its last CTA and memory traffic end (completion, "
           "flush)");
  opts.add("-ptxsim_kernel_gap_cycles", &l.kernelGapCycles,
           "core cycles between consecutive host-launched kernels (launch processing outside the "
           "kernel's cycles): added to the simulated time before each launch, seen by CUDA events");
  opts.add("-gpgpu_flush_l1_cache", &l.flushL1,
           "invalidate the L1 data and constant caches before each kernel");
  opts.add("-gpgpu_flush_l2_cache", &l.flushL2,
           "invalidate the L2 before each kernel (cold caches, as Nsight Compute measures)");
}


/// GPGPU-Sim options accepted without effect, and other spellings of ours.
void describeCompatibility(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  for (const auto &ig : kIgnored)
    opts.addIgnored(ig[0], ig[1]);
  for (const char *s : kAccelWattchHybrid)
    opts.addIgnored(std::string("-accelwattch_hybrid_perfsim_") + s,
                    "AccelWattch hybrid mode counter");
  for (const auto &al : kAliases)
    opts.addAlias(al[0], al[1]);
}


} // namespace

extern const ConfigPart kConfigName = {describeConfigName, nullptr, nullptr};
extern const ConfigPart kClocks = {describeClocks, checkClocksAndCopies, nullptr};
extern const ConfigPart kCopies = {describeCopies, nullptr, nullptr};
extern const ConfigPart kLaunch = {describeLaunch, nullptr, nullptr};
extern const ConfigPart kCompatibility = {describeCompatibility, nullptr, nullptr};

namespace {
// --- JSON of the fields ------------------------------------------------------------------------
class JsonWriter {
public:
  void open(const char *key) {
    item(key);
    out_ += "{";
    first_.push_back(true);
  }
  void close() {
    first_.pop_back();
    out_ += "\n" + std::string(first_.size() * 2, ' ') + "}";
  }
  void num(const char *key, uint64_t v) {
    item(key);
    out_ += std::to_string(v);
  }
  void dbl(const char *key, double v) {
    item(key);
    out_ += formatDouble(v);
  }
  void boolean(const char *key, bool v) {
    item(key);
    out_ += v ? "true" : "false";
  }
  void str(const char *key, const std::string &v) {
    item(key);
    out_ += jsonQuote(v);
  }
  void raw(const char *key, const std::string &v) {
    item(key);
    out_ += v;
  }
  std::string take() { return std::move(out_); }

private:
  void item(const char *key) {
    if (!first_.empty()) {
      out_ += first_.back() ? "\n" : ",\n";
      first_.back() = false;
      out_ += std::string(first_.size() * 2, ' ');
    }
    if (key)
      out_ += jsonQuote(key) + ": ";
  }
  std::string out_;
  std::vector<bool> first_;
};

void cacheJson(JsonWriter &j, const char *key, const CacheConfig &c) {
  j.open(key);
  j.boolean("enabled", c.enabled);
  j.num("sets", c.sets);
  j.num("ways", c.ways);
  j.num("lineBytes", c.lineBytes);
  j.num("sectorBytes", c.sectorBytes);
  j.num("capacityBytes", c.capacity());
  j.num("hitLatency", c.hitLatency);
  j.num("mshrEntries", c.mshrEntries);
  j.num("mshrMaxMerge", c.mshrMaxMerge);
  j.boolean("writeBack", c.writeBack);
  j.boolean("writeAllocate", c.writeAllocate);
  j.boolean("localWriteBack", c.localWriteBack);
  j.str("setIndex", std::string(1, c.setIndex));
  j.close();
}

bool loadInto(const std::vector<std::string> &files, const std::vector<std::string> &args,
              bool lenient, TimingConfig &out, DiagEngine &diags) {
  TimingConfig cfg = out;
  resetExtensionOptions();
  cfg.ext = defaultExtensionValues(); // each load starts extension options at their defaults
  bool ok = true;
  {
    TimingOptions t(cfg);
    for (const std::string &f : files) {
      ok &= t.opts.parseFile(f, diags, lenient);
      cfg.sources.push_back(f);
    }
    if (!args.empty())
      ok &= t.opts.parseArgs(args, diags, lenient);
    t.finish();
  }
  if (!ok)
    return false;
  out = std::move(cfg);
  setCurrentExtensionValues(out.ext); // what functional-mode code reads (handle.value())
  return true;
}

} // namespace

// Declared in TimingConfig.h.
bool loadTimingConfig(const std::vector<std::string> &files, bool lenient, TimingConfig &out,
                      DiagEngine &diags) {
  return loadInto(files, {}, lenient, out, diags);
}

// Not yet declared in TimingConfig.h (owned by another component); used by the tests and meant
// for the launcher: files, then command-line options (`{"-gpgpu_n_clusters", "30"}`) over them.
bool loadTimingConfig(const std::vector<std::string> &files, const std::vector<std::string> &args,
                      bool lenient, TimingConfig &out, DiagEngine &diags) {
  return loadInto(files, args, lenient, out, diags);
}

/// The effective configuration as an option file that loads back to the same values.
std::string timingConfigText(const TimingConfig &cfg) {
  TimingConfig copy = cfg;
  TimingOptions t(copy);
  return "# ptxsim effective configuration: " + cfg.name + "\n" + t.opts.text();
}

/// The option reference (docs/config.md's table), generated from the bindings above.
std::string timingConfigMarkdown() {
  TimingConfig cfg;
  TimingOptions t(cfg);
  return t.opts.markdown();
}

bool validateTimingConfig(const TimingConfig &cfg, DiagEngine &diags) {
  const std::string file = "<config>";
  size_t before = diags.errorCount();
  ConfigFail fail = [&](const std::string &opt, const std::string &msg) {
    diags.error(file, {}, "'" + opt + "': " + msg);
  };
  for (const ConfigPart *p : kParts)
    if (p->check)
      p->check(cfg, fail);
  return diags.errorCount() == before;
}

namespace {
void coreJson(JsonWriter &j, const CoreConfig &c) {
  j.open("core");
  j.num("numClusters", c.numClusters);
  j.num("smsPerCluster", c.smsPerCluster);
  j.num("warpSize", c.warpSize);
  j.num("maxThreadsPerSm", c.maxThreadsPerSm);
  j.num("maxCtasPerSm", c.maxCtasPerSm);
  j.num("registersPerSm", c.registersPerSm);
  j.num("sharedBytesPerSm", c.sharedBytesPerSm);
  j.boolean("adaptiveL1", c.adaptiveL1);
  j.num("unifiedL1Kib", c.unifiedL1Kib);
  j.num("reservedSharedPerCta", c.reservedSharedPerCta);
  j.boolean("oneCtaPerSm", c.oneCtaPerSm);
  j.boolean("scheduleLoads", c.scheduleLoads);
  j.boolean("fusePairs", c.fusePairs);
  j.boolean("mergeSharedLoads", c.mergeSharedLoads);
  j.num("schedulersPerSm", c.schedulersPerSm);
  j.str("scheduler", c.scheduler);
  j.num("issueWidth", c.issueWidth);
  j.num("ibufferEntries", c.ibufferEntries);
  j.num("fetchLatency", c.fetchLatency);
  j.num("spUnits", c.spUnits);
  j.num("spLatency", c.spLatency);
  j.num("spInterval", c.spInterval);
  j.num("intLatency", c.intLatency);
  j.num("iaddLatency", c.iaddLatency);
  j.num("dpUnits", c.dpUnits);
  j.num("dpLatency", c.dpLatency);
  j.num("dpInterval", c.dpInterval);
  j.num("sfuUnits", c.sfuUnits);
  j.num("sfuLatency", c.sfuLatency);
  j.num("sfuInterval", c.sfuInterval);
  j.num("tensorUnits", c.tensorUnits);
  j.num("tensorLatency", c.tensorLatency);
  j.num("tensorInterval", c.tensorInterval);
  j.num("ldstUnits", c.ldstUnits);
  j.num("ldstInterval", c.ldstInterval);
  j.num("mulLatency", c.mulLatency);
  j.num("branchLatency", c.branchLatency);
  j.num("regBanks", c.regBanks);
  j.num("operandCollectors", c.operandCollectors);
  j.num("sharedBanks", c.sharedBanks);
  j.num("sharedLatency", c.sharedLatency);
  j.num("sharedQueueEntries", c.sharedQueueEntries);
  j.num("twoLevelActiveWarps", c.twoLevelActiveWarps);
  j.num("ccwsBaseScore", c.ccwsBaseScore);
  j.num("ccwsKThrottle", c.ccwsKThrottle);
  j.num("ccwsVtaEntries", c.ccwsVtaEntries);
  j.dbl("clockMHz", c.clockMHz);
  j.close();
}

void memoryJson(JsonWriter &j, const MemoryConfig &m) {
  j.open("mem");
  cacheJson(j, "l1d", m.l1d);
  cacheJson(j, "l1i", m.l1i);
  cacheJson(j, "constCache", m.constCache);
  cacheJson(j, "l2", m.l2);
  j.num("l2TotalBytes", m.l2.enabled ? m.l2.capacity() * m.numPartitions : 0);
  j.num("l1Latency", m.l1Latency);
  j.num("l2Latency", m.l2Latency);
  j.num("numPartitions", m.numPartitions);
  j.num("partitionInterleaveBytes", m.partitionInterleaveBytes);
  j.num("partitionIndexing", m.partitionIndexing);
  j.str("topology", m.topology);
  j.num("icntLatency", m.icntLatency);
  j.num("icntFlitBytes", m.icntFlitBytes);
  j.dbl("icntClockMHz", m.icntClockMHz);
  j.dbl("l2ClockMHz", m.l2ClockMHz);
  j.close();
}

void dramJson(JsonWriter &j, const DramConfig &d, const MemoryConfig &m) {
  j.open("dram");
  j.str("type", d.type);
  j.num("channelsPerPartition", d.channelsPerPartition);
  j.num("banks", d.banks);
  j.num("rowBytes", d.rowBytes);
  j.num("busWidthBytes", d.busWidthBytes);
  j.num("burstLength", d.burstLength);
  j.num("queueEntries", d.queueEntries);
  j.str("scheduler", d.scheduler);
  j.num("tCL", d.tCL);
  j.num("tRCD", d.tRCD);
  j.num("tRP", d.tRP);
  j.num("tRAS", d.tRAS);
  j.num("tRC", d.tRC);
  j.num("tCCD", d.tCCD);
  j.num("tWR", d.tWR);
  j.num("tRRD", d.tRRD);
  j.num("tWTR", d.tWTR);
  j.num("tRTW", d.tRTW);
  j.num("tBurst", d.tBurst);
  j.num("tREFI", d.tREFI);
  j.num("tRFC", d.tRFC);
  j.dbl("clockMHz", d.clockMHz);
  j.num("dataRate", d.dataRate);
  // peak bandwidth of all channels, GB/s
  j.dbl("peakGBps", double(d.busWidthBytes) * d.dataRate * d.clockMHz * 1e6 *
                        d.channelsPerPartition * m.numPartitions / 1e9);
  j.close();
}
} // namespace

std::string timingConfigJson(const TimingConfig &cfg) {
  JsonWriter j;
  j.open(nullptr);
  j.str("name", cfg.name);
  j.num("numSms", cfg.numSms());
  coreJson(j, cfg.core);
  memoryJson(j, cfg.mem);
  dramJson(j, cfg.dram, cfg.mem);
  j.dbl("pcieGBps", cfg.pcieGBps);
  j.dbl("pcieLatencyUs", cfg.pcieLatencyUs);
  j.num("sfuTrigExtraLatency", cfg.core.sfuTrigExtraLatency);
  j.num("l1iPrefetchLines", cfg.core.l1iPrefetchLines);
  j.num("vprintfCycles", cfg.core.vprintfCycles);
  j.num("heapCallCycles", cfg.core.heapCallCycles);
  j.num("heapLaneCycles", cfg.core.heapLaneCycles);
  j.num("callFrameCycles", cfg.core.callFrameCycles);
  j.num("dramExtraLatency", cfg.dram.extraLatency);
  j.dbl("l2AtomicSameAddrCycles", cfg.mem.l2AtomicSameAddrCycles);
  j.dbl("l2AtomicCasSameAddrCycles", cfg.mem.l2AtomicCasSameAddrCycles);
  j.dbl("l2AtomicFloatSameAddrCycles", cfg.mem.l2AtomicFloatSameAddrCycles);
  j.dbl("l2AtomicLaneCycles", cfg.mem.l2AtomicLaneCycles);
  j.num("sharedAtomicSameAddrCycles", cfg.mem.sharedAtomicSameAddrCycles);
  j.num("sharedFloatAtomicCycles", cfg.mem.sharedFloatAtomicCycles);
  j.num("sharedFloatAtomicLaneCycles", cfg.mem.sharedFloatAtomicLaneCycles);
  j.num("kernelLaunchLatency", cfg.launch.kernelLaunchLatency);
  j.num("ctaDispatchInterval", cfg.launch.ctaDispatchInterval);
  j.num("kernelDrainLatency", cfg.launch.kernelDrainLatency);
  j.num("kernelGapCycles", cfg.launch.kernelGapCycles);
  j.num("flushL1", cfg.launch.flushL1 ? 1 : 0);
  j.num("flushL2", cfg.launch.flushL2 ? 1 : 0);
  std::string sources = "[";
  for (size_t i = 0; i < cfg.sources.size(); ++i)
    sources += (i ? ", " : "") + jsonQuote(cfg.sources[i]);
  j.raw("sources", sources + "]");
  j.close();
  return j.take();
}

} // namespace ptxsim::timing