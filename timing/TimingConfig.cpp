#include "timing/TimingConfig.h"

#include "base/Config.h"
#include "base/ExtensionOptions.h"
#include "timing/dram/scheduler/IDramScheduler.h"
#include "timing/icnt/topology/ITopology.h"
#include "timing/mem/replacement/IReplacementPolicy.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

// Every field of TimingConfig is bound to one option here (GPGPU-Sim's name where GPGPU-Sim has
// the concept, `-ptxsim_...` otherwise); docs/config.md is generated from these bindings
// (ConfigDoc test). A few GPGPU-Sim options describe a field differently from ptxsim; their values
// are folded in after all input is read (TimingOptions::finish):
//  - `-gpgpu_cache:dl2` is per memory sub-partition: the L2 slice of a partition has
//    `-gpgpu_n_sub_partition_per_mchannel` times its sets and MSHR entries (two caches told apart
//    by one address bit behave as one with twice the sets);
//  - `-gpgpu_dram_buswidth` is per DRAM chip: a partition's bus is `-gpgpu_n_mem_per_ctrlr` chips
//    wide;
//  - GPGPU-Sim derives tRTW, tWTR and the burst time from CL, WL, CDLR, the burst length and the
//    data/command clock ratio; so does ptxsim unless RTW, WTR or BURST are given.

