#pragma once
// Configuration of the cycle-level model: one typed struct per component, defaults close to a
// GTX480 (Fermi, 15 SMs), the machine the reference documents use.
//
// Contract: loadTimingConfig() (TimingConfig.cpp) fills these from GPGPU-Sim-style option files
// (`-gpgpu_n_clusters 15`); every field is bound to one option name with a help text in
// describe(); validate() rejects inconsistent values naming the option. Once loaded the config
// is immutable. Latencies are in cycles of the component's own clock domain.

#include "base/Diagnostics.h"
#include "base/ExtensionOptions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::timing {

/// A set-associative cache (GPGPU-Sim's `-gpgpu_cache:dl1` style string parses into this).
struct CacheConfig {
  uint32_t sets = 64;
  uint32_t ways = 4;
  uint32_t lineBytes = 128;
  uint32_t sectorBytes = 32;   ///< == lineBytes for an unsectored cache
  uint32_t hitLatency = 1;     ///< cycles from access to data
  uint32_t mshrEntries = 32;   ///< distinct lines with misses in flight
  uint32_t mshrMaxMerge = 8;   ///< requests merged into one MSHR entry
  bool writeBack = false;      ///< false: write-through
  bool writeAllocate = false;
  bool localWriteBack = false; ///< write policy L: local memory write-back (allocating), global write-through
  bool enabled = true;
  std::string replacement = "L"; ///< replacement policy (registered name: L = LRU, F = FIFO)
  /// Set index function (the spec's fifth policy letter): L linear (line address modulo sets;
  /// also GPGPU-Sim's H and P, which are not modelled), X the upper line-address bits XOR-folded
  /// into the index, M every bit mixed (a multiplicative hash: a contiguous region spreads over
  /// the sets unevenly, as if placed at random).
  char setIndex = 'L';
  /// Ways the cache is built with when it can grow at run time (Cache::setWays; LdstUnit sets
  /// it for the adaptive L1/shared carve-out); 0: `ways`.
  uint32_t maxWays = 0;
  uint64_t capacity() const { return uint64_t(sets) * ways * lineBytes; }
};

