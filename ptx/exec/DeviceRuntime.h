#pragma once
// The CUDA device runtime (cudadevrt) for dynamic parallelism: kernels launched from the device.
//
// Contract: nvcc compiles `kernel<<<g, b, s, stream>>>(...)` in device code (-rdc=true,
// -lcudadevrt) to calls of the bodiless externals __cudaCDP2GetParameterBufferV2 (kernel
// address, grid, block, shared bytes -> parameter buffer) and __cudaCDP2LaunchDeviceV2 (buffer,
// stream); cudaGetLastError(), cudaStreamCreateWithFlags() etc. in device code become
// __cudaCDP2<Name> calls. The linker (Lower.cpp) binds these names (and the CDP1 spellings
// `cuda<Name>`) to builtins that the interpreter hands to deviceRuntimeCall(), one lane at a
// time in lane order.
//
// A launch is recorded in the launching CTA's queue and runs after the launching grid has
// finished (CUDA 12+ semantics allow that: a parent cannot wait for its children, and a grid is
// complete only when its children are). Engine merges the CTAs' queues in CTA order, so the
// order never depends on the number of host threads: first every launch into the per-block NULL
// stream, a created stream or cudaStreamFireAndForget, then every cudaStreamTailLaunch launch.
// Engine::launchTree runs each child grid, with all of its own descendants, before the next one
// (depth first). Device-side cudaMemcpyAsync/cudaMemsetAsync are queued the same way, in order
// with the launches. Nothing here costs anything for programs that never call the device
// runtime: the per-CTA state is created by the first call.

#include "ptx/exec/LaunchTypes.h"
#include "ptx/exec/Warp.h"
#include "ptx/ir/Ir.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxsim::ptx::exec {

struct ExecCtx;
struct Warp;
struct Cta;
class Program;

/// Deepest nesting of device launches, as on hardware: a host launch is depth 0, and a grid at
/// this depth cannot launch (cudaErrorLaunchMaxDepthExceeded).
constexpr uint32_t kMaxLaunchDepth = 24;

/// Engine-wide device-runtime state: limits, the pending-launch count, the memory parameter
/// buffers and error strings come from, and the embedder's answers to device queries.
///
/// Device memory must not be allocated while CTAs run on several host threads (the allocation
/// table is read without a lock), so prepareGrid() reserves two regions between launches:
/// parameter buffers are carved from one with an atomic bump pointer and the region is reused
/// by the next grid (a grid's launches are copied out when it ends); error strings are copied
/// into the other once per code.
class DeviceRuntime {
public:
  DeviceRuntime(DeviceMemory &mem, Program &prog, const EngineConfig &cfg)
      : mem_(mem), prog_(prog), cfg_(cfg) {}
  ~DeviceRuntime();

  Program &program() { return prog_; }
  DeviceMemory &memory() { return mem_; }
  const EngineConfig &config() const { return cfg_; }

  /// Before a grid starts (one host thread): reserves the regions the first time the program
  /// uses the device runtime, refreshes the kernel table, and recycles the parameter region.
  void prepareGrid();

  /// cudaLimitDevRuntimePendingLaunchCount (2048 by default, as CUDA's).
  uint64_t pendingLimit = 2048;
  /// Launches queued and not yet started; Engine::launchTree sets it before each grid.
  std::atomic<uint64_t> pending{0};
  DeviceRuntimeHooks hooks;

  /// A parameter buffer of `bytes` (16-byte aligned) for the running grid, or 0 when full.
  uint64_t paramBuffer(uint64_t bytes);
  /// The kernel whose entry function is `f`, or null.
  const Kernel *kernelOf(const ir::Function *f) const;
  /// Device address of a NUL-terminated copy of cudaGetErrorString (name: cudaGetErrorName).
  uint64_t errorText(int32_t code, bool name);
  /// cudaDeviceGetAttribute on the device: false when the attribute is unknown.
  bool attribute(int32_t attr, int32_t &value) const;

private:
  DeviceMemory &mem_;
  Program &prog_;
  const EngineConfig &cfg_;
  uint64_t paramBase_ = 0, paramBytes_ = 0;
  std::atomic<uint64_t> paramUsed_{0};
  std::mutex textMu_;
  uint64_t textBase_ = 0, textBytes_ = 0, textUsed_ = 0;
  std::unordered_map<int64_t, uint64_t> texts_; ///< code * 2 + name -> device address
  std::unordered_map<const ir::Function *, const Kernel *> kernels_;
  size_t kernelModules_ = 0; ///< modules the kernel table covers
};

/// The queue of a finished CTA: launches into ordinary streams, then tail launches.
struct CtaDeviceWork {
  std::vector<DeviceWork> work, tail;
};
/// Takes the queue of a finished CTA (empty when it never called the device runtime).
CtaDeviceWork takeCtaDeviceWork(Cta &cta);
/// Orders the queues of a grid's CTAs (by CTA) into the order the children run.
std::vector<DeviceWork> mergeDeviceWork(std::vector<std::pair<uint64_t, CtaDeviceWork>> &ctas);

/// Id of a device-runtime function (`__cudaCDP2GetLastError`, `cudaGetLastError`, ...) for
/// ir::Function::builtin, or 0 when `name` is not one.
uint32_t deviceRuntimeBuiltin(std::string_view name);
// deviceRuntimeCall() (the interpreter's entry, defined in DeviceRuntime.cpp) and the argument
// access it uses (defined in Exec.cpp) are declared in Exec.h.

} // namespace ptxsim::ptx::exec