namespace ptxsim::timing {

namespace {

/// Accepted clock frequencies (-gpgpu_clock_domains), in MHz.
constexpr double kMinClockMHz = 1.0, kMaxClockMHz = 100000.0;
/// The largest latency, interval or cycle count an option accepts when it names no other bound.
constexpr double kMaxCycleOption = 1e6;

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

// --- GPGPU-Sim cache spec -----------------------------------------------------------------------
//   [N|S:]<sets>:<line_bytes>:<assoc>,<repl>:<write>:<alloc>:<write_alloc>[:<set_index_fn>],
//   <mshr_type>:<mshr_entries>:<mshr_max_merge>[,<miss_queue>[:<result_fifo>]][,<data_port_width>]
// or `none` (cache disabled). Used: N/S (S: 32-byte sectors), sets, line size, assoc, write policy
// (B: write-back; T, E, R, L: write-through -- L is GPGPU-Sim's local-WB/global-WT L1), write
// allocation (N: none; W, F, L: allocate), MSHR entries and merge, replacement (any registered
// policy: L = LRU, F = FIFO), set index function (L linear, X XOR-fold, M mixed hash; GPGPU-Sim's
// H and P are taken as linear). Checked but unused: allocation point (m, f, s), MSHR type (A, S, F, T),
// miss queue, result FIFO, data port width.
bool parseCacheSpec(const std::string &value, CacheConfig &c, std::string &err) {
  std::string v = trim(value);
  if (v == "none") {
    c.enabled = false;
    return true;
  }
  std::vector<std::string> groups = split(v, ",");
  if (groups.size() < 3 || groups.size() > 5) {
    err = "expected a cache spec like N:64:128:6,L:L:m:N:H,A:128:8,8 or 'none'";
    return false;
  }
  CacheConfig n = c;
  std::vector<std::string> geo = split(groups[0], ":");
  bool sectored = false;
  if (geo.size() == 4) {
    std::string t = trim(geo[0]);
    if (t != "N" && t != "S") {
      err = "cache type '" + t + "' is not N (normal) or S (sectored)";
      return false;
    }
    sectored = t == "S";
    geo.erase(geo.begin());
  }
  if (geo.size() != 3 || !toU32(geo[0], n.sets) || !toU32(geo[1], n.lineBytes) ||
      !toU32(geo[2], n.ways)) {
    err = "expected [N|S:]<sets>:<line_bytes>:<assoc> before the first comma";
    return false;
  }
  std::vector<std::string> pol = split(groups[1], ":");
  if (pol.size() < 4 || pol.size() > 5) {
    err = "expected <replacement>:<write>:<alloc>:<write_alloc>[:<set_index>] after the first "
          "comma";
    return false;
  }
  for (auto &p : pol)
    p = trim(p);
  auto oneOf = [&](const std::string &s, const char *allowed, const char *what) {
    if (s.size() != 1 || std::string(allowed).find(s[0]) == std::string::npos) {
      err = std::string(what) + " '" + s + "' is not one of " + allowed;
      return false;
    }
    return true;
  };
  if (!replacementRegistry().create(pol[0], 1, 1)) {
    err = "replacement policy '" + pol[0] + "' is not registered (known:";
    for (const std::string &r : replacementRegistry().names())
      err += " " + r;
    err += ")";
    return false;
  }
  n.replacement = pol[0];
  if (!oneOf(pol[1], "RBTEL", "write policy") ||
      !oneOf(pol[2], "mfs", "allocation policy") || !oneOf(pol[3], "NWFL", "write-allocate policy"))
    return false;
  n.setIndex = 'L';
  if (pol.size() == 5) {
    if (!oneOf(pol[4], "LHPXM", "set index function"))
      return false;
    n.setIndex = pol[4] == "X" || pol[4] == "M" ? pol[4][0] : 'L';
  }
  n.writeBack = pol[1] == "B";
  n.localWriteBack = pol[1] == "L";
  n.writeAllocate = pol[3] != "N";
  std::vector<std::string> mshr = split(groups[2], ":");
  if (mshr.size() != 3 || !oneOf(trim(mshr[0]), "ASFT", "MSHR type") ||
      !toU32(mshr[1], n.mshrEntries) || !toU32(mshr[2], n.mshrMaxMerge)) {
    if (err.empty())
      err = "expected <mshr_type>:<entries>:<max_merge> after the second comma";
    return false;
  }
  for (size_t g = 3; g < groups.size(); ++g) {
    for (const std::string &part : split(groups[g], ":")) {
      uint32_t ignored;
      if (!toU32(part, ignored)) {
        err = "expected numbers (miss queue, result FIFO, data port width) after the MSHR part";
        return false;
      }
    }
  }
  n.sectorBytes = sectored ? 32 : n.lineBytes;
  n.enabled = true;
  c = n;
  return true;
}

std::string printCacheSpec(const CacheConfig &c) {
  if (!c.enabled)
    return "none";
  bool sectored = c.sectorBytes < c.lineBytes;
  return std::string(sectored ? "S" : "N") + ":" + std::to_string(c.sets) + ":" +
         std::to_string(c.lineBytes) + ":" + std::to_string(c.ways) +
         "," + c.replacement + ":" + (c.writeBack ? "B" : c.localWriteBack ? "L" : "T") + ":m:" +
         (c.writeAllocate ? "W" : "N") + ":" + std::string(1, c.setIndex) + "," +
         (sectored ? "S" : "A") + ":" + std::to_string(c.mshrEntries) + ":" +
         std::to_string(c.mshrMaxMerge);
}

// Values GPGPU-Sim spreads over options that ptxsim folds into TimingConfig fields at the end.
struct Extras {
  uint32_t subPartitions = 1;   // -gpgpu_n_sub_partition_per_mchannel
  uint32_t chipsPerChannel = 1; // -gpgpu_n_mem_per_ctrlr
  std::optional<uint32_t> wl, cdlr;
  bool rtwGiven = false, wtrGiven = false, burstGiven = false;
};

// --- -gpgpu_dram_timing_opt ---------------------------------------------------------------------
// GPGPU-Sim's named form `nbk=16:CCD=2:...` (separators `:` `;` and spaces) or its positional form
// `nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR[:nbkgrp:CCDL:RTPL]`. Keys not given keep their values.
// ptxsim adds WTR, RTW, BURST, REFI, RFC; WL and CDLR feed the derived tRTW/tWTR; nbkgrp, CCDL and
// RTPL (bank groups) are accepted and unused.
bool parseDramTiming(const std::string &value, DramConfig &d, Extras &x, std::string &err) {
  struct Key {
    const char *name;
    uint32_t *field;
  };
  uint32_t wl = 0, cdlr = 0, unused = 0;
  bool wlSet = false, cdlrSet = false;
  DramConfig n = d;
  Key keys[] = {{"nbk", &n.banks},    {"CCD", &n.tCCD},   {"RRD", &n.tRRD}, {"RCD", &n.tRCD},
                {"RAS", &n.tRAS},     {"RP", &n.tRP},     {"RC", &n.tRC},   {"CL", &n.tCL},
                {"WL", &wl},          {"CDLR", &cdlr},    {"WR", &n.tWR},   {"nbkgrp", &unused},
                {"CCDL", &unused},    {"RTPL", &unused},  {"WTR", &n.tWTR}, {"RTW", &n.tRTW},
                {"BURST", &n.tBurst}, {"REFI", &n.tREFI}, {"RFC", &n.tRFC}};
  std::vector<std::string> given;
  if (value.find('=') == std::string::npos) {
    std::vector<std::string> parts = split(value, ":");
    if (parts.size() != 11 && parts.size() != 14) {
      err = "expected nbk=..:CCD=..:... or the 11 or 14 positional values "
            "nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR[:nbkgrp:CCDL:RTPL]";
      return false;
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!toU32(parts[i], *keys[i].field)) {
        err = std::string("expected a number for ") + keys[i].name + ", found '" + trim(parts[i]) +
              "'";
        return false;
      }
      given.push_back(keys[i].name);
    }
  } else {
    for (const std::string &raw : split(value, ":; \t\n")) {
      std::string item = trim(raw);
      if (item.empty())
        continue;
      size_t eq = item.find('=');
      if (eq == std::string::npos) {
        err = "expected key=value, found '" + item + "'";
        return false;
      }
      std::string key = item.substr(0, eq);
      auto it = std::find_if(std::begin(keys), std::end(keys),
                             [&](const Key &k) { return key == k.name; });
      if (it == std::end(keys)) {
        err = "unknown DRAM timing '" + key + "' (known:";
        for (const Key &k : keys)
          err += std::string(" ") + k.name;
        err += ")";
        return false;
      }
      if (!toU32(item.substr(eq + 1), *it->field)) {
        err = "expected a number for " + key + ", found '" + item.substr(eq + 1) + "'";
        return false;
      }
      given.push_back(key);
    }
  }
  auto has = [&](const char *k) { return std::find(given.begin(), given.end(), k) != given.end(); };
  wlSet = has("WL");
  cdlrSet = has("CDLR");
  d = n;
  if (wlSet)
    x.wl = wl;
  if (cdlrSet)
    x.cdlr = cdlr;
  x.rtwGiven |= has("RTW");
  x.wtrGiven |= has("WTR");
  x.burstGiven |= has("BURST");
  return true;
}

std::string printDramTiming(const DramConfig &d) {
  auto kv = [](const char *k, uint32_t v) { return std::string(k) + "=" + std::to_string(v); };
  return kv("nbk", d.banks) + ":" + kv("CCD", d.tCCD) + ":" + kv("RRD", d.tRRD) + ":" +
         kv("RCD", d.tRCD) + ":" + kv("RAS", d.tRAS) + ":" + kv("RP", d.tRP) + ":" +
         kv("RC", d.tRC) + ":" + kv("CL", d.tCL) + ":" + kv("WR", d.tWR) + ":" + kv("WTR", d.tWTR) +
         ":" + kv("RTW", d.tRTW) + ":" + kv("BURST", d.tBurst) + ":" + kv("REFI", d.tREFI) + ":" +
         kv("RFC", d.tRFC);
}

// A comma-separated GPGPU-Sim latency list (`-ptx_opcode_latency_fp 4,13,4,5,39`): entry `index`
// goes to `field` when present.
Option::ParseFn listEntries(std::vector<std::pair<size_t, uint32_t *>> targets) {
  return [targets](const std::string &v, std::string &err) {
    std::vector<std::string> parts = split(v, ",");
    std::vector<uint32_t> nums(parts.size());
    for (size_t i = 0; i < parts.size(); ++i)
      if (!toU32(parts[i], nums[i]) || nums[i] == 0) {
        err = "expected a comma-separated list of positive cycle counts";
        return false;
      }
    for (auto [idx, field] : targets)
      if (idx < nums.size())
        *field = nums[idx];
    return true;
  };
}

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

const char *const kDramTypes[] = {"GDDR3", "GDDR5", "GDDR5X", "GDDR6", "GDDR6X",
                                  "HBM",   "HBM2",  "HBM2e",  "HBM3",  "HBM3e",
                                  "DDR4",  "DDR5",  "LPDDR4", "LPDDR5"};

/// The options of one TimingConfig, bound to `cfg`.
class TimingOptions {
public:
  explicit TimingOptions(TimingConfig &cfg);
  /// Folds the GPGPU-Sim-shaped values into the fields (call once, after all input).
  void finish();