struct CoreConfig {
  uint32_t numClusters = 15;
  uint32_t smsPerCluster = 1;
  uint32_t warpSize = 32;
  uint32_t maxThreadsPerSm = 1536;
  uint32_t maxCtasPerSm = 8;
  uint32_t registersPerSm = 32768;
  uint32_t sharedBytesPerSm = 48 * 1024;
  /// Adaptive L1/shared carve-out (Volta and later): at each launch the shared memory of an SM
  /// is the smallest of `shmemOptionsKib` that holds the kernel's CTAs (Sm::carveoutFor), and the
  /// L1D gets the rest of `unifiedL1Kib` (its ways grow or shrink; sets and line stay).
  bool adaptiveL1 = false;
  uint32_t unifiedL1Kib = 0;
  std::vector<uint32_t> shmemOptionsKib;
  /// Shared memory the system reserves per CTA (1 KiB on sm_80 and later): counted against the
  /// SM's shared memory beside the kernel's own, when it has any.
  uint32_t reservedSharedPerCta = 0;
  bool oneCtaPerSm = false;          ///< force at most one CTA per SM (SPU comparisons)
  /// Loads ahead of independent arithmetic in each basic block, as ptxas orders SASS
  /// (ptx/exec/Schedule.h): the executor runs the kernels in that order.
  bool scheduleLoads = false;
  /// Pairs that ptxas merges into one SASS instruction issue as one (ptx/exec/Schedule.h).
  bool fusePairs = false;
  /// Scalar shared loads ptxas merges into LDS.64/LDS.128 are timed as one (ptx/exec/Schedule.h).
  bool mergeSharedLoads = false;
  /// ld.const that ptxas folds into its users' constant-bank operands (SassRole::ConstOperand)
  /// take no issue slot when the constant cache holds their line (ptx/exec/Schedule.h).
  bool foldConstOperands = false;
  /// ld/st.param of calls' arguments and return values issue as register moves (the ABI's
  /// registers), no memory access (-ptxsim_call_params_in_registers).
  bool callParamsInRegisters = false;
  /// Short forward branches ptxas predicates instead (ptx/exec/Schedule.h): body size limit, 0 off.
  uint32_t ifConvertMax = 0;
  /// ITS: lanes that return from a call made in another function run on without the call's
  /// other lanes; a device function's branch that joins only to return does not join
  /// (ptx::exec::EngineConfig::itsLeaveCalls).
  bool itsLeaveCalls = false;
  uint32_t schedulersPerSm = 2;
  std::string scheduler = "gto";     ///< lrr | gto | two_level | ccws
  /// Lane scheduling of the functional executor: auto | its | ipdom (ptx::exec::SimtMode);
  /// PTXSIM_SIMT overrides it.
  std::string simt = "auto";
  uint32_t issueWidth = 1;           ///< instructions per scheduler per cycle
  uint32_t ibufferEntries = 2;       ///< decoded instructions buffered per warp
  uint32_t fetchLatency = 1;
  uint32_t l1iPrefetchLines = 0;     ///< instruction lines fetched after a missing one
  /// Instruction fetch as a stream buffer (-ptxsim_l1i_stream_prefetch): a line in flight is
  /// ready only when it arrives (a warp finding it waits for it), and the first fetch from a
  /// prefetched line requests the line l1iPrefetchLines further on, so straight-line code
  /// stays that many lines ahead of the warp.
  bool l1iStreamPrefetch = false;
  /// Cycles an instruction-cache miss takes when the L2 is flushed before each kernel
  /// (-gpgpu_flush_l2_cache: the code comes from DRAM); 0: the L2's latency, as when it is warm.
  uint32_t l1iColdMissLatency = 0;
  /// Bytes of code per PTX instruction in the instruction cache (8: GPGPU-Sim's; 16: a SASS
  /// instruction of Volta and later, 128 bits with its control bits).
  uint32_t instBytes = 8;
  /// The SM's front end requests the kernel's first instruction line (and, with a prefetch, the
  /// lines after it) when the launch starts, before -gpgpu_kernel_launch_latency has passed.
  bool l1iFetchAtLaunch = false;
  // functional units: number of pipelines, latency, initiation interval (cycles between issues)
  uint32_t spUnits = 2, spLatency = 4, spInterval = 1;
  uint32_t intLatency = 4;           ///< integer ALU ops run on the SP pipes with this latency
  uint32_t iaddLatency = 0;          ///< 32-bit integer add/sub (IADD3); 0: intLatency
  uint32_t dpUnits = 1, dpLatency = 8, dpInterval = 8; ///< dpUnits 0: FP64 runs on the SFUs (Fermi)
  uint32_t sfuUnits = 1, sfuLatency = 20, sfuInterval = 8;
  uint32_t sfuTrigExtraLatency = 0;  ///< sin/cos.approx: extra cycles (ptxas adds an FMUL.RZ)
  // device runtime calls: the calling warp waits this long (0: like any call)
  uint32_t vprintfCycles = 0;        ///< per warp-level vprintf call
  uint32_t heapCallCycles = 0;       ///< per warp-level malloc/free call
  uint32_t heapLaneCycles = 0;       ///< per active lane of a malloc/free call (the heap lock)
  /// Returning from a function that makes calls (not a leaf under the ABI): the warp waits this
  /// long for the epilogue's stack loads of the return address and saved registers (0: free).
  uint32_t callFrameCycles = 0;
  /// A MEMBAR of each scope (ir::Inst::sassSeq: fence/membar, or the one ptxas puts before a
  /// release atom/red/st): the warp's next instruction issues this long after it (0: free).
  uint32_t fenceCtaCycles = 0, fenceGpuCycles = 0, fenceSysCycles = 0;
  /// Latencies of the SASS sequences of IEEE division and square root (.rn/.rz/.rm/.rp),
  /// div.full.f32 and integer div/rem by a register (ir::SassSeq); 0: the class's latency.
  uint32_t divF32Latency = 0, divFullF32Latency = 0, sqrtF32Latency = 0, divF64Latency = 0,
           sqrtF64Latency = 0, divS32Latency = 0, divU32Latency = 0, divS64Latency = 0,
           divU64Latency = 0;
  /// bar.sync/bar.red/bar.arrive: the SM's barrier unit counts one warp's arrival every
  /// barArriveCycles (serialized over the SM), and the warps a barrier releases issue again
  /// barReleaseCycles after its last arrival was counted (both 0: released at once).
  uint32_t barArriveCycles = 0;
  uint32_t barReleaseCycles = 0;
  uint32_t tensorUnits = 1, tensorLatency = 32, tensorInterval = 16; ///< 0 units: no tensor pipe (MMA runs on SP)
  /// Warp primitives (shfl, vote, match, redux, activemask, elect): their own pipe when
  /// warpUnits > 0, else the SP pipelines with the SP latency.
  uint32_t warpUnits = 0, warpLatency = 4, warpInterval = 1;
  uint32_t ldstUnits = 1, ldstInterval = 1;
  uint32_t mulLatency = 8;           ///< integer multiply / mad
  uint32_t branchLatency = 4;
  // register file / operand collectors
  uint32_t regBanks = 16;
  uint32_t operandCollectors = 8;
  // shared memory
  uint32_t sharedBanks = 32;
  uint32_t sharedLatency = 24;
  /// Latency each bank-conflict wavefront after the first adds to a shared load (the banks
  /// are busy one cycle per wavefront either way).
  uint32_t sharedConflictLatency = 1;
  /// Shared-memory instructions wait for the banks in a FIFO of this many entries and do not
  /// hold the LD/ST issue stage while an earlier one is in the banks (0: they go through the
  /// coalescer like global ones, one instruction at a time).
  uint32_t sharedQueueEntries = 0;
  // scheduler parameters
  uint32_t twoLevelActiveWarps = 8;
  uint32_t ccwsBaseScore = 100;      ///< Base_Locality_Score
  uint32_t ccwsKThrottle = 8;        ///< K_Throttle
  uint32_t ccwsVtaEntries = 16;      ///< victim tag array entries per warp
  double clockMHz = 700.0;
  // Heterogeneous cores (timing::registerSmConfig): a reduced SM lacks whole units. Never set by
  // a configuration file; every preset leaves them at "nothing missing", kind "sm".
  /// Bit (1 << OpClass) set: this SM has no unit for that instruction class; issuing one faults.
  uint32_t missingOpClasses = 0;
  /// This SM has no shared memory: a CTA placed on it is not charged its shared-memory
  /// declaration, and any shared-memory access it issues faults.
  bool noSharedMemory = false;
  /// The core's kind (timing/sm/core/CoreKinds.h): "sm", "reduced" (honours the two fields
  /// above), "dma" (a DMA engine, reduced too) or one an extension registered.
  std::string kind = "sm";
  /// This core takes only CTAs a launch extension places on it (LaunchExtension::smOf); the
  /// GPU's own dispatch of an ordinary launch passes it by (an SPU's interface units).
  bool placedCtasOnly = false;
};

