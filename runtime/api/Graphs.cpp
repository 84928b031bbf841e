// CUDA graphs (explicit construction, instantiation, launch, update), stream capture and memory
// pools. A graph launch queues its nodes on the stream (Streams.cpp), one at a time, in a
// deterministic topological order (Kahn's algorithm, ties broken by node
// creation order). While a stream captures, the launch and async-copy entry points record their
// work into the capture graph through the hooks in Graphs.h instead of running it.

#include "runtime/api/Graphs.h"
#include "runtime/api/Api.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace ptxsim::runtime;

namespace {

enum class NodeKind {
  Kernel, Memcpy, Memset, Host, Empty, Child, EventRecord, EventWait, MemAlloc, MemFree, Conditional
};

struct GraphObj;

/// A conditional handle (cudaGraphConditionalHandleCreate). The handle's value is the device
/// address of a 32-bit slot holding the condition, so the device-side cudaGraphSetConditional
/// is a store to that address (ptx/exec/DeviceRuntime.cpp) and a conditional node reads it.
struct CondHandle {
  cudaGraphConditionalHandle handle = 0;
  unsigned defaultValue = 0;
  unsigned flags = 0; ///< cudaGraphCondAssignDefault: the default is stored at each launch
};

/// Memory of a graph allocation node. The address is fixed when the node is created and the
/// memory stays committed while any node (or an unfreed allocation) refers to it; `live` is
/// the CUDA lifetime: from the alloc node's execution to its free (free node, cudaFree,
/// cudaFreeAsync or an auto-free launch). Alloc nodes of one graph whose lifetimes are ordered
/// (the later one depends on the free of the earlier one) share the address, as in CUDA.
struct GraphAlloc {
  size_t bytes = 0;                ///< the memory committed: the largest alloc node's size
  size_t liveBytes = 0;            ///< while live: the size of the alloc node that ran
  const GraphObj *owner = nullptr; ///< the user graph holding the alloc nodes
  unsigned refs = 0;               ///< alloc nodes (user graphs and their exec copies)
  unsigned ownerFrees = 0;         ///< free nodes in the owning graph
  unsigned otherFrees = 0;         ///< free nodes in other user graphs
  bool live = false;
};

struct NodeObj {
  GraphObj *graph = nullptr;
  NodeKind kind = NodeKind::Empty;
  std::vector<NodeObj *> deps;
  // kernel: the node owns a packed copy of the arguments; argPtrs point into it
  const void *func = nullptr;
  KernelEntry *k = nullptr;
  dim3 grid, block;
  unsigned shmem = 0;
  bool cooperative = false;
  // kernel-node attributes (cudaGraphKernelNodeSetAttribute): hints that change no result
  cudaAccessPolicyWindow accessPolicyWindow{};
  int priority = 0;
  cudaLaunchMemSyncDomain memSyncDomain = cudaLaunchMemSyncDomainDefault;
  cudaLaunchMemSyncDomainMap memSyncDomainMap{0, 1};
  std::vector<uint8_t> params;
  std::vector<void *> argPtrs;
  // memcpy: `depth` slices of `height` rows of `width` bytes
  char *dst = nullptr;
  const char *src = nullptr;
  size_t dpitch = 0, spitch = 0, width = 0, height = 1, depth = 1, dslice = 0, sslice = 0;
  cudaMemcpyKind copyKind = cudaMemcpyDefault;
  // memset
  cudaMemsetParams memset{};
  // host
  cudaHostNodeParams host{};
  // child graph (owned copy)
  std::unique_ptr<GraphObj> child;
  // event record / wait
  cudaEvent_t event = nullptr;
  // memory alloc (the allocation; props as given) and free (memPtr)
  void *memPtr = nullptr;
  size_t memBytes = 0; ///< alloc nodes: the size asked for
  cudaMemPoolProps memProps{};
  bool countedFree = false; ///< a free node of a user graph, counted in its GraphAlloc
  // conditional: the handle, the kind and the body graphs (bodyHandles is the array that
  // cudaGraphAddNode returns in phGraph_out; it lives as long as the node)
  cudaGraphConditionalHandle condHandle = 0;
  cudaGraphConditionalNodeType condType = cudaGraphCondTypeIf;
  std::vector<std::unique_ptr<GraphObj>> bodies;
  std::vector<cudaGraph_t> bodyHandles;
  // exec graphs only: cudaGraphNodeSetEnabled (kernel, memcpy and memset nodes)
  bool enabled = true;
  // cudaGraphClone copies: the node this one was cloned from (cudaGraphNodeFindInClone)
  const NodeObj *clonedFrom = nullptr;

  NodeObj() = default;
  NodeObj(const NodeObj &) = delete;
  NodeObj &operator=(const NodeObj &) = delete;
  ~NodeObj();
};

/// A user object (cudaUserObjectCreate): a reference count and a destructor.
struct UserObj {
  void *ptr = nullptr;
  cudaHostFn_t destroy = nullptr;
  unsigned refs = 0;
};

/// Drops `count` references of `o`; the last one runs its destructor. Contract: `o` has at
/// least `count` references.
void releaseUserObj(UserObj *o, unsigned count);

struct GraphObj {
  std::vector<std::unique_ptr<NodeObj>> nodes; ///< in creation order
  std::vector<CondHandle> condHandles;         ///< handles created for this graph
  bool ownedByNode = false; ///< a conditional node's body: CUDA owns it, the user cannot destroy it
  /// references the graph holds on user objects (cudaGraphRetainUserObject); clones and
  /// executable graphs hold their own
  std::vector<std::pair<UserObj *, unsigned>> userRefs;

