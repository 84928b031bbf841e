#pragma once
// The LLVM JIT's view of the interpreter (docs/executor.md, "The JIT engine").
//
// Contract: the interpreter's handlers (ir::ExecFn) stay the reference. An instruction family
// that the JIT may compile to native vector code says so by describing its handler pointers
// (describe(fn, op, type)); the JIT emits native LLVM operations only for described handlers
// and only where they give the handler's bits, and calls the handler itself for every other
// Ctl::None instruction. This file holds that table, the mode (--jit / PTXSIM_JIT), the
// backend interface the LLVM module implements (loaded with dlopen, so programs that do not use
// the JIT never load LLVM), and the per-function code table the interpreter loop consults.

#include "ptx/ir/Ir.h"

#include <cstdint>
#include <type_traits>
#include <mutex>
#include <string>
#include <vector>

namespace ptxsim::ptx::jit {

/// Operations the translator emits natively. Integer ops wrap as the handlers do.
enum class Op : uint8_t {
  None, Add, Sub, MulLo, MadLo, MulWide, Min, Max, And, Or, Xor, Not, Shl, Shr, Mov, Selp, Setp,
  FAdd, FSub, FMul, FFma,
  Ld, St, ///< ld/st (one element): a warp-wide fast path, the handler on its slow path
  Shfl,       ///< shfl{.sync}: Inst::aux the mode (OpsWarp.cpp), a gather over the source register
  Vote,       ///< vote{.sync}: Inst::aux all/any/uni/ballot
  ActiveMask, ///< activemask
  Cvta,       ///< cvta to or from the global window (Inst::aux 0: the same address); others call
  Special,    ///< mov of a special register (movSpecial, Inst::aux the register): %tid, %ntid,
              ///< %ctaid, %nctaid and %laneid natively, every other one through the handler
};
/// Ops whose register effects the analyses (Liveness, RegInit's must-write) count as their
/// handler's (a per-lane handler that reads its operands and destination): the JIT translates
/// them, but a special register such as %clock changes from read to read, and a spin watch that
/// hashed no register it writes would see a loop that reads the clock as one without progress.
inline bool analysedAsHandler(Op op) { return op == Op::Cvta || op == Op::Special; }
/// The classes of the per-lane handler families (conversions, math, special registers, bit
/// operations), which read their operands and destinations in their own lanes only; memory,
/// atomic, warp-wide and tensor handlers may read other lanes or registers named outside their
/// operands. Shared by the register analyses (Liveness, RegInit, RegShare).
inline bool perLaneClass(ir::OpClass c) {
  return c == ir::OpClass::Alu || c == ir::OpClass::Mul || c == ir::OpClass::Fp32 ||
         c == ir::OpClass::Fp64 || c == ir::OpClass::Half || c == ir::OpClass::Sfu;
}
/// Operand types of a described handler.
enum class Type : uint8_t { S16, U16, S32, U32, S64, U64, F32, F64 };

struct OpDesc {
  Op op = Op::None;
  Type type = Type::U64;
};

template <class T> constexpr Type typeOf() {
  if constexpr (std::is_same_v<T, float>)
    return Type::F32;
  else if constexpr (std::is_same_v<T, double>)
    return Type::F64;
  else if constexpr (sizeof(T) == 2)
    return std::is_signed_v<T> ? Type::S16 : Type::U16;
  else if constexpr (sizeof(T) == 4)
    return std::is_signed_v<T> ? Type::S32 : Type::U32;
  else
    return std::is_signed_v<T> ? Type::S64 : Type::U64;
}

/// Registers what handler `fn` computes (start-up, from the Ops*.cpp families).
void describe(ir::ExecFn fn, Op op, Type type);
/// The description of `fn`, or Op::None.
OpDesc describedOp(ir::ExecFn fn);
/// describe() for H<T>::fn over the 16-, 32- and 64-bit integer types.
template <template <class> class H> void describeInts(Op op) {
  describe(H<int16_t>::fn, op, Type::S16);
  describe(H<uint16_t>::fn, op, Type::U16);
  describe(H<int32_t>::fn, op, Type::S32);
  describe(H<uint32_t>::fn, op, Type::U32);
  describe(H<int64_t>::fn, op, Type::S64);
  describe(H<uint64_t>::fn, op, Type::U64);
}

enum class Mode : uint8_t {
  Off,  ///< the interpreter only
  On,   ///< compile every kernel before its first launch
  Diff, ///< run every launch in both engines and compare global memory
  Auto, ///< tiered: interpret, compile hot kernels in the background, switch at a launch (the
        ///< default)
};
/// PTXSIM_JIT (off|on|auto|diff; unset is auto). False with `err` set for a bad value.
bool parseMode(const char *text, Mode &out, std::string &err);

/// The compiled code of one function: runs the warp from `*pc` with the active lanes `active`
/// (constant: it never changes the reconvergence stack) through straight-line blocks and
/// uniform branches until it reaches an instruction only the interpreter loop runs (a divergent
/// branch, a call, a barrier, ...), the reconvergence point `rpc`, the end of `budget`
/// instructions or a fault. Returns how many instructions it executed (the interpreter's count,
/// the faulting one included) and leaves the next pc in `*pc`; 0 when it could not start at
/// `*pc`. `instBase` is w.instCount at entry (kept exact for the handlers that read it).
using RunFn = uint64_t (*)(void *ctx, void *warp, uint32_t active, uint64_t instBase, uint32_t *pc,
                           uint64_t budget, uint32_t rpc);

/// Compiled code of one ir::Function: its entry and, per pc, whether the code may start there.
struct FunctionCode {
  RunFn run = nullptr;
  std::vector<uint8_t> entry;
  uint32_t nativeInsts = 0, calledInsts = 0; ///< translated natively / as handler calls
  uint32_t branches = 0;                     ///< branches compiled (uniform ones stay inside)
  uint32_t ranges = 1;                       ///< pc ranges compiled apart (set by compile() only)
};

using DescribeFn = OpDesc (*)(ir::ExecFn);

/// What the LLVM backend (ptx/jit/LlvmJit.cpp, libptxsim_jit.so) implements.
///
/// The code it makes holds no address of this process (it reads the instructions and their
/// handlers through Warp::fn), so its object file can be cached on disk (ptx/jit/JitCache.h)
/// and linked into another process of the same build.
class Backend {
public:
  virtual ~Backend() = default;
  /// Compiles `fn` (`describe` is describedOp: the module links nothing of ptxsim); null with
  /// `err` set when it cannot. The relocatable object it linked is left in `*object`, unless the
  /// code holds an address of this process that another run would not repeat (left empty).
  /// A function of more than `regionInsts` instructions (0: no limit) is compiled in pc ranges
  /// of at most that many, each its own LLVM function (docs/executor.md, "Large functions").
  virtual FunctionCode *compile(const ir::Function &fn, DescribeFn describe, uint32_t regionInsts,
                                std::string &err, std::string *object) = 0;
  /// Links an object file that compile() made for `fn` (from the cache); `meta` carries the
  /// FunctionCode's fields other than `run`. Null with `err` set when it cannot.
  virtual FunctionCode *link(const ir::Function &fn, const std::string &object,
                             const FunctionCode &meta, std::string &err) = 0;
  /// What besides ptxsim's build changes the code: LLVM's version, the host CPU and its
  /// features, the module's build. Cache files made by another identity are not used.
  virtual std::string identity() const = 0;
};
constexpr int kBackendAbi = 4;
/// The global function compiled code exports (its RunFn), in every object file.
constexpr const char *kRunSymbol = "ptxsim_run";
using CreateBackendFn = Backend *(*)(int abi);

/// The process's backend, loaded on first use; null with `err` set when the build has no LLVM
/// or the module cannot be loaded.
Backend *backend(std::string &err);
/// The JIT module's file that backend() loads (the first of its places that exists); empty in a
/// build without LLVM or when there is none.
std::string moduleFile();

/// Run-summary counters (all launches of the process).
struct Stats {
  std::mutex mu;
  uint64_t kernelsCompiled = 0, launchesJit = 0, launchesFallback = 0, diffLaunches = 0,
           diffMismatches = 0, nativeInsts = 0, calledInsts = 0, branches = 0;
  uint64_t functionsCompiled = 0, functionsCached = 0; ///< compiled by LLVM / linked from cache
  uint64_t functionsLoaded = 0; ///< of those from the cache, mapped by loader::load (no LLVM)
  uint64_t functionsInRanges = 0; ///< of those compiled, the ones in more than one pc range
  uint64_t backgroundCompiles = 0, launchesInterpreted = 0; ///< --jit auto
  uint64_t kernelsEarly = 0;      ///< --jit auto: hot at the first launch by the hotness record
  uint64_t kernelsDeferred = 0;   ///< --jit auto: left to the detached compile at the end
  uint64_t stackChanges = 0;      ///< divergences and reconvergences compiled code made itself
  double compileSeconds = 0, cacheSeconds = 0;
  std::vector<std::string> fallbacks; ///< "kernel: reason", one per kernel
};
Stats &stats();
/// The lines the run summary prints (empty when the JIT was not used).
std::string summaryText();

} // namespace ptxsim::ptx::jit
