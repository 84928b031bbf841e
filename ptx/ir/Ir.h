#pragma once
// The executable IR: a checked PTX function lowered to a flat array of pre-decoded instructions.
//
// Contract: every instruction carries the handler that executes it for a whole warp (chosen at
// lowering time from its opcode, types and modifiers: the "opcode specialised by type"), its
// operands resolved to register offsets, constant vectors, predicate indices and address
// expressions, and its branch target as an instruction index. Control transfers, barriers and
// other instructions that change the warp's control state have `ctl != Ctl::None` and are run by
// the interpreter loop itself. Nothing on the execute path looks at strings or maps. The IR
// keeps the source position (PTX line/column and `.loc`) of each instruction for fault reports.

#include "ptx/ast/Ast.h"

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxsim::ptx::exec {
struct ExecCtx;
struct Warp;
} // namespace ptxsim::ptx::exec

namespace ptxsim::ptx::jit {
struct FunctionCode;
} // namespace ptxsim::ptx::jit

namespace ptxsim::ptx::ir {

constexpr unsigned kWarpSize = 32;
constexpr uint32_t kFullMask = 0xffffffffu;
/// Predicate indices 0 and 1 always read as false and true in every function.
constexpr uint16_t kPredFalse = 0, kPredTrue = 1;
constexpr uint32_t kNoPc = 0xffffffffu;

struct Inst;
/// Executes `in` for the lanes in `mask` (non-empty) of warp `w`.
using ExecFn = void (*)(exec::ExecCtx &ctx, exec::Warp &w, const Inst &in, uint32_t mask);
/// A blocking instruction's step (Ctl::Wait): tries to complete `in` for the lanes in `mask` and
/// returns true when it did. False means "not yet": the warp stays at the instruction, which is
/// tried again later (see Ctl::Wait).
using PollFn = bool (*)(exec::ExecCtx &ctx, exec::Warp &w, const Inst &in, uint32_t mask);

/// A source value: a register (offset `reg` = index * 32 into the warp's register frame) or a
/// constant vector of 32 equal lanes owned by the function.
struct Opnd {
  const uint64_t *cst = nullptr;
  uint32_t reg = 0;
};

/// How an instruction's address is formed: `base + off`, where base is a register, nothing, or
/// a per-warp/per-CTA base known only at run time.
enum class AddrBase : uint8_t {
  Reg,        ///< register value (`src` slot kAddrSlot), truncated to 32 bits when `addr32`
  None,       ///< absolute: `off` only
  Frame,      ///< current call frame's local-space base
  DynShared,  ///< start of the CTA's dynamic shared memory
  KParam,     ///< the launch's kernel parameter buffer
};

/// Memory state space of an access, after lowering (param resolves to global or local). Values
/// from kFirstExtensionSpace on are registered by ISA extensions (registerMemSpace): their
/// handlers compute the per-lane addresses (Warp::addr, in the space's own offsets) and the
/// timing model routes the access to the space's registered model (timing/mem/IMemSpaceModel.h).
enum class MemSpace : uint8_t { Global, Shared, Local, Const, Generic, Param };
constexpr uint8_t kFirstExtensionSpace = uint8_t(MemSpace::Param) + 1;
constexpr uint8_t kMaxMemSpaces = 16;
/// Extension point: a new memory space for timing and statistics. Returns the existing space
/// for a known name. Call at start-up.
MemSpace registerMemSpace(std::string_view name);
std::string_view memSpaceName(MemSpace s);
uint8_t memSpaceCount();

/// Instructions the interpreter loop runs itself.
enum class Ctl : uint8_t {
  None, Bra, Brx, Call, CallIndirect, Ret, Exit, Trap, Bar, BarArrive, BarRed, Yield, Unsupported,
  /// A blocking instruction (an extension's receive, a cross-CTA barrier): the interpreter calls
  /// Inst::poll; when it returns false the warp does not advance and gives up its turn
  /// (functional mode runs other warps and CTAs, the timing model stalls it with reason
  /// `ext_wait` and retries later). Warp::waitStep counts the failed tries of the current wait
  /// (0 on the first call), so a poll can act once (arrive) and then only check; it is reset when
  /// the poll succeeds. A poll that can never succeed must fault (with a timeout or a deadlock
  /// check of its own) rather than return false forever.
  Wait,
  /// A warp-synchronous instruction with a member mask (`bar.warp.sync`, `shfl.sync`,
  /// `vote.sync`, `match.sync`, `redux.sync`, `elect.sync`): runs Inst::fn like Ctl::None. Under
  /// independent thread scheduling the interpreter first waits until every live lane the member
  /// mask (src[Inst::memberSrc]) names has arrived (docs/executor.md).
  WarpSync,
};

/// A PTX instruction that ptxas turns into more than one SASS instruction, and whose cost the
/// timing model charges as a whole (Inst::sassSeq): a MEMBAR of each scope (a cluster-scope
/// fence counts as Gpu), or the instruction sequence of an IEEE division or square root
/// (.rn/.rz/.rm/.rp), of div.full.f32, or of an integer div/rem by a register.
enum class SassSeq : uint8_t {
  None, FenceCta, FenceGpu, FenceSys, DivF32, DivFullF32, SqrtF32, DivF64, SqrtF64, DivS32,
  DivU32, DivS64, DivU64
};

/// Coarse class for timing models and statistics. Values from kFirstExtensionClass on are
/// registered by ISA extensions (registerOpClass); the timing model maps each to a pipeline.
enum class OpClass : uint8_t { Alu, Mul, Fp32, Fp64, Half, Sfu, Mem, Atomic, Control, Sync, Warp, Misc, Tensor };
constexpr uint8_t kNumBuiltinOpClasses = uint8_t(OpClass::Tensor) + 1;
constexpr uint8_t kMaxOpClasses = 32;
/// Extension point: a new instruction class named `name` (for statistics and the timing
/// model's pipe mapping, timing::registerPipe). Returns the existing class for a known name.
/// Call at start-up.
OpClass registerOpClass(std::string_view name);
/// Name of an instruction class ("alu", "tensor", or a registered one).
std::string_view opClassName(OpClass c);
/// Number of classes in use (built-in plus registered).
uint8_t opClassCount();

struct Inst {
  union {
    ExecFn fn = nullptr; ///< Ctl::None
    PollFn poll;         ///< Ctl::Wait
  };
  Ctl ctl = Ctl::None;
  OpClass cls = OpClass::Alu;
  MemSpace space = MemSpace::Global;
  AddrBase abase = AddrBase::None;
  uint8_t ndst = 0, nsrc = 0;
  uint8_t width = 0;    ///< access size in bytes per element (memory), or operand bytes
  uint8_t vec = 1;      ///< elements per access (ld.v4: 4)
  bool addr32 = false;  ///< address register is 32-bit
  uint8_t flags = 0;    ///< handler-specific
  uint16_t guard = kPredTrue;
  uint32_t guardXor = 0; ///< 0 or ~0u (`@!p`)
  uint32_t dst[4] = {0, 0, 0, 0}; ///< register offsets (index * 32), or predicate indices
  Opnd src[5];
  uint16_t psrc[2] = {kPredTrue, kPredTrue}; ///< predicate sources
  uint32_t psrcXor[2] = {0, 0};
  int64_t off = 0;       ///< address displacement, or a handler-specific immediate
  uint32_t target = kNoPc; ///< branch target pc; callee / call-site / table index
  uint32_t aux = 0, aux2 = 0; ///< handler-specific
  uint8_t memberSrc = 0; ///< Ctl::WarpSync: the source operand holding the member mask
  /// Registers written and read, for dependency tracking in timing models: data register
  /// indices, or kPredBit | predicate index (the guard is among the reads).
  static constexpr uint16_t kPredBit = 0x8000;
  /// Sized for wmma fragments: 8 destination and 16 source registers.
  uint16_t rd[8] = {};
  uint16_t rs[16] = {};
  uint8_t nrd = 0, nrs = 0;
  uint32_t line = 0, col = 0; ///< PTX source position of the opcode
  int32_t debugLoc = -1;      ///< index into the AST function's debugLocs
  uint16_t opcode = 0;        ///< opcode-table id (for statistics and messages)
  /// Timing hints from modifiers the executor ignores: kHintBypassL1 for ld.cg / ld.cv and for
  /// global loads that must be coherent (.volatile, .relaxed/.acquire wider than the CTA): the
  /// load is served by the L2 only, as __ldcg.
  uint8_t hints = 0;
  static constexpr uint8_t kHintBypassL1 = 1;
  /// atom/red .add/.min/.max on .f32/.f64: shared-memory forms are compare-and-swap loops in SASS.
  static constexpr uint8_t kHintFloatAtomic = 2;
  /// The instruction also reads or writes a space other than `space` (cp.async.bulk: `space` is
  /// the destination's); the timing model's parallel engine orders it like a global access.
  static constexpr uint8_t kHintOtherSpace = 4;
  /// atom.cas: the timing model may charge a compare-and-swap more than other atomics.
  static constexpr uint8_t kHintCas = 8;
  /// ptxas merges this instruction with the next one into one SASS instruction (IADD3, LEA,
  /// IMAD, IMAD.WIDE; ptx/exec/Schedule.h, fuseSassPairs): the timing model issues it with the
  /// next and charges it no issue slot, pipeline or latency.
  static constexpr uint8_t kHintFusedIntoNext = 16;
  /// A scalar shared load that ptxas merges into an earlier one's LDS.64/LDS.128 (Schedule.h,
  /// mergeSharedLoads): the timing model charges it no bank or LD/ST issue cycle.
  static constexpr uint8_t kHintMergedLoad = 32;
  /// What the fusion pass may merge (Schedule.h, SassRole), set while lowering.
  uint8_t sassRole = 0;
  /// The first load of a group ptxas merges into one LDS.64/LDS.128: the group's loads (2 or 4;
  /// 0 otherwise). The timing model charges it the whole vector's bank cycles.
  uint8_t mergedLoads = 0;
  /// What ptxas makes of this instruction beyond one SASS instruction (ir::SassSeq), for the
  /// timing model: a MEMBAR (`fence`/`membar`, and the one before an atom/red/st with release
  /// semantics) or an arithmetic sequence (IEEE division, square root, integer division).
  uint8_t sassSeq = 0;
  /// A pure register computation (set while lowering): its handler reads and writes only the
  /// warp's registers and predicates for its lanes (no memory, clock, other lane, extension
  /// state or fault), so a stepped warp may execute it before its issue (exec::stepWarp).
  bool pure = false;
};

/// One argument copy of a call: `size` bytes from the caller's frame (or a register when
/// `fromReg`) into the callee's frame.
struct ArgCopy {
  uint32_t callerOff = 0; ///< caller frame offset, or register offset when fromReg
  uint32_t calleeOff = 0;
  uint32_t size = 0;
  bool fromReg = false;
  const uint64_t *cst = nullptr; ///< immediate argument
};

struct CallSite {
  uint32_t callee = 0;              ///< module function index (direct calls)
  std::vector<ArgCopy> args;        ///< caller -> callee at the call
  std::vector<ArgCopy> rets;        ///< callee -> caller at the return (callerOff = destination)
  uint32_t indirectReg = 0;         ///< register holding the function address (indirect)
  uint32_t builtin = 0;             ///< non-zero: a runtime builtin (vprintf, malloc, free, ...)
};

struct Function {
  std::string name;
  bool isEntry = false;
  bool hasBody = false;
  uint32_t builtin = 0; ///< for bodiless externals: exec::Builtin
  std::vector<Inst> code;
  /// Slots of the warp's register store (each 32 lanes x 8 bytes): one per data register, or
  /// fewer when registers share slots (regSlot).
  uint32_t numRegs = 0;
  /// Data registers are what Inst::rs/rd name (the timing model's dependencies); the operand
  /// fields (Inst::src, Inst::dst) hold their slots' offsets. Per register: its slot when
  /// registers share slots (exec/RegShare.h), empty when each has its own (slot = register).
  std::vector<uint32_t> regSlot;
  /// Data registers: regSlot.size() when registers share slots, else numRegs.
  uint32_t numDataRegs() const { return regSlot.empty() ? numRegs : uint32_t(regSlot.size()); }
  std::vector<uint8_t> regBytes; ///< declared bytes of each data register (for estimates)
  /// Each data register's index in declaration order (the lowering places registers in the
  /// order the code names them, exec/Lower.cpp): what the timing model's register banks are
  /// computed from, as ptxas's allocation follows the declarations more than first use.
  std::vector<uint32_t> regDeclIndex;
  uint32_t numPreds = 2; ///< predicate registers incl. the two constants
  /// Byte size of the function's call frame in local memory: `.local` variables, `.param`
  /// buffers of calls it makes, then its own parameters and return values.
  uint32_t frameSize = 0;
  /// The function allocates on the stack at run time (alloca, stacksave/stackrestore).
  bool dynamicStack = false;
  /// Offsets in the frame of the formal parameters and return values.
  std::vector<uint32_t> paramOffsets, retOffsets;
  std::vector<uint32_t> paramSizes, retSizes;
  std::vector<CallSite> calls;
  std::vector<std::vector<uint32_t>> jumpTables; ///< brx.idx tables as pcs
  /// Per pc: where lanes that diverge at this (branch) instruction meet again; kNoPc when only
  /// at the function's end.
  std::vector<uint32_t> reconv;
  /// The function makes calls (call, indirect call, device runtime calls): under the ABI it is
  /// not a leaf, so the SASS saves its return address and callee-saved registers to the stack
  /// in its prologue and loads them back before returning (the timing model's
  /// -ptxsim_call_frame_cycles).
  bool makesCalls = false;
  std::deque<std::array<uint64_t, kWarpSize>> consts;
  std::vector<std::string> notes; ///< texts of unsupported instructions (Inst::aux indexes)
  const ptx::Function *ast = nullptr; ///< for debug locations
  std::string fileName;
  /// Kernel parameters (entries): byte offsets and sizes in the parameter buffer.
  std::vector<uint32_t> kparamOffsets, kparamSizes;
  uint32_t kparamBytes = 0;
  uint32_t staticShared = 0;  ///< bytes of static shared memory the kernel uses (entries)
  uint32_t maxThreads = 0;    ///< from .maxntid / .reqntid, 0 if none
  std::string signature;      ///< parameter list as text for messages
  /// The module's `.target sm_XX` (0 when none): independent thread scheduling is the default
  /// for sm_70 and newer (EngineConfig::simt).
  uint32_t smVersion = 0;
  /// Entries: the registers a CTA must find zeroed, as runs [first, first + count) of register
  /// indices (ptx/exec/RegInit.h; the others are written in every lane before any read), valid
  /// when zeroAtStartKnown; otherwise a CTA zeroes every register.
  std::vector<std::pair<uint32_t, uint32_t>> zeroAtStart;
  bool zeroAtStartKnown = false;
  /// The registers the spin watch hashes at a backward branch (those live there: Liveness.h,
  /// RegInit.h): indices spinRegs[spinFirst[pc] .. spinFirst[pc + 1]); every register when
  /// spinFirst is empty.
  std::vector<uint32_t> spinFirst, spinRegs;
  /// Stepped warps' runs ahead (exec::runAhead): per pc, the length of the straight-line run of
  /// pure instructions (Inst::pure) from it, at most exec::Warp::kAheadMax + 1 (0 when pc is not
  /// pure), and the distinct data register rows that run reads and writes,
  /// aheadRows[aheadRowFirst[pc] .. aheadRowFirst[pc + 1]) (prefetched before it runs). Static:
  /// a run that a reconvergence point cuts shorter prefetches the rest too (only a hint). Empty
  /// when not computed (code built outside the lowering): each step then looks.
  std::vector<uint8_t> pureRun;
  std::vector<uint32_t> aheadRowFirst;
  std::vector<uint16_t> aheadRows;
  /// The JIT's compiled blocks (ptx/jit/JitOps.h), set once before the first launch that uses
  /// them (never changed while a launch runs); null while the function is only interpreted.
  mutable const jit::FunctionCode *jit = nullptr;
};

} // namespace ptxsim::ptx::ir