  GraphObj() = default;
  GraphObj(const GraphObj &) = delete;
  GraphObj &operator=(const GraphObj &) = delete;
  ~GraphObj() {
    for (auto &r : userRefs)
      releaseUserObj(r.first, r.second);
  }
};

struct ExecObj {
  std::unique_ptr<GraphObj> g;
  unsigned long long flags = 0; ///< cudaGraphInstantiateWithFlags
  std::unordered_map<const NodeObj *, NodeObj *> fromOrig; ///< source-graph node -> exec node
  const GraphObj *source = nullptr; ///< the graph instantiated (compared only, never followed)
};

/// One capture sequence: begun on `origin`, joined by other streams through events.
struct Session {
  GraphObj *graph = nullptr;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  unsigned long long id = 0;
  cudaStream_t origin = nullptr;
  bool invalidated = false;
  bool ended = false;
  bool ownsGraph = true; ///< false for cudaStreamBeginCaptureToGraph: the user's graph
  /// the last captured work of joined streams destroyed during the capture: their nodes stay
  /// in the graph, and the origin must still have joined them when the capture ends
  std::vector<NodeObj *> departedTails;
};

/// A stream taking part in a capture sequence.
struct Capture {
  std::shared_ptr<Session> sess;
  std::vector<NodeObj *> tail; ///< the dependencies of the next captured node
  std::vector<cudaGraphNode_t> tailHandles;
};

/// An event recorded on a capturing stream: the capture point a waiting stream joins.
struct CapturedEvent {
  std::shared_ptr<Session> sess;
  std::vector<NodeObj *> tail;
};

struct PoolObj {
  cudaMemPoolProps props{};
  bool isDefault = false;
  uint64_t releaseThreshold = 0;
  int reuseFollow = 1, reuseOpportunistic = 1, reuseInternal = 1;
  uint64_t usedHigh = 0, reservedHigh = 0;
  std::unordered_map<void *, size_t> live; ///< allocations made from the pool
};

// All state below is guarded by the context mutex.
/// Built on first use and never destroyed (no static constructor or destructor).
std::unordered_set<GraphObj *> &g_graphsFn() {
  static auto *v = new std::unordered_set<GraphObj *>();
  return *v;
}
/// Built on first use and never destroyed (no static constructor or destructor).
std::unordered_set<NodeObj *> &g_nodesFn() {
  static auto *v = new std::unordered_set<NodeObj *>();
  return *v;
}
/// Built on first use and never destroyed (no static constructor or destructor).
std::unordered_set<ExecObj *> &g_execsFn() {
  static auto *v = new std::unordered_set<ExecObj *>();
  return *v;
}
/// Built on first use and never destroyed (no static constructor or destructor).
std::unordered_map<cudaStream_t, Capture> &g_capturesFn() {
  static auto *v = new std::unordered_map<cudaStream_t, Capture>();
  return *v;
}
/// Built on first use and never destroyed (no static constructor or destructor).
std::unordered_map<cudaEvent_t, CapturedEvent> &g_capturedEventsFn() {
  static auto *v = new std::unordered_map<cudaEvent_t, CapturedEvent>();
  return *v;
}
unsigned long long g_nextCaptureId = 1;
/// Live user objects. Built on first use and never destroyed.
std::unordered_set<UserObj *> &g_userObjsFn() {
  static auto *v = new std::unordered_set<UserObj *>();
  return *v;
}

void releaseUserObj(UserObj *o, unsigned count) {
  o->refs -= count;
  if (o->refs)
    return;
  g_userObjsFn().erase(o);
  // CUDA runs destructors on a thread of its own and forbids CUDA calls in them; running it
  // here (with the context lock held) is within that contract
  if (o->destroy)
    o->destroy(o->ptr);
  delete o;
}
/// Built on first use and never destroyed (no static constructor or destructor).
std::unordered_set<PoolObj *> &g_poolsFn() {
  static auto *v = new std::unordered_set<PoolObj *>();
  return *v;
}
/// Graph allocations by address. Built on first use and never destroyed.
std::unordered_map<void *, GraphAlloc> &g_graphAllocsFn() {
  static auto *v = new std::unordered_map<void *, GraphAlloc>();
  return *v;
}
/// cudaGraphMemAttr* of the device. Graph allocations come from a pool of physical memory that
/// grows in 32 MiB steps to hold the allocations live at once and keeps what it has (whatever
/// the graphs free, and after their executable graphs are destroyed) until cudaDeviceGraphMemTrim
/// gives back what live allocations do not need. An H100 and an H200 report that pool as both
/// the used and the reserved memory (tools/hw/data/h100-2026-11-26: one 400000-byte
/// alloc/free graph launched leaves 33554432 bytes used and reserved until a trim).
struct GraphMemStats {
  uint64_t live = 0; ///< bytes of live graph allocations
  uint64_t pool = 0; ///< the pool: used and reserved memory, a multiple of kGraphPoolStep
  uint64_t usedHigh = 0, reservedHigh = 0;
} g_graphMem;
constexpr uint64_t kGraphPoolStep = 32ull << 20;

/// The pool size that holds `bytes` of live allocations.
uint64_t graphPoolFor(uint64_t bytes) {
  return (bytes + kGraphPoolStep - 1) / kGraphPoolStep * kGraphPoolStep;
}
/// Device memory for conditional-handle slots, handed out 4 bytes at a time from 4 KiB chunks.
char *g_condChunk = nullptr;
size_t g_condChunkUsed = 0;
constexpr size_t kCondChunkBytes = 4096;

/// Gives the device memory of a graph allocation back when nothing refers to it any more.
void maybeReleaseGraphAlloc(void *p) {
  auto &allocs = g_graphAllocsFn();
  auto it = allocs.find(p);
  if (it == allocs.end() || it->second.refs || it->second.live)
    return;
  allocs.erase(it);
  Context::get().engine().memory().release(reinterpret_cast<uint64_t>(p));
}

PoolObj *g_defaultPool = nullptr;
PoolObj *g_currentPool = nullptr;
thread_local cudaStreamCaptureMode t_captureMode = cudaStreamCaptureModeGlobal;

GraphObj *graphOf(cudaGraph_t g) { return reinterpret_cast<GraphObj *>(g); }
NodeObj *nodeOf(cudaGraphNode_t n) { return reinterpret_cast<NodeObj *>(n); }
ExecObj *execOf(cudaGraphExec_t e) { return reinterpret_cast<ExecObj *>(e); }
PoolObj *poolOf(cudaMemPool_t p) { return reinterpret_cast<PoolObj *>(p); }
cudaGraphNode_t handle(NodeObj *n) { return reinterpret_cast<cudaGraphNode_t>(n); }

NodeObj::~NodeObj() {
  if (kind == NodeKind::MemAlloc) {
    auto it = g_graphAllocsFn().find(memPtr);
    if (it != g_graphAllocsFn().end()) {
      --it->second.refs;
      maybeReleaseGraphAlloc(memPtr);
    }
  } else if (kind == NodeKind::MemFree && countedFree) {
    auto it = g_graphAllocsFn().find(memPtr);
    if (it != g_graphAllocsFn().end())
      --(it->second.owner == graph ? it->second.ownerFrees : it->second.otherFrees);
  }
}

bool validGraph(cudaGraph_t g) { return g && g_graphsFn().count(graphOf(g)); }
bool validNode(cudaGraphNode_t n) { return n && g_nodesFn().count(nodeOf(n)); }

void forgetNodes(GraphObj &g) {
  for (auto &n : g.nodes) {
    g_nodesFn().erase(n.get());
    if (n->child)
      forgetNodes(*n->child);
    for (auto &b : n->bodies) {
      forgetNodes(*b);
      g_graphsFn().erase(b.get());
    }
  }
}

/// Drops the graph of a capture sequence that cannot be ended, unless it is the user's.
void dropSessionGraph(Session &sess) {
  if (!sess.ownsGraph)
    return;
  forgetNodes(*sess.graph);
  g_graphsFn().erase(sess.graph);
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
    --g_graphAllocsFn()[to.memPtr].refs;
    maybeReleaseGraphAlloc(to.memPtr);
  }
  if (from.kind == NodeKind::MemAlloc)
    ++g_graphAllocsFn()[from.memPtr].refs;
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
    g_nodesFn().insert(c.get());
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
  g_nodesFn().insert(raw);
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
  n.dst = static_cast<char *>(p->dstPtr.ptr) + (p->dstPos.z * dys + p->dstPos.y) * dpitch +
          p->dstPos.x;
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
    auto it = g_graphAllocsFn().find(f->memPtr);
    if (it == g_graphAllocsFn().end())
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
    ++g_graphAllocsFn()[p].refs;
  } else {
    uint64_t a = ctx.engine().memory().allocate(bytes, ptxsim::ptx::exec::AllocKind::Device);
    if (!a)
      return cudaErrorMemoryAllocation;
    p = ptxsim::ptx::exec::DeviceMemory::host(a);
    GraphAlloc &ga = g_graphAllocsFn()[p];
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
  auto it = g_graphAllocsFn().find(p);
  if (!p || it == g_graphAllocsFn().end())
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

/// Every conditional handle created (their slots are never reused).
std::unordered_set<cudaGraphConditionalHandle> &g_condHandlesFn() {
  static auto *v = new std::unordered_set<cudaGraphConditionalHandle>();
  return *v;
}

/// Makes `n` a conditional node with fresh, empty body graphs; writes their handles to
/// p.phGraph_out (an array the node owns).
cudaError_t makeConditional(NodeObj &n, cudaConditionalNodeParams &p) {
  if (!g_condHandlesFn().count(p.handle))
    return cudaErrorInvalidValue;
  bool sizeOk = p.type == cudaGraphCondTypeIf      ? p.size == 1 || p.size == 2
                : p.type == cudaGraphCondTypeWhile ? p.size == 1
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
    g_graphsFn().insert(b.get());
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
  GraphAlloc &a = g_graphAllocsFn()[p];
  a.live = false;
  g_graphMem.live -= a.liveBytes;
  maybeReleaseGraphAlloc(p);
}

// --- execution (the lock is taken per node: host nodes run without it) -----------------------

cudaError_t runGraph(const GraphObj &g, cudaStream_t s);

cudaError_t runNode(const NodeObj &n, cudaStream_t s) {
  if (!n.enabled)
    return cudaSuccess; // a disabled node acts as an empty node
  switch (n.kind) {
  case NodeKind::Empty:
    return cudaSuccess;
  case NodeKind::EventRecord:
    return cudaEventRecord(n.event, s);
  case NodeKind::EventWait:
    return cudaStreamWaitEvent(s, n.event, 0);
  case NodeKind::Host: {
    // queued like cudaLaunchHostFunc: the device executor runs it when the stream gets there
    PTXSIM_LOCK_ASYNC;
    Work *w = ctx.newWork();
    w->kind = Work::Kind::HostFn;
    w->hostFn = n.host.fn;
    w->userData = n.host.userData;
    ctx.submit(w, s);
    return cudaSuccess;
  }
  case NodeKind::Child:
    return runGraph(*n.child, s);
  case NodeKind::MemAlloc: {
    PTXSIM_LOCK; // after the work queued before it (a free returns memory to the arena)
    GraphAlloc &a = g_graphAllocsFn()[n.memPtr];
    if (a.live)
      return cudaErrorInvalidValue; // still allocated from an earlier execution
    a.live = true;
    a.liveBytes = n.memBytes;
    g_graphMem.live += a.liveBytes;
    g_graphMem.pool = std::max(g_graphMem.pool, graphPoolFor(g_graphMem.live));
    g_graphMem.usedHigh = std::max(g_graphMem.usedHigh, g_graphMem.pool);
    g_graphMem.reservedHigh = std::max(g_graphMem.reservedHigh, g_graphMem.pool);
    return cudaSuccess;
  }
  case NodeKind::MemFree: {
    PTXSIM_LOCK; // after the work queued before it (a free returns memory to the arena)
    auto it = g_graphAllocsFn().find(n.memPtr);
    if (it == g_graphAllocsFn().end() || !it->second.live)
      return cudaErrorInvalidValue; // freed twice: CUDA leaves this undefined
    it->second.live = false;
    g_graphMem.live -= it->second.liveBytes; // the pool keeps the memory
    maybeReleaseGraphAlloc(n.memPtr);
    return cudaSuccess;
  }
  case NodeKind::Conditional: {
    // the lock drains the queue: kernels before this node have finished, so the slot holds
    // the value they set
    {
      PTXSIM_LOCK;
      if (!g_condHandlesFn().count(n.condHandle))
        return cudaErrorInvalidValue; // its slot went with a cudaDeviceReset
    }
    auto value = [&] {
      PTXSIM_LOCK; // the body's kernels queued before this read have run
      uint32_t v;
      std::memcpy(&v, reinterpret_cast<const void *>(n.condHandle), sizeof v);
      return v;
    };
    switch (n.condType) {
    case cudaGraphCondTypeIf: {
      uint32_t v = value();
      if (v)
        return runGraph(*n.bodies[0], s);
      return n.bodies.size() > 1 ? runGraph(*n.bodies[1], s) : cudaSuccess;
    }
    case cudaGraphCondTypeWhile:
      while (value())
        if (cudaError_t e = runGraph(*n.bodies[0], s))
          return e;
      return cudaSuccess;
    case cudaGraphCondTypeSwitch: {
      uint32_t v = value();
      return v < n.bodies.size() ? runGraph(*n.bodies[v], s) : cudaSuccess;
    }
    }
    return cudaSuccess;
  }
  case NodeKind::Kernel: {
    PTXSIM_LOCK_ASYNC;
    void **args = const_cast<void **>(n.argPtrs.data());
    return ctx.launch(n.k, n.grid, n.block, args, n.shmem, s, n.cooperative);
  }
  case NodeKind::Memcpy: {
    if (n.height == 1 && n.depth == 1)
      return cudaMemcpyAsync(n.dst, n.src, n.width, n.copyKind, s);
    for (size_t z = 0; z < n.depth; ++z) {
      cudaError_t e = cudaMemcpy2DAsync(n.dst + z * n.dslice, n.dpitch, n.src + z * n.sslice,
                                        n.spitch, n.width, n.height, n.copyKind, s);
      if (e)
        return e;
    }
    return cudaSuccess;
  }
  case NodeKind::Memset: {
    const cudaMemsetParams &p = n.memset;
    size_t rows = p.height ? p.height : 1;
    size_t rowBytes = p.width * p.elementSize;
    if (p.elementSize == 1) {
      for (size_t r = 0; r < rows; ++r) {
        cudaError_t e =
            cudaMemsetAsync(static_cast<char *>(p.dst) + r * p.pitch, int(p.value), rowBytes, s);
        if (e)
          return e;
      }
      return cudaSuccess;
    }
    PTXSIM_LOCK_CHECKED;
    if (!ctx.validStream(s))
      return cudaErrorInvalidResourceHandle;
    auto &mem = ctx.engine().memory();
    for (size_t r = 0; r < rows; ++r) {
      char *row = static_cast<char *>(p.dst) + r * p.pitch;
      if (rowBytes && !mem.valid(reinterpret_cast<uint64_t>(row), rowBytes))
        return cudaErrorInvalidValue;
      for (size_t i = 0; i < p.width; ++i) {
        if (p.elementSize == 2) {
          uint16_t v = uint16_t(p.value);
          std::memcpy(row + i * 2, &v, 2);
        } else {
          uint32_t v = p.value;
          std::memcpy(row + i * 4, &v, 4);
        }
      }
    }
    return cudaSuccess;
  }
  }
  return cudaSuccess;
}

/// Stores the default of every cudaGraphCondAssignDefault handle of `g` and of the graphs nested
/// in it. A launch does this once, before any node runs: a handle created in a loop's body graph
/// is not put back at each iteration of the body (an H100 runs a while loop nested in a while
/// body only until its handle is first cleared; tools/hw/data/h100-2026-11-26).
void assignDefaults(const GraphObj &g) {
  for (const CondHandle &h : g.condHandles)
    if (h.flags & cudaGraphCondAssignDefault)
      std::memcpy(reinterpret_cast<void *>(h.handle), &h.defaultValue, sizeof h.defaultValue);
  for (const auto &n : g.nodes) {
    if (n->child)
      assignDefaults(*n->child);
    for (const auto &b : n->bodies)
      assignDefaults(*b);
  }
}

cudaError_t runGraph(const GraphObj &g, cudaStream_t s) {
  std::vector<NodeObj *> order;
  {
    PTXSIM_LOCK_ASYNC;
    if (!topoOrder(g, order))
      return cudaErrorInvalidValue;
  }
  for (NodeObj *n : order) {
    cudaError_t e = runNode(*n, s);
    if (e)
      return e;
  }
  return cudaSuccess;
}

// --- capture ----------------------------------------------------------------------------------

/// Capture key of a stream. The legacy stream never captures, so a null stream reaching a hook
/// is a `--default-stream per-thread` program's per-thread stream (its _ptsz entry points pass
/// 0 through); a per-thread capture must see that work.
cudaStream_t captureKey(cudaStream_t s) { return s ? s : cudaStreamPerThread; }

Capture *capturing(cudaStream_t s) {
  auto it = g_capturesFn().find(captureKey(s));
  return it == g_capturesFn().end() ? nullptr : &it->second;
}

/// Appends a captured node after the stream's current tail.
void appendCaptured(Capture &c, std::unique_ptr<NodeObj> n) {
  n->graph = c.sess->graph;
  n->deps = c.tail;
  NodeObj *raw = n.get();
  g_nodesFn().insert(raw);
  c.sess->graph->nodes.push_back(std::move(n));
  c.tail = {raw};
}

/// The result of an operation on a capturing stream, or nullopt when the stream does not capture.
template <class Fill> std::optional<cudaError_t> captureWith(cudaStream_t s, Fill fill) {
  Capture *c = capturing(s);
  if (!c)
    return std::nullopt;
  if (c->sess->invalidated)
    return cudaErrorStreamCaptureInvalidated;
  auto n = std::make_unique<NodeObj>();
  cudaError_t e = fill(*n);
  if (e)
    return e;
  appendCaptured(*c, std::move(n));
  return cudaSuccess;
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
  if (!g_defaultPool) {
    g_defaultPool = new PoolObj;
    g_defaultPool->isDefault = true;
    g_defaultPool->props.allocType = cudaMemAllocationTypePinned;
    g_defaultPool->props.location.type = cudaMemLocationTypeDevice;
    g_defaultPool->props.location.id = 0;
    g_poolsFn().insert(g_defaultPool);
    g_currentPool = g_defaultPool;
  }
  return g_defaultPool;
}

} // namespace

// --- hooks (Graphs.h) -------------------------------------------------------------------------

