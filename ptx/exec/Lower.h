#pragma once
// Lowering one checked PTX function to IR: the services an opcode's LowerFn uses.
//
// Contract: for each AST instruction, the lowering driver sets up the context (ai(), guard,
// source position) and calls the opcode's LowerFn, which reads modifiers and types from ai(),
// resolves operands with src()/dst()/predSrc()/predDst()/address() and appends IR with emit().
// emit() pre-fills the guard and source position; src() may itself emit helper instructions
// (special registers, symbol addresses that need a run-time base) before the caller's. Operand
// resolution never fails for a checked module, except for unsupported forms, which go through
// unsupported() and become a run-time fault naming the instruction and line (never a no-op).

#include "ptx/exec/Program.h"
#include "ptx/exec/Warp.h"

#include <string>
#include <unordered_map>

namespace ptxsim::ptx::exec {

/// What a name in an instruction refers to.
struct SymbolRef {
  enum class Kind : uint8_t {
    None, Reg, Pred, Global, Shared, DynShared, Frame, KParam, Function, Label, Other
  };
  Kind kind = Kind::None;
  uint32_t index = 0; ///< register/pred index, function index, label index
  uint64_t addr = 0;  ///< absolute address (Global), shared offset, frame offset, kparam offset
  uint64_t size = 0;  ///< variable size in bytes
  unsigned bits = 0;  ///< register width
  uint8_t slots = 1;  ///< 64-bit register slots: 2 for .b128 (low half first)
  Space space = Space::None;
};

class FunctionLowering;

class LowerCtx {
public:
  explicit LowerCtx(FunctionLowering &fl) : fl_(fl) {}

  const Instruction &ai() const { return *ai_; }
  bool has(Mod m) const;
  /// Whether modifier id `id` is written (an extension's registerModifier id, or modId()).
  bool hasModifier(uint16_t id) const;
  /// The i-th type modifier as written (ScalarType::None when absent).
  ScalarType type(unsigned i = 0) const { return i < ai_->numTypes ? ai_->types[i] : ScalarType::None; }
  /// The first modifier of `choices` present, or Mod::Count.
  Mod first(std::initializer_list<Mod> choices) const;
  /// Number of `.vN` elements (1 without a vector modifier).
  unsigned vecWidth() const;
  const Operand &op(unsigned i) const { return ai_->operands[i]; }
  unsigned numOps() const { return (unsigned)ai_->operands.size(); }

  /// A source value of type `t` (immediates converted to it).
  ir::Opnd src(const Operand &o, ScalarType t);
  /// A constant vector holding `bits` in every lane.
  ir::Opnd constant(uint64_t bits);
  /// Destination register offset (a scratch register for `_`).
  uint32_t dst(const Operand &o);
  /// A fresh scratch register (offset).
  uint32_t temp();
  /// Predicate source: index and xor mask (`!p`, constants 0/1).
  void predSrc(const Operand &o, uint16_t &idx, uint32_t &xorMask);
  uint16_t predDst(const Operand &o);
  bool isPredOperand(const Operand &o) const;
  /// Declared width in bits of a register operand, 0 when not a register.
  unsigned regBits(const Operand &o) const;
  SymbolRef lookup(std::string_view name) const;

  /// Resolves an address operand for an access in state space `sp` (Space::None: generic) into
  /// in.space/abase/off and the address register in `in.src[slot]`.
  void address(const Operand &o, Space sp, ir::Inst &in, unsigned slot = 0);
  /// Copies the address fields that address() set in `from` (slot 0) into `to`.
  static void copyAddress(ir::Inst &to, const ir::Inst &from) {
    to.space = from.space;
    to.abase = from.abase;
    to.off = from.off;
    to.addr32 = from.addr32;
    to.src[0] = from.src[0];
  }
  /// address() of `o` in space `sp`, then emit(fn, cls) with that address (register in src[0]).
  ir::Inst &emitAddressed(ir::ExecFn fn, ir::OpClass cls, const Operand &o, Space sp) {
    ir::Inst tmp;
    address(o, sp, tmp);
    ir::Inst &in = emit(fn, cls);
    copyAddress(in, tmp);
    return in;
  }

  /// Appends an IR instruction carrying the current guard and source position. The reference
  /// is valid until the next emit: resolve operands (src, predSrc may emit) before calling it.
  ir::Inst &emit(ir::ExecFn fn, ir::OpClass cls = ir::OpClass::Alu);
  ir::Inst &emitCtl(ir::Ctl ctl, ir::OpClass cls = ir::OpClass::Control);
  /// Emits a blocking instruction (ir::Ctl::Wait) run by `poll`; the caller fills its operands.
  ir::Inst &emitWait(ir::PollFn poll, ir::OpClass cls = ir::OpClass::Sync);
  /// Emits an unguarded helper that computes an operand into register offset `dstReg` (reading
  /// predicate `predRead` when >= 0); the instruction being lowered then reads that register.
  ir::Inst &emitHelper(ir::ExecFn fn, uint32_t dstReg, int predRead = -1);
  /// Sets in.target to the pc of label `labelIndex` (Function::labels) once lowering is done.
  void labelTarget(ir::Inst &in, uint32_t labelIndex);
  /// Emits a run-time fault for an unsupported form; returns false.
  bool unsupported(const std::string &what);

  /// The AST function being lowered (jump tables, labels).
  const Function &astFn() const;
  /// Call-site and jump-table storage of the function being lowered.
  ir::Function &fn();
  FunctionLowering &lowering() { return fl_; }
  const Instruction *ai_ = nullptr;
  /// Set while lowering an `add.f32` that ptxas contracts with the `mul.f32` producing one of its
  /// operands (findContractedAdds): that mul; the add is then lowered as fma.rn.f32.
  const Instruction *fusedMul_ = nullptr;

private:
  FunctionLowering &fl_;
};

/// Builds the unsupported-instruction message for `in` (used at run time).
std::string instructionText(const Instruction &in);

} // namespace ptxsim::ptx::exec