  OptionSet opts;

private:
  // The options of each part of the GPU, added in this order (the reference, the dumps and
  // GPGPU-Sim-style configuration files list them so).
  void describeOrganisation();
  void describeScheduling();
  void describeFunctionalUnits();
  void describeRegisterFileAndShared();
  void describeClocks();
  void describeCaches();
  void describePartitionsAndInterconnect();
  void describeDram();
  void describeCopies();
  void describeAtomics();
  void describeLaunch();
  void describeCompatibility();
  void limitCycleOptions();
  void bindExtensions();
  void addCache(const std::string &name, CacheConfig &c, const std::string &latencyName,
                const std::string &what);

  TimingConfig &cfg_;
  Extras x_;
};

void TimingOptions::addCache(const std::string &name, CacheConfig &c,
                             const std::string &latencyName, const std::string &what) {
  opts.addCustom(
      name, "cache spec",
      [&c](const std::string &v, std::string &err) { return parseCacheSpec(v, c, err); },
      [&c] { return printCacheSpec(c); },
      what + ": [N|S:]sets:line_bytes:assoc,repl:write:alloc:write_alloc[:index],"
             "mshr_type:entries:max_merge[,...] or none (docs/config.md, cache specs)");
  opts.add(latencyName, &c.hitLatency, "hit latency (tag and data) of " + name + ", in cycles")
      .min(1);
}

TimingOptions::TimingOptions(TimingConfig &cfg) : cfg_(cfg) {
  opts.add("-ptxsim_config_name", &cfg.name, "name of this configuration (shown in dumps)");
  describeOrganisation();
  describeScheduling();
  describeFunctionalUnits();
  describeRegisterFileAndShared();
  describeClocks();
  describeCaches();
  describePartitionsAndInterconnect();
  describeDram();
  describeCopies();
  describeAtomics();
  describeLaunch();
  describeCompatibility();
  limitCycleOptions();
  bindExtensions();
}

/// SMs, threads, CTAs, registers and shared memory per SM, the adaptive carve-out.
void TimingOptions::describeOrganisation() {
  CoreConfig &c = cfg_.core;
  // --- GPU and SM organisation
  opts.add("-gpgpu_n_clusters", &c.numClusters,
           "SM clusters (SMs = clusters x -gpgpu_n_cores_per_cluster)")
      .range(1, 4096);
  opts.add("-gpgpu_n_cores_per_cluster", &c.smsPerCluster, "SMs per cluster").range(1, 64);
  opts.addCustom(
      "-gpgpu_shader_core_pipeline", "max_threads:warp_size",
      [&c](const std::string &v, std::string &err) {
        std::vector<std::string> p = split(v, ":");
        uint32_t threads, warp;
        if (p.size() != 2 || !toU32(p[0], threads) || !toU32(p[1], warp)) {
          err = "expected <max_threads_per_sm>:<warp_size>, e.g. 1536:32";
          return false;
        }
        c.maxThreadsPerSm = threads;
        c.warpSize = warp;
        return true;
      },
      [&c] { return std::to_string(c.maxThreadsPerSm) + ":" + std::to_string(c.warpSize); },
      "resident threads per SM and threads per warp");
  opts.add("-gpgpu_shader_cta", &c.maxCtasPerSm, "resident CTAs per SM at most").range(1, 1024);
  opts.add("-gpgpu_shader_registers", &c.registersPerSm, "32-bit registers per SM").min(1);
  opts.add("-gpgpu_shmem_size", &c.sharedBytesPerSm, "shared memory per SM in bytes");
  opts.add("-gpgpu_adaptive_cache_config", &c.adaptiveL1,
           "adaptive L1D/shared carve-out: each launch takes the smallest -gpgpu_shmem_option "
           "that holds the CTAs one SM can run (their shared memory with "
           "-ptxsim_reserved_shared_per_cta, or more when the kernel's "
           "cudaFuncAttributePreferredSharedMemoryCarveout asks), and the L1D gets the rest of "
           "-gpgpu_unified_l1d_size (ways scaled; -gpgpu_cache:dl1 gives sets and line)");
  opts.add("-gpgpu_unified_l1d_size", &c.unifiedL1Kib,
           "unified L1D/shared array per SM in KiB (with -gpgpu_adaptive_cache_config)");
  opts.addCustom(
      "-gpgpu_shmem_option", "KiB list",
      [&c](const std::string &v, std::string &err) {
        std::vector<uint32_t> o;
        if (!trim(v).empty())
          for (const std::string &part : split(v, ",")) {
            uint32_t k;
            if (!toU32(trim(part), k)) {
              err = "expected a comma-separated list of shared memory sizes in KiB, e.g. 0,8,16,32";
              return false;
            }
            o.push_back(k);
          }
        std::sort(o.begin(), o.end());
        c.shmemOptionsKib = o;
        return true;
      },
      [&c] {
        std::string r;
        for (uint32_t k : c.shmemOptionsKib)
          r += (r.empty() ? "" : ",") + std::to_string(k);
        return r;
      },
      "shared memory carve-outs an SM can take, in KiB (with -gpgpu_adaptive_cache_config)");
  opts.add("-ptxsim_reserved_shared_per_cta", &c.reservedSharedPerCta,
           "shared memory the system reserves per CTA, in bytes (cudaDevAttrReservedSharedMemory"
           "PerBlock: 1024 on sm_80 and later), counted against the SM's shared memory for "
           "kernels that use shared memory");
  opts.add("-ptxsim_schedule_loads", &c.scheduleLoads,
           "run each basic block's loads (and the arithmetic their addresses need) ahead of "
           "independent arithmetic, as ptxas schedules SASS, instead of in PTX order: the "
           "in-order timing model then overlaps their latencies as the GPU does (results are "
           "unchanged)");
  opts.add("-ptxsim_fuse_pairs", &c.fusePairs,
           "issue an integer add together with the add, shift or multiply before it whose "
           "result only it reads, as ptxas merges them into one SASS instruction (IADD3, LEA, "
           "IMAD, IMAD.WIDE): one issue slot and one latency for the pair (results are "
           "unchanged)");
  opts.add("-ptxsim_merge_shared_loads", &c.mergeSharedLoads,
           "time 2 or 4 scalar 32-bit shared-memory loads from one base register at consecutive "
           "offsets of an aligned 8- or 16-byte chunk as one LDS.64/LDS.128, as ptxas merges "
           "them: the first carries the whole vector's bank cycles, the others take no bank or "
           "LD/ST issue cycle (results are unchanged)");
  opts.add("-ptxsim_one_cta_per_sm", &c.oneCtaPerSm,
           "at most one CTA per SM whatever the occupancy allows (SPU comparisons)");
}

/// Warp schedulers and issue: policy, width, instruction buffer, fetch.
void TimingOptions::describeScheduling() {
  CoreConfig &c = cfg_.core;
  // --- warp scheduling and issue
  opts.addCustom(
      "-ptxsim_simt", "auto|its|ipdom",
      [&c](const std::string &v, std::string &err) {
        if (v != "auto" && v != "its" && v != "ipdom") {
          err = "must be auto, its or ipdom";
          return false;
        }
        c.simt = v;
        return true;
      },
      [&c] { return c.simt; },
      "lane scheduling: its (independent thread scheduling, Volta and later), ipdom (pre-Volta "
      "reconvergence stack) or auto (its for code compiled for sm_70 and newer)");
  opts.add("-gpgpu_num_sched_per_core", &c.schedulersPerSm, "warp schedulers per SM").range(1, 64);
  opts.addCustom(
      "-gpgpu_scheduler", "lrr|gto|two_level_active:N|ccws",
      [&c](const std::string &v, std::string &err) {
        // the policies' own spellings (two_level_active:N) are theirs: the registry's
        SchedulerParams sp = schedulerParams(c);
        if (!schedulerRegistry().parseOption(v, c.scheduler, sp, err))
          return false;
        setSchedulerParams(c, sp);
        return true;
      },
      [&c] { return schedulerRegistry().formatOption(c.scheduler, schedulerParams(c)); },
      "warp scheduler policy: loose round robin, greedy-then-oldest, two-level with N active "
      "warps, or cache-conscious wavefront scheduling");
  opts.add("-ptxsim_ccws_base_score", &c.ccwsBaseScore, "CCWS Base_Locality_Score").min(1);
  opts.add("-ptxsim_ccws_k_throttle", &c.ccwsKThrottle, "CCWS K_Throttle").min(1);
  opts.add("-ptxsim_ccws_vta_entries", &c.ccwsVtaEntries, "CCWS victim tag array entries per warp")
      .min(1);
  opts.add("-gpgpu_max_insn_issue_per_warp", &c.issueWidth,
           "instructions a scheduler issues per cycle from one warp: after an issue, the same "
           "warp's next instruction issues in that cycle too when it is ready")
      .range(1, 8);
  opts.add("-ptxsim_ibuffer_entries", &c.ibufferEntries,
           "decoded instructions buffered per warp: sizes the instruction buffer in the power "
           "model (area, leakage, energy); fetch timing is per I-cache line")
      .range(1, 64);
  opts.add("-ptxsim_fetch_latency", &c.fetchLatency, "instruction fetch latency in cycles").min(1);
}

/// Pipelines: units, latencies, initiation intervals, device-runtime call costs.
void TimingOptions::describeFunctionalUnits() {
  CoreConfig &c = cfg_.core;
  // --- functional units. GPGPU-Sim's latency lists come first so the -ptxsim_ options (and a
  // dump read back) win.
  opts.addCustom(
      "-ptx_opcode_latency_int", "ADD,MAX,MUL,MAD,DIV[,SHFL]",
      listEntries({{0, &c.intLatency}, {2, &c.mulLatency}}),
      [&c] {
        return std::to_string(c.intLatency) + "," + std::to_string(c.intLatency) + "," +
               std::to_string(c.mulLatency);
      },
      "GPGPU-Sim integer latencies: ADD sets -ptxsim_int_latency, MUL sets "
      "-ptxsim_mul_latency, the rest are unused");
  opts.addCustom(
      "-ptx_opcode_latency_fp", "ADD,MAX,MUL,MAD,DIV", listEntries({{0, &c.spLatency}}),
      [&c] { return std::to_string(c.spLatency); },
      "GPGPU-Sim FP32 latencies: ADD sets -ptxsim_sp_latency, the rest are unused");
  opts.addCustom(
      "-ptx_opcode_initiation_fp", "ADD,MAX,MUL,MAD,DIV", listEntries({{0, &c.spInterval}}),
      [&c] { return std::to_string(c.spInterval); },
      "GPGPU-Sim FP32 initiation intervals: ADD sets -ptxsim_sp_interval");
  opts.addCustom(
      "-ptx_opcode_latency_dp", "ADD,MAX,MUL,MAD,DIV", listEntries({{0, &c.dpLatency}}),
      [&c] { return std::to_string(c.dpLatency); },
      "GPGPU-Sim FP64 latencies: ADD sets -ptxsim_dp_latency");
  opts.addCustom(
      "-ptx_opcode_initiation_dp", "ADD,MAX,MUL,MAD,DIV", listEntries({{0, &c.dpInterval}}),
      [&c] { return std::to_string(c.dpInterval); },
      "GPGPU-Sim FP64 initiation intervals: ADD sets -ptxsim_dp_interval");
  opts.addCustom(
      "-ptx_opcode_latency_sfu", "cycles", listEntries({{0, &c.sfuLatency}}),
      [&c] { return std::to_string(c.sfuLatency); },
      "GPGPU-Sim SFU latency: sets -ptxsim_sfu_latency");
  opts.addCustom(
      "-ptx_opcode_initiation_sfu", "cycles", listEntries({{0, &c.sfuInterval}}),
      [&c] { return std::to_string(c.sfuInterval); },
      "GPGPU-Sim SFU initiation interval: sets -ptxsim_sfu_interval");
  opts.addCustom(
      "-ptx_opcode_latency_tesnor", "cycles", listEntries({{0, &c.tensorLatency}}),
      [&c] { return std::to_string(c.tensorLatency); },
      "GPGPU-Sim tensor core latency (its spelling): sets -ptxsim_tensor_latency");
  opts.addCustom(
      "-ptx_opcode_initiation_tensor", "cycles", listEntries({{0, &c.tensorInterval}}),
      [&c] { return std::to_string(c.tensorInterval); },
      "GPGPU-Sim tensor core initiation interval: sets -ptxsim_tensor_interval");

  opts.add("-gpgpu_num_sp_units", &c.spUnits, "SP (FP32 and integer) pipelines per SM").min(1);
  opts.add("-ptxsim_sp_latency", &c.spLatency, "FP32 latency in cycles").min(1);
  opts.add("-ptxsim_sp_interval", &c.spInterval, "cycles between issues to one SP pipeline").min(1);
  opts.add("-ptxsim_int_latency", &c.intLatency,
           "integer ALU latency in cycles (integer ops run on the SP pipelines)")
      .min(1);
  opts.add("-ptxsim_mul_latency", &c.mulLatency, "integer multiply and mad latency in cycles")
      .min(1);
  opts.add("-ptxsim_iadd_latency", &c.iaddLatency,
           "latency of a 32-bit integer add or sub (SASS IADD3) in cycles; 0: the integer ALU "
           "latency");
  opts.add("-gpgpu_num_dp_units", &c.dpUnits,
           "FP64 pipelines per SM (0: FP64 runs on the SFU pipelines, as in GPGPU-Sim's Fermi "
           "configs)");
  opts.add("-ptxsim_dp_latency", &c.dpLatency, "FP64 latency in cycles").min(1);
  opts.add("-ptxsim_dp_interval", &c.dpInterval, "cycles between issues to one FP64 pipeline")
      .min(1);
  opts.add("-gpgpu_num_sfu_units", &c.sfuUnits, "SFU pipelines per SM").min(1);
  opts.add("-ptxsim_sfu_latency", &c.sfuLatency, "SFU latency in cycles").min(1);
  opts.add("-ptxsim_sfu_interval", &c.sfuInterval, "cycles between issues to one SFU pipeline")
      .min(1);
  opts.add("-gpgpu_num_tensor_core_units", &c.tensorUnits,
           "tensor core pipelines per SM (0: none; wmma/mma then run on the SP pipelines)");
  opts.add("-ptxsim_tensor_latency", &c.tensorLatency, "tensor core latency in cycles").min(1);
  opts.add("-ptxsim_tensor_interval", &c.tensorInterval,
           "cycles between issues to one tensor core pipeline")
      .min(1);
  opts.add("-ptxsim_ldst_units", &c.ldstUnits, "load/store units per SM").min(1);
  opts.add("-ptxsim_ldst_interval", &c.ldstInterval, "cycles between issues to one LD/ST unit")
      .min(1);
  opts.add("-ptxsim_branch_latency", &c.branchLatency, "branch resolution latency in cycles")
      .min(1);
}

/// Register file banks, operand collectors, shared-memory banks and latency.
void TimingOptions::describeRegisterFileAndShared() {
  CoreConfig &c = cfg_.core;
  // --- register file and shared memory
  opts.add("-gpgpu_num_reg_banks", &c.regBanks, "register file banks per SM").min(1);
  opts.add("-gpgpu_operand_collector_num_units_gen", &c.operandCollectors,
           "operand collector units per SM: a non-memory instruction needs a free one at issue "
           "and holds it one cycle per read of its busiest register bank")
      .min(1);
  opts.add("-gpgpu_shmem_num_banks", &c.sharedBanks, "shared memory banks").min(1);
  opts.add("-gpgpu_smem_latency", &c.sharedLatency, "shared memory access latency in cycles")
      .min(1);
  opts.add("-ptxsim_shared_queue_entries", &c.sharedQueueEntries,
           "shared-memory instructions queue for the banks in a FIFO of this many entries per SM "
           "instead of holding the LD/ST unit's issue stage until their wavefronts are through "
           "(0: one at a time through the coalescer)")
      .range(0, 256);
}

/// Clock domains (core, interconnect, L2, DRAM).
void TimingOptions::describeClocks() {
  TimingConfig &cfg = cfg_;
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

/// L1D, L1I, constant cache and L2 slice specs with their latencies.
void TimingOptions::describeCaches() {
  MemoryConfig &m = cfg_.mem;
  // --- caches
  addCache("-gpgpu_cache:dl1", m.l1d, "-ptxsim_l1d_hit_latency", "L1 data cache per SM");
  opts.add("-gpgpu_l1_latency", &m.l1Latency,
           "L1D hit latency seen by the warp (pipeline, tag and data) in cycles")
      .min(1);
  addCache("-gpgpu_cache:il1", m.l1i, "-ptxsim_l1i_hit_latency", "L1 instruction cache per SM");
  addCache("-gpgpu_const_cache:l1", m.constCache, "-ptxsim_const_hit_latency",
           "constant cache per SM");
  addCache("-gpgpu_cache:dl2", m.l2, "-ptxsim_l2_hit_latency",
           "L2 slice per memory sub-partition (GPGPU-Sim's unit)");
  opts.add("-gpgpu_l2_rop_latency", &m.l2Latency,
           "round trip SM -> L2 hit -> SM in core cycles, interconnect included")
      .min(1);
  opts.add("-ptxsim_l2_far_latency", &m.l2FarLatency,
           "two L2 partitions, each near half of the SMs (the first half of the memory "
           "partitions near the first half of the SMs): a read hitting a line homed in the far "
           "partition, with no copy on the reader's side yet, waits this many core cycles more "
           "and leaves a copy there; a write keeps only the writer's side (0: one L2)");
  opts.add("-gpgpu_perf_sim_memcpy", &m.copiesFillL2,
           "host-to-device copies and memsets leave the data they write in the L2 (their last "
           "bytes, up to the L2's size; dirty), as the copy engine writes through it");
}

/// Memory partitions, address interleaving, L2 latencies, the interconnect.
void TimingOptions::describePartitionsAndInterconnect() {
  MemoryConfig &m = cfg_.mem;
  // --- memory partitions and interconnect
  opts.add("-gpgpu_n_mem", &m.numPartitions,
           "memory partitions (an L2 slice and a DRAM channel each)")
      .range(1, 1024);
  opts.add("-gpgpu_n_sub_partition_per_mchannel", &x_.subPartitions,
           "L2 sub-partitions per memory partition: the partition's L2 slice is this many "
           "-gpgpu_cache:dl2 slices")
      .range(1, 16);
  opts.addCustom(
      "-gpgpu_mem_addr_mapping", "dramid@N;...",
      [&m](const std::string &v, std::string &err) {
        size_t at = v.find("dramid@");
        if (at == std::string::npos)
          return true; // GPGPU-Sim's default mapping: the interleave is left as it is
        uint32_t bit;
        size_t end = v.find_first_of(";", at);
        if (!toU32(v.substr(at + 7, end == std::string::npos ? end : end - at - 7), bit) ||
            bit > 30) {
          err = "expected dramid@<bit> (partition interleave 2^bit bytes)";
          return false;
        }
        m.partitionInterleaveBytes = 1u << bit;
        return true;
      },
      [&m] {
        uint32_t b = 0;
        while ((1u << b) < m.partitionInterleaveBytes && b < 31)
          ++b;
        return "dramid@" + std::to_string(b);
      },
      "GPGPU-Sim address mapping: dramid@N sets -ptxsim_partition_interleave_bytes to 2^N, the "
      "bit pattern after ';' is unused");
  // GPGPU-Sim numbers its schemes 0 consecutive, 1 XOR permutation, 2 IPOLY, 3 PAE, 4 random,
  // 5 custom; its configs set 2-5 too, so they load here and select the one hash the model has
  opts.add("-gpgpu_memory_partition_indexing", &m.partitionIndexing,
           "partition index: 0 linear; 1-5 (GPGPU-Sim's hashing schemes) each row of partitions "
           "rotated by a hash of the row")
      .range(0, 5);
  opts.add("-ptxsim_partition_interleave_bytes", &m.partitionInterleaveBytes,
           "consecutive bytes mapped to one memory partition")
      .min(1);
  opts.addCustom(
      "-network_mode", "1|2|crossbar|mesh",
      [&m](const std::string &v, std::string &err) {
        if (v == "1" || v == "2")
          m.topology = "crossbar"; // GPGPU-Sim's intersim and local crossbar
        else if (topologyRegistry().create(v, 2))
          m.topology = v; // any registered topology
        else {
          err = "expected 1 or 2 (GPGPU-Sim's intersim and local crossbar, both modelled as a "
                "crossbar) or a registered topology:";
          for (const std::string &n : topologyRegistry().names())
            err += " " + n;
          return false;
        }
        return true;
      },
      [&m] { return m.topology; }, "interconnect topology");
  opts.add("-ptxsim_icnt_latency", &m.icntLatency,
           "interconnect latency in interconnect cycles: per traversal (crossbar) or per hop "
           "(mesh)")
      .min(1);
  opts.add("-icnt_flit_size", &m.icntFlitBytes, "bytes per port per interconnect cycle").min(1);
}

/// DRAM technology, organisation, timing and scheduling.
void TimingOptions::describeDram() {
  DramConfig &d = cfg_.dram;
  // --- DRAM
  opts.add("-ptxsim_dram_type", &d.type, "DRAM technology")
      .choices(std::vector<std::string>(std::begin(kDramTypes), std::end(kDramTypes)));
  opts.add("-ptxsim_dram_channels_per_partition", &d.channelsPerPartition,
           "DRAM channels behind each memory partition")
      .range(1, 64);
  opts.add("-gpgpu_dram_buswidth", &d.busWidthBytes,
           "DRAM data bus width per chip in bytes (the channel is -gpgpu_n_mem_per_ctrlr chips "
           "wide)")
      .min(1);
  opts.add("-gpgpu_n_mem_per_ctrlr", &x_.chipsPerChannel, "DRAM chips per memory channel")
      .range(1, 64);
  opts.add("-gpgpu_dram_burst_length", &d.burstLength, "DRAM burst length in transfers").min(1);
  opts.add("-dram_data_command_freq_ratio", &d.dataRate,
           "data transfers per DRAM command clock (2: DDR/HBM, 4: GDDR5 QDR)")
      .range(1, 16);
  opts.add("-ptxsim_dram_row_bytes", &d.rowBytes, "DRAM row (page) size in bytes per bank").min(1);
  opts.add("-gpgpu_frfcfs_dram_sched_queue_size", &d.queueEntries,
           "DRAM scheduler queue entries per channel")
      .min(1);
  opts.addCustom(
      "-gpgpu_dram_scheduler", "0|1|fcfs|frfcfs",
      [&d](const std::string &v, std::string &err) {
        if (v == "0")
          d.scheduler = "fcfs"; // GPGPU-Sim's numbering
        else if (v == "1")
          d.scheduler = "frfcfs";
        else if (dramSchedulerRegistry().create(v))
          d.scheduler = v; // any registered policy
        else {
          err = "expected 0 (fcfs), 1 (frfcfs) or a registered policy:";
          for (const std::string &n : dramSchedulerRegistry().names())
            err += " " + n;
          return false;
        }
        return true;
      },
      [&d] { return d.scheduler; }, "DRAM request scheduler: first-come first-served or FR-FCFS");
  opts.addCustom(
      "-gpgpu_dram_timing_opt", "nbk=16:CCD=2:...",
      [&d, this](const std::string &v, std::string &err) { return parseDramTiming(v, d, x_, err); },
      [&d] { return printDramTiming(d); },
      "banks and timings in DRAM command cycles: nbk (banks), CCD, RRD, RCD, RAS, RP, RC, CL, "
      "WL, CDLR, WR, nbkgrp/CCDL/RTPL (unused), and ptxsim's WTR, RTW, BURST, REFI, RFC "
      "(docs/config.md, DRAM timing)");
}

/// Host <-> device copies (PCIe).
void TimingOptions::describeCopies() {
  TimingConfig &cfg = cfg_;
  // --- host <-> device copies
  opts.add("-ptxsim_pcie_gbps", &cfg.pcieGBps, "host<->device copy bandwidth in GB/s")
      .range(0.001, 1e6);
  opts.add("-ptxsim_pcie_latency_us", &cfg.pcieLatencyUs,
           "host<->device copy latency in microseconds")
      .range(0, 1e6);

  opts.add("-ptxsim_sfu_trig_extra_latency", &cfg.core.sfuTrigExtraLatency,
           "extra latency of sin.approx/cos.approx over -ptxsim_sfu_latency (the range "
           "reduction multiply ptxas puts before MUFU.SIN/COS)");

  opts.add("-dram_latency", &cfg.dram.extraLatency,
           "DRAM read latency beyond the bank timing (controller and PHY pipeline, return path), "
           "in DRAM command cycles");

  opts.add("-ptxsim_l1i_prefetch_lines", &cfg.core.l1iPrefetchLines,
           "instruction cache lines brought in after a missing one (sequential prefetch)");

  opts.add("-ptxsim_vprintf_cycles", &cfg.core.vprintfCycles,
           "cycles the calling warp waits for a device printf (vprintf) call");
  opts.add("-ptxsim_malloc_cycles", &cfg.core.heapCallCycles,
           "cycles the calling warp waits for a device malloc or free call, plus "
           "-ptxsim_malloc_lane_cycles per active lane");
  opts.add("-ptxsim_malloc_lane_cycles", &cfg.core.heapLaneCycles,
           "cycles per active lane of a device malloc or free call");
  opts.add("-ptxsim_call_frame_cycles", &cfg.core.callFrameCycles,
           "cycles a warp waits at the return from a device function that itself makes calls "
           "(not a leaf: the ABI saves its return address and callee-saved registers on the "
           "stack and loads them back before returning); 0: calls cost their instructions only");
}

/// Atomic units at L2 and in shared memory.
void TimingOptions::describeAtomics() {
  TimingConfig &cfg = cfg_;
  // --- atomics
  opts.add("-ptxsim_l2_atomic_same_addr_cycles", &cfg.mem.l2AtomicSameAddrCycles,
           "L2 cycles the atomic unit of a slice spends per lane on the request's busiest address "
           "(same-address atomics serialize)")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_cas_same_addr_cycles", &cfg.mem.l2AtomicCasSameAddrCycles,
           "like -ptxsim_l2_atomic_same_addr_cycles for compare-and-swap (atom.cas); 0: the "
           "same as other atomics")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_float_same_addr_cycles", &cfg.mem.l2AtomicFloatSameAddrCycles,
           "like -ptxsim_l2_atomic_same_addr_cycles for floating-point add, min and max; 0: the "
           "same as other atomics")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_lane_cycles", &cfg.mem.l2AtomicLaneCycles,
           "L2 cycles the atomic unit spends per other lane of an atomic request")
      .range(0, 1e4);
  opts.add("-ptxsim_shared_atomic_same_addr_cycles", &cfg.mem.sharedAtomicSameAddrCycles,
           "extra cycles per additional lane of a shared-memory atomic on one address");

  opts.add("-ptxsim_shared_float_atomic_cycles", &cfg.mem.sharedFloatAtomicCycles,
           "extra cycles of a shared-memory f32/f64 atomic add/min/max (a compare-and-swap loop "
           "in SASS) over an integer one");
  opts.add("-ptxsim_shared_float_atomic_lane_cycles", &cfg.mem.sharedFloatAtomicLaneCycles,
           "cycles per additional lane of a shared-memory float atomic on one address (one more "
           "compare-and-swap round each)");
}

