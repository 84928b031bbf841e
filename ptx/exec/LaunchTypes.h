#pragma once
// The functional engine's launch vocabulary: grid shapes, the engine's configuration, kernels,
// launch parameters and results, work launched from the device. Engine.h drives launches with
// them; the parts the engine uses (Program, DeviceRuntime, LaunchPolicy) need only these types.

#include "base/Diagnostics.h"
#include "ptx/exec/Memory.h"
#include "ptx/ir/Ir.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxsim::ptx::exec {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

/// How the lanes of a warp are scheduled (docs/executor.md, "Independent thread scheduling").
enum class SimtMode : uint8_t {
  Auto,  ///< Its for kernels compiled for sm_70 and newer, Ipdom for older targets
  Ipdom, ///< pre-Volta: one reconvergence stack per warp, lanes reconverge at post-dominators
  Its,   ///< Volta and later: groups of lanes progress independently, meet at .sync points
};
/// "its", "ipdom" or "auto" -> the mode; false for anything else.
bool parseSimtMode(std::string_view s, SimtMode &out);

struct EngineConfig {
  unsigned hostThreads = 0;           ///< 0: one per host core
  uint64_t arenaBytes = 64ull << 30;  ///< device address space to reserve
  uint64_t stackBytes = 1024;         ///< per-thread local memory stack (cudaLimitStackSize)
  uint64_t heapBytes = 8ull << 20;    ///< device malloc heap (cudaLimitMallocHeapSize)
  uint32_t numSms = 132;              ///< %nsmid; CTAs are numbered onto SMs round-robin
  uint32_t maxThreadsPerBlock = 1024;
  uint32_t maxSharedPerBlock = 48 * 1024;
  uint32_t maxSharedPerBlockOptin = 227 * 1024;
  unsigned warpQuantum = 256; ///< instructions a warp runs before the next warp gets a turn
  SimtMode simt = SimtMode::Auto; ///< the runtime's PTXSIM_SIMT, `ptxsim run --simt`
  /// Order each basic block's loads ahead of independent arithmetic as ptxas does
  /// (ptx/exec/Schedule.h; the timing configuration's -ptxsim_schedule_loads).
  bool scheduleLoads = false;
  /// Mark pairs of PTX instructions that ptxas merges into one SASS instruction (an add into the
  /// add, shift or multiply before it: IADD3, LEA, IMAD; ptx/exec/Schedule.h, fuseSassPairs) for
  /// the timing model (-ptxsim_fuse_pairs). Results are unchanged.
  bool fusePairs = false;
  /// Host seconds a launch (with the grids it launches from the device) may run before it is
  /// stopped with LaunchStatus::Timeout (the runtime's PTXSIM_KERNEL_TIMEOUT; 0: no limit).
  double kernelTimeoutSeconds = 0;
  /// The no-progress detector (functional mode): a host thread whose live warps all wait at
  /// blocking instructions (ir::Ctl::Wait) fails the launch after this many polls in a row in
  /// which no warp of the launch executed an instruction and no component reported progress
  /// (reportProgress), naming the waiting warps. The first 1024 polls in a row without progress
  /// yield the host core, the ones after them sleep 50 us each (so host threads that could move
  /// the launch on get a core): the default stops a deadlock within a second or two.
  uint64_t noProgressPolls = uint64_t(1) << 14;
  /// Registers that are never live at once share a slot of the warp's register store
  /// (ptx/exec/RegShare.h; PTXSIM_SHARE_REGISTER_SLOTS=0 turns it off). Results and timing are
  /// unchanged; the store of a kernel such as a tiled matrix multiply shrinks several times.
  bool shareRegisterSlots = true;
  /// Mark scalar shared loads that ptxas merges into one LDS.64/LDS.128 (ptx/exec/Schedule.h,
  /// mergeSharedLoads) for the timing model (-ptxsim_merge_shared_loads). Results are unchanged.
  bool mergeSharedLoads = false;
  /// Predicate the body of a forward branch around at most this many instructions, as ptxas
  /// if-converts short `if`s (ptx/exec/Schedule.h, ifConvertShortBranches; the timing
  /// configuration's -ptxsim_if_convert_max; 0: off). Results are unchanged.
  uint32_t ifConvertMax = 0;
  /// Independent thread scheduling across calls (the timing configuration's
  /// -ptxsim_its_leave_calls): lanes that return from a call made in another function while
  /// other lanes are still in it run on in the caller as a group of their own, and a device
  /// function's divergent branch whose paths meet only in a block that returns does not join
  /// (ptxas returns from each path). Results are unchanged; only the grouping of lanes.
  bool itsLeaveCalls = false;
};