namespace ptxsim::runtime {

std::optional<cudaError_t> captureKernel(cudaStream_t s, KernelEntry *k, dim3 grid, dim3 block,
                                         void **args, size_t shmem, bool cooperative) {
  return captureWith(s, [&](NodeObj &n) {
    cudaKernelNodeParams p{};
    p.func = k; // captured nodes name the kernel by its entry (the host stub is not at hand)
    p.gridDim = grid;
    p.blockDim = block;
    p.sharedMemBytes = unsigned(shmem);
    p.kernelParams = args;
    cudaError_t e = setKernel(Context::get(), n, p, k);
    n.cooperative = cooperative;
    return e;
  });
}

std::optional<cudaError_t> captureMemcpy(cudaStream_t s, void *dst, const void *src, size_t n,
                                         cudaMemcpyKind kind) {
  return captureWith(s, [&](NodeObj &node) {
    set1D(node, dst, src, n, kind);
    return cudaSuccess;
  });
}

std::optional<cudaError_t> captureMemset(cudaStream_t s, void *p, int value, size_t n) {
  return captureWith(s, [&](NodeObj &node) {
    node.kind = NodeKind::Memset;
    node.memset.dst = p;
    node.memset.value = unsigned(value) & 0xff;
    node.memset.elementSize = 1;
    node.memset.width = n;
    node.memset.height = 1;
    node.memset.pitch = n;
    return cudaSuccess;
  });
}

std::optional<cudaError_t> captureHostFunc(cudaStream_t s, cudaHostFn_t fn, void *userData) {
  return captureWith(s, [&](NodeObj &node) {
    node.kind = NodeKind::Host;
    node.host.fn = fn;
    node.host.userData = userData;
    return cudaSuccess;
  });
}

std::optional<cudaError_t> captureSyncCall(cudaStream_t s) {
  Capture *c = capturing(s);
  if (!c)
    return std::nullopt;
  c->sess->invalidated = true;
  return cudaErrorStreamCaptureUnsupported;
}

std::optional<cudaError_t> captureMemcpy2D(cudaStream_t s, void *dst, size_t dpitch,
                                           const void *src, size_t spitch, size_t width,
                                           size_t height, cudaMemcpyKind kind) {
  return captureWith(s, [&](NodeObj &node) {
    if (width > dpitch || width > spitch) // as cudaMemcpy2D
      return height > 1 ? cudaErrorInvalidPitchValue : cudaErrorInvalidValue;
    set1D(node, dst, src, width, kind);
    node.dpitch = dpitch;
    node.spitch = spitch;
    node.height = height;
    if (height == 1)
      node.dpitch = node.spitch = width;
    return cudaSuccess;
  });
}

std::optional<cudaError_t> captureMemset2D(cudaStream_t s, void *p, size_t pitch, int value,
                                           size_t width, size_t height) {
  return captureWith(s, [&](NodeObj &node) {
    if (width > pitch && height > 1) // as cudaMemset2D
      return cudaErrorInvalidValue;
    node.kind = NodeKind::Memset;
    node.memset.dst = p;
    node.memset.value = unsigned(value) & 0xff;
    node.memset.elementSize = 1;
    node.memset.width = width;
    node.memset.height = height;
    node.memset.pitch = pitch;
    return cudaSuccess;
  });
}

std::optional<cudaError_t> captureSymbolCopy(cudaStream_t s, const void *symbol, void *host,
                                             size_t count, size_t offset, cudaMemcpyKind kind,
                                             bool toSymbol) {
  PTXSIM_LOCK;
  if (!capturing(s))
    return std::nullopt;
  return captureWith(s, [&](NodeObj &node) {
    VarEntry *v = symbol ? ctx.findVar(symbol) : nullptr;
    if (!v || !v->symbol)
      return cudaErrorInvalidSymbol;
    if (offset > v->symbol->size || count > v->symbol->size - offset)
      return cudaErrorInvalidValue;
    char *where = static_cast<char *>(ptxsim::ptx::exec::DeviceMemory::host(v->symbol->addr)) +
                  offset;
    if (toSymbol)
      set1D(node, where, host, count, kind);
    else
      set1D(node, host, where, count, kind);
    return cudaSuccess;
  });
}

std::optional<cudaError_t> captureMalloc(cudaStream_t s, void **ptr, size_t size,
                                         const cudaMemPoolProps *props) {
  Capture *c = capturing(s);
  if (!c)
    return std::nullopt;
  if (!ptr)
    return cudaErrorInvalidValue;
  return captureWith(s, [&](NodeObj &n) {
    cudaError_t e = makeAllocNode(Context::get(), n, c->sess->graph, size, props, c->tail);
    if (!e)
      *ptr = n.memPtr;
    return e;
  });
}

std::optional<cudaError_t> captureFree(cudaStream_t s, void *ptr) {
  Capture *c = capturing(s);
  if (!c)
    return std::nullopt;
  if (!g_graphAllocsFn().count(ptr)) {
    std::fprintf(stderr, "ptxsim: cudaFreeAsync during stream capture of memory that no graph "
                         "allocated is not supported\n");
    return cudaErrorNotSupported;
  }
  return captureWith(s, [&](NodeObj &n) { return makeFreeNode(n, c->sess->graph, ptr); });
}

std::optional<cudaError_t> graphMemRelease(void *ptr) {
  auto it = g_graphAllocsFn().find(ptr);
  if (!ptr || it == g_graphAllocsFn().end())
    return std::nullopt;
  if (it->second.ownerFrees || !it->second.live)
    return cudaErrorInvalidValue; // freed by its own graph, or not allocated now
  endGraphAlloc(ptr);
  return cudaSuccess;
}

std::optional<cudaError_t> captureEventRecord(cudaEvent_t e, cudaStream_t s) {
  Capture *c = capturing(s);
  if (!c) {
    g_capturedEventsFn().erase(e); // an ordinary record replaces a captured one
    return std::nullopt;
  }
  if (c->sess->invalidated)
    return cudaErrorStreamCaptureInvalidated;
  g_capturedEventsFn()[e] = CapturedEvent{c->sess, c->tail};
  return cudaSuccess;
}

std::optional<cudaError_t> captureStreamWaitEvent(cudaStream_t s, cudaEvent_t e) {
  auto it = g_capturedEventsFn().find(e);
  if (it == g_capturedEventsFn().end() || it->second.sess->ended)
    return std::nullopt; // an event outside capture: one queue keeps the order, nothing to wait on
  CapturedEvent &ev = it->second;
  Capture *c = capturing(s);
  if (!c) {
    // fork: the stream joins the capture sequence after the event's capture point
    Capture joined;
    joined.sess = ev.sess;
    joined.tail = ev.tail;
    g_capturesFn()[captureKey(s)] = std::move(joined);
    return cudaSuccess;
  }
  if (c->sess != ev.sess)
    return cudaErrorStreamCaptureIsolation;
  if (c->sess->invalidated)
    return cudaErrorStreamCaptureInvalidated;
  for (NodeObj *n : ev.tail) // join: the next node also depends on the event's capture point
    if (std::find(c->tail.begin(), c->tail.end(), n) == c->tail.end())
      c->tail.push_back(n);
  return cudaSuccess;
}

std::optional<cudaError_t> captureEventNode(cudaStream_t s, cudaEvent_t e, bool record) {
  return captureWith(s, [&](NodeObj &node) {
    node.kind = record ? NodeKind::EventRecord : NodeKind::EventWait;
    node.event = e;
    return cudaSuccess;
  });
}

void captureEventDestroyed(cudaEvent_t e) { g_capturedEventsFn().erase(e); }

void captureReset() {
  std::unordered_set<Session *> seen;
  for (auto &kv : g_capturesFn()) {
    Session &sess = *kv.second.sess;
    if (!seen.insert(&sess).second)
      continue;
    sess.ended = true;
    dropSessionGraph(sess);
  }
  g_capturesFn().clear();
  g_capturedEventsFn().clear();
  // the device memory of graph allocations and conditional handles goes with the context
  g_graphAllocsFn().clear();
  g_graphMem = GraphMemStats{};
  g_condChunk = nullptr;
  g_condChunkUsed = 0;
  g_condHandlesFn().clear();
}

void captureStreamDestroyed(cudaStream_t s) {
  Capture *c = capturing(s);
  if (!c)
    return;
  if (c->sess->origin == s) {
    // the sequence can no longer be ended: drop it and its graph
    c->sess->invalidated = true;
    std::shared_ptr<Session> sess = c->sess;
    for (auto it = g_capturesFn().begin(); it != g_capturesFn().end();)
      it = it->second.sess == sess ? g_capturesFn().erase(it) : std::next(it);
    sess->ended = true;
    dropSessionGraph(*sess);
    return;
  }
  // a stream that joined the capture leaves it (CUDA lets a program destroy its forked streams
  // once their work is joined back, before the origin ends the capture): what it captured stays
  // in the graph, and ending the capture still requires that work to be joined
  for (NodeObj *n : c->tail)
    c->sess->departedTails.push_back(n);
  g_capturesFn().erase(captureKey(s));
}

} // namespace ptxsim::runtime

// --- graphs -----------------------------------------------------------------------------------

extern "C" {

PTXSIM_API cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
  if (!pGraph || flags)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  auto *g = new GraphObj;
  g_graphsFn().insert(g);
  *pGraph = reinterpret_cast<cudaGraph_t>(g);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  PTXSIM_LOCK;
  if (!validGraph(graph) || graphOf(graph)->ownedByNode)
    return ret(cudaErrorInvalidValue); // a conditional node's body lives as long as the node
  for (auto &kv : g_capturesFn())
    if (kv.second.sess->graph == graphOf(graph))
      return ret(cudaErrorIllegalState); // still being captured into
  forgetNodes(*graphOf(graph));
  g_graphsFn().erase(graphOf(graph));
  for (ExecObj *x : g_execsFn())
    if (x->source == graphOf(graph))
      x->source = nullptr; // a later graph at this address is another graph
  delete graphOf(graph);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies,
                                              const cudaKernelNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (!e && !pNodeParams)
    e = cudaErrorInvalidValue;
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  if ((e = setKernel(ctx, *n, *pNodeParams, nullptr)))
    return ret(e);
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                                    cudaKernelNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !validNode(node) || nodeOf(node)->kind != NodeKind::Kernel)
    return ret(cudaErrorInvalidValue);
  NodeObj &n = *nodeOf(node);
  pNodeParams->func = const_cast<void *>(n.func);
  pNodeParams->gridDim = n.grid;
  pNodeParams->blockDim = n.block;
  pNodeParams->sharedMemBytes = n.shmem;
  pNodeParams->kernelParams = n.argPtrs.empty() ? nullptr : n.argPtrs.data();
  pNodeParams->extra = nullptr;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                                    const cudaKernelNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !validNode(node) || nodeOf(node)->kind != NodeKind::Kernel)
    return ret(cudaErrorInvalidValue);
  NodeObj &n = *nodeOf(node);
  NodeObj tmp;
  cudaError_t e = setKernel(ctx, tmp, *pNodeParams, pNodeParams->func == n.func ? n.k : nullptr);
  if (e)
    return ret(e);
  tmp.cooperative = n.cooperative;
  copyParams(n, tmp);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                                       const cudaKernelNodeAttrValue *value) {
  PTXSIM_LOCK;
  if (!value || !validNode(node) || nodeOf(node)->kind != NodeKind::Kernel)
    return ret(cudaErrorInvalidValue);
  NodeObj &n = *nodeOf(node);
  switch (attr) {
  case cudaKernelNodeAttributeAccessPolicyWindow:
    if (!validAccessPolicyWindow(value->accessPolicyWindow))
      return ret(cudaErrorInvalidValue);
    n.accessPolicyWindow = value->accessPolicyWindow;
    return cudaSuccess;
  case cudaKernelNodeAttributeCooperative:
    n.cooperative = value->cooperative != 0;
    return cudaSuccess;
  case cudaKernelNodeAttributePriority:
    n.priority = value->priority;
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomain:
    if (value->memSyncDomain != cudaLaunchMemSyncDomainDefault &&
        value->memSyncDomain != cudaLaunchMemSyncDomainRemote)
      return ret(cudaErrorInvalidValue);
    n.memSyncDomain = value->memSyncDomain;
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomainMap:
    n.memSyncDomainMap = value->memSyncDomainMap;
    return cudaSuccess;
  case cudaKernelNodeAttributeClusterDimension: {
    // clusters of one block only, as for launches (cudaLaunchKernelExC)
    const auto &c = value->clusterDim;
    return c.x * c.y * c.z <= 1 ? cudaSuccess : ret(cudaErrorNotSupported);
  }
  default:
    return ret(cudaErrorInvalidValue);
  }
}

PTXSIM_API cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                                       cudaKernelNodeAttrValue *value) {
  PTXSIM_LOCK;
  if (!value || !validNode(node) || nodeOf(node)->kind != NodeKind::Kernel)
    return ret(cudaErrorInvalidValue);
  const NodeObj &n = *nodeOf(node);
  switch (attr) {
  case cudaKernelNodeAttributeAccessPolicyWindow:
    value->accessPolicyWindow = n.accessPolicyWindow;
    return cudaSuccess;
  case cudaKernelNodeAttributeCooperative:
    value->cooperative = n.cooperative ? 1 : 0;
    return cudaSuccess;
  case cudaKernelNodeAttributePriority:
    value->priority = n.priority;
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomain:
    value->memSyncDomain = n.memSyncDomain;
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomainMap:
    value->memSyncDomainMap = n.memSyncDomainMap;
    return cudaSuccess;
  case cudaKernelNodeAttributeClusterDimension:
    value->clusterDim.x = value->clusterDim.y = value->clusterDim.z = 1;
    return cudaSuccess;
  default:
    return ret(cudaErrorInvalidValue);
  }
}

PTXSIM_API cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src) {
  PTXSIM_LOCK;
  if (!validNode(dst) || !validNode(src) || nodeOf(dst)->kind != NodeKind::Kernel ||
      nodeOf(src)->kind != NodeKind::Kernel)
    return ret(cudaErrorInvalidValue);
  NodeObj &d = *nodeOf(dst);
  const NodeObj &from = *nodeOf(src);
  d.accessPolicyWindow = from.accessPolicyWindow;
  d.cooperative = from.cooperative;
  d.priority = from.priority;
  d.memSyncDomain = from.memSyncDomain;
  d.memSyncDomainMap = from.memSyncDomainMap;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies, void *dst,
                                                const void *src, size_t count,
                                                cudaMemcpyKind kind) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (!e && (!dst || !src || count == 0 || unsigned(kind) > cudaMemcpyDefault))
    e = cudaErrorInvalidValue;
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  set1D(*n, dst, src, count, kind);
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies,
                                              const cudaMemcpy3DParms *p) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  if ((e = setMemcpy3D(*n, p)))
    return ret(e);
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies,
                                              const cudaMemsetParams *pMemsetParams) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (!e)
    e = pMemsetParams ? checkMemset(*pMemsetParams) : cudaErrorInvalidValue;
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  n->kind = NodeKind::Memset;
  n->memset = *pMemsetParams;
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies,
                                            const cudaHostNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (!e && (!pNodeParams || !pNodeParams->fn))
    e = cudaErrorInvalidValue;
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  n->kind = NodeKind::Host;
  n->host = *pNodeParams;
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  n->kind = NodeKind::Empty;
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies, cudaGraph_t childGraph) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (!e && (!validGraph(childGraph) || childGraph == graph))
    e = cudaErrorInvalidValue;
  // graphs with conditional nodes cannot be children (an H200 answers NotSupported); ones with
  // memory nodes only by moving them (cudaGraphAddNode with cudaGraphChildGraphOwnershipMove)
  if (!e && hasKind(*graphOf(childGraph), NodeKind::Conditional))
    e = cudaErrorNotSupported;
  if (!e && (hasKind(*graphOf(childGraph), NodeKind::MemAlloc) ||
             hasKind(*graphOf(childGraph), NodeKind::MemFree)))
    e = cudaErrorInvalidValue;
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  n->kind = NodeKind::Child;
  n->child = cloneGraph(*graphOf(childGraph), nullptr); // the node owns a copy, as in CUDA
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph) {
  PTXSIM_LOCK;
  if (!pGraph || !validNode(node) || nodeOf(node)->kind != NodeKind::Child)
    return ret(cudaErrorInvalidValue);
  *pGraph = reinterpret_cast<cudaGraph_t>(nodeOf(node)->child.get());
  return cudaSuccess;
}

