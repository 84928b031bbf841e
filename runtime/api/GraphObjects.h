#pragma once
// The objects behind CUDA graphs, stream capture and memory pools, shared by the files that
// implement them: GraphObjects.cpp (nodes, cloning, ordering, parameters), GraphMemory.cpp (graph
// allocations and conditional handles), GraphRun.cpp (execution), GraphCapture.cpp (stream
// capture: the GraphHooks the stream API calls, and the capture entry points), GraphApi.cpp
// (graph, node and executable-graph entry points), GraphNodes.cpp (memory, conditional, generic,
// symbol-copy nodes, user objects, DOT output) and MemPools.cpp (memory pools).
//
// Contract: every table lives in one GraphState, owned by the Context (Context::graphHooks) from
// the program's first graph, capture or pool call (gs()) to the end of the process; all of it
// is guarded by the context mutex. cudaDeviceReset ends captures and forgets graph memory
// (GraphState::reset); graphs, executable graphs, pools and user objects live on, as in CUDA.

#include "runtime/api/Api.h"
#include "runtime/api/GraphHooks.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ptxsim::runtime::graphs {

enum class NodeKind {
  Kernel,
  Memcpy,
  Memset,
  Host,
  Empty,
  Child,
  EventRecord,
  EventWait,
  MemAlloc,
  MemFree,
  Conditional
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
  unsigned long long flags = 0;                            ///< cudaGraphInstantiateWithFlags
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
};
constexpr uint64_t kGraphPoolStep = 32ull << 20;

/// Every graph object of the process and the state of its captures and graph memory.
class GraphState final : public GraphHooks {
public:
  std::unordered_set<GraphObj *> graphs;
  std::unordered_set<NodeObj *> nodes;
  std::unordered_set<ExecObj *> execs;
  std::unordered_map<cudaStream_t, Capture> captures;
  std::unordered_map<cudaEvent_t, CapturedEvent> capturedEvents;
  unsigned long long nextCaptureId = 1;
  std::unordered_set<UserObj *> userObjs; ///< live user objects
  /// handles of user objects already destroyed (until a new object gets the same address):
  /// releasing one is not checked on a GPU (cudaSuccess, nothing happens)
  std::unordered_set<UserObj *> deadUserObjs;
  std::unordered_set<PoolObj *> pools;
  std::unordered_map<void *, GraphAlloc> graphAllocs; ///< graph allocations by address
  GraphMemStats graphMem;
  /// Device memory for conditional-handle slots, handed out 4 bytes at a time from 4 KiB chunks.
  char *condChunk = nullptr;
  size_t condChunkUsed = 0;
  std::unordered_set<cudaGraphConditionalHandle> condHandles; ///< never reused
  PoolObj *defaultPool = nullptr;
  PoolObj *currentPool = nullptr;

  // GraphHooks (GraphCapture.cpp)
  std::optional<cudaError_t> captureKernel(cudaStream_t s, KernelEntry *k, dim3 grid, dim3 block,
                                           void **args, size_t shmem, bool cooperative) override;
  std::optional<cudaError_t> captureMemcpy(cudaStream_t s, void *dst, const void *src, size_t n,
                                           cudaMemcpyKind kind) override;
  std::optional<cudaError_t> captureMemset(cudaStream_t s, void *p, int value, size_t n) override;
  std::optional<cudaError_t> captureHostFunc(cudaStream_t s, cudaHostFn_t fn,
                                             void *userData) override;
  std::optional<cudaError_t> captureMemcpy2D(cudaStream_t s, void *dst, size_t dpitch,
                                             const void *src, size_t spitch, size_t width,
                                             size_t height, cudaMemcpyKind kind) override;
  std::optional<cudaError_t> captureMemset2D(cudaStream_t s, void *p, size_t pitch, int value,
                                             size_t width, size_t height) override;
  std::optional<cudaError_t> captureSymbolCopy(cudaStream_t s, const void *symbol, void *host,
                                               size_t count, size_t offset, cudaMemcpyKind kind,
                                               bool toSymbol) override;
  std::optional<cudaError_t> captureMalloc(cudaStream_t s, void **ptr, size_t size,
                                           const cudaMemPoolProps *props) override;
  std::optional<cudaError_t> captureFree(cudaStream_t s, void *ptr) override;
  std::optional<cudaError_t> graphMemRelease(void *ptr) override;
  std::optional<cudaError_t> captureSyncCall(cudaStream_t s) override;
  std::optional<cudaError_t> captureEventRecord(cudaEvent_t e, cudaStream_t s) override;
  std::optional<cudaError_t> captureStreamWaitEvent(cudaStream_t s, cudaEvent_t e) override;
  std::optional<cudaError_t> captureEventNode(cudaStream_t s, cudaEvent_t e, bool record) override;
  void captureStreamDestroyed(cudaStream_t s) override;
  void captureEventDestroyed(cudaEvent_t e) override;
  void reset() override;
};

/// The process's graph state, created and handed to the Context at the first call (call under
/// the context mutex).
GraphState &gs();

constexpr size_t kCondChunkBytes = 4096;

inline GraphObj *graphOf(cudaGraph_t g) { return reinterpret_cast<GraphObj *>(g); }
inline NodeObj *nodeOf(cudaGraphNode_t n) { return reinterpret_cast<NodeObj *>(n); }
inline ExecObj *execOf(cudaGraphExec_t e) { return reinterpret_cast<ExecObj *>(e); }
inline PoolObj *poolOf(cudaMemPool_t p) { return reinterpret_cast<PoolObj *>(p); }
inline cudaGraphNode_t handle(NodeObj *n) { return reinterpret_cast<cudaGraphNode_t>(n); }

