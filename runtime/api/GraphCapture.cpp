// Stream capture: the hooks the stream API calls on a capturing stream (GraphHooks.h) and the
// capture entry points (GraphObjects.h).

#include "runtime/api/GraphObjects.h"

#include <algorithm>

namespace ptxsim::runtime::graphs {

thread_local cudaStreamCaptureMode t_captureMode = cudaStreamCaptureModeGlobal;

// --- capture ----------------------------------------------------------------------------------

/// Capture key of a stream. The legacy stream never captures, so a null stream reaching a hook
/// is a `--default-stream per-thread` program's per-thread stream (its _ptsz entry points pass
/// 0 through); a per-thread capture must see that work.
cudaStream_t captureKey(cudaStream_t s) { return s ? s : cudaStreamPerThread; }

Capture *capturing(cudaStream_t s) {
  auto it = gs().captures.find(captureKey(s));
  return it == gs().captures.end() ? nullptr : &it->second;
}

/// Appends a captured node after the stream's current tail.
void appendCaptured(Capture &c, std::unique_ptr<NodeObj> n) {
  n->graph = c.sess->graph;
  n->deps = c.tail;
  NodeObj *raw = n.get();
  gs().nodes.insert(raw);
  c.sess->graph->nodes.push_back(std::move(n));
  c.tail = {raw};
}

// --- the state and its hooks (GraphHooks.h) ---

GraphState &gs() {
  Context &ctx = Context::get();
  if (GraphHooks *h = ctx.installedGraphHooks())
    return static_cast<GraphState &>(*h); // (only a GraphState is ever installed)
  auto s = std::make_unique<GraphState>();
  GraphState &ref = *s;
  ctx.installGraphHooks(std::move(s));
  return ref;
}

std::optional<cudaError_t> GraphState::captureKernel(cudaStream_t s, KernelEntry *k, dim3 grid,
                                                     dim3 block, void **args, size_t shmem,
                                                     bool cooperative) {
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

std::optional<cudaError_t> GraphState::captureMemcpy(cudaStream_t s, void *dst, const void *src,
                                                     size_t n, cudaMemcpyKind kind) {
  return captureWith(s, [&](NodeObj &node) {
    set1D(node, dst, src, n, kind);
    return cudaSuccess;
  });
}

std::optional<cudaError_t> GraphState::captureMemset(cudaStream_t s, void *p, int value, size_t n) {
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

std::optional<cudaError_t> GraphState::captureHostFunc(cudaStream_t s, cudaHostFn_t fn,
                                                       void *userData) {
  return captureWith(s, [&](NodeObj &node) {
    node.kind = NodeKind::Host;
    node.host.fn = fn;
    node.host.userData = userData;
    return cudaSuccess;
  });
}

std::optional<cudaError_t> GraphState::captureSyncCall(cudaStream_t s) {
  Capture *c = capturing(s);
  if (!c)
    return std::nullopt;
  c->sess->invalidated = true;
  return cudaErrorStreamCaptureUnsupported;
}

std::optional<cudaError_t> GraphState::captureMemcpy2D(cudaStream_t s, void *dst, size_t dpitch,
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

std::optional<cudaError_t> GraphState::captureMemset2D(cudaStream_t s, void *p, size_t pitch,
                                                       int value, size_t width, size_t height) {
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

std::optional<cudaError_t> GraphState::captureSymbolCopy(cudaStream_t s, const void *symbol,
                                                         void *host, size_t count, size_t offset,
                                                         cudaMemcpyKind kind, bool toSymbol) {
  PTXSIM_LOCK;
  if (!capturing(s))
    return std::nullopt;
  return captureWith(s, [&](NodeObj &node) {
    VarEntry *v = symbol ? ctx.findVar(symbol) : nullptr;
    if (!v || !v->symbol)
      return cudaErrorInvalidSymbol;
    if (offset > v->symbol->size || count > v->symbol->size - offset)
      return cudaErrorInvalidValue;
    char *where =
        static_cast<char *>(ptxsim::ptx::exec::DeviceMemory::host(v->symbol->addr)) + offset;
    if (toSymbol)
      set1D(node, where, host, count, kind);
    else
      set1D(node, host, where, count, kind);
    return cudaSuccess;
  });
}

std::optional<cudaError_t> GraphState::captureMalloc(cudaStream_t s, void **ptr, size_t size,
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

std::optional<cudaError_t> GraphState::captureFree(cudaStream_t s, void *ptr) {
  Capture *c = capturing(s);
  if (!c)
    return std::nullopt;
  if (!gs().graphAllocs.count(ptr)) {
    std::fprintf(stderr, "ptxsim: cudaFreeAsync during stream capture of memory that no graph "
                         "allocated is not supported\n");
    return cudaErrorNotSupported;
  }
  return captureWith(s, [&](NodeObj &n) { return makeFreeNode(n, c->sess->graph, ptr); });
}

std::optional<cudaError_t> GraphState::graphMemRelease(void *ptr) {
  auto it = gs().graphAllocs.find(ptr);
  if (!ptr || it == gs().graphAllocs.end())
    return std::nullopt;
  if (it->second.ownerFrees || !it->second.live)
    return cudaErrorInvalidValue; // freed by its own graph, or not allocated now
  endGraphAlloc(ptr);
  return cudaSuccess;
}

std::optional<cudaError_t> GraphState::captureEventRecord(cudaEvent_t e, cudaStream_t s) {
  Capture *c = capturing(s);
  if (!c) {
    gs().capturedEvents.erase(e); // an ordinary record replaces a captured one
    return std::nullopt;
  }
  if (c->sess->invalidated)
    return cudaErrorStreamCaptureInvalidated;
  gs().capturedEvents[e] = CapturedEvent{c->sess, c->tail};
  return cudaSuccess;
}

std::optional<cudaError_t> GraphState::captureStreamWaitEvent(cudaStream_t s, cudaEvent_t e) {
  auto it = gs().capturedEvents.find(e);
  if (it == gs().capturedEvents.end() || it->second.sess->ended)
    return std::nullopt; // an event outside capture: one queue keeps the order, nothing to wait on
  CapturedEvent &ev = it->second;
  Capture *c = capturing(s);
  if (!c) {
    // fork: the stream joins the capture sequence after the event's capture point
    Capture joined;
    joined.sess = ev.sess;
    joined.tail = ev.tail;
    gs().captures[captureKey(s)] = std::move(joined);
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

std::optional<cudaError_t> GraphState::captureEventNode(cudaStream_t s, cudaEvent_t e,
                                                        bool record) {
  return captureWith(s, [&](NodeObj &node) {
    node.kind = record ? NodeKind::EventRecord : NodeKind::EventWait;
    node.event = e;
    return cudaSuccess;
  });
}

void GraphState::captureEventDestroyed(cudaEvent_t e) { gs().capturedEvents.erase(e); }

void GraphState::reset() {
  std::unordered_set<Session *> seen;
  for (auto &kv : gs().captures) {
    Session &sess = *kv.second.sess;
    if (!seen.insert(&sess).second)
      continue;
    sess.ended = true;
    dropSessionGraph(sess);
  }
  gs().captures.clear();
  gs().capturedEvents.clear();
  // the device memory of graph allocations and conditional handles goes with the context
  gs().graphAllocs.clear();
  gs().graphMem = GraphMemStats{};
  gs().condChunk = nullptr;
  gs().condChunkUsed = 0;
  gs().condHandles.clear();
}

void GraphState::captureStreamDestroyed(cudaStream_t s) {
  Capture *c = capturing(s);
  if (!c)
    return;
  if (c->sess->origin == s) {
    // the sequence can no longer be ended: drop it and its graph
    c->sess->invalidated = true;
    std::shared_ptr<Session> sess = c->sess;
    for (auto it = gs().captures.begin(); it != gs().captures.end();)
      it = it->second.sess == sess ? gs().captures.erase(it) : std::next(it);
    sess->ended = true;
    dropSessionGraph(*sess);
    return;
  }
  // a stream that joined the capture leaves it (CUDA lets a program destroy its forked streams
  // once their work is joined back, before the origin ends the capture): what it captured stays
  // in the graph, and ending the capture still requires that work to be joined
  for (NodeObj *n : c->tail)
    c->sess->departedTails.push_back(n);
  gs().captures.erase(captureKey(s));
}

} // namespace ptxsim::runtime::graphs

using namespace ptxsim::runtime;
using namespace ptxsim::runtime::graphs;

extern "C" {

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
  gs().graphs.insert(g);
  Capture c;
  c.sess = std::make_shared<Session>();
  c.sess->graph = g;
  c.sess->mode = mode;
  c.sess->id = gs().nextCaptureId++;
  c.sess->origin = stream;
  gs().captures[stream] = std::move(c);
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
  for (auto &kv : gs().captures)
    if (kv.second.sess->graph == graphOf(graph))
      return ret(cudaErrorIllegalState); // one capture into a graph at a time
  Capture c;
  c.sess = std::make_shared<Session>();
  c.sess->graph = graphOf(graph);
  c.sess->ownsGraph = false;
  c.sess->mode = mode;
  c.sess->id = gs().nextCaptureId++;
  c.sess->origin = stream;
  for (size_t i = 0; i < numDependencies; ++i)
    c.tail.push_back(nodeOf(dependencies[i]));
  gs().captures[stream] = std::move(c);
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
  for (auto &kv : gs().captures)
    if (kv.second.sess == sess)
      for (NodeObj *n : kv.second.tail)
        unjoined |= !reach.count(n);
  for (NodeObj *n : sess->departedTails)
    unjoined |= !reach.count(n);
  for (auto it = gs().captures.begin(); it != gs().captures.end();)
    it = it->second.sess == sess ? gs().captures.erase(it) : std::next(it);
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
  *pCaptureStatus = !c                     ? cudaStreamCaptureStatusNone
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
  return cudaStreamGetCaptureInfo(captureKey(stream), captureStatus_out, id_out, graph_out,
                                  dependencies_out, edgeData_out, numDependencies_out);
}

PTXSIM_API cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode) {
  if (!mode || (*mode != cudaStreamCaptureModeGlobal && *mode != cudaStreamCaptureModeThreadLocal &&
                *mode != cudaStreamCaptureModeRelaxed))
    return ret(cudaErrorInvalidValue);
  std::swap(*mode, t_captureMode);
  return cudaSuccess;
}

} // extern "C"