/// Checks edges from[i] -> to[i] of `graph` for cudaGraphAdd/RemoveDependencies: both nodes in
/// the graph, default edge data, and the edge absent (adding) or present (removing).
static cudaError_t checkEdges(cudaGraph_t graph, const cudaGraphNode_t *from,
                              const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                              size_t n, bool adding) {
  if (!validGraph(graph) || (n && (!from || !to)))
    return cudaErrorInvalidValue;
  GraphObj *g = graphOf(graph);
  for (size_t i = 0; i < n; ++i) {
    if (!validNode(from[i]) || !validNode(to[i]) || nodeOf(from[i])->graph != g ||
        nodeOf(to[i])->graph != g || (adding && from[i] == to[i]))
      return cudaErrorInvalidValue;
    const auto &d = nodeOf(to[i])->deps;
    bool present = std::find(d.begin(), d.end(), nodeOf(from[i])) != d.end();
    if (present == adding)
      return cudaErrorInvalidValue; // already there / no such edge
    if (edgeData && (edgeData[i].type != cudaGraphDependencyTypeDefault || edgeData[i].from_port))
      return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                const cudaGraphNode_t *to,
                                                const cudaGraphEdgeData *edgeData,
                                                size_t numDependencies) {
  PTXSIM_LOCK;
  if (cudaError_t e = checkEdges(graph, from, to, edgeData, numDependencies, true))
    return ret(e);
  for (size_t i = 0; i < numDependencies; ++i)
    nodeOf(to[i])->deps.push_back(nodeOf(from[i]));
  return cudaSuccess;
}

/// Writes up to *num of `list` (all when out is null: only the count) and the edge data.
static cudaError_t listNodes(const std::vector<NodeObj *> &list, cudaGraphNode_t *out,
                             cudaGraphEdgeData *edgeData, size_t *num) {
  if (!num)
    return cudaErrorInvalidValue;
  if (!out) {
    *num = list.size();
    return cudaSuccess;
  }
  size_t n = std::min(*num, list.size());
  for (size_t i = 0; i < *num; ++i) {
    out[i] = i < n ? handle(list[i]) : nullptr;
    if (edgeData)
      edgeData[i] = cudaGraphEdgeData{};
  }
  *num = n;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                                    cudaGraphNode_t *pDependencies,
                                                    cudaGraphEdgeData *edgeData,
                                                    size_t *pNumDependencies) {
  PTXSIM_LOCK;
  if (!validNode(node))
    return ret(cudaErrorInvalidValue);
  return ret(listNodes(nodeOf(node)->deps, pDependencies, edgeData, pNumDependencies));
}

PTXSIM_API cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                                      cudaGraphNode_t *pDependentNodes,
                                                      cudaGraphEdgeData *edgeData,
                                                      size_t *pNumDependentNodes) {
  PTXSIM_LOCK;
  if (!validNode(node))
    return ret(cudaErrorInvalidValue);
  std::vector<NodeObj *> dependents;
  for (auto &n : nodeOf(node)->graph->nodes)
    for (NodeObj *d : n->deps)
      if (d == nodeOf(node))
        dependents.push_back(n.get());
  return ret(listNodes(dependents, pDependentNodes, edgeData, pNumDependentNodes));
}

PTXSIM_API cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                             size_t *pNumRootNodes) {
  PTXSIM_LOCK;
  if (!validGraph(graph))
    return ret(cudaErrorInvalidValue);
  std::vector<NodeObj *> roots;
  for (auto &n : graphOf(graph)->nodes)
    if (n->deps.empty())
      roots.push_back(n.get());
  return ret(listNodes(roots, pRootNodes, nullptr, pNumRootNodes));
}

PTXSIM_API cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph) {
  PTXSIM_LOCK;
  if (!pGraphClone || !validGraph(originalGraph))
    return ret(cudaErrorInvalidValue);
  const GraphObj &orig = *graphOf(originalGraph);
  if (hasKind(orig, NodeKind::Conditional) || hasKind(orig, NodeKind::MemAlloc) ||
      hasKind(orig, NodeKind::MemFree))
    return ret(cudaErrorNotSupported); // CUDA: such graphs cannot be cloned
  GraphObj *g = cloneGraph(*graphOf(originalGraph), nullptr).release();
  g_graphsFn().insert(g);
  *pGraphClone = reinterpret_cast<cudaGraph_t>(g);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  PTXSIM_LOCK;
  if (!validNode(node) || !g_graphsFn().count(nodeOf(node)->graph))
    return ret(cudaErrorInvalidValue); // not a node of a user graph
  NodeObj *n = nodeOf(node);
  GraphObj *g = n->graph;
  if (hasKind(*g, NodeKind::MemAlloc) || hasKind(*g, NodeKind::MemFree))
    return ret(cudaErrorNotSupported); // CUDA: nodes of such graphs cannot be deleted
  for (auto &other : g->nodes)
    other->deps.erase(std::remove(other->deps.begin(), other->deps.end(), n), other->deps.end());
  for (ExecObj *x : g_execsFn())
    x->fromOrig.erase(n);
  if (n->child)
    forgetNodes(*n->child);
  for (auto &b : n->bodies) {
    forgetNodes(*b);
    g_graphsFn().erase(b.get());
  }
  g_nodesFn().erase(n);
  for (auto it = g->nodes.begin(); it != g->nodes.end(); ++it)
    if (it->get() == n) {
      g->nodes.erase(it);
      break;
    }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                                  cudaHostNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !validNode(node) || nodeOf(node)->kind != NodeKind::Host)
    return ret(cudaErrorInvalidValue);
  *pNodeParams = nodeOf(node)->host;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                                  const cudaHostNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !pNodeParams->fn || !validNode(node) ||
      nodeOf(node)->kind != NodeKind::Host)
    return ret(cudaErrorInvalidValue);
  nodeOf(node)->host = *pNodeParams;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
                                                    cudaMemsetParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !validNode(node) || nodeOf(node)->kind != NodeKind::Memset)
    return ret(cudaErrorInvalidValue);
  *pNodeParams = nodeOf(node)->memset;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                                    const cudaMemsetParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !validNode(node) || nodeOf(node)->kind != NodeKind::Memset)
    return ret(cudaErrorInvalidValue);
  if (cudaError_t e = checkMemset(*pNodeParams))
    return ret(e);
  nodeOf(node)->memset = *pNodeParams;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
                                                      const void *src, size_t count,
                                                      cudaMemcpyKind kind) {
  PTXSIM_LOCK;
  if (!validNode(node) || nodeOf(node)->kind != NodeKind::Memcpy || !dst || !src || !count ||
      unsigned(kind) > cudaMemcpyDefault)
    return ret(cudaErrorInvalidValue);
  set1D(*nodeOf(node), dst, src, count, kind);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *pType) {
  PTXSIM_LOCK;
  if (!pType || !validNode(node))
    return ret(cudaErrorInvalidValue);
  switch (nodeOf(node)->kind) {
  case NodeKind::Kernel: *pType = cudaGraphNodeTypeKernel; break;
  case NodeKind::Memcpy: *pType = cudaGraphNodeTypeMemcpy; break;
  case NodeKind::Memset: *pType = cudaGraphNodeTypeMemset; break;
  case NodeKind::Host: *pType = cudaGraphNodeTypeHost; break;
  case NodeKind::Child: *pType = cudaGraphNodeTypeGraph; break;
  case NodeKind::Empty: *pType = cudaGraphNodeTypeEmpty; break;
  case NodeKind::EventRecord: *pType = cudaGraphNodeTypeEventRecord; break;
  case NodeKind::EventWait: *pType = cudaGraphNodeTypeWaitEvent; break;
  case NodeKind::MemAlloc: *pType = cudaGraphNodeTypeMemAlloc; break;
  case NodeKind::MemFree: *pType = cudaGraphNodeTypeMemFree; break;
  case NodeKind::Conditional: *pType = cudaGraphNodeTypeConditional; break;
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                         size_t *numNodes) {
  PTXSIM_LOCK;
  if (!numNodes || !validGraph(graph))
    return ret(cudaErrorInvalidValue);
  GraphObj *g = graphOf(graph);
  if (nodes) {
    size_t n = std::min(*numNodes, g->nodes.size());
    for (size_t i = 0; i < n; ++i)
      nodes[i] = handle(g->nodes[i].get());
    for (size_t i = n; i < *numNodes; ++i)
      nodes[i] = nullptr;
    *numNodes = n;
  } else {
    *numNodes = g->nodes.size();
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                     cudaGraph_t graph, unsigned long long flags) {
  constexpr unsigned long long known =
      cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |
      cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUseNodePriority;
  if (!pGraphExec || (flags & ~known))
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!validGraph(graph))
    return ret(cudaErrorInvalidValue);
  if (!acyclic(*graphOf(graph)))
    return ret(cudaErrorInvalidValue);
  // a graph with memory nodes has one executable graph at a time (CUDA says so; an H200 answers
  // a second instantiation with cudaErrorNotSupported)
  const GraphObj &src = *graphOf(graph);
  if (hasKind(src, NodeKind::MemAlloc) || hasKind(src, NodeKind::MemFree))
    for (ExecObj *other : g_execsFn())
      if (other->source == &src)
        return ret(cudaErrorNotSupported);
  auto *x = new ExecObj;
  x->g = cloneGraph(*graphOf(graph), &x->fromOrig);
  x->source = &src;
  x->flags = flags;
  g_execsFn().insert(x);
  *pGraphExec = reinterpret_cast<cudaGraphExec_t>(x);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                            unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

PTXSIM_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  PTXSIM_LOCK;
  if (!graphExec || !g_execsFn().erase(execOf(graphExec)))
    return ret(cudaErrorInvalidValue);
  forgetNodes(*execOf(graphExec)->g);
  delete execOf(graphExec);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  const GraphObj *g = nullptr;
  {
    PTXSIM_LOCK_CHECKED;
    if (!graphExec || !g_execsFn().count(execOf(graphExec)))
      return ret(cudaErrorInvalidValue);
    if (!ctx.validStream(stream))
      return ret(cudaErrorInvalidResourceHandle);
    ExecObj *x = execOf(graphExec);
    // a capturing stream cannot take a graph launch: CUDA 13 on an H100 refuses it
    // (cudaErrorStreamCaptureUnsupported) and the capture is invalidated, as by a synchronising
    // call; a program adds the graph to a capture as a child graph node instead
    if (auto r = captureSyncCall(stream))
      return ret(*r);
    g = x->g.get();
    // allocations of an earlier launch that are still live: freed by an auto-free launch,
    // otherwise the launch fails
    std::vector<void *> allocs;
    allocsOf(*g, allocs);
    for (void *p : allocs)
      if (g_graphAllocsFn()[p].live) {
        if (!(x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch))
          return ret(cudaErrorInvalidValue);
        endGraphAlloc(p);
      }
    assignDefaults(*g);
  }
  return ret(runGraph(*g, stream));
}

PTXSIM_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return cudaGraphLaunch(graphExec, captureKey(stream));
}

PTXSIM_API cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  PTXSIM_LOCK_CHECKED;
  if (!graphExec || !g_execsFn().count(execOf(graphExec)))
    return ret(cudaErrorInvalidValue);
  return ctx.validStream(stream) ? cudaSuccess : ret(cudaErrorInvalidResourceHandle);
}

PTXSIM_API cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                                        cudaGraphNode_t node,
                                                        const cudaKernelNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !hGraphExec || !g_execsFn().count(execOf(hGraphExec)) || !validNode(node))
    return ret(cudaErrorInvalidValue);
  ExecObj *x = execOf(hGraphExec);
  auto it = x->fromOrig.find(nodeOf(node));
  if (it == x->fromOrig.end() || it->second->kind != NodeKind::Kernel ||
      nodeOf(node)->kind != NodeKind::Kernel)
    return ret(cudaErrorInvalidValue);
  NodeObj &n = *it->second;
  NodeObj tmp;
  cudaError_t e = setKernel(ctx, tmp, *pNodeParams, pNodeParams->func == n.func ? n.k : nullptr);
  if (e)
    return ret(e);
  tmp.cooperative = n.cooperative;
  copyParams(n, tmp);
  return cudaSuccess;
}

/// The exec graph's copy of `node` when it has kind `kind`, else null (under the lock).
static NodeObj *execNode(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, NodeKind kind) {
  if (!hGraphExec || !g_execsFn().count(execOf(hGraphExec)) || !validNode(node))
    return nullptr;
  auto &m = execOf(hGraphExec)->fromOrig;
  auto it = m.find(nodeOf(node));
  return it == m.end() || it->second->kind != kind ? nullptr : it->second;
}

PTXSIM_API cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec,
                                                      cudaGraphNode_t node,
                                                      const cudaHostNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  NodeObj *n = execNode(hGraphExec, node, NodeKind::Host);
  if (!n || !pNodeParams || !pNodeParams->fn)
    return ret(cudaErrorInvalidValue);
  n->host = *pNodeParams;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
                                                        cudaGraphNode_t node,
                                                        const cudaMemsetParams *pNodeParams) {
  PTXSIM_LOCK;
  NodeObj *n = execNode(hGraphExec, node, NodeKind::Memset);
  if (!n || !pNodeParams)
    return ret(cudaErrorInvalidValue);
  if (cudaError_t e = checkMemset(*pNodeParams))
    return ret(e);
  n->memset = *pNodeParams;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
                                                          cudaGraphNode_t node, void *dst,
                                                          const void *src, size_t count,
                                                          cudaMemcpyKind kind) {
  PTXSIM_LOCK;
  NodeObj *n = execNode(hGraphExec, node, NodeKind::Memcpy);
  if (!n || !dst || !src || !count || unsigned(kind) > cudaMemcpyDefault)
    return ret(cudaErrorInvalidValue);
  set1D(*n, dst, src, count, kind);
  return cudaSuccess;
}

