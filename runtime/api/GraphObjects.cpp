// Graph objects: the state that owns them, nodes, cloning, ordering, dependencies and node
// parameters (GraphObjects.h).

#include "runtime/api/GraphObjects.h"

#include <algorithm>
#include <cstring>
#include <queue>

namespace ptxsim::runtime::graphs {

void releaseUserObj(UserObj *o, unsigned count) {
  o->refs -= count;
  if (o->refs)
    return;
  gs().userObjs.erase(o);
  gs().deadUserObjs.insert(o);
  // CUDA runs destructors on a thread of its own and forbids CUDA calls in them; running it
  // here (with the context lock held) is within that contract
  if (o->destroy)
    o->destroy(o->ptr);
  delete o;
}

/// The pool size that holds `bytes` of live allocations.
uint64_t graphPoolFor(uint64_t bytes) {
  return (bytes + kGraphPoolStep - 1) / kGraphPoolStep * kGraphPoolStep;
}

/// Gives the device memory of a graph allocation back when nothing refers to it any more.
void maybeReleaseGraphAlloc(void *p) {
  auto &allocs = gs().graphAllocs;
  auto it = allocs.find(p);
  if (it == allocs.end() || it->second.refs || it->second.live)
    return;
  allocs.erase(it);
  Context::get().engine().memory().release(reinterpret_cast<uint64_t>(p));
}

NodeObj::~NodeObj() {
  if (kind == NodeKind::MemAlloc) {
    auto it = gs().graphAllocs.find(memPtr);
    if (it != gs().graphAllocs.end()) {
      --it->second.refs;
      maybeReleaseGraphAlloc(memPtr);
    }
  } else if (kind == NodeKind::MemFree && countedFree) {
    auto it = gs().graphAllocs.find(memPtr);
    if (it != gs().graphAllocs.end())
      --(it->second.owner == graph ? it->second.ownerFrees : it->second.otherFrees);
  }
}

bool validGraph(cudaGraph_t g) { return g && gs().graphs.count(graphOf(g)); }
bool validNode(cudaGraphNode_t n) { return n && gs().nodes.count(nodeOf(n)); }

void forgetNodes(GraphObj &g) {
  for (auto &n : g.nodes) {
    gs().nodes.erase(n.get());
    if (n->child)
      forgetNodes(*n->child);
    for (auto &b : n->bodies) {
      forgetNodes(*b);
      gs().graphs.erase(b.get());
    }
  }
}

/// Drops the graph of a capture sequence that cannot be ended, unless it is the user's.
void dropSessionGraph(Session &sess) {
  if (!sess.ownsGraph)
    return;
  forgetNodes(*sess.graph);
  gs().graphs.erase(sess.graph);
  delete sess.graph;
}

/// Whether `g` (or a graph nested in it) has a node of kind `k`.
bool hasKind(const GraphObj &g, NodeKind k) {
  for (const auto &n : g.nodes) {
    if (n->kind == k || (n->child && hasKind(*n->child, k)))
      return true;
    for (const auto &b : n->bodies)
      if (hasKind(*b, k))
        return true;
  }
  return false;
}

/// Points argPtrs at each parameter's slot in the packed buffer.
void bindArgs(NodeObj &n) {
  n.argPtrs.clear();
  if (!n.k || !n.k->kernel)
    return;
  const auto &kern = *n.k->kernel;
  for (size_t i = 0; i < kern.paramOffsets.size(); ++i)
    n.argPtrs.push_back(n.params.data() + kern.paramOffsets[i]);
}

std::unique_ptr<GraphObj> cloneGraph(const GraphObj &src,
                                     std::unordered_map<const NodeObj *, NodeObj *> *map);

/// Copies a node's parameters (not its graph or dependencies).
void copyParams(NodeObj &to, const NodeObj &from) {
  if (to.kind == NodeKind::MemAlloc && to.memPtr) {
    --gs().graphAllocs[to.memPtr].refs;
    maybeReleaseGraphAlloc(to.memPtr);
  }
  if (from.kind == NodeKind::MemAlloc)
    ++gs().graphAllocs[from.memPtr].refs;
  to.memPtr = from.memPtr;
  to.memBytes = from.memBytes;
  to.memProps = from.memProps;
  to.condHandle = from.condHandle;
  to.condType = from.condType;
  to.bodies.clear();
  to.bodyHandles.clear();
  for (const auto &b : from.bodies) {
    to.bodies.push_back(cloneGraph(*b, nullptr));
    to.bodyHandles.push_back(reinterpret_cast<cudaGraph_t>(to.bodies.back().get()));
  }
  to.kind = from.kind;
  to.func = from.func;
  to.k = from.k;
  to.grid = from.grid;
  to.block = from.block;
  to.shmem = from.shmem;
  to.cooperative = from.cooperative;
  to.accessPolicyWindow = from.accessPolicyWindow;
  to.priority = from.priority;
  to.memSyncDomain = from.memSyncDomain;
  to.memSyncDomainMap = from.memSyncDomainMap;
  to.params = from.params;
  bindArgs(to);
  to.dst = from.dst;
  to.src = from.src;
  to.dpitch = from.dpitch;
  to.spitch = from.spitch;
  to.width = from.width;
  to.height = from.height;
  to.depth = from.depth;
  to.dslice = from.dslice;
  to.sslice = from.sslice;
  to.copyKind = from.copyKind;
  to.memset = from.memset;
  to.host = from.host;
  to.event = from.event;
  to.child.reset();
  if (from.child) {
    to.child = cloneGraph(*from.child, nullptr);
  }
}

/// Deep copy; registers the copy's nodes as live handles (child graph nodes are not handed out,
/// but registering them is harmless).
std::unique_ptr<GraphObj> cloneGraph(const GraphObj &src,
                                     std::unordered_map<const NodeObj *, NodeObj *> *map) {
  auto g = std::make_unique<GraphObj>();
  g->condHandles = src.condHandles;
  g->userRefs = src.userRefs;
  for (auto &r : g->userRefs)
    r.first->refs += r.second;
  std::unordered_map<const NodeObj *, NodeObj *> local;
  for (const auto &n : src.nodes) {
    auto c = std::make_unique<NodeObj>();
    c->graph = g.get();
    copyParams(*c, *n);
    c->clonedFrom = n.get();
    local[n.get()] = c.get();
    gs().nodes.insert(c.get());
    g->nodes.push_back(std::move(c));
  }
  for (size_t i = 0; i < src.nodes.size(); ++i)
    for (NodeObj *d : src.nodes[i]->deps)
      g->nodes[i]->deps.push_back(local.at(d));
  if (map)
    for (auto &kv : local)
      (*map)[kv.first] = kv.second;
  return g;
}

/// Topological order by Kahn's algorithm, ready nodes taken in creation order. False on a cycle.
bool topoOrder(const GraphObj &g, std::vector<NodeObj *> &out) {
  size_t n = g.nodes.size();
  std::unordered_map<const NodeObj *, size_t> index;
  for (size_t i = 0; i < n; ++i)
    index[g.nodes[i].get()] = i;
  std::vector<size_t> indeg(n, 0);
  std::vector<std::vector<size_t>> dependents(n);
  for (size_t i = 0; i < n; ++i)
    for (NodeObj *d : g.nodes[i]->deps) {
      ++indeg[i];
      dependents[index.at(d)].push_back(i);
    }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i)
    if (!indeg[i])
      ready.push(i);
  out.clear();
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    out.push_back(g.nodes[i].get());
    for (size_t j : dependents[i])
      if (--indeg[j] == 0)
        ready.push(j);
  }
  return out.size() == n;
}