/// A `.global` or `.const` variable (or kernel) visible to the host.
struct GlobalSymbol {
  std::string name;
  uint64_t addr = 0;
  uint64_t size = 0;
  bool isConst = false;
  bool isManaged = false;
};

struct Kernel {
  std::string name;
  const ir::Function *fn = nullptr;
  uint32_t module = 0;
  std::vector<uint32_t> paramOffsets, paramSizes; ///< layout of the parameter buffer
  uint32_t paramBytes = 0;
  uint32_t staticShared = 0;
  uint32_t localBytes = 0; ///< per-thread frame of the kernel itself
  uint32_t numRegs = 0;     ///< slots of the executor's register frame (ir::Function::numRegs)
  /// 32-bit registers per thread the hardware would allocate: ptxas's count from the program's
  /// SASS when the runtime has it (Engine::setHardwareRegisters), else a liveness estimate from
  /// the PTX (ir::estimateRegisters of the kernel plus its deepest call chain). Occupancy,
  /// cudaFuncGetAttributes and the timing model use it.
  uint32_t hwRegs = 0;
  bool hwRegsFromSass = false;
  /// Local memory per thread of the kernel's SASS frame (EIATTR_FRAME_SIZE), -1 without SASS:
  /// what the hardware reports, which may differ from the PTX's .local declarations (localBytes).
  int64_t hwLocalBytes = -1;
  uint32_t maxThreads = 0; ///< .maxntid/.reqntid product, 0 if none
  uint64_t constBytes = 0; ///< user constant memory of its module (`.const` variables)
};

struct LaunchParams {
  const Kernel *kernel = nullptr;
  Dim3 grid, block;
  uint32_t dynamicShared = 0;
  const void *params = nullptr; ///< packed parameter buffer, `kernel->paramBytes` bytes
  bool cooperative = false;     ///< all CTAs resident at once (grid.sync)
  uint32_t depth = 0;           ///< nesting depth: 0 from the host, parent's + 1 from the device
  /// cudaFuncAttributePreferredSharedMemoryCarveout: percent of the largest shared-memory
  /// carve-out the kernel asks for (-1: no preference; the timing model's adaptive L1/shared split)
  int carveoutHint = -1;
};

/// Work a grid queued from the device (CUDA dynamic parallelism, ptx/exec/DeviceRuntime.h): a
/// child kernel launch, or an asynchronous device-side copy or memset. It runs after the grid.
struct DeviceWork {
  enum class Kind : uint8_t { Kernel, Memcpy, Memset };
  Kind kind = Kind::Kernel;
  const Kernel *kernel = nullptr;
  Dim3 grid, block;
  uint32_t dynamicShared = 0;
  std::vector<uint8_t> params;  ///< the packed parameter buffer
  uint32_t depth = 0;           ///< the child grid's nesting depth
  uint64_t dst = 0, src = 0, bytes = 0; ///< copies; a memset's byte value is `src`
  std::string launcher;         ///< kernel that queued it (for messages)
};

/// What the device runtime asks its embedder (the CUDA runtime answers with its own tables).
struct DeviceRuntimeHooks {
  /// cudaGetErrorString (name: cudaGetErrorName) of `code`.
  std::function<const char *(int32_t code, bool name)> errorText;
  /// cudaDeviceGetAttribute: false for an unknown attribute.
  std::function<bool(int32_t attr, int32_t &value)> attribute;
};

enum class LaunchStatus : uint8_t {
  Ok, InvalidConfig, OutOfResources, Fault, Trap, Assert, Unsupported, Misaligned, IllegalAddress,
  Timeout ///< EngineConfig::kernelTimeoutSeconds passed; the message says where each warp was
};

struct LaunchResult {
  LaunchStatus status = LaunchStatus::Ok;
  std::string message;        ///< fault or configuration error, empty when Ok
  uint64_t threadInsts = 0;   ///< thread instructions executed (active lanes per warp instruction)
  uint64_t warpInsts = 0;
  double seconds = 0;         ///< host wall time of the launch
  /// launchGrid() and SteppedGrid::finish(): what the grid launched from the device, in the
  /// order it runs (launchTree() runs it).
  std::vector<DeviceWork> deviceWork;
  /// Totals of the extension counters (Counters.h) by id; empty when none is registered.
  std::vector<uint64_t> counters;
  bool ok() const { return status == LaunchStatus::Ok; }
};

} // namespace ptxsim::ptx::exec