struct MemoryConfig {
  CacheConfig l1d{32, 4, 128, 128, 1, 32, 8, false, false, true};     ///< 16 KiB
  CacheConfig l1i{4, 4, 128, 128, 1, 4, 4, false, false, true};
  CacheConfig constCache{64, 2, 64, 64, 1, 8, 8, false, false, true};
  CacheConfig l2{64, 16, 128, 32, 10, 32, 8, true, true, true};       ///< per partition slice
  uint32_t l1Latency = 20;           ///< L1D hit latency seen by the warp (pipeline + tag + data)
  /// Lines of one global/local instruction the L1D's tag stage resolves per cycle (GV100 and
  /// later: 4 tags; 1: one line per cycle, GPGPU-Sim's coalescer).
  uint32_t l1TagLines = 1;
  uint32_t l2Latency = 120;          ///< round trip SM->L2 hit->SM, including the interconnect
  /// Two L2 partitions (the GH100's): the first half of the memory partitions is near the first
  /// half of the SMs. A read that hits a line homed in the far partition, with no copy on the
  /// requester's side yet, waits this many core cycles more and leaves a copy there (0: one L2).
  uint32_t l2FarLatency = 0;
  /// Host-to-device copies and memsets leave the data they write in the L2 (the last bytes, up
  /// to the L2's size), as the copy engine writes through it (GPGPU-Sim's -gpgpu_perf_sim_memcpy).
  bool copiesFillL2 = false;
  /// L2 atomic unit occupancy per request, in L2 cycles: sameAddr x (lanes on the busiest address)
  /// + perLane x (the other lanes). 0 / 0 (the default): an atomic costs what a read does.
  double l2AtomicSameAddrCycles = 0, l2AtomicLaneCycles = 0;
  /// atom.cas lanes on the busiest address, instead of l2AtomicSameAddrCycles (0: the same).
  double l2AtomicCasSameAddrCycles = 0;
  /// atom.cas lanes on the busiest address after the first, when > 0: of a warp's CAS lanes on
  /// one word at most the first with the current value swaps, the others only compare (and read
  /// the new value), so they cost less than a read-modify-write (0: all lanes the same).
  double l2AtomicCasLaneCycles = 0;
  /// L2 cycles an atom.cas response waits per lane on the request's busiest address after the
  /// first, without holding the atomic unit: the lanes' compares are resolved one after another
  /// while the unit takes the next request (0: none).
  double l2AtomicCasLaneLatency = 0;
  /// f32/f64 add/min/max lanes on the busiest address, instead of l2AtomicSameAddrCycles (0: the same).
  double l2AtomicFloatSameAddrCycles = 0;
  /// The first lane on the busiest address of a request other than atom.cas, instead of the
  /// same-address cost (0: the same): the unit takes a request a cycle, and only further lanes
  /// on one word wait for each other.
  double l2AtomicFirstLaneCycles = 0;
  /// Atomic units of the L2 (0: one per slice): slice p uses unit p x units / partitions, so
  /// consecutive slices share one, and their atomics queue for it together.
  uint32_t l2AtomicUnits = 0;
  /// LD/ST unit cycles per lane on the busiest address of a global atomic request: the SM
  /// hands same-address lanes of a warp to the memory system one at a time (0: one cycle per
  /// request, as for a load).
  double atomicSameAddrIssueCycles = 0;
  /// LD/ST unit cycles per lane of a global atomic request not on its busiest address (0: none):
  /// the SM hands a warp's distinct-address atomic lanes to the memory system a few per cycle.
  double atomicLaneIssueCycles = 0;
  /// Shared-memory atomics: extra cycles per additional lane on one address (serialized).
  uint32_t sharedAtomicSameAddrCycles = 0;
  /// Shared-memory float atomics (f32/f64 add/min/max) are compare-and-swap loops on the H100:
  /// extra cycles for one, and per additional lane on the same address (a retry each).
  uint32_t sharedFloatAtomicCycles = 0, sharedFloatAtomicLaneCycles = 0;
  uint32_t numPartitions = 6;        ///< memory partitions (L2 slice + DRAM channel each)
  uint32_t partitionInterleaveBytes = 256;
  /// 0: chunk i of partitionInterleaveBytes goes to partition i % numPartitions. 1-5 (the
  /// values GPGPU-Sim gives its hashing schemes, all mapped to the same hash here): each row of
  /// numPartitions chunks is rotated by a hash of the row index, as GPUs hash physical addresses
  /// over their L2 slices, so a warp's fixed offset in a grid-stride loop does not pin it to a
  /// few slices (see MemorySystem::partitionOf).
  uint32_t partitionIndexing = 0;
  // interconnect
  std::string topology = "crossbar"; ///< crossbar | mesh
  uint32_t icntLatency = 8;          ///< per traversal (crossbar) or per hop (mesh)
  uint32_t icntFlitBytes = 32;       ///< bytes per port per interconnect cycle
  /// Interconnect cycles a write request from an SM holds its ports at least, however few its
  /// bytes (1: its flits alone; see Interconnect::flitsFor).
  uint32_t icntWriteMinFlits = 1;
  double icntClockMHz = 700.0;
  double l2ClockMHz = 700.0;
};

