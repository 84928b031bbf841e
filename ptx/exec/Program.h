#pragma once
// Everything loaded into one engine: PTX modules, their lowered functions, global symbols, and
// the registry that maps PTX opcodes to lowering functions.
//
// Contract: functions get engine-wide indices; a function's device address (a function pointer
// value) is kCodeBase + 16 * index, so indirect calls decode a pointer with one subtraction.
// Visible (`.visible`/`.weak`) functions and variables of earlier modules satisfy `.extern`
// declarations of later ones. Lowering is extensible: registerLowering() binds an opcode name
// to a function that turns one checked instruction into IR (the built-in families live in
// ptx/exec/Ops*.cpp; ISA extensions call the same function at start-up).

#include "base/Diagnostics.h"
#include "ptx/ast/Ast.h"
#include "ptx/exec/LaunchTypes.h"
#include "ptx/exec/Memory.h"
#include "ptx/ir/Ir.h"

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxsim::ptx::exec {

constexpr uint64_t kCodeBase = 0x00c0de0000000000ull;

/// Runtime services a call to an undefined external function may bind to. Ids from
/// DeviceRuntimeFirst on are device-runtime functions (ptx/exec/DeviceRuntime.h).
enum class Builtin : uint32_t {
  None, Vprintf, Malloc, Free, AssertFail, Unresolved, DeviceRuntimeFirst = 64
};

struct LoadedModule {
  std::unique_ptr<ptx::Module> ast;
  std::string fileName;
  std::vector<uint32_t> functions; ///< engine function indices, in module order
  std::unordered_map<std::string, uint32_t> functionByName;
  std::unordered_map<std::string, GlobalSymbol> globals;
  std::unordered_map<std::string, Kernel> kernels;
};

class Program {
public:
  explicit Program(DeviceMemory &mem) : mem_(mem) {}

  int load(std::string_view text, const std::string &fileName, DiagEngine &diags,
           const EngineConfig &cfg);

  const ir::Function *function(uint32_t idx) const {
    return idx < functions_.size() ? functions_[idx].get() : nullptr;
  }
  /// Function for a device function-pointer value, or null.
  const ir::Function *functionAt(uint64_t addr) const {
    uint64_t d = addr - kCodeBase;
    return (d & 15) == 0 && d / 16 < functions_.size() ? functions_[d / 16].get() : nullptr;
  }
  uint32_t functionIndex(const ir::Function *f) const;
  const std::vector<std::unique_ptr<LoadedModule>> &modules() const { return modules_; }
  DeviceMemory &memory() { return mem_; }

  /// Device malloc heap (one allocation, carved by a first-fit allocator under a lock).
  void setHeap(uint64_t addr, uint64_t bytes);
  uint64_t heapMalloc(uint64_t bytes);
  void heapFree(uint64_t addr);
  /// The device heap's allocator state (the JIT's differential mode runs a launch twice from
  /// the same state).
  struct HeapState {
    std::map<uint64_t, uint64_t> freeBlocks, used;
  };
  HeapState heapState() {
    std::lock_guard<std::mutex> lock(heapMu_);
    return HeapState{heapFreeBlocks_, heapUsed_};
  }
  void restoreHeap(const HeapState &h) {
    std::lock_guard<std::mutex> lock(heapMu_);
    heapFreeBlocks_ = h.freeBlocks;
    heapUsed_ = h.used;
  }

  std::vector<std::unique_ptr<ir::Function>> functions_;
  std::unordered_map<std::string, uint32_t> visibleFunctions_;
  std::unordered_map<std::string, GlobalSymbol> visibleGlobals_;
  /// `.extern` names no module has defined yet: a later module's definition takes them over.
  std::unordered_map<std::string, uint32_t> pendingFunctions_;
  std::unordered_map<std::string, GlobalSymbol> pendingGlobals_;
  /// Some module calls the device runtime (dynamic parallelism).
  bool usesDeviceRuntime = false;

private:
  DeviceMemory &mem_;
  std::vector<std::unique_ptr<LoadedModule>> modules_;
  std::mutex heapMu_;
  uint64_t heapBase_ = 0, heapBytes_ = 0;
  std::map<uint64_t, uint64_t> heapFreeBlocks_; ///< base -> size
  std::map<uint64_t, uint64_t> heapUsed_;
};

class LowerCtx;
/// Lowers the current instruction of `ctx` (ctx.ai()) by emitting IR instructions. Returns false
/// after ctx.unsupported() when it cannot.
using LowerFn = bool (*)(LowerCtx &ctx);
/// Binds `opcode` (which must be in the opcode table: built-in or added with registerOpcode)
/// to `fn` and returns the lowering it replaces (null when none). An extension that adds a
/// form to a built-in opcode (a modifier of its own on `ld`, say) keeps the returned function
/// and calls it for every instruction that is not its form, so the built-in forms are unchanged.
/// Call at start-up, before any module is loaded.
LowerFn registerLowering(std::string_view opcode, LowerFn fn);
LowerFn findLowering(uint16_t opcodeId);

/// Built-in families (each Ops*.cpp file defines one registration function).
void registerIntOps();
void registerFloatOps();
void registerHalfOps();
void registerConvertOps();
void registerMemoryOps();
void registerAtomicOps();
void registerWarpOps();
void registerControlOps();
void registerMiscOps();
void registerMatrixOps();
void registerVideoOps();
void registerMbarrierOps();
void registerMmaOps();
void registerTextureOps();

} // namespace ptxsim::ptx::exec
