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
// block boundary or across an instruction it does not understand (stores, atomics, fences,
// barriers, control, warp primitives, calls, clock and timer reads, multi-instruction
// lowerings, ordered or volatile loads), and moves loads only past arithmetic and other loads.
// So each thread computes exactly what it computed before; only the order of independent work
// changes, and with it the timing model's overlap of memory latency.

#include "ptx/ast/Ast.h"
#include "ptx/ir/Cfg.h"
#include "ptx/ir/Ir.h"

#include <cstdint>
#include <vector>

namespace ptxsim::ptx::exec {

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
};

/// Sets Inst::sassRole from each PTX instruction (before scheduleLoadsEarly, which moves them).
void assignSassRoles(ir::Function &fn, const Function &ast, const std::vector<uint32_t> &astToPc);

/// Marks, block by block, an instruction that ptxas folds into the next one: the next is an Add32
/// after an Add32 or Shift32, or an Add32 or Add64 after a MulInt; it reads the first's only
/// destination, which nothing else reads (or which it overwrites); neither is guarded. An
/// instruction that absorbed another is not folded into its own successor (one SASS instruction
/// takes three operands).
void fuseSassPairs(ir::Function &fn, const Cfg &cfg, const std::vector<uint32_t> &astToPc);

} // namespace ptxsim::ptx::exec
