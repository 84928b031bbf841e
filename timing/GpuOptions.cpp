// The GPU-wide options: the configuration's name, the clock domains, host <-> device copies,
// kernel launch costs, and GPGPU-Sim's options ptxsim accepts without effect and its other
// spellings (timing/ConfigParts.h).
#include "timing/ConfigParts.h"

namespace ptxsim::timing {
namespace {

using config::split;
using config::toDouble;
using config::trim;

/// Accepted clock frequencies (-gpgpu_clock_domains), in MHz.
constexpr double kMinClockMHz = 1.0, kMaxClockMHz = 100000.0;

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

} // namespace ptxsim::timing
