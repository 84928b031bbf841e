#include "ptx/ir/Cfg.h"

#include "ptx/sema/OpcodeTable.h"

#include <algorithm>

namespace ptxsim::ptx {
namespace {

enum class Flow : uint8_t { None, Branch, Switch, Leave };

/// How an instruction transfers control (call returns to the next instruction).
Flow flowOf(const Instruction &in) {
  static const uint16_t bra = lookupOpcode("bra"), brx = lookupOpcode("brx"),
                        ret = lookupOpcode("ret"), exit = lookupOpcode("exit"),
                        trap = lookupOpcode("trap");
  if (in.opcode == bra)
    return Flow::Branch;
  if (in.opcode == brx)
    return Flow::Switch;
  if (in.opcode == ret || in.opcode == exit || in.opcode == trap)
    return Flow::Leave;
  return Flow::None;
}

} // namespace

Cfg buildCfg(const Function &f) {
  Cfg g;
  const uint32_t n = static_cast<uint32_t>(f.instrs.size());
  g.blockOf.assign(n, 0);
  if (n == 0)
    return g;

  // Leaders: the entry, every label target, and whatever follows a transfer.
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (const Label &l : f.labels)
    if (l.instrIndex < n)
      leader[l.instrIndex] = true;
  for (uint32_t i = 0; i < n; ++i)
    if (flowOf(f.instrs[i]) != Flow::None)
      leader[i + 1] = true;
  for (uint32_t i = 0; i < n; ++i) {
    if (leader[i]) {
      g.blocks.emplace_back();
      g.blocks.back().first = i;
    }
    g.blockOf[i] = static_cast<uint32_t>(g.blocks.size() - 1);
    g.blocks.back().end = i + 1;
  }

  auto blockAtLabel = [&](uint32_t label) {
    uint32_t at = f.labels[label].instrIndex;
    return at < n ? g.blockOf[at] : Cfg::kExit; // a label after the last instruction
  };
  const uint32_t nb = static_cast<uint32_t>(g.blocks.size());
  for (uint32_t b = 0; b < nb; ++b) {
    BasicBlock &bb = g.blocks[b];
    const Instruction &last = f.instrs[bb.end - 1];
    uint32_t next = bb.end < n ? g.blockOf[bb.end] : Cfg::kExit;
    bool guarded = !last.guard.empty();
    switch (flowOf(last)) {
    case Flow::None:
      bb.succs.push_back(next);
      break;
    case Flow::Branch:
      bb.succs.push_back(last.target >= 0 ? blockAtLabel(static_cast<uint32_t>(last.target))
                                          : Cfg::kExit);
      if (guarded)
        bb.succs.push_back(next);
      break;
    case Flow::Switch:
      if (last.target >= 0)
        for (uint32_t l : f.targets[static_cast<uint32_t>(last.target)].labels)
          bb.succs.push_back(blockAtLabel(l));
      if (guarded || bb.succs.empty())
        bb.succs.push_back(next);
      break;
    case Flow::Leave:
      bb.succs.push_back(Cfg::kExit);
      if (guarded)
        bb.succs.push_back(next);
      break;
    }
    // Keep the first occurrence of each successor (a branch to the next block).
    std::vector<uint32_t> uniq;
    for (uint32_t s : bb.succs)
      if (std::find(uniq.begin(), uniq.end(), s) == uniq.end())
        uniq.push_back(s);
    bb.succs = std::move(uniq);
    for (uint32_t s : bb.succs)
      if (s != Cfg::kExit)
        g.blocks[s].preds.push_back(b);
  }

  // Post-dominators: dominators of the reverse graph rooted at the virtual exit (node nb),
  // by the Cooper-Harvey-Kennedy iteration over a reverse postorder of that graph.
  const uint32_t exitNode = nb;
  std::vector<std::vector<uint32_t>> rsucc(nb + 1), rpred(nb + 1);
  for (uint32_t b = 0; b < nb; ++b)
    for (uint32_t s : g.blocks[b].succs) {
      uint32_t t = s == Cfg::kExit ? exitNode : s;
      rsucc[t].push_back(b); // reverse edge t -> b
      rpred[b].push_back(t);
    }
  std::vector<uint32_t> order; // postorder of the reverse graph from the exit
  std::vector<uint8_t> state(nb + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> stack{{exitNode, 0}};
  state[exitNode] = 1;
  while (!stack.empty()) {
    auto &[node, next] = stack.back();
    if (next < rsucc[node].size()) {
      uint32_t m = rsucc[node][next++];
      if (!state[m]) {
        state[m] = 1;
        stack.push_back({m, 0});
      }
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  std::vector<uint32_t> po(nb + 1, 0); // postorder number
  for (uint32_t i = 0; i < order.size(); ++i)
    po[order[i]] = i;
  const uint32_t kUndef = 0xfffffffeu;
  std::vector<uint32_t> idom(nb + 1, kUndef);
  idom[exitNode] = exitNode;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po[a] < po[b])
        a = idom[a];
      while (po[b] < po[a])
        b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      uint32_t b = *it;
      if (b == exitNode)
        continue;
      uint32_t nd = kUndef;
      for (uint32_t p : rpred[b]) // reverse-graph predecessors are forward successors
        if (idom[p] != kUndef)
          nd = nd == kUndef ? p : intersect(p, nd);
      if (nd != kUndef && idom[b] != nd) {
        idom[b] = nd;
        changed = true;
      }
    }
  }
  g.ipdom.assign(nb, Cfg::kExit);
  for (uint32_t b = 0; b < nb; ++b)
    if (idom[b] != kUndef && idom[b] != exitNode)
      g.ipdom[b] = idom[b];
  return g;
}

} // namespace ptxsim::ptx
