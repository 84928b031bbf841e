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

} // namespace ptxsim::ptx::exec