struct DramConfig {
  std::string type = "GDDR5";
  uint32_t channelsPerPartition = 1;
  uint32_t banks = 16;
  uint32_t rowBytes = 2048;
  uint32_t busWidthBytes = 8;        ///< per channel data bus, bytes per transfer edge
  uint32_t burstLength = 8;
  uint32_t queueEntries = 32;
  std::string scheduler = "frfcfs";  ///< frfcfs | fcfs
  // timing in DRAM command-clock cycles
  uint32_t tCL = 12, tRCD = 12, tRP = 12, tRAS = 28, tRC = 40, tCCD = 2, tWR = 12, tRRD = 6,
           tWTR = 5, tRTW = 2, tBurst = 2, tREFI = 0, tRFC = 0;
  double clockMHz = 924.0;
  uint32_t dataRate = 2;             ///< transfers per clock (DDR: 2)
  uint32_t extraLatency = 0;         ///< read data return pipeline after CL, in command cycles
};

/// Fixed costs of a kernel launch and cache state between kernels (GPU front end). Defaults
/// are 0 / off: presets set them (configs/h100.config calibrates them to a measured H100).
struct LaunchConfig {
  uint32_t kernelLaunchLatency = 0; ///< core cycles from the launch to the first CTA dispatch
  uint32_t ctaDispatchInterval = 0; ///< core cycles between two CTA starts on one SM (0: 1)
  uint32_t kernelDrainLatency = 0;  ///< core cycles after the last CTA and memory traffic end
  /// Core cycles between one host-launched kernel and the next on the GPU (the front end's
  /// launch processing that a kernel's own cycles do not count): simulated time, seen by CUDA
  /// events, not part of any kernel's cycles.
  uint32_t kernelGapCycles = 0;
  bool flushL1 = false;             ///< invalidate the L1 data and constant caches before each kernel
  bool flushL2 = false;             ///< invalidate the L2 before each kernel (ncu's default)
};

