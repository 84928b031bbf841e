#pragma once
// Load scheduling of lowered code, the way ptxas orders SASS: within each basic block, loads and
// the arithmetic that computes their addresses move ahead of independent arithmetic, so a loop
// body's loads are all in flight before the first one's consumer waits. PTX from nvcc lists a
// load next to its use (`ld; ld; fma; ld; ld; fma`), which an in-order timing model issues as
// one memory round trip per pair; the GPU runs ptxas's order (EngineConfig::scheduleLoads,
// -ptxsim_schedule_loads in the timing configuration).
//
// Contract: the reordering keeps every register and predicate dependence (read after write,
// write after read, write after write, from Inst::rd/rs), never moves an instruction across a
// block boundary or across an instruction it does not understand (stores, ordered or scoped
// atomics, fences, barriers, control, warp primitives, calls, clock and timer reads,
// multi-instruction lowerings, ordered or volatile loads), and moves loads only past arithmetic,
// other loads and plain (not volatile or ordered) st.shared: a shared store keeps its order with
// shared and generic loads and other shared stores, while global, local, constant and parameter
// loads pass it, since those spaces cannot alias shared memory (ptxas issues a tile copy's LDGs
// before its STSs: sgemm64's unrolled copy of 8 loads was one memory round trip per load-store
// pair). Relaxed atomics (atom/red with no ordering or scope qualifier) move like loads but keep
// their order with every load, shared store and atomic: ptxas issues an unrolled loop's ATOMs back
// to back before the adds that use their results, where nvcc's PTX alternates them (one L2 round
// trip per atomic in an in-order model).
// So each thread computes exactly what it computed before; only the order of independent work
// changes, and with it the timing model's overlap of memory latency.

#include "ptx/ast/Ast.h"
#include "ptx/ir/Cfg.h"
#include "ptx/ir/Ir.h"

#include <cstdint>
#include <vector>