/// Whether `src` has the topology of `dst` (node i of each: same kind, same dependencies by
/// index, child graphs of the same size); on a mismatch, why and the offending node of `src`.
static bool sameTopology(const GraphObj &src, const GraphObj &dst, cudaGraphExecUpdateResult &why,
                         NodeObj *&bad) {
  bad = nullptr;
  why = cudaGraphExecUpdateErrorTopologyChanged;
  if (src.nodes.size() != dst.nodes.size())
    return false;
  std::unordered_map<const NodeObj *, size_t> si, di;
  for (size_t i = 0; i < src.nodes.size(); ++i) {
    si[src.nodes[i].get()] = i;
    di[dst.nodes[i].get()] = i;
  }
  for (size_t i = 0; i < src.nodes.size(); ++i) {
    NodeObj &a = *src.nodes[i], &b = *dst.nodes[i];
    bad = &a;
    if (a.kind != b.kind) {
      why = cudaGraphExecUpdateErrorNodeTypeChanged;
      return false;
    }
    if (a.deps.size() != b.deps.size())
      return false;
    for (size_t j = 0; j < a.deps.size(); ++j)
      if (si.at(a.deps[j]) != di.at(b.deps[j]))
        return false;
    if (a.kind == NodeKind::Child) {
      NodeObj *inner;
      if (!sameTopology(*a.child, *b.child, why, inner))
        return false;
    }
    if (a.kind == NodeKind::Conditional) {
      if (a.condType != b.condType || a.bodies.size() != b.bodies.size())
        return false;
      for (size_t j = 0; j < a.bodies.size(); ++j) {
        NodeObj *inner;
        if (!sameTopology(*a.bodies[j], *b.bodies[j], why, inner))
          return false;
      }
    }
    if ((a.kind == NodeKind::MemAlloc || a.kind == NodeKind::MemFree) && a.memPtr != b.memPtr) {
      why = cudaGraphExecUpdateErrorNotSupported; // memory nodes cannot be updated
      return false;
    }
  }
  bad = nullptr;
  return true;
}

/// Copies the parameters of every node of `src` into the same-topology exec graph `dst`,
/// keeping each exec node's enabled state.
static void updateParams(GraphObj &dst, const GraphObj &src,
                         std::unordered_map<const NodeObj *, NodeObj *> *fromOrig) {
  for (size_t i = 0; i < src.nodes.size(); ++i) {
    NodeObj &b = *dst.nodes[i];
    if (b.child)
      forgetNodes(*b.child);
    for (auto &body : b.bodies)
      forgetNodes(*body);
    copyParams(b, *src.nodes[i]);
    if (fromOrig)
      (*fromOrig)[src.nodes[i].get()] = &b;
  }
}

PTXSIM_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                           cudaGraphExecUpdateResultInfo *resultInfo) {
  PTXSIM_LOCK;
  if (!hGraphExec || !g_execsFn().count(execOf(hGraphExec)) || !validGraph(hGraph))
    return ret(cudaErrorInvalidValue);
  ExecObj *x = execOf(hGraphExec);
  cudaGraphExecUpdateResult why;
  NodeObj *bad;
  if (!sameTopology(*graphOf(hGraph), *x->g, why, bad)) {
    if (resultInfo) {
      resultInfo->result = why;
      resultInfo->errorNode = bad ? handle(bad) : nullptr;
      resultInfo->errorFromNode = nullptr;
    }
    return ret(cudaErrorGraphExecUpdateFailure);
  }
  updateParams(*x->g, *graphOf(hGraph), &x->fromOrig);
  if (resultInfo) {
    resultInfo->result = cudaGraphExecUpdateSuccess;
    resultInfo->errorNode = nullptr;
    resultInfo->errorFromNode = nullptr;
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec,
                                                            cudaGraphNode_t node,
                                                            cudaGraph_t childGraph) {
  PTXSIM_LOCK;
  NodeObj *n = execNode(hGraphExec, node, NodeKind::Child);
  if (!n || !validGraph(childGraph))
    return ret(cudaErrorInvalidValue);
  cudaGraphExecUpdateResult why;
  NodeObj *bad;
  if (!sameTopology(*graphOf(childGraph), *n->child, why, bad))
    return ret(cudaErrorInvalidValue); // the topology of a child node cannot change
  updateParams(*n->child, *graphOf(childGraph), nullptr);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags) {
  PTXSIM_LOCK;
  if (!flags || !graphExec || !g_execsFn().count(execOf(graphExec)))
    return ret(cudaErrorInvalidValue);
  *flags = execOf(graphExec)->flags;
  return cudaSuccess;
}

/// The exec copy of `node` (any kind), or null (under the lock).
static NodeObj *execNodeAny(cudaGraphExec_t hGraphExec, cudaGraphNode_t node) {
  if (!hGraphExec || !g_execsFn().count(execOf(hGraphExec)) || !validNode(node))
    return nullptr;
  auto &m = execOf(hGraphExec)->fromOrig;
  auto it = m.find(nodeOf(node));
  return it == m.end() ? nullptr : it->second;
}

PTXSIM_API cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               unsigned int isEnabled) {
  PTXSIM_LOCK;
  NodeObj *n = execNodeAny(hGraphExec, hNode);
  if (!n || (n->kind != NodeKind::Kernel && n->kind != NodeKind::Memcpy &&
             n->kind != NodeKind::Memset))
    return ret(cudaErrorInvalidValue);
  n->enabled = isEnabled != 0;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               unsigned int *isEnabled) {
  PTXSIM_LOCK;
  NodeObj *n = execNodeAny(hGraphExec, hNode);
  if (!n || !isEnabled || (n->kind != NodeKind::Kernel && n->kind != NodeKind::Memcpy &&
                           n->kind != NodeKind::Memset))
    return ret(cudaErrorInvalidValue);
  *isEnabled = n->enabled ? 1 : 0;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                                    cudaMemcpy3DParms *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !validNode(node) || nodeOf(node)->kind != NodeKind::Memcpy)
    return ret(cudaErrorInvalidValue);
  const NodeObj &n = *nodeOf(node);
  cudaMemcpy3DParms p{};
  p.dstPtr = {n.dst, n.dpitch, n.width, n.dslice && n.dpitch ? n.dslice / n.dpitch : n.height};
  p.srcPtr = {const_cast<char *>(n.src), n.spitch, n.width,
              n.sslice && n.spitch ? n.sslice / n.spitch : n.height};
  p.extent = {n.width, n.height, n.depth};
  p.kind = n.copyKind;
  *pNodeParams = p;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                                    const cudaMemcpy3DParms *pNodeParams) {
  PTXSIM_LOCK;
  if (!validNode(node) || nodeOf(node)->kind != NodeKind::Memcpy)
    return ret(cudaErrorInvalidValue);
  NodeObj tmp;
  if (cudaError_t e = setMemcpy3D(tmp, pNodeParams))
    return ret(e);
  copyParams(*nodeOf(node), tmp);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
                                                        cudaGraphNode_t node,
                                                        const cudaMemcpy3DParms *pNodeParams) {
  PTXSIM_LOCK;
  NodeObj *n = execNode(hGraphExec, node, NodeKind::Memcpy);
  if (!n)
    return ret(cudaErrorInvalidValue);
  NodeObj tmp;
  if (cudaError_t e = setMemcpy3D(tmp, pNodeParams))
    return ret(e);
  copyParams(*n, tmp);
  return cudaSuccess;
}

// --- event record / wait nodes ----------------------------------------------------------------

static cudaError_t addEventNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                const cudaGraphNode_t *deps, size_t num, cudaEvent_t event,
                                NodeKind kind) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, deps, num);
  if (!e && !event)
    e = cudaErrorInvalidValue;
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  n->kind = kind;
  n->event = event;
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), deps, num));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies, cudaEvent_t event) {
  return addEventNode(pGraphNode, graph, pDependencies, numDependencies, event,
                      NodeKind::EventRecord);
}

PTXSIM_API cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies,
                                                 size_t numDependencies, cudaEvent_t event) {
  return addEventNode(pGraphNode, graph, pDependencies, numDependencies, event,
                      NodeKind::EventWait);
}

static cudaError_t getEvent(cudaGraphNode_t node, cudaEvent_t *out, NodeKind kind) {
  PTXSIM_LOCK;
  if (!out || !validNode(node) || nodeOf(node)->kind != kind)
    return ret(cudaErrorInvalidValue);
  *out = nodeOf(node)->event;
  return cudaSuccess;
}

static cudaError_t setEvent(cudaGraphNode_t node, cudaEvent_t event, NodeKind kind) {
  PTXSIM_LOCK;
  if (!event || !validNode(node) || nodeOf(node)->kind != kind)
    return ret(cudaErrorInvalidValue);
  nodeOf(node)->event = event;
  return cudaSuccess;
}

static cudaError_t setExecEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                cudaEvent_t event, NodeKind kind) {
  PTXSIM_LOCK;
  NodeObj *n = execNode(hGraphExec, node, kind);
  if (!n || !event)
    return ret(cudaErrorInvalidValue);
  n->event = event;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *out) {
  return getEvent(node, out, NodeKind::EventRecord);
}
PTXSIM_API cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return setEvent(node, event, NodeKind::EventRecord);
}
PTXSIM_API cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *out) {
  return getEvent(node, out, NodeKind::EventWait);
}
PTXSIM_API cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return setEvent(node, event, NodeKind::EventWait);
}
PTXSIM_API cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                            cudaGraphNode_t hNode,
                                                            cudaEvent_t event) {
  return setExecEvent(hGraphExec, hNode, event, NodeKind::EventRecord);
}
PTXSIM_API cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                          cudaGraphNode_t hNode,
                                                          cudaEvent_t event) {
  return setExecEvent(hGraphExec, hNode, event, NodeKind::EventWait);
}

// --- edges and clones --------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
                                         cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
                                         size_t *numEdges) {
  PTXSIM_LOCK;
  if (!numEdges || !validGraph(graph) || (!from != !to) || (edgeData && !from))
    return ret(cudaErrorInvalidValue);
  std::vector<std::pair<NodeObj *, NodeObj *>> edges; // by dependent node, then dependency order
  for (auto &n : graphOf(graph)->nodes)
    for (NodeObj *d : n->deps)
      edges.emplace_back(d, n.get());
  if (!from) {
    *numEdges = edges.size();
    return cudaSuccess;
  }
  size_t k = std::min(*numEdges, edges.size());
  for (size_t i = 0; i < *numEdges; ++i) {
    from[i] = i < k ? handle(edges[i].first) : nullptr;
    to[i] = i < k ? handle(edges[i].second) : nullptr;
    if (edgeData)
      edgeData[i] = cudaGraphEdgeData{};
  }
  *numEdges = k;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                   const cudaGraphNode_t *to,
                                                   const cudaGraphEdgeData *edgeData,
                                                   size_t numDependencies) {
  PTXSIM_LOCK;
  if (cudaError_t e = checkEdges(graph, from, to, edgeData, numDependencies, false))
    return ret(e);
  // CUDA: edges of a graph with memory nodes cannot be deleted (the address reuse of its
  // allocations, reusableGraphAddress, relies on the order they give)
  if (numDependencies &&
      (hasKind(*graphOf(graph), NodeKind::MemAlloc) || hasKind(*graphOf(graph), NodeKind::MemFree)))
    return ret(cudaErrorNotSupported);
  for (size_t i = 0; i < numDependencies; ++i) {
    auto &d = nodeOf(to[i])->deps;
    d.erase(std::find(d.begin(), d.end(), nodeOf(from[i])));
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                                cudaGraph_t clonedGraph) {
  PTXSIM_LOCK;
  if (!pNode || !validNode(originalNode) || !validGraph(clonedGraph))
    return ret(cudaErrorInvalidValue);
  for (auto &n : graphOf(clonedGraph)->nodes)
    if (n->clonedFrom == nodeOf(originalNode)) {
      *pNode = handle(n.get());
      return cudaSuccess;
    }
  return ret(cudaErrorInvalidValue);
}

// --- stream capture ---------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  if (!ctx.validStream(stream))
    return ret(cudaErrorInvalidResourceHandle);
  if (stream == nullptr || stream == cudaStreamLegacy)
    return ret(cudaErrorStreamCaptureUnsupported); // the legacy default stream cannot capture
  if (capturing(stream))
    return ret(cudaErrorIllegalState);
  auto *g = new GraphObj;
  g_graphsFn().insert(g);
  Capture c;
  c.sess = std::make_shared<Session>();
  c.sess->graph = g;
  c.sess->mode = mode;
  c.sess->id = g_nextCaptureId++;
  c.sess->origin = stream;
  g_capturesFn()[stream] = std::move(c);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                     const cudaGraphNode_t *dependencies,
                                                     const cudaGraphEdgeData *dependencyData,
                                                     size_t numDependencies,
                                                     cudaStreamCaptureMode mode) {
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed)
    return ret(cudaErrorInvalidValue);
  for (size_t i = 0; dependencyData && i < numDependencies; ++i)
    if (dependencyData[i].type != cudaGraphDependencyTypeDefault || dependencyData[i].from_port ||
        dependencyData[i].to_port)
      return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  if (!ctx.validStream(stream))
    return ret(cudaErrorInvalidResourceHandle);
  if (stream == nullptr || stream == cudaStreamLegacy)
    return ret(cudaErrorStreamCaptureUnsupported);
  if (capturing(stream))
    return ret(cudaErrorIllegalState);
  if (!validGraph(graph))
    return ret(cudaErrorInvalidValue);
  if (cudaError_t e = checkDeps(graphOf(graph), dependencies, numDependencies))
    return ret(e);
  for (auto &kv : g_capturesFn())
    if (kv.second.sess->graph == graphOf(graph))
      return ret(cudaErrorIllegalState); // one capture into a graph at a time
  Capture c;
  c.sess = std::make_shared<Session>();
  c.sess->graph = graphOf(graph);
  c.sess->ownsGraph = false;
  c.sess->mode = mode;
  c.sess->id = g_nextCaptureId++;
  c.sess->origin = stream;
  for (size_t i = 0; i < numDependencies; ++i)
    c.tail.push_back(nodeOf(dependencies[i]));
  g_capturesFn()[stream] = std::move(c);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                          const cudaGraphNode_t *dependencies,
                                                          const cudaGraphEdgeData *dependencyData,
                                                          size_t numDependencies,
                                                          cudaStreamCaptureMode mode) {
  return cudaStreamBeginCaptureToGraph(captureKey(stream), graph, dependencies, dependencyData,
                                       numDependencies, mode);
}