/// The exec graph's copy of `node` when it has kind `kind`, else null (under the lock).
NodeObj *execNode(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, NodeKind kind);

/// The pool size that holds `bytes` of live allocations.
uint64_t graphPoolFor(uint64_t bytes);

/// Gives the device memory of a graph allocation back when nothing refers to it any more.
void maybeReleaseGraphAlloc(void *p);

bool validGraph(cudaGraph_t g);

bool validNode(cudaGraphNode_t n);

void forgetNodes(GraphObj &g);

/// Drops the graph of a capture sequence that cannot be ended, unless it is the user's.
void dropSessionGraph(Session &sess);

/// Whether `g` (or a graph nested in it) has a node of kind `k`.
bool hasKind(const GraphObj &g, NodeKind k);

/// Points argPtrs at each parameter's slot in the packed buffer.
void bindArgs(NodeObj &n);

std::unique_ptr<GraphObj> cloneGraph(const GraphObj &src,
                                     std::unordered_map<const NodeObj *, NodeObj *> *map);

/// Copies a node's parameters (not its graph or dependencies).
void copyParams(NodeObj &to, const NodeObj &from);

/// Topological order by Kahn's algorithm, ready nodes taken in creation order. False on a cycle.
bool topoOrder(const GraphObj &g, std::vector<NodeObj *> &out);

bool acyclic(const GraphObj &g);

/// Validates a dependency list for a node of `g`.
cudaError_t checkDeps(GraphObj *g, const cudaGraphNode_t *deps, size_t num);

NodeObj *addNode(GraphObj *g, std::unique_ptr<NodeObj> n, const cudaGraphNode_t *deps, size_t num);

/// Common front of the cudaGraphAdd*Node calls (under the lock).
cudaError_t addFront(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                     size_t num);

/// Fills a kernel node from launch parameters: resolves the kernel and packs the arguments.
cudaError_t setKernel(Context &ctx, NodeObj &n, const cudaKernelNodeParams &p, KernelEntry *known);

void set1D(NodeObj &n, void *dst, const void *src, size_t count, cudaMemcpyKind kind);

/// Memcpy node parameters from a cudaMemcpy3DParms (pointers only, no CUDA arrays).
cudaError_t setMemcpy3D(NodeObj &n, const cudaMemcpy3DParms *p);

cudaError_t checkMemset(const cudaMemsetParams &p);

/// The address a new alloc node of `bytes` in graph `owner`, depending on `deps`, can share
/// with earlier alloc nodes of that graph, or null. CUDA reuses a virtual address within a graph
/// for allocations whose lifetimes cannot overlap (CUDA Programming Guide, Graph Memory Nodes:
/// address reuse within a graph); here: memory that `owner` alone frees, large enough, whose
/// every alloc node in `owner` has its free node among the new node's ancestors. Of several, the
/// smallest that fits, then the lowest address (deterministic).
void *reusableGraphAddress(const GraphObj *owner, const std::vector<NodeObj *> &deps, size_t bytes);

/// Makes `n` an allocation node of `bytes` for graph `owner` that will depend on `deps`: the
/// memory is committed now and its address is the node's for good (CUDA fixes it at node
/// creation too); it may be the address of earlier alloc nodes freed before it.
cudaError_t makeAllocNode(Context &ctx, NodeObj &n, const GraphObj *owner, size_t bytes,
                          const cudaMemPoolProps *props, const std::vector<NodeObj *> &deps);

/// Makes `n` a node of graph `g` freeing graph allocation `p`, with CUDA's rules: only graph
/// allocations, once per graph (once per alloc node of `g` at that address, when `g` reuses
/// it), and never in both the owning graph and another one.
cudaError_t makeFreeNode(NodeObj &n, const GraphObj *g, void *p);

/// Makes `n` a conditional node with fresh, empty body graphs; writes their handles to
/// p.phGraph_out (an array the node owns).
cudaError_t makeConditional(NodeObj &n, cudaConditionalNodeParams &p);

/// Graph allocations made by the alloc nodes of `g` and the graphs inside it.
void allocsOf(const GraphObj &g, std::vector<void *> &out);

/// Ends the lifetime of live graph allocation `it` (cudaFree, cudaFreeAsync, auto-free).
void endGraphAlloc(void *p);

cudaError_t runGraph(const GraphObj &g, cudaStream_t s);

cudaError_t runNode(const NodeObj &n, cudaStream_t s);

/// Stores the default of every cudaGraphCondAssignDefault handle of `g` and of the graphs nested
/// in it. A launch does this once, before any node runs: a handle created in a loop's body graph
/// is not put back at each iteration of the body (an H100 runs a while loop nested in a while
/// body only until its handle is first cleared; tools/hw/data/h100-2026-11-26).
void assignDefaults(const GraphObj &g);

/// Capture key of a stream. The legacy stream never captures, so a null stream reaching a hook
/// is a `--default-stream per-thread` program's per-thread stream (its _ptsz entry points pass
/// 0 through); a per-thread capture must see that work.
cudaStream_t captureKey(cudaStream_t s);

Capture *capturing(cudaStream_t s);

/// Appends a captured node after the stream's current tail.
void appendCaptured(Capture &c, std::unique_ptr<NodeObj> n);

void pruneLive(Context &ctx, PoolObj &p);

uint64_t usedBytes(const PoolObj &p);

PoolObj *defaultPool();

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

} // namespace ptxsim::runtime::graphs
