// Graph allocations (memory alloc and free nodes) and conditional handles (GraphObjects.h).

#include "runtime/api/GraphObjects.h"

#include <algorithm>

namespace ptxsim::runtime::graphs {

// --- memory and conditional nodes --------------------------------------------------------------

/// The address a new alloc node of `bytes` in graph `owner`, depending on `deps`, can share
/// with earlier alloc nodes of that graph, or null. CUDA reuses a virtual address within a graph
/// for allocations whose lifetimes cannot overlap (CUDA Programming Guide, Graph Memory Nodes:
/// address reuse within a graph); here: memory that `owner` alone frees, large enough, whose
/// every alloc node in `owner` has its free node among the new node's ancestors. Of several, the
/// smallest that fits, then the lowest address (deterministic).
void *reusableGraphAddress(const GraphObj *owner, const std::vector<NodeObj *> &deps,
                           size_t bytes) {
  std::unordered_set<const NodeObj *> before;
  std::vector<const NodeObj *> stack(deps.begin(), deps.end());
  bool anyFree = false;
  while (!stack.empty()) {
    const NodeObj *x = stack.back();
    stack.pop_back();
    if (!before.insert(x).second)
      continue;
    anyFree |= x->kind == NodeKind::MemFree;
    for (const NodeObj *d : x->deps)
      stack.push_back(d);
  }
  if (!anyFree)
    return nullptr;
  void *best = nullptr;
  size_t bestBytes = 0;
  for (const NodeObj *f : before) {
    if (f->kind != NodeKind::MemFree || f->memPtr == best)
      continue;
    auto it = gs().graphAllocs.find(f->memPtr);
    if (it == gs().graphAllocs.end())
      continue;
    const GraphAlloc &a = it->second;
    if (a.owner != owner || a.otherFrees || a.bytes < bytes)
      continue;
    if (best && (a.bytes > bestBytes || (a.bytes == bestBytes && f->memPtr > best)))
      continue;
    unsigned allocs = 0, freed = 0;
    for (const auto &m : owner->nodes)
      if (m->memPtr == f->memPtr) {
        allocs += m->kind == NodeKind::MemAlloc;
        freed += m->kind == NodeKind::MemFree && before.count(m.get());
      }
    if (allocs && allocs == freed) {
      best = f->memPtr;
      bestBytes = a.bytes;
    }
  }
  return best;
}

/// Makes `n` an allocation node of `bytes` for graph `owner` that will depend on `deps`: the
/// memory is committed now and its address is the node's for good (CUDA fixes it at node
/// creation too); it may be the address of earlier alloc nodes freed before it.
cudaError_t makeAllocNode(Context &ctx, NodeObj &n, const GraphObj *owner, size_t bytes,
                          const cudaMemPoolProps *props, const std::vector<NodeObj *> &deps) {
  if (!bytes)
    return cudaErrorInvalidValue;
  if (props) {
    if (props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice ||
        props->handleTypes != cudaMemHandleTypeNone)
      return cudaErrorInvalidValue;
    if (props->location.id != 0)
      return cudaErrorInvalidDevice;
  }
  void *p = reusableGraphAddress(owner, deps, bytes);
  if (p) {
    ++gs().graphAllocs[p].refs;
  } else {
    uint64_t a = ctx.engine().memory().allocate(bytes, ptxsim::ptx::exec::AllocKind::Device);
    if (!a)
      return cudaErrorMemoryAllocation;
    p = ptxsim::ptx::exec::DeviceMemory::host(a);
    GraphAlloc &ga = gs().graphAllocs[p];
    ga = GraphAlloc{};
    ga.bytes = bytes;
    ga.owner = owner;
    ga.refs = 1;
  }
  n.kind = NodeKind::MemAlloc;
  n.memPtr = p;
  n.memBytes = bytes;
  if (props) {
    n.memProps = *props;
  } else {
    n.memProps.allocType = cudaMemAllocationTypePinned;
    n.memProps.location.type = cudaMemLocationTypeDevice;
  }
  return cudaSuccess;
}

/// Makes `n` a node of graph `g` freeing graph allocation `p`, with CUDA's rules: only graph
/// allocations, once per graph (once per alloc node of `g` at that address, when `g` reuses
/// it), and never in both the owning graph and another one.
cudaError_t makeFreeNode(NodeObj &n, const GraphObj *g, void *p) {
  auto it = gs().graphAllocs.find(p);
  if (!p || it == gs().graphAllocs.end())
    return cudaErrorInvalidValue;
  unsigned allocsHere = 0, freesHere = 0;
  for (const auto &other : g->nodes)
    if (other->memPtr == p) {
      allocsHere += other->kind == NodeKind::MemAlloc;
      freesHere += other->kind == NodeKind::MemFree;
    }
  if (freesHere && freesHere >= allocsHere)
    return cudaErrorInvalidValue;
  GraphAlloc &a = it->second;
  if (a.owner == g ? a.otherFrees != 0 : a.ownerFrees != 0)
    return cudaErrorInvalidValue;
  ++(a.owner == g ? a.ownerFrees : a.otherFrees);
  n.kind = NodeKind::MemFree;
  n.memPtr = p;
  n.countedFree = true;
  return cudaSuccess;
}

/// Makes `n` a conditional node with fresh, empty body graphs; writes their handles to
/// p.phGraph_out (an array the node owns).
cudaError_t makeConditional(NodeObj &n, cudaConditionalNodeParams &p) {
  if (!gs().condHandles.count(p.handle))
    return cudaErrorInvalidValue;
  bool sizeOk = p.type == cudaGraphCondTypeIf       ? p.size == 1 || p.size == 2
                : p.type == cudaGraphCondTypeWhile  ? p.size == 1
                : p.type == cudaGraphCondTypeSwitch ? p.size >= 1
                                                    : false;
  if (!sizeOk)
    return cudaErrorInvalidValue;
  n.kind = NodeKind::Conditional;
  n.condHandle = p.handle;
  n.condType = p.type;
  for (unsigned i = 0; i < p.size; ++i) {
    auto b = std::make_unique<GraphObj>();
    b->ownedByNode = true;
    gs().graphs.insert(b.get());
    n.bodyHandles.push_back(reinterpret_cast<cudaGraph_t>(b.get()));
    n.bodies.push_back(std::move(b));
  }
  p.phGraph_out = n.bodyHandles.data();
  return cudaSuccess;
}

/// Graph allocations made by the alloc nodes of `g` and the graphs inside it.
void allocsOf(const GraphObj &g, std::vector<void *> &out) {
  for (const auto &n : g.nodes) {
    if (n->kind == NodeKind::MemAlloc)
      out.push_back(n->memPtr);
    if (n->child)
      allocsOf(*n->child, out);
    for (const auto &b : n->bodies)
      allocsOf(*b, out);
  }
}

/// Ends the lifetime of live graph allocation `it` (cudaFree, cudaFreeAsync, auto-free).
void endGraphAlloc(void *p) {
  GraphAlloc &a = gs().graphAllocs[p];
  a.live = false;
  gs().graphMem.live -= a.liveBytes;
  maybeReleaseGraphAlloc(p);
}

void pruneLive(Context &ctx, PoolObj &p) {
  auto &mem = ctx.engine().memory();
  for (auto it = p.live.begin(); it != p.live.end();) {
    const auto *a = mem.find(reinterpret_cast<uint64_t>(it->first));
    if (!a || a->base != reinterpret_cast<uint64_t>(it->first))
      it = p.live.erase(it);
    else
      ++it;
  }
}

uint64_t usedBytes(const PoolObj &p) {
  uint64_t sum = 0;
  for (auto &kv : p.live)
    sum += kv.second;
  return sum;
}

PoolObj *defaultPool() {
  if (!gs().defaultPool) {
    gs().defaultPool = new PoolObj;
    gs().defaultPool->isDefault = true;
    gs().defaultPool->props.allocType = cudaMemAllocationTypePinned;
    gs().defaultPool->props.location.type = cudaMemLocationTypeDevice;
    gs().defaultPool->props.location.id = 0;
    gs().pools.insert(gs().defaultPool);
    gs().currentPool = gs().defaultPool;
  }
  return gs().defaultPool;
}

} // namespace ptxsim::runtime::graphs