namespace ptxsim::ptx::exec {

/// Short forward branches that ptxas turns into predicated instructions
/// (EngineConfig::ifConvertMax, -ptxsim_if_convert_max). nvcc's PTX jumps over the body of a
/// small `if` (`@p bra L; ld; add; L:`); ptxas predicates the body instead (`@!P0 LDG`,
/// `@!P0 FADD`, no branch: SASS of smem_tiled.cu's reduce<256> on sm_90), so the body's load
/// issues with the loads before it. A branch is converted when it is a guarded `bra` ending its
/// block, its target is the start of the block after the next, the block between (the body)
/// has 1..`maxInsts` instructions, only this branch jumps past it to the target and nothing
/// jumps into it, and every body instruction is one unguarded IR instruction that is not
/// control, a barrier, a warp primitive, an atomic, a clock read or a write of the branch's
/// predicate.
/// Each body instruction then takes the branch's predicate, negated, as its guard (and reads it
/// for dependencies), and the branch becomes a no-op that the timing model issues with the
/// next instruction (Inst::kHintFusedIntoNext, no issue slot of its own). Lanes that took the
/// branch now skip the body by their guard: every thread computes exactly what it did.
/// Returns `cfg`'s blocks with each converted branch's block, its body and its target's block
/// joined into one (only `first` and `end` are kept), for scheduleLoadsEarly and fuseSassPairs.
Cfg ifConvertShortBranches(ir::Function &fn, const Function &ast, const Cfg &cfg,
                           const std::vector<uint32_t> &astToPc, uint32_t maxInsts);

/// Reorders `fn.code` block by block (blocks from `cfg` of `ast`, mapped to IR pcs by
/// `astToPc`, one entry per AST instruction plus the end). Branch targets, reconvergence points
/// and call return points are block or segment boundaries and keep their pcs.
void scheduleLoadsEarly(ir::Function &fn, const Function &ast, const Cfg &cfg,
                        const std::vector<uint32_t> &astToPc);

/// Pairs ptxas merges (EngineConfig::fusePairs, -ptxsim_fuse_pairs). SASS has three-input
/// integer instructions that PTX does not: IADD3 (a + b + c), LEA and LEA.HI (a shifted by a
/// constant, plus b), IMAD and IMAD.WIDE (a * b + c); ptxas folds an add (or sub) into the add,
/// shift or multiply that produces one of its operands when nothing else reads that result. A
/// timing model that issues each PTX instruction issues about 1.2x the GPU's instructions on
/// straight-line code (ncu's smsp__inst_executed on the H100). Only the timing changes: both
/// instructions still execute, the first one marked Inst::kHintFusedIntoNext.
enum class SassRole : uint8_t {
  None,
  Add32,      ///< add/sub of 32-bit integers (no carry, no saturation)
  Add64,      ///< add/sub of 64-bit integers
  Shift32,    ///< shl/shr of a 32-bit integer by a constant
  MulInt,     ///< integer mul (lo or wide) of 32-bit operands
  ConstOperand, ///< ld.const that ptxas folds into its users as a c[bank][offset] operand
  ParamReg,   ///< ld/st.param of a call's argument or return value: a register under the ABI
};

/// Sets Inst::sassRole from each PTX instruction (before scheduleLoadsEarly, which moves them).
void assignSassRoles(ir::Function &fn, const Function &ast, const std::vector<uint32_t> &astToPc);

/// Constant loads ptxas folds into operands (CoreConfig::foldConstOperands,
/// -ptxsim_fold_const_operands). SASS arithmetic takes one operand straight from a constant bank
/// (`FFMA R0, R2, c[0x3][0x4], R0`), so an `ld.const` from a fixed address ([symbol+offset] or
/// [immediate]) whose value only arithmetic reads is no instruction of its own: the polynomial of
/// tests/kernels/24_constant_mem.cu, 32 `ld.const` + `fma` per thread, is 32 FFMAs with c[]
/// operands (ncu on the H100: 1,728 warp instructions where the model issued 2,240, 32 per warp
/// more). Marks those loads SassRole::ConstOperand: unguarded scalar `ld.const` from a fixed
/// address whose register no other instruction writes, read only by add, sub, mul, mad, fma,
/// min, max, neg, abs, setp, selp, and, or, xor, shl, shr or cvt (one lowered instruction each),
/// at most one such register per reader (a SASS instruction has one constant operand). Only the
/// timing changes.
void markConstOperands(ir::Function &fn, const Function &ast, const std::vector<uint32_t> &astToPc);

/// An ir::Inst::hints bit beside Ir.h's (after kHintMergedLoad): atom/red.shared.add of a
/// 32-bit integer by the constant 1 whose result nothing reads. ptxas makes it ATOMS.POPC.INC,
/// which adds a warp's lanes on one word at once.
constexpr uint8_t kHintCountingAtomic = 64;

/// An ir::Inst::hints bit beside Ir.h's (after kHintCountingAtomic): a branch that
/// ifConvertShortBranches turned into a no-op (with kHintFusedIntoNext); the load scheduler moves
/// it like arithmetic.
constexpr uint8_t kHintIfConverted = 128;

/// Keeps kHintCountingAtomic (set by the lowering on atom/red.shared.add.u32 of 1) only
/// where no instruction of the function reads the atomic's result: ptxas turns those into
/// ATOMS.POPC.INC, whose lanes on one word cost one bank access (micro/atomics.cu on the H100:
/// red.shared.add of 1 by 32 lanes on one word 1.0 warp instruction per cycle, an atom whose
/// result is used 0.031). Only the timing changes.
void markCountingAtomics(ir::Function &fn);

/// Marks, block by block, an instruction that ptxas folds into the next one: the next is an Add32
/// after an Add32 or Shift32, or an Add32 or Add64 after a MulInt; it reads the first's only
/// destination, which nothing else reads (or which it overwrites); neither is guarded. An
/// instruction that absorbed another is not folded into its own successor (one SASS instruction
/// takes three operands).
void fuseSassPairs(ir::Function &fn, const Cfg &cfg, const std::vector<uint32_t> &astToPc);

/// Shared loads ptxas merges (EngineConfig::mergeSharedLoads, -ptxsim_merge_shared_loads). PTX
/// from nvcc loads a shared array element by element (`ld.shared.f32` at [r], [r+4], [r+8],
/// [r+12]); ptxas turns the loads of one 16-byte-aligned chunk from one base register into one
/// LDS.128 (8 bytes: LDS.64), which takes one LD/ST issue and the vector's bank cycles (fewer
/// than four scalar loads when lanes share words). SASS of sm_90 on tools/correlate/kernels/
/// smem_tiled.cu: sgemm64's 128 ld.shared.f32 are 32 LDS.128, sgemm32's 64 are 32 LDS and 8
/// LDS.128 (the row of As, not the column of Bs), conv5's 25 filter weights 6 LDS.128 and one LDS
/// while its unaligned tile[ty+dy][tx+dx] stays scalar. A group needs the base register's
/// alignment (known through mov of a shared symbol, add, shl, mul, mad and cvt of known values,
/// computed over the whole function), unguarded non-volatile 32-bit loads in one basic block
/// with no store, atomic, barrier, fence or control transfer between them and the base not
/// written in between. The first load of a group (in PTX order) gets Inst::mergedLoads = 2 or 4,
/// the others Inst::kHintMergedLoad. Only the timing changes.
void mergeSharedLoads(ir::Function &fn, const Function &ast, const Cfg &cfg, const std::vector<uint32_t> &astToPc);

} // namespace ptxsim::ptx::exec