PTXSIM_API cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                           cudaGraphNode_t *dependencies,
                                                           const cudaGraphEdgeData *dependencyData,
                                                           size_t numDependencies,
                                                           unsigned int flags) {
  if (flags > cudaStreamSetCaptureDependencies || (numDependencies && !dependencies))
    return ret(cudaErrorInvalidValue);
  for (size_t i = 0; dependencyData && i < numDependencies; ++i)
    if (dependencyData[i].type != cudaGraphDependencyTypeDefault || dependencyData[i].from_port ||
        dependencyData[i].to_port)
      return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!ctx.validStream(stream))
    return ret(cudaErrorInvalidResourceHandle);
  Capture *c = capturing(stream);
  if (!c)
    return ret(cudaErrorIllegalState);
  if (c->sess->invalidated)
    return ret(cudaErrorStreamCaptureInvalidated);
  for (size_t i = 0; i < numDependencies; ++i)
    if (!validNode(dependencies[i]) || nodeOf(dependencies[i])->graph != c->sess->graph)
      return ret(cudaErrorInvalidValue);
  if (flags == cudaStreamSetCaptureDependencies)
    c->tail.clear();
  for (size_t i = 0; i < numDependencies; ++i)
    if (std::find(c->tail.begin(), c->tail.end(), nodeOf(dependencies[i])) == c->tail.end())
      c->tail.push_back(nodeOf(dependencies[i]));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, unsigned int flags) {
  return cudaStreamUpdateCaptureDependencies(captureKey(stream), dependencies, dependencyData,
                                             numDependencies, flags);
}

PTXSIM_API cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                   cudaStreamCaptureMode mode) {
  return cudaStreamBeginCapture(captureKey(stream), mode); // 0: the per-thread stream
}

PTXSIM_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
  PTXSIM_LOCK;
  Capture *c = ctx.validStream(stream) ? capturing(stream) : nullptr;
  // a capture into the user's graph (cudaStreamBeginCaptureToGraph) may be ended without a
  // pointer: its nodes are already in that graph
  if (!pGraph && (!c || c->sess->ownsGraph))
    return ret(cudaErrorInvalidValue);
  if (!ctx.validStream(stream))
    return ret(cudaErrorInvalidResourceHandle);
  if (!c)
    return ret(cudaErrorIllegalState);
  std::shared_ptr<Session> sess = c->sess;
  if (sess->origin != stream) {
    // ended on a stream that joined, not the origin: an H200 also invalidates the capture
    sess->invalidated = true;
    return ret(cudaErrorStreamCaptureUnmatched);
  }
  // every stream that joined must have been joined back into the origin stream's work
  std::unordered_set<NodeObj *> reach;
  std::vector<NodeObj *> stack = c->tail;
  while (!stack.empty()) {
    NodeObj *n = stack.back();
    stack.pop_back();
    if (reach.insert(n).second)
      for (NodeObj *d : n->deps)
        stack.push_back(d);
  }
  bool unjoined = false;
  for (auto &kv : g_capturesFn())
    if (kv.second.sess == sess)
      for (NodeObj *n : kv.second.tail)
        unjoined |= !reach.count(n);
  for (NodeObj *n : sess->departedTails)
    unjoined |= !reach.count(n);
  for (auto it = g_capturesFn().begin(); it != g_capturesFn().end();)
    it = it->second.sess == sess ? g_capturesFn().erase(it) : std::next(it);
  sess->ended = true;
  GraphObj *g = sess->graph;
  bool invalid = sess->invalidated || unjoined;
  if (invalid) {
    dropSessionGraph(*sess);
    if (pGraph)
      *pGraph = nullptr;
    return ret(unjoined && !sess->invalidated ? cudaErrorStreamCaptureUnjoined
                                              : cudaErrorStreamCaptureInvalidated);
  }
  if (pGraph)
    *pGraph = reinterpret_cast<cudaGraph_t>(g);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph) {
  return cudaStreamEndCapture(captureKey(stream), pGraph);
}

PTXSIM_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                             cudaStreamCaptureStatus *pCaptureStatus) {
  if (!pCaptureStatus)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!ctx.validStream(stream))
    return ret(cudaErrorInvalidResourceHandle);
  Capture *c = capturing(stream);
  *pCaptureStatus = !c ? cudaStreamCaptureStatusNone
                       : c->sess->invalidated ? cudaStreamCaptureStatusInvalidated
                                        : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                  cudaStreamCaptureStatus *pCaptureStatus) {
  return cudaStreamIsCapturing(captureKey(stream), pCaptureStatus);
}

PTXSIM_API cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                                cudaStreamCaptureStatus *captureStatus_out,
                                                unsigned long long *id_out, cudaGraph_t *graph_out,
                                                const cudaGraphNode_t **dependencies_out,
                                                const cudaGraphEdgeData **edgeData_out,
                                                size_t *numDependencies_out) {
  if (!captureStatus_out || (edgeData_out && !dependencies_out))
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!ctx.validStream(stream))
    return ret(cudaErrorInvalidResourceHandle);
  Capture *c = capturing(stream);
  if (!c) {
    *captureStatus_out = cudaStreamCaptureStatusNone;
    return cudaSuccess;
  }
  *captureStatus_out =
      c->sess->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  if (id_out)
    *id_out = c->sess->id;
  if (graph_out)
    *graph_out = reinterpret_cast<cudaGraph_t>(c->sess->graph);
  c->tailHandles.clear();
  for (NodeObj *n : c->tail)
    c->tailHandles.push_back(handle(n));
  if (dependencies_out)
    *dependencies_out = c->tailHandles.empty() ? nullptr : c->tailHandles.data();
  if (edgeData_out)
    *edgeData_out = nullptr; // every edge is a default edge
  if (numDependencies_out)
    *numDependencies_out = c->tailHandles.size();
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamGetCaptureInfo_ptsz(
    cudaStream_t stream, cudaStreamCaptureStatus *captureStatus_out, unsigned long long *id_out,
    cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
  return cudaStreamGetCaptureInfo(captureKey(stream), captureStatus_out, id_out, graph_out, dependencies_out,
                                  edgeData_out, numDependencies_out);
}

PTXSIM_API cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode) {
  if (!mode || (*mode != cudaStreamCaptureModeGlobal && *mode != cudaStreamCaptureModeThreadLocal &&
                *mode != cudaStreamCaptureModeRelaxed))
    return ret(cudaErrorInvalidValue);
  std::swap(*mode, t_captureMode);
  return cudaSuccess;
}

// --- memory pools -----------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
  if (!memPool)
    return ret(cudaErrorInvalidValue);
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  *memPool = reinterpret_cast<cudaMemPool_t>(defaultPool());
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
  if (!memPool)
    return ret(cudaErrorInvalidValue);
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  defaultPool();
  *memPool = reinterpret_cast<cudaMemPool_t>(g_currentPool);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  defaultPool();
  if (!memPool || !g_poolsFn().count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  g_currentPool = poolOf(memPool);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const cudaMemPoolProps *props) {
  if (!memPool || !props || props->allocType != cudaMemAllocationTypePinned)
    return ret(cudaErrorInvalidValue);
  if (props->location.type != cudaMemLocationTypeDevice)
    return ret(cudaErrorInvalidValue);
  if (props->location.id != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  defaultPool();
  auto *p = new PoolObj;
  p->props = *props;
  g_poolsFn().insert(p);
  *memPool = reinterpret_cast<cudaMemPool_t>(p);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  PTXSIM_LOCK;
  if (!memPool || !g_poolsFn().count(poolOf(memPool)) || poolOf(memPool)->isDefault)
    return ret(cudaErrorInvalidValue);
  if (g_currentPool == poolOf(memPool))
    g_currentPool = g_defaultPool;
  g_poolsFn().erase(poolOf(memPool));
  delete poolOf(memPool); // its live allocations stay valid until freed, as in CUDA
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                               cudaStream_t stream) {
  if (!ptr)
    return ret(cudaErrorInvalidValue);
  {
    PTXSIM_LOCK_CHECKED;
    if (!memPool || !g_poolsFn().count(poolOf(memPool)))
      return ret(cudaErrorInvalidValue);
    if (!ctx.validStream(stream))
      return ret(cudaErrorInvalidResourceHandle);
    if (auto captured = captureMalloc(stream, ptr, size, &poolOf(memPool)->props))
      return ret(*captured);
  }
  cudaError_t e = cudaMalloc(ptr, size);
  if (e)
    return e;
  PTXSIM_LOCK;
  if (g_poolsFn().count(poolOf(memPool)) && *ptr) {
    PoolObj &p = *poolOf(memPool);
    pruneLive(ctx, p);
    p.live[*ptr] = size;
    uint64_t used = usedBytes(p);
    p.usedHigh = std::max(p.usedHigh, used);
    p.reservedHigh = std::max(p.reservedHigh, used);
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                    cudaStream_t stream) {
  return cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}

PTXSIM_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t) {
  PTXSIM_LOCK;
  if (!memPool || !g_poolsFn().count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  return cudaSuccess; // freed memory goes back to the device at once: nothing to trim
}

PTXSIM_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr,
                                               void *value) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!memPool || !g_poolsFn().count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  PoolObj &p = *poolOf(memPool);
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies:
    p.reuseFollow = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    p.reuseOpportunistic = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    p.reuseInternal = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolAttrReleaseThreshold:
    p.releaseThreshold = *static_cast<uint64_t *>(value);
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh: {
    // may only be reset to zero: the high-water mark restarts from the current value
    if (*static_cast<uint64_t *>(value) != 0)
      return ret(cudaErrorInvalidValue);
    pruneLive(ctx, p);
    uint64_t used = usedBytes(p);
    (attr == cudaMemPoolAttrUsedMemHigh ? p.usedHigh : p.reservedHigh) = used;
    return cudaSuccess;
  }
  default:
    return ret(cudaErrorInvalidValue); // read-only or unknown
  }
}

PTXSIM_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr,
                                               void *value) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!memPool || !g_poolsFn().count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  PoolObj &p = *poolOf(memPool);
  pruneLive(ctx, p);
  uint64_t used = usedBytes(p);
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies:
    *static_cast<int *>(value) = p.reuseFollow;
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    *static_cast<int *>(value) = p.reuseOpportunistic;
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    *static_cast<int *>(value) = p.reuseInternal;
    return cudaSuccess;
  case cudaMemPoolAttrReleaseThreshold:
    *static_cast<uint64_t *>(value) = p.releaseThreshold;
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemCurrent:
  case cudaMemPoolAttrUsedMemCurrent:
    *static_cast<uint64_t *>(value) = used;
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
    *static_cast<uint64_t *>(value) = p.reservedHigh;
    return cudaSuccess;
  case cudaMemPoolAttrUsedMemHigh:
    *static_cast<uint64_t *>(value) = p.usedHigh;
    return cudaSuccess;
  default:
    return ret(cudaErrorInvalidValue);
  }
}

// --- memory nodes, conditional nodes, generic node creation -------------------------------------

