#pragma once
// Control-flow graph and immediate post-dominators of a checked function.
//
// Contract: buildCfg() takes a Function the checker accepted (branch targets resolved into
// Instruction::target and TargetList::labels) and splits its instruction list into basic blocks.
// A block ends at a control transfer (bra, brx.idx, ret, exit, trap) or before a labelled
// instruction. Successors are in a fixed order: taken targets first (in table order for
// brx.idx), then the fall-through of a guarded transfer. Blocks that leave the function (ret,
// exit, trap) flow into one virtual exit. ipdom gives each block's immediate post-dominator
// (kExit when it is the virtual exit, including blocks that never reach an exit, such as
// infinite loops); it is the reconvergence point of a divergent branch at the block's end.

#include "ptx/ast/Ast.h"

#include <cstdint>
#include <vector>

namespace ptxsim::ptx {

struct BasicBlock {
  uint32_t first = 0; ///< first instruction index
  uint32_t end = 0;   ///< one past the last instruction
  std::vector<uint32_t> succs; ///< block indices; kExit for the virtual exit
  std::vector<uint32_t> preds;
};

struct Cfg {
  static constexpr uint32_t kExit = 0xffffffffu;

  std::vector<BasicBlock> blocks;
  std::vector<uint32_t> blockOf; ///< instruction index -> block index
  std::vector<uint32_t> ipdom;   ///< block -> immediate post-dominator block, or kExit

  /// Instruction index where the threads that diverge at the end of `block` meet again, or
  /// the number of instructions when they only meet at the function's exit.
  uint32_t reconvergencePc(uint32_t block, uint32_t numInstrs) const {
    uint32_t p = ipdom[block];
    return p == kExit ? numInstrs : blocks[p].first;
  }
};

/// Builds the graph and post-dominators in time about linear in the function's size.
Cfg buildCfg(const Function &f);

} // namespace ptxsim::ptx