struct TimingConfig {
  std::string name = "GTX480-like";
  CoreConfig core;
  MemoryConfig mem;
  DramConfig dram;
  LaunchConfig launch;
  // host <-> device copies (PCIe-style)
  double pcieGBps = 12.0;
  double pcieLatencyUs = 8.0;
  std::vector<std::string> sources; ///< files the config was read from, in order
  /// Options of registered extensions and studies (base/ExtensionOptions.h), read through their
  /// handles: `handle.in(cfg.ext)`.
  ExtensionValues ext;

  uint32_t numSms() const { return core.numClusters * core.smsPerCluster; }
};

/// Reads GPGPU-Sim-style option files over the defaults. With `lenient`, unknown options are
/// warnings instead of errors. Returns false with diagnostics (file:line) on errors.
bool loadTimingConfig(const std::vector<std::string> &files, bool lenient, TimingConfig &out,
                      DiagEngine &diags);
/// Like the above, then `args` (command-line style `-name value` pairs) over the files.
bool loadTimingConfig(const std::vector<std::string> &files, const std::vector<std::string> &args,
                      bool lenient, TimingConfig &out, DiagEngine &diags);
/// The effective configuration as an option file that loads back to the same values.
std::string timingConfigText(const TimingConfig &cfg);
/// The option reference (every option, its default and meaning) as a markdown table.
std::string timingConfigMarkdown();
/// Checks consistency (powers of two where needed, non-zero sizes); errors name the option.
bool validateTimingConfig(const TimingConfig &cfg, DiagEngine &diags);
/// The effective configuration as JSON (dumped at start-up and into the stats file).
std::string timingConfigJson(const TimingConfig &cfg);

} // namespace ptxsim::timing
