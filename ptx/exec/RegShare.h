#pragma once
// Registers that are never live at once share a slot of the warp's register store
// (docs/executor.md, "Register slots").
//
// Contract: a warp keeps 32 lanes x 8 bytes per data register, and nvcc's PTX names a fresh
// virtual register for almost every value: an unrolled loop's loads and products take dozens
// that each live a few instructions. The store of every resident warp is most of a simulation's
// host memory and, in timing mode, most of its cache misses. shareRegisterSlots gives the
// registers slots such that two registers some lane may hold live at the same point never share
// one, so every lane reads exactly the values it read before: results are bit-identical.
//
// What it relies on (and checks, leaving the function as it is when it cannot tell):
//  - a lane's execution is a path of the control-flow graph whatever the warp's divergence or
//    thread groups, and an instruction changes only its own lanes' registers;
//  - every register an instruction names is in its operand fields (Inst::src, Inst::dst; the
//    lowering's Inst::rs/rd lists are checked against them); a dst field below 32 * the
//    registers' count may be a predicate index, so the registers whose offsets such a field
//    could hold keep their own slot;
//  - instructions whose register effects are not described (memory and warp-wide handlers,
//    barriers, shuffles' sources, which other lanes read) keep each register they name in a
//    slot of its own, as it was;
//  - an instruction's destinations never share a slot with its sources or with each other (a
//    handler may write one before it reads another).
// Not shared: functions with calls, indirect branches, blocking instructions, tensor or
// extension instructions (ISA extensions may name registers anywhere), registers of more than
// 8 bytes (.b128, vectors: two slots) or a carry chain's hidden register (Inst::aux).
//
// Inst::rs/rd keep the registers: the timing model's scoreboard and register banks see the
// program's registers, not the slots, so every statistic is unchanged too.

#include "ptx/ir/Ir.h"

namespace ptxsim::ptx::exec {

/// Gives the data registers of entry function `fn` (its code final, lowered from built-in
/// instructions only, with no register of two slots: the caller knows) slots as the contract
/// above says: rewrites the register offsets in the
/// instructions' operand fields, sets fn.regSlot (each register's slot) and fn.numRegs (the
/// slots). Returns false, changing nothing, when the function has something it cannot account
/// for or nothing to gain.
bool shareRegisterSlots(ir::Function &fn);

} // namespace ptxsim::ptx::exec