bool acyclic(const GraphObj &g) {
  std::vector<NodeObj *> order;
  if (!topoOrder(g, order))
    return false;
  for (const auto &n : g.nodes) {
    if (n->child && !acyclic(*n->child))
      return false;
    for (const auto &b : n->bodies)
      if (!acyclic(*b))
        return false;
  }
  return true;
}

/// Validates a dependency list for a node of `g`.
cudaError_t checkDeps(GraphObj *g, const cudaGraphNode_t *deps, size_t num) {
  if (num && !deps)
    return cudaErrorInvalidValue;
  std::unordered_set<NodeObj *> seen;
  for (size_t i = 0; i < num; ++i) {
    if (!validNode(deps[i]) || nodeOf(deps[i])->graph != g || !seen.insert(nodeOf(deps[i])).second)
      return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

NodeObj *addNode(GraphObj *g, std::unique_ptr<NodeObj> n, const cudaGraphNode_t *deps, size_t num) {
  n->graph = g;
  for (size_t i = 0; i < num; ++i)
    n->deps.push_back(nodeOf(deps[i]));
  NodeObj *raw = n.get();
  gs().nodes.insert(raw);
  g->nodes.push_back(std::move(n));
  return raw;
}

/// Common front of the cudaGraphAdd*Node calls (under the lock).
cudaError_t addFront(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                     size_t num) {
  if (!out || !validGraph(graph))
    return cudaErrorInvalidValue;
  return checkDeps(graphOf(graph), deps, num);
}

/// Fills a kernel node from launch parameters: resolves the kernel and packs the arguments.
cudaError_t setKernel(Context &ctx, NodeObj &n, const cudaKernelNodeParams &p, KernelEntry *known) {
  KernelEntry *k = known ? known : ctx.findKernel(p.func);
  if (!k)
    return Context::unknownFunction(p.func);
  if (!k->kernel) {
    cudaError_t e = ctx.ensureLoaded();
    if (!k->kernel)
      return e ? e : cudaErrorInvalidDeviceFunction;
  }
  if (p.extra) {
    std::fprintf(stderr, "ptxsim: kernel node parameters in the 'extra' form are not supported\n");
    return cudaErrorNotSupported;
  }
  const auto &kern = *k->kernel;
  size_t np = kern.paramOffsets.size();
  if (np && !p.kernelParams)
    return cudaErrorInvalidValue;
  std::vector<uint8_t> buf(kern.paramBytes);
  for (size_t i = 0; i < np; ++i) {
    if (!p.kernelParams[i])
      return cudaErrorInvalidValue;
    std::memcpy(buf.data() + kern.paramOffsets[i], p.kernelParams[i], kern.paramSizes[i]);
  }
  n.kind = NodeKind::Kernel;
  n.func = p.func;
  n.k = k;
  n.grid = p.gridDim;
  n.block = p.blockDim;
  n.shmem = p.sharedMemBytes;
  n.params = std::move(buf);
  bindArgs(n);
  return cudaSuccess;
}

void set1D(NodeObj &n, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  n.kind = NodeKind::Memcpy;
  n.dst = static_cast<char *>(dst);
  n.src = static_cast<const char *>(src);
  n.width = n.dpitch = n.spitch = count;
  n.height = n.depth = 1;
  n.dslice = n.sslice = 0;
  n.copyKind = kind;
}

/// Memcpy node parameters from a cudaMemcpy3DParms (pointers only, no CUDA arrays).
cudaError_t setMemcpy3D(NodeObj &n, const cudaMemcpy3DParms *p) {
  if (!p)
    return cudaErrorInvalidValue;
  if (p->srcArray || p->dstArray) {
    std::fprintf(stderr, "ptxsim: graph memcpy nodes with CUDA arrays are not supported\n");
    return cudaErrorNotSupported;
  }
  const cudaExtent &x = p->extent;
  if (!p->dstPtr.ptr || !p->srcPtr.ptr || !x.width || !x.height || !x.depth ||
      unsigned(p->kind) > cudaMemcpyDefault)
    return cudaErrorInvalidValue;
  size_t dpitch = p->dstPtr.pitch ? p->dstPtr.pitch : x.width;
  size_t spitch = p->srcPtr.pitch ? p->srcPtr.pitch : x.width;
  if (x.width + p->dstPos.x > dpitch || x.width + p->srcPos.x > spitch)
    return cudaErrorInvalidPitchValue;
  size_t dys = p->dstPtr.ysize ? p->dstPtr.ysize : x.height;
  size_t sys = p->srcPtr.ysize ? p->srcPtr.ysize : x.height;
  n.kind = NodeKind::Memcpy;
  n.dst =
      static_cast<char *>(p->dstPtr.ptr) + (p->dstPos.z * dys + p->dstPos.y) * dpitch + p->dstPos.x;
  n.src = static_cast<const char *>(p->srcPtr.ptr) + (p->srcPos.z * sys + p->srcPos.y) * spitch +
          p->srcPos.x;
  n.dpitch = dpitch;
  n.spitch = spitch;
  n.width = x.width;
  n.height = x.height;
  n.depth = x.depth;
  n.dslice = dys * dpitch;
  n.sslice = sys * spitch;
  n.copyKind = p->kind;
  if (n.height == 1 && n.depth == 1)
    n.dpitch = n.spitch = n.width;
  return cudaSuccess;
}

cudaError_t checkMemset(const cudaMemsetParams &p) {
  if (!p.dst || (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4))
    return cudaErrorInvalidValue;
  if (p.height > 1 && p.width * p.elementSize > p.pitch)
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

/// The exec graph's copy of `node` when it has kind `kind`, else null (under the lock).
NodeObj *execNode(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, NodeKind kind) {
  if (!hGraphExec || !gs().execs.count(execOf(hGraphExec)) || !validNode(node))
    return nullptr;
  auto &m = execOf(hGraphExec)->fromOrig;
  auto it = m.find(nodeOf(node));
  return it == m.end() || it->second->kind != kind ? nullptr : it->second;
}

} // namespace ptxsim::runtime::graphs