PTXSIM_API cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies,
                                                cudaMemAllocNodeParams *nodeParams) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (!e && (!nodeParams || (nodeParams->accessDescCount && !nodeParams->accessDescs)))
    e = cudaErrorInvalidValue;
  if (!e && nodeParams->accessDescCount > 1)
    e = cudaErrorInvalidValue; // at most one descriptor per GPU, and there is one GPU
  if (!e && nodeParams->accessDescCount &&
      (nodeParams->accessDescs[0].location.type != cudaMemLocationTypeDevice ||
       nodeParams->accessDescs[0].location.id != 0))
    e = cudaErrorInvalidDevice;
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  std::vector<NodeObj *> deps;
  for (size_t i = 0; i < numDependencies; ++i)
    deps.push_back(nodeOf(pDependencies[i]));
  if ((e = makeAllocNode(ctx, *n, graphOf(graph), nodeParams->bytesize, &nodeParams->poolProps,
                         deps)))
    return ret(e);
  nodeParams->dptr = n->memPtr;
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                                      cudaMemAllocNodeParams *params_out) {
  PTXSIM_LOCK;
  if (!params_out || !validNode(node) || nodeOf(node)->kind != NodeKind::MemAlloc)
    return ret(cudaErrorInvalidValue);
  const NodeObj &n = *nodeOf(node);
  cudaMemAllocNodeParams p{};
  p.poolProps = n.memProps;
  p.bytesize = n.memBytes;
  p.dptr = n.memPtr;
  *params_out = p;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies, void *dptr) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, pDependencies, numDependencies);
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  n->graph = graphOf(graph);
  if ((e = makeFreeNode(*n, graphOf(graph), dptr)))
    return ret(e);
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), pDependencies, numDependencies));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out) {
  PTXSIM_LOCK;
  if (!dptr_out || !validNode(node) || nodeOf(node)->kind != NodeKind::MemFree)
    return ret(cudaErrorInvalidValue);
  *static_cast<void **>(dptr_out) = nodeOf(node)->memPtr;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceGraphMemTrim(int device) {
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  // the pool gives back what live allocations do not need (an allocation's address stays its
  // graph's, as in CUDA, and the next launch grows the pool again)
  g_graphMem.pool = graphPoolFor(g_graphMem.live);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                      void *value) {
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  uint64_t v = 0;
  switch (attr) {
  case cudaGraphMemAttrUsedMemCurrent: v = g_graphMem.pool; break;
  case cudaGraphMemAttrUsedMemHigh: v = g_graphMem.usedHigh; break;
  case cudaGraphMemAttrReservedMemCurrent: v = g_graphMem.pool; break;
  case cudaGraphMemAttrReservedMemHigh: v = g_graphMem.reservedHigh; break;
  default: return ret(cudaErrorInvalidValue);
  }
  *static_cast<uint64_t *>(value) = v;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                      void *value) {
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  // only the high-water marks can be set, and only to zero: they restart from the current use
  if (*static_cast<uint64_t *>(value) != 0)
    return ret(cudaErrorInvalidValue);
  if (attr == cudaGraphMemAttrUsedMemHigh)
    g_graphMem.usedHigh = g_graphMem.pool;
  else if (attr == cudaGraphMemAttrReservedMemHigh)
    g_graphMem.reservedHigh = g_graphMem.pool;
  else
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                                        cudaGraph_t graph,
                                                        unsigned int defaultLaunchValue,
                                                        unsigned int flags) {
  if (!pHandle_out || (flags & ~unsigned(cudaGraphCondAssignDefault)))
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  if (!validGraph(graph))
    return ret(cudaErrorInvalidValue);
  if (!g_condChunk || g_condChunkUsed + sizeof(uint32_t) > kCondChunkBytes) {
    uint64_t a = ctx.engine().memory().allocate(kCondChunkBytes,
                                                ptxsim::ptx::exec::AllocKind::Device);
    if (!a)
      return ret(cudaErrorMemoryAllocation);
    g_condChunk = static_cast<char *>(ptxsim::ptx::exec::DeviceMemory::host(a));
    g_condChunkUsed = 0;
  }
  char *slot = g_condChunk + g_condChunkUsed;
  g_condChunkUsed += sizeof(uint32_t);
  // without cudaGraphCondAssignDefault the default is never applied: the handle starts at 0 (an
  // H200 skips a while loop on such a handle created with default 1)
  unsigned initial = (flags & cudaGraphCondAssignDefault) ? defaultLaunchValue : 0;
  std::memcpy(slot, &initial, sizeof initial);
  CondHandle h;
  h.handle = reinterpret_cast<cudaGraphConditionalHandle>(slot);
  h.defaultValue = defaultLaunchValue;
  h.flags = flags;
  graphOf(graph)->condHandles.push_back(h);
  g_condHandlesFn().insert(h.handle);
  *pHandle_out = h.handle;
  return cudaSuccess;
}

/// Edge data of cudaGraphAddNode: ptxsim has default edges only.
static cudaError_t checkEdgeData(const cudaGraphEdgeData *edgeData, size_t n) {
  for (size_t i = 0; edgeData && i < n; ++i)
    if (edgeData[i].type != cudaGraphDependencyTypeDefault || edgeData[i].from_port ||
        edgeData[i].to_port)
      return cudaErrorInvalidValue;
  return cudaSuccess;
}

/// True when the `bytes` bytes at `p` are all zero (cudaGraphNodeParams' reserved fields).
static bool allZero(const void *p, size_t bytes) {
  const auto *c = static_cast<const unsigned char *>(p);
  return std::all_of(c, c + bytes, [](unsigned char x) { return x == 0; });
}

PTXSIM_API cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        const cudaGraphEdgeData *dependencyData,
                                        size_t numDependencies, cudaGraphNodeParams *nodeParams) {
  if (!nodeParams || !allZero(nodeParams->reserved0, sizeof nodeParams->reserved0) ||
      nodeParams->reserved2)
    return ret(cudaErrorInvalidValue);
  if (cudaError_t e = checkEdgeData(dependencyData, numDependencies))
    return ret(e);
  cudaGraphNodeParams &p = *nodeParams;
  const cudaGraphNode_t *deps = pDependencies;
  size_t num = numDependencies;
  switch (p.type) {
  case cudaGraphNodeTypeKernel: {
    cudaKernelNodeParams k{};
    k.func = p.kernel.func;
    k.gridDim = p.kernel.gridDim;
    k.blockDim = p.kernel.blockDim;
    k.sharedMemBytes = p.kernel.sharedMemBytes;
    k.kernelParams = p.kernel.kernelParams;
    k.extra = p.kernel.extra;
    return cudaGraphAddKernelNode(pGraphNode, graph, deps, num, &k);
  }
  case cudaGraphNodeTypeMemcpy:
    if (p.memcpy.flags || !allZero(p.memcpy.reserved, sizeof p.memcpy.reserved))
      return ret(cudaErrorInvalidValue);
    return cudaGraphAddMemcpyNode(pGraphNode, graph, deps, num, &p.memcpy.copyParams);
  case cudaGraphNodeTypeMemset: {
    cudaMemsetParams m{};
    m.dst = p.memset.dst;
    m.pitch = p.memset.pitch;
    m.value = p.memset.value;
    m.elementSize = p.memset.elementSize;
    m.width = p.memset.width;
    m.height = p.memset.height;
    return cudaGraphAddMemsetNode(pGraphNode, graph, deps, num, &m);
  }
  case cudaGraphNodeTypeHost: {
    cudaHostNodeParams h{};
    h.fn = p.host.fn;
    h.userData = p.host.userData;
    return cudaGraphAddHostNode(pGraphNode, graph, deps, num, &h);
  }
  case cudaGraphNodeTypeGraph: {
    if (p.graph.ownership == cudaGraphChildGraphOwnershipClone)
      return cudaGraphAddChildGraphNode(pGraphNode, graph, deps, num, p.graph.graph);
    if (p.graph.ownership != cudaGraphChildGraphOwnershipMove)
      return ret(cudaErrorInvalidValue);
    // move: the node takes the graph itself; the handle stays the child's but is no longer a
    // graph the user can destroy, instantiate or add to another parent
    PTXSIM_LOCK;
    cudaError_t e = addFront(pGraphNode, graph, deps, num);
    if (!e && (!validGraph(p.graph.graph) || p.graph.graph == graph ||
               graphOf(p.graph.graph)->ownedByNode ||
               hasKind(*graphOf(p.graph.graph), NodeKind::Conditional)))
      e = cudaErrorInvalidValue;
    for (auto &kv : g_capturesFn())
      if (!e && kv.second.sess->graph == graphOf(p.graph.graph))
        e = cudaErrorInvalidValue;
    if (e)
      return ret(e);
    auto n = std::make_unique<NodeObj>();
    n->kind = NodeKind::Child;
    n->child.reset(graphOf(p.graph.graph));
    g_graphsFn().erase(n->child.get());
    *pGraphNode = handle(addNode(graphOf(graph), std::move(n), deps, num));
    return cudaSuccess;
  }
  case cudaGraphNodeTypeEmpty:
    return cudaGraphAddEmptyNode(pGraphNode, graph, deps, num);
  case cudaGraphNodeTypeWaitEvent:
    return cudaGraphAddEventWaitNode(pGraphNode, graph, deps, num, p.eventWait.event);
  case cudaGraphNodeTypeEventRecord:
    return cudaGraphAddEventRecordNode(pGraphNode, graph, deps, num, p.eventRecord.event);
  case cudaGraphNodeTypeMemAlloc: {
    cudaMemAllocNodeParams a{};
    a.poolProps = p.alloc.poolProps;
    a.accessDescs = p.alloc.accessDescs;
    a.accessDescCount = p.alloc.accessDescCount;
    a.bytesize = p.alloc.bytesize;
    cudaError_t e = cudaGraphAddMemAllocNode(pGraphNode, graph, deps, num, &a);
    if (!e)
      p.alloc.dptr = a.dptr;
    return e;
  }
  case cudaGraphNodeTypeMemFree:
    return cudaGraphAddMemFreeNode(pGraphNode, graph, deps, num, p.free.dptr);
  case cudaGraphNodeTypeConditional: {
    PTXSIM_LOCK;
    cudaError_t e = addFront(pGraphNode, graph, deps, num);
    if (e)
      return ret(e);
    auto n = std::make_unique<NodeObj>();
    if ((e = makeConditional(*n, p.conditional)))
      return ret(e);
    *pGraphNode = handle(addNode(graphOf(graph), std::move(n), deps, num));
    return cudaSuccess;
  }
  case cudaGraphNodeTypeExtSemaphoreSignal:
  case cudaGraphNodeTypeExtSemaphoreWait:
    std::fprintf(stderr, "ptxsim: external semaphore graph nodes are not supported\n");
    return ret(cudaErrorNotSupported);
  default:
    return ret(cudaErrorInvalidValue);
  }
}

/// The kind a cudaGraphNodeParams type makes, and whether `node` (of a user graph) has it.
static bool nodeHasType(cudaGraphNode_t node, cudaGraphNodeType type, NodeKind &kind) {
  PTXSIM_LOCK;
  if (!validNode(node))
    return false;
  kind = nodeOf(node)->kind;
  cudaGraphNodeType t;
  switch (kind) {
  case NodeKind::Kernel: t = cudaGraphNodeTypeKernel; break;
  case NodeKind::Memcpy: t = cudaGraphNodeTypeMemcpy; break;
  case NodeKind::Memset: t = cudaGraphNodeTypeMemset; break;
  case NodeKind::Host: t = cudaGraphNodeTypeHost; break;
  case NodeKind::Child: t = cudaGraphNodeTypeGraph; break;
  case NodeKind::Empty: t = cudaGraphNodeTypeEmpty; break;
  case NodeKind::EventRecord: t = cudaGraphNodeTypeEventRecord; break;
  case NodeKind::EventWait: t = cudaGraphNodeTypeWaitEvent; break;
  case NodeKind::MemAlloc: t = cudaGraphNodeTypeMemAlloc; break;
  case NodeKind::MemFree: t = cudaGraphNodeTypeMemFree; break;
  case NodeKind::Conditional: t = cudaGraphNodeTypeConditional; break;
  default: return false;
  }
  return t == type;
}

/// cudaGraphNodeSetParams (exec null) and cudaGraphExecNodeSetParams: the typed setter of the
/// node's kind.
static cudaError_t setNodeParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                 cudaGraphNodeParams *nodeParams) {
  if (!nodeParams || !allZero(nodeParams->reserved0, sizeof nodeParams->reserved0) ||
      nodeParams->reserved2)
    return ret(cudaErrorInvalidValue);
  cudaGraphNodeParams &p = *nodeParams;
  NodeKind kind;
  if (!nodeHasType(node, p.type, kind))
    return ret(cudaErrorInvalidValue);
  switch (p.type) {
  case cudaGraphNodeTypeKernel: {
    cudaKernelNodeParams k{};
    k.func = p.kernel.func;
    k.gridDim = p.kernel.gridDim;
    k.blockDim = p.kernel.blockDim;
    k.sharedMemBytes = p.kernel.sharedMemBytes;
    k.kernelParams = p.kernel.kernelParams;
    k.extra = p.kernel.extra;
    return exec ? cudaGraphExecKernelNodeSetParams(exec, node, &k)
                : cudaGraphKernelNodeSetParams(node, &k);
  }
  case cudaGraphNodeTypeMemcpy:
    if (p.memcpy.flags || !allZero(p.memcpy.reserved, sizeof p.memcpy.reserved))
      return ret(cudaErrorInvalidValue);
    return exec ? cudaGraphExecMemcpyNodeSetParams(exec, node, &p.memcpy.copyParams)
                : cudaGraphMemcpyNodeSetParams(node, &p.memcpy.copyParams);
  case cudaGraphNodeTypeMemset: {
    cudaMemsetParams m{};
    m.dst = p.memset.dst;
    m.pitch = p.memset.pitch;
    m.value = p.memset.value;
    m.elementSize = p.memset.elementSize;
    m.width = p.memset.width;
    m.height = p.memset.height;
    return exec ? cudaGraphExecMemsetNodeSetParams(exec, node, &m)
                : cudaGraphMemsetNodeSetParams(node, &m);
  }
  case cudaGraphNodeTypeHost: {
    cudaHostNodeParams h{};
    h.fn = p.host.fn;
    h.userData = p.host.userData;
    return exec ? cudaGraphExecHostNodeSetParams(exec, node, &h)
                : cudaGraphHostNodeSetParams(node, &h);
  }
  case cudaGraphNodeTypeGraph:
    if (p.graph.ownership != cudaGraphChildGraphOwnershipClone)
      return ret(cudaErrorInvalidValue);
    if (exec)
      return cudaGraphExecChildGraphNodeSetParams(exec, node, p.graph.graph);
    {
      PTXSIM_LOCK;
      if (!validGraph(p.graph.graph) || hasKind(*graphOf(p.graph.graph), NodeKind::Conditional))
        return ret(cudaErrorInvalidValue);
      NodeObj &n = *nodeOf(node);
      forgetNodes(*n.child);
      n.child = cloneGraph(*graphOf(p.graph.graph), nullptr);
      return cudaSuccess;
    }
  case cudaGraphNodeTypeEmpty:
    return cudaSuccess;
  case cudaGraphNodeTypeWaitEvent:
    return exec ? cudaGraphExecEventWaitNodeSetEvent(exec, node, p.eventWait.event)
                : cudaGraphEventWaitNodeSetEvent(node, p.eventWait.event);
  case cudaGraphNodeTypeEventRecord:
    return exec ? cudaGraphExecEventRecordNodeSetEvent(exec, node, p.eventRecord.event)
                : cudaGraphEventRecordNodeSetEvent(node, p.eventRecord.event);
  default:
    // memory nodes cannot be changed (CUDA says so); nor can a conditional node's handle or
    // bodies, which ptxsim does not model
    return ret(cudaErrorNotSupported);
  }
}

