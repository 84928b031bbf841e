// The SM's options: organisation, lane scheduling, issue, pipelines, register file and shared
// memory, device-runtime call costs (timing/ConfigParts.h). The warp schedulers' own options are
// in scheduler/SchedulerOptions.cpp.
#include "timing/ConfigParts.h"

#include <algorithm>

namespace ptxsim::timing {
namespace {

using config::split;
using config::toU32;
using config::trim;

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

/// SMs, threads, CTAs, registers and shared memory per SM, the adaptive carve-out.
void describeOrganisation(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  CoreConfig &c = ctx.cfg.core;
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
  opts.add("-ptxsim_fold_const_operands", &c.foldConstOperands,
           "issue no instruction for an ld.const from a fixed address whose value only arithmetic "
           "reads, as ptxas makes it a constant-bank operand of its users (FFMA R0, R2, "
           "c[0x3][0x4], R0), when the constant cache holds its line; a miss is timed as a load "
           "(results are unchanged)");
  opts.add("-ptxsim_call_params_in_registers", &c.callParamsInRegisters,
           "time ld.param and st.param of a call's arguments and return values (caller and "
           "callee) as no instruction of their own, as the SASS calling convention passes them "
           "in registers, instead of local-memory accesses (results are unchanged)");
  opts.add("-ptxsim_merge_shared_loads", &c.mergeSharedLoads,
           "time 2 or 4 scalar 32-bit shared-memory loads from one base register at consecutive "
           "offsets of an aligned 8- or 16-byte chunk as one LDS.64/LDS.128, as ptxas merges "
           "them: the first carries the whole vector's bank cycles, the others take no bank or "
           "LD/ST issue cycle (results are unchanged)");
  opts.add("-ptxsim_if_convert_max", &c.ifConvertMax,
           "predicate the body of a conditional forward branch around at most this many "
           "instructions instead of branching, as ptxas if-converts a short `if` (the body's "
           "loads then issue with the loads before the branch, and the branch takes no issue "
           "slot); 0: off (results are unchanged)");
  opts.add("-ptxsim_its_leave_calls", &c.itsLeaveCalls,
           "independent thread scheduling across calls: lanes that return from a call made in "
           "another function while other lanes are still in it run on in the caller as a group "
           "of their own, a device function's branch whose paths meet only to return does not "
           "join, and only the return that completes a call waits -ptxsim_call_frame_cycles "
           "(results are unchanged)");
  opts.add("-ptxsim_one_cta_per_sm", &c.oneCtaPerSm,
           "at most one CTA per SM whatever the occupancy allows (SPU comparisons)");
}


/// Lane scheduling of the functional executor (ITS or the reconvergence stack).
void describeLanes(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  CoreConfig &c = ctx.cfg.core;
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
}

/// Issue width, instruction buffer, fetch.
void describeIssue(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  CoreConfig &c = ctx.cfg.core;
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

/// Pipelines: units, latencies, initiation intervals.
void describePipes(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  CoreConfig &c = ctx.cfg.core;
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
  opts.add("-ptxsim_warp_units", &c.warpUnits,
           "pipelines per SM for warp primitives (shfl, vote, match, redux; 0: they run on the SP "
           "pipelines with the SP latency)");
  opts.add("-ptxsim_warp_latency", &c.warpLatency, "warp-primitive pipeline latency in cycles").min(1);
  opts.add("-ptxsim_warp_interval", &c.warpInterval,
           "cycles between issues to one warp-primitive pipeline")
      .min(1);
  opts.add("-ptxsim_ldst_units", &c.ldstUnits, "load/store units per SM").min(1);
  opts.add("-ptxsim_ldst_interval", &c.ldstInterval, "cycles between issues to one LD/ST unit")
      .min(1);
  opts.add("-ptxsim_branch_latency", &c.branchLatency, "branch resolution latency in cycles")
      .min(1);
}


/// Register file banks, operand collectors, shared-memory banks and latency.
void describeRegistersAndShared(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  CoreConfig &c = ctx.cfg.core;
  // --- register file and shared memory
  opts.add("-gpgpu_num_reg_banks", &c.regBanks, "register file banks per SM").min(1);
  opts.add("-gpgpu_operand_collector_num_units_gen", &c.operandCollectors,
           "operand collector units per SM: a non-memory instruction needs a free one at issue "
           "and holds it one cycle per read of its busiest register bank")
      .min(1);
  opts.add("-gpgpu_shmem_num_banks", &c.sharedBanks, "shared memory banks").min(1);
  opts.add("-gpgpu_smem_latency", &c.sharedLatency, "shared memory access latency in cycles")
      .min(1);
  opts.add("-ptxsim_shared_conflict_latency", &c.sharedConflictLatency,
           "cycles of latency each bank-conflict wavefront after the first adds to a shared "
           "load (the banks take one cycle per wavefront either way)")
      .range(1, 64);
  opts.add("-ptxsim_shared_queue_entries", &c.sharedQueueEntries,
           "shared-memory instructions queue for the banks in a FIFO of this many entries per SM "
           "instead of holding the LD/ST unit's issue stage until their wavefronts are through "
           "(0: one at a time through the coalescer)")
      .range(0, 256);
}


/// sin/cos.approx's extra latency (an option added after the copies' options, kept in its place).
void describeTrigLatency(OptionContext &ctx) {
  ctx.opts.add("-ptxsim_sfu_trig_extra_latency", &ctx.cfg.core.sfuTrigExtraLatency,
               "extra latency of sin.approx/cos.approx over -ptxsim_sfu_latency (the range "
               "reduction multiply ptxas puts before MUFU.SIN/COS)");
}

/// Instruction prefetch and the costs of device-runtime calls.
void describeFetchAndCalls(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  CoreConfig &c = ctx.cfg.core;
  opts.add("-ptxsim_l1i_prefetch_lines", &c.l1iPrefetchLines,
           "instruction cache lines brought in after a missing one (sequential prefetch)");
  opts.add("-ptxsim_l1i_stream_prefetch", &c.l1iStreamPrefetch,
           "instruction prefetch as a stream buffer: a line in flight is ready when it arrives, "
           "and a warp's first fetch from a prefetched line requests the line "
           "-ptxsim_l1i_prefetch_lines further on");
  opts.add("-ptxsim_l1i_cold_miss_latency", &c.l1iColdMissLatency,
           "cycles an instruction-cache miss takes when the L2 is flushed before each kernel "
           "(-gpgpu_flush_l2_cache 1: the code comes from DRAM); 0: -gpgpu_l2_rop_latency");
  opts.add("-ptxsim_inst_bytes", &c.instBytes,
           "bytes of code each instruction takes in the instruction cache (8: GPGPU-Sim's; 16: a "
           "128-bit SASS instruction of Volta and later)")
      .min(1);
  opts.add("-ptxsim_l1i_fetch_at_launch", &c.l1iFetchAtLaunch,
           "each SM requests the kernel's first instruction line (and the prefetch lines after "
           "it) when the launch starts, during -gpgpu_kernel_launch_latency");

  opts.add("-ptxsim_vprintf_cycles", &c.vprintfCycles,
           "cycles the calling warp waits for a device printf (vprintf) call");
  opts.add("-ptxsim_malloc_cycles", &c.heapCallCycles,
           "cycles the calling warp waits for a device malloc or free call, plus "
           "-ptxsim_malloc_lane_cycles per active lane");
  opts.add("-ptxsim_malloc_lane_cycles", &c.heapLaneCycles,
           "cycles per active lane of a device malloc or free call");
  opts.add("-ptxsim_call_frame_cycles", &c.callFrameCycles,
           "cycles a warp waits at the return from a device function that itself makes calls "
           "(not a leaf: the ABI saves its return address and callee-saved registers on the "
           "stack and loads them back before returning); 0: calls cost their instructions only");
  opts.add("-ptxsim_fence_cta_cycles", &c.fenceCtaCycles,
           "cycles a warp waits after a CTA-scope fence (fence.sc.cta, membar.cta, or a "
           ".release/.acq_rel .cta atom, red or st); 0: free")
      .range(0, 100000);
  opts.add("-ptxsim_fence_gpu_cycles", &c.fenceGpuCycles,
           "cycles a warp waits after a GPU-scope fence (fence.sc/acq_rel.gpu or .cluster, "
           "membar.gl, __threadfence, or a .release/.acq_rel atom, red or st of that scope, "
           "which ptxas precedes with a MEMBAR); 0: free")
      .range(0, 100000);
  opts.add("-ptxsim_fence_sys_cycles", &c.fenceSysCycles,
           "cycles a warp waits after a system-scope fence (fence.sc/acq_rel.sys, membar.sys, "
           "__threadfence_system, or a .release/.acq_rel .sys atom, red or st); 0: free")
      .range(0, 100000);
  // PTX instructions that are SASS sequences: their dependent latency as a whole
  struct SeqOpt {
    const char *name, *what;
    uint32_t *field;
  };
  for (const SeqOpt &o : {
           SeqOpt{"-ptxsim_div_f32_latency", "div.rn/rz/rm/rp.f32", &c.divF32Latency},
           SeqOpt{"-ptxsim_div_full_f32_latency", "div.full.f32", &c.divFullF32Latency},
           SeqOpt{"-ptxsim_sqrt_f32_latency", "sqrt.rn/rz/rm/rp.f32", &c.sqrtF32Latency},
           SeqOpt{"-ptxsim_div_f64_latency", "div.rn/rz/rm/rp.f64", &c.divF64Latency},
           SeqOpt{"-ptxsim_sqrt_f64_latency", "sqrt.rn/rz/rm/rp.f64", &c.sqrtF64Latency},
           SeqOpt{"-ptxsim_div_s32_latency", "div/rem.s32 (and .s16) by a register", &c.divS32Latency},
           SeqOpt{"-ptxsim_div_u32_latency", "div/rem.u32 (and .u16) by a register", &c.divU32Latency},
           SeqOpt{"-ptxsim_div_s64_latency", "div/rem.s64 by a register", &c.divS64Latency},
           SeqOpt{"-ptxsim_div_u64_latency", "div/rem.u64 by a register", &c.divU64Latency},
       })
    opts.add(o.name, o.field,
             std::string("latency of ") + o.what +
                 ", which ptxas makes a sequence of SASS instructions; 0: the latency of its "
                 "class's pipe")
        .range(0, 100000);
  opts.add("-ptxsim_bar_arrive_cycles", &c.barArriveCycles,
           "cycles the SM's barrier unit takes to count one warp's arrival at a bar.sync, "
           "bar.red or bar.arrive (arrivals of all the SM's warps are counted one after "
           "another); 0: free")
      .range(0, 1000);
  opts.add("-ptxsim_bar_release_cycles", &c.barReleaseCycles,
           "cycles from the count of a barrier's last arrival to the cycle the warps it "
           "releases may issue again; 0: at once")
      .range(0, 100000);
}

/// Warp size, threads, warps per scheduler, the carve-out, registers, banks; counts and
/// latencies of the core that must be at least 1.
void checkCore(const TimingConfig &cfg, const ConfigFail &fail) {
  const CoreConfig &c = cfg.core;
  const MemoryConfig &m = cfg.mem;
  if (!config::isPow2(c.warpSize) || c.warpSize > 64)
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
  if (!config::isPow2(c.sharedBanks))
    fail("-gpgpu_shmem_num_banks", std::to_string(c.sharedBanks) + " is not a power of two");
  config::checkAtLeastOne({{"-gpgpu_n_clusters", c.numClusters},
                           {"-gpgpu_n_cores_per_cluster", c.smsPerCluster},
                           {"-gpgpu_shader_cta", c.maxCtasPerSm},
                           {"-gpgpu_max_insn_issue_per_warp", c.issueWidth},
                           {"-ptxsim_ibuffer_entries", c.ibufferEntries},
                           {"-gpgpu_num_sp_units", c.spUnits},
                           {"-gpgpu_num_sfu_units", c.sfuUnits},
                           {"-ptxsim_ldst_units", c.ldstUnits},
                           {"-gpgpu_num_reg_banks", c.regBanks},
                           {"-gpgpu_operand_collector_num_units_gen", c.operandCollectors},
                           {"-ptxsim_sp_latency", c.spLatency},
                           {"-ptxsim_sp_interval", c.spInterval},
                           {"-ptxsim_int_latency", c.intLatency},
                           {"-ptxsim_dp_latency", c.dpLatency},
                           {"-ptxsim_dp_interval", c.dpInterval},
                           {"-ptxsim_sfu_latency", c.sfuLatency},
                           {"-ptxsim_sfu_interval", c.sfuInterval},
                           {"-ptxsim_tensor_latency", c.tensorLatency},
                           {"-ptxsim_tensor_interval", c.tensorInterval},
                           {"-ptxsim_ldst_interval", c.ldstInterval},
                           {"-ptxsim_mul_latency", c.mulLatency},
                           {"-ptxsim_branch_latency", c.branchLatency},
                           {"-ptxsim_fetch_latency", c.fetchLatency},
                           {"-gpgpu_smem_latency", c.sharedLatency}},
                          fail);
}

} // namespace

extern const ConfigPart kCoreOrganisation = {describeOrganisation, checkCore, nullptr};
extern const ConfigPart kCoreLanes = {describeLanes, nullptr, nullptr};
extern const ConfigPart kCoreIssue = {describeIssue, nullptr, nullptr};
extern const ConfigPart kCorePipes = {describePipes, nullptr, nullptr};
extern const ConfigPart kCoreRegistersAndShared = {describeRegistersAndShared, nullptr, nullptr};
extern const ConfigPart kCoreTrigLatency = {describeTrigLatency, nullptr, nullptr};
extern const ConfigPart kCoreFetchAndCalls = {describeFetchAndCalls, nullptr, nullptr};

} // namespace ptxsim::timing