/// Kernel launch fixed costs and cache state between kernels.
void TimingOptions::describeLaunch() {
  TimingConfig &cfg = cfg_;
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
void TimingOptions::describeCompatibility() {
  for (const auto &ig : kIgnored)
    opts.addIgnored(ig[0], ig[1]);
  for (const char *s : kAccelWattchHybrid)
    opts.addIgnored(std::string("-accelwattch_hybrid_perfsim_") + s,
                    "AccelWattch hybrid mode counter");
  for (const auto &al : kAliases)
    opts.addAlias(al[0], al[1]);
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

/// Options of registered extensions and studies (base/ExtensionOptions.h), stored in cfg_.ext.
void TimingOptions::bindExtensions() { bindExtensionOptions(opts, cfg_.ext); }

void TimingOptions::finish() {
  MemoryConfig &m = cfg_.mem;
  DramConfig &d = cfg_.dram;
  m.l2.sets *= x_.subPartitions;
  m.l2.mshrEntries *= x_.subPartitions;
  d.busWidthBytes *= x_.chipsPerChannel;
  if (!x_.burstGiven &&
      (opts.wasSet("-gpgpu_dram_burst_length") || opts.wasSet("-dram_data_command_freq_ratio")))
    d.tBurst = std::max(1u, d.burstLength / d.dataRate);
  // GPGPU-Sim: tRTW = CL + BL/ratio + 2 - WL, tWTR = WL + BL/ratio + CDLR.
  if (x_.wl && !x_.rtwGiven)
    d.tRTW = uint32_t(std::max<int64_t>(1, int64_t(d.tCL) + d.tBurst + 2 - int64_t(*x_.wl)));
  if (x_.cdlr && !x_.wtrGiven)
    d.tWTR = x_.wl.value_or(0) + d.tBurst + *x_.cdlr;
}

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

namespace {
/// Reports one inconsistent option: its name and why.
using Fail = std::function<void(const std::string &opt, const std::string &msg)>;

void checkCore(const CoreConfig &c, const MemoryConfig &m, const Fail &fail) {
  if (!isPow2(c.warpSize) || c.warpSize > 64)
    fail("-gpgpu_shader_core_pipeline",
         "warp size " + std::to_string(c.warpSize) + " is not a power of two up to 64");
  else if (c.maxThreadsPerSm == 0 || c.maxThreadsPerSm % c.warpSize)
    fail("-gpgpu_shader_core_pipeline", "max threads per SM " + std::to_string(c.maxThreadsPerSm) +
                                            " is not a positive multiple of the warp size " +
                                            std::to_string(c.warpSize));
  else if (c.maxThreadsPerSm / c.warpSize < c.schedulersPerSm)
    fail("-gpgpu_num_sched_per_core", std::to_string(c.schedulersPerSm) + " schedulers but only " +
                                          std::to_string(c.maxThreadsPerSm / c.warpSize) +
                                          " warps per SM");
  if (std::string e = schedulerRegistry().check(c.scheduler, schedulerParams(c)); !e.empty())
    fail("-gpgpu_scheduler", e);
  if (c.adaptiveL1) {
    if (c.shmemOptionsKib.empty())
      fail("-gpgpu_shmem_option", "the adaptive carve-out needs at least one option");
    else if (uint64_t(c.shmemOptionsKib.back()) * 1024 < c.sharedBytesPerSm)
      fail("-gpgpu_shmem_option", "the largest carve-out (" +
                                      std::to_string(c.shmemOptionsKib.back()) +
                                      " KiB) is below -gpgpu_shmem_size");
    else if (c.unifiedL1Kib <= c.shmemOptionsKib.back())
      fail("-gpgpu_unified_l1d_size",
           std::to_string(c.unifiedL1Kib) + " KiB leaves no L1D beside the largest carve-out");
    else if (m.l1d.enabled &&
             uint64_t(c.unifiedL1Kib - c.shmemOptionsKib.back()) * 1024 <
                 uint64_t(m.l1d.sets) * m.l1d.lineBytes)
      fail("-gpgpu_unified_l1d_size", "the largest carve-out leaves less than one way per L1D set");
  }
  if (c.registersPerSm < c.warpSize)
    fail("-gpgpu_shader_registers", "fewer registers than one warp needs for one register");
  if (!isPow2(c.sharedBanks))
    fail("-gpgpu_shmem_num_banks", std::to_string(c.sharedBanks) + " is not a power of two");
}

/// Counts, sizes, latencies and intervals that must be at least 1.
void checkNonZero(const CoreConfig &c, const MemoryConfig &m, const DramConfig &d,
                  const Fail &fail) {
  struct Unit {
    const char *opt;
    uint32_t v;
  };
  for (Unit u : {Unit{"-gpgpu_n_clusters", c.numClusters},
                 Unit{"-gpgpu_n_cores_per_cluster", c.smsPerCluster},
                 Unit{"-gpgpu_shader_cta", c.maxCtasPerSm},
                 Unit{"-gpgpu_num_sched_per_core", c.schedulersPerSm},
                 Unit{"-gpgpu_max_insn_issue_per_warp", c.issueWidth},
                 Unit{"-ptxsim_ibuffer_entries", c.ibufferEntries},
                 Unit{"-gpgpu_num_sp_units", c.spUnits},
                 Unit{"-gpgpu_num_sfu_units", c.sfuUnits},
                 Unit{"-ptxsim_ldst_units", c.ldstUnits},
                 Unit{"-gpgpu_num_reg_banks", c.regBanks},
                 Unit{"-gpgpu_operand_collector_num_units_gen", c.operandCollectors},
                 Unit{"-ptxsim_sp_latency", c.spLatency},
                 Unit{"-ptxsim_sp_interval", c.spInterval},
                 Unit{"-ptxsim_int_latency", c.intLatency},
                 Unit{"-ptxsim_dp_latency", c.dpLatency},
                 Unit{"-ptxsim_dp_interval", c.dpInterval},
                 Unit{"-ptxsim_sfu_latency", c.sfuLatency},
                 Unit{"-ptxsim_sfu_interval", c.sfuInterval},
                 Unit{"-ptxsim_tensor_latency", c.tensorLatency},
                 Unit{"-ptxsim_tensor_interval", c.tensorInterval},
                 Unit{"-ptxsim_ldst_interval", c.ldstInterval},
                 Unit{"-ptxsim_mul_latency", c.mulLatency},
                 Unit{"-ptxsim_branch_latency", c.branchLatency},
                 Unit{"-ptxsim_fetch_latency", c.fetchLatency},
                 Unit{"-gpgpu_smem_latency", c.sharedLatency},
                 Unit{"-ptxsim_ccws_base_score", c.ccwsBaseScore},
                 Unit{"-ptxsim_ccws_k_throttle", c.ccwsKThrottle},
                 Unit{"-ptxsim_ccws_vta_entries", c.ccwsVtaEntries},
                 Unit{"-gpgpu_l1_latency", m.l1Latency},
                 Unit{"-gpgpu_l2_rop_latency", m.l2Latency},
                 Unit{"-gpgpu_n_mem", m.numPartitions},
                 Unit{"-ptxsim_icnt_latency", m.icntLatency},
                 Unit{"-icnt_flit_size", m.icntFlitBytes},
                 Unit{"-ptxsim_dram_channels_per_partition", d.channelsPerPartition},
                 Unit{"-gpgpu_dram_buswidth", d.busWidthBytes},
                 Unit{"-gpgpu_dram_burst_length", d.burstLength},
                 Unit{"-gpgpu_frfcfs_dram_sched_queue_size", d.queueEntries},
                 Unit{"-dram_data_command_freq_ratio", d.dataRate}})
    if (u.v == 0)
      fail(u.opt, "must be at least 1");
}

void checkMemory(const MemoryConfig &m, const Fail &fail) {
  auto cache = [&](const char *opt, const CacheConfig &k) {
    if (!k.enabled)
      return;
    if (!isPow2(k.sets))
      fail(opt, "number of sets " + std::to_string(k.sets) + " is not a power of two");
    if (k.ways == 0)
      fail(opt, "associativity must be at least 1");
    if (!isPow2(k.lineBytes) || k.lineBytes < 4)
      fail(opt, "line size " + std::to_string(k.lineBytes) + " is not a power of two >= 4");
    if (!isPow2(k.sectorBytes) || k.sectorBytes > k.lineBytes)
      fail(opt, "sector size " + std::to_string(k.sectorBytes) +
                    " is not a power of two dividing the line size");
    if (k.mshrEntries == 0 || k.mshrMaxMerge == 0)
      fail(opt, "MSHR entries and max merge must be at least 1");
    if (k.hitLatency == 0)
      fail(opt, "hit latency must be at least 1");
  };
  cache("-gpgpu_cache:dl1", m.l1d);
  cache("-gpgpu_cache:il1", m.l1i);
  cache("-gpgpu_const_cache:l1", m.constCache);
  cache("-gpgpu_cache:dl2", m.l2);
  if (!isPow2(m.partitionInterleaveBytes) ||
      (m.l2.enabled && m.partitionInterleaveBytes < m.l2.lineBytes))
    fail("-ptxsim_partition_interleave_bytes",
         std::to_string(m.partitionInterleaveBytes) +
             " is not a power of two at least the L2 line size");
  if (!topologyRegistry().create(m.topology, 2))
    fail("-network_mode", "unknown topology '" + m.topology + "'");
}

void checkDram(const DramConfig &d, const Fail &fail) {
  if (std::find(std::begin(kDramTypes), std::end(kDramTypes), d.type) == std::end(kDramTypes))
    fail("-ptxsim_dram_type", "unknown DRAM type '" + d.type + "'");
  if (!dramSchedulerRegistry().create(d.scheduler))
    fail("-gpgpu_dram_scheduler", "unknown DRAM scheduler '" + d.scheduler + "'");
  if (!isPow2(d.banks))
    fail("-gpgpu_dram_timing_opt",
         "nbk (banks) " + std::to_string(d.banks) + " is not a power of two");
  if (!isPow2(d.rowBytes))
    fail("-ptxsim_dram_row_bytes", std::to_string(d.rowBytes) + " is not a power of two");
  if (d.tRC < d.tRAS)
    fail("-gpgpu_dram_timing_opt",
         "RC (" + std::to_string(d.tRC) + ") is shorter than RAS (" + std::to_string(d.tRAS) + ")");
  if (d.tCL == 0 || d.tRCD == 0 || d.tRP == 0 || d.tRAS == 0 || d.tCCD == 0 || d.tBurst == 0)
    fail("-gpgpu_dram_timing_opt", "CL, RCD, RP, RAS, CCD and BURST must be at least 1");
  if (d.tREFI && d.tRFC >= d.tREFI)
    fail("-gpgpu_dram_timing_opt", "RFC must be shorter than REFI");
}

void checkClocksAndCopies(const TimingConfig &cfg, const Fail &fail) {
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
} // namespace

bool validateTimingConfig(const TimingConfig &cfg, DiagEngine &diags) {
  const std::string file = "<config>";
  size_t before = diags.errorCount();
  Fail fail = [&](const std::string &opt, const std::string &msg) {
    diags.error(file, {}, "'" + opt + "': " + msg);
  };
  checkCore(cfg.core, cfg.mem, fail);
  checkNonZero(cfg.core, cfg.mem, cfg.dram, fail);
  checkMemory(cfg.mem, fail);
  checkDram(cfg.dram, fail);
  checkClocksAndCopies(cfg, fail);
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