PTXSIM_API cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node,
                                              cudaGraphNodeParams *nodeParams) {
  return setNodeParams(nullptr, node, nodeParams);
}

PTXSIM_API cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                                  cudaGraphNodeParams *nodeParams) {
  if (!graphExec)
    return ret(cudaErrorInvalidValue);
  return setNodeParams(graphExec, node, nodeParams);
}

PTXSIM_API cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec,
                                                      cudaGraph_t graph,
                                                      cudaGraphInstantiateParams *params) {
  if (!params)
    return ret(cudaErrorInvalidValue);
  cudaError_t e = cudaGraphInstantiateWithFlags(pGraphExec, graph, params->flags);
  params->errNode_out = nullptr;
  bool cyclic = false;
  if (e == cudaErrorInvalidValue && pGraphExec) {
    PTXSIM_LOCK;
    cyclic = validGraph(graph); // a valid graph is refused only for its structure
  }
  params->result_out = e == cudaSuccess ? cudaGraphInstantiateSuccess
                       : cyclic         ? cudaGraphInstantiateInvalidStructure
                                        : cudaGraphInstantiateError;
  return e;
}

PTXSIM_API cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec,
                                                           cudaGraph_t graph,
                                                           cudaGraphInstantiateParams *params) {
  return cudaGraphInstantiateWithParams(pGraphExec, graph, params);
}

// --- symbol copy nodes, user objects, DOT output --------------------------------------------------

/// Memcpy-node parameters of a copy to (`toSymbol`) or from a `__device__`/`__constant__`
/// variable, with cudaMemcpyToSymbol's checks.
static cudaError_t setSymbolCopy(Context &ctx, NodeObj &n, const void *symbol, void *host,
                                 size_t count, size_t offset, cudaMemcpyKind kind, bool toSymbol) {
  bool kindOk = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
                kind == (toSymbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (!kindOk)
    return cudaErrorInvalidMemcpyDirection;
  if (!host || !count)
    return cudaErrorInvalidValue;
  VarEntry *v = symbol ? ctx.findVar(symbol) : nullptr;
  if (!v || !v->symbol)
    return cudaErrorInvalidSymbol;
  if (offset > v->symbol->size || count > v->symbol->size - offset)
    return cudaErrorInvalidValue;
  char *where =
      static_cast<char *>(ptxsim::ptx::exec::DeviceMemory::host(v->symbol->addr)) + offset;
  if (toSymbol)
    set1D(n, where, host, count, cudaMemcpyDefault);
  else
    set1D(n, host, where, count, cudaMemcpyDefault);
  return cudaSuccess;
}

static cudaError_t addSymbolNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *deps, size_t num, const void *symbol,
                                 void *host, size_t count, size_t offset, cudaMemcpyKind kind,
                                 bool toSymbol) {
  PTXSIM_LOCK;
  cudaError_t e = addFront(pGraphNode, graph, deps, num);
  if (e)
    return ret(e);
  auto n = std::make_unique<NodeObj>();
  if ((e = setSymbolCopy(ctx, *n, symbol, host, count, offset, kind, toSymbol)))
    return ret(e);
  *pGraphNode = handle(addNode(graphOf(graph), std::move(n), deps, num));
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode,
                                                      cudaGraph_t graph,
                                                      const cudaGraphNode_t *pDependencies,
                                                      size_t numDependencies, const void *symbol,
                                                      const void *src, size_t count, size_t offset,
                                                      cudaMemcpyKind kind) {
  return addSymbolNode(pGraphNode, graph, pDependencies, numDependencies, symbol,
                       const_cast<void *>(src), count, offset, kind, true);
}

PTXSIM_API cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode,
                                                        cudaGraph_t graph,
                                                        const cudaGraphNode_t *pDependencies,
                                                        size_t numDependencies, void *dst,
                                                        const void *symbol, size_t count,
                                                        size_t offset, cudaMemcpyKind kind) {
  return addSymbolNode(pGraphNode, graph, pDependencies, numDependencies, symbol, dst, count,
                       offset, kind, false);
}

/// cudaGraph[Exec]MemcpyNodeSetParams{To,From}Symbol: `exec` null for the graph's own node.
static cudaError_t setSymbolNode(cudaGraphExec_t exec, cudaGraphNode_t node, const void *symbol,
                                 void *host, size_t count, size_t offset, cudaMemcpyKind kind,
                                 bool toSymbol) {
  PTXSIM_LOCK;
  NodeObj *n = exec ? execNode(exec, node, NodeKind::Memcpy)
                    : (validNode(node) && nodeOf(node)->kind == NodeKind::Memcpy ? nodeOf(node)
                                                                                  : nullptr);
  if (!n)
    return ret(cudaErrorInvalidValue);
  NodeObj tmp;
  if (cudaError_t e = setSymbolCopy(ctx, tmp, symbol, host, count, offset, kind, toSymbol))
    return ret(e);
  copyParams(*n, tmp);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node,
                                                            const void *symbol, const void *src,
                                                            size_t count, size_t offset,
                                                            cudaMemcpyKind kind) {
  return setSymbolNode(nullptr, node, symbol, const_cast<void *>(src), count, offset, kind, true);
}

PTXSIM_API cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                              const void *symbol, size_t count,
                                                              size_t offset, cudaMemcpyKind kind) {
  return setSymbolNode(nullptr, node, symbol, dst, count, offset, kind, false);
}

PTXSIM_API cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                                cudaGraphNode_t node,
                                                                const void *symbol,
                                                                const void *src, size_t count,
                                                                size_t offset,
                                                                cudaMemcpyKind kind) {
  if (!hGraphExec)
    return ret(cudaErrorInvalidValue);
  return setSymbolNode(hGraphExec, node, symbol, const_cast<void *>(src), count, offset, kind,
                       true);
}

PTXSIM_API cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                                  cudaGraphNode_t node, void *dst,
                                                                  const void *symbol,
                                                                  size_t count, size_t offset,
                                                                  cudaMemcpyKind kind) {
  if (!hGraphExec)
    return ret(cudaErrorInvalidValue);
  return setSymbolNode(hGraphExec, node, symbol, dst, count, offset, kind, false);
}

static UserObj *userObjOf(cudaUserObject_t o) { return reinterpret_cast<UserObj *>(o); }

PTXSIM_API cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
                                            cudaHostFn_t destroy, unsigned int initialRefcount,
                                            unsigned int flags) {
  // CUDA requires cudaUserObjectNoDestructorSync (destructors run with no CUDA ordering)
  if (!object_out || !destroy || !initialRefcount || flags != cudaUserObjectNoDestructorSync)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  auto *o = new UserObj;
  o->ptr = ptr;
  o->destroy = destroy;
  o->refs = initialRefcount;
  g_userObjsFn().insert(o);
  *object_out = reinterpret_cast<cudaUserObject_t>(o);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  PTXSIM_LOCK;
  if (!count || !g_userObjsFn().count(userObjOf(object)))
    return ret(cudaErrorInvalidValue);
  userObjOf(object)->refs += count;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  PTXSIM_LOCK;
  if (!count || !g_userObjsFn().count(userObjOf(object)))
    return ret(cudaErrorInvalidValue);
  // releasing more references than there are is not checked: an H200 returns cudaSuccess and
  // leaves the object alone (its destructor does not run)
  if (userObjOf(object)->refs >= count)
    releaseUserObj(userObjOf(object), count);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                                 unsigned int count, unsigned int flags) {
  PTXSIM_LOCK;
  if (!count || (flags & ~unsigned(cudaGraphUserObjectMove)) || !validGraph(graph) ||
      !g_userObjsFn().count(userObjOf(object)))
    return ret(cudaErrorInvalidValue);
  UserObj *o = userObjOf(object);
  if (flags & cudaGraphUserObjectMove) {
    if (o->refs < count)
      return ret(cudaErrorInvalidValue); // the caller does not hold that many
  } else {
    o->refs += count;
  }
  auto &refs = graphOf(graph)->userRefs;
  auto it = std::find_if(refs.begin(), refs.end(), [&](auto &r) { return r.first == o; });
  if (it == refs.end())
    refs.emplace_back(o, count);
  else
    it->second += count;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                                  unsigned int count) {
  PTXSIM_LOCK;
  if (!count || !validGraph(graph) || !g_userObjsFn().count(userObjOf(object)))
    return ret(cudaErrorInvalidValue);
  auto &refs = graphOf(graph)->userRefs;
  UserObj *obj = userObjOf(object);
  auto it = std::find_if(refs.begin(), refs.end(), [&](auto &r) { return r.first == obj; });
  // Not checked, as on an H200 (cudaSuccess either way): more references than the graph holds
  // are ignored; from a graph that holds none, the object's own references are dropped (an H200
  // ran the destructor of an object released once from a graph that never retained it).
  if (it == refs.end()) {
    if (obj->refs >= count)
      releaseUserObj(obj, count);
    return cudaSuccess;
  }
  if (it->second < count)
    return cudaSuccess;
  it->second -= count;
  UserObj *o = it->first;
  if (!it->second)
    refs.erase(it);
  releaseUserObj(o, count);
  return cudaSuccess;
}

/// Writes `g` as DOT statements: one node per graph node, labelled with its kind (and kernel
/// name), child graphs and conditional bodies as clusters, and the edges.
static void dotGraph(std::FILE *f, const GraphObj &g, const std::string &prefix) {
  std::unordered_map<const NodeObj *, size_t> index;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    index[g.nodes[i].get()] = i;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const NodeObj &n = *g.nodes[i];
    std::string id = prefix + "n" + std::to_string(i);
    const char *kind = "empty";
    std::string detail;
    switch (n.kind) {
    case NodeKind::Kernel:
      kind = "kernel";
      if (n.k)
        detail = n.k->deviceName;
      break;
    case NodeKind::Memcpy:
      kind = "memcpy";
      detail = std::to_string(n.width * n.height * n.depth) + " bytes";
      break;
    case NodeKind::Memset: kind = "memset"; break;
    case NodeKind::Host: kind = "host"; break;
    case NodeKind::Empty: kind = "empty"; break;
    case NodeKind::Child: kind = "graph"; break;
    case NodeKind::EventRecord: kind = "event record"; break;
    case NodeKind::EventWait: kind = "event wait"; break;
    case NodeKind::MemAlloc: kind = "mem alloc"; break;
    case NodeKind::MemFree: kind = "mem free"; break;
    case NodeKind::Conditional:
      kind = n.condType == cudaGraphCondTypeWhile ? "while"
             : n.condType == cudaGraphCondTypeIf  ? "if"
                                                  : "switch";
      break;
    }
    std::fprintf(f, "  \"%s\" [shape=box, label=\"%s%s%s\"];\n", id.c_str(), kind,
                 detail.empty() ? "" : "\\n", detail.c_str());
    std::vector<const GraphObj *> inner;
    if (n.child)
      inner.push_back(n.child.get());
    for (const auto &b : n.bodies)
      inner.push_back(b.get());
    for (size_t j = 0; j < inner.size(); ++j) {
      std::string sub = id + "_" + std::to_string(j) + "_";
      std::fprintf(f, "  subgraph \"cluster_%s\" {\n  label=\"%s body %zu\";\n", sub.c_str(),
                   kind, j);
      dotGraph(f, *inner[j], sub);
      std::fprintf(f, "  }\n");
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const NodeObj *d : g.nodes[i]->deps)
      std::fprintf(f, "  \"%sn%zu\" -> \"%sn%zu\";\n", prefix.c_str(), index.at(d),
                   prefix.c_str(), i);
}

PTXSIM_API cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path,
                                              unsigned int flags) {
  (void)flags; // every flag adds detail; ptxsim writes the same DOT for all
  PTXSIM_LOCK;
  if (!path || !validGraph(graph))
    return ret(cudaErrorInvalidValue);
  std::FILE *f = std::fopen(path, "w");
  if (!f)
    return ret(cudaErrorOperatingSystem);
  std::fprintf(f, "digraph ptxsim_graph {\n");
  dotGraph(f, *graphOf(graph), "");
  std::fprintf(f, "}\n");
  bool ok = std::fclose(f) == 0;
  return ok ? cudaSuccess : ret(cudaErrorOperatingSystem);
}

} // extern "C"
