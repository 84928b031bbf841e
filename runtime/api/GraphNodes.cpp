// Memory, conditional, generic and symbol-copy nodes, user objects and DOT output of CUDA
// graphs (GraphObjects.h).

#include "runtime/api/GraphObjects.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

using namespace ptxsim::runtime;
using namespace ptxsim::runtime::graphs;

extern "C" {

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
  gs().graphMem.pool = graphPoolFor(gs().graphMem.live);
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
  case cudaGraphMemAttrUsedMemCurrent:
    v = gs().graphMem.pool;
    break;
  case cudaGraphMemAttrUsedMemHigh:
    v = gs().graphMem.usedHigh;
    break;
  case cudaGraphMemAttrReservedMemCurrent:
    v = gs().graphMem.pool;
    break;
  case cudaGraphMemAttrReservedMemHigh:
    v = gs().graphMem.reservedHigh;
    break;
  default:
    return ret(cudaErrorInvalidValue);
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
    gs().graphMem.usedHigh = gs().graphMem.pool;
  else if (attr == cudaGraphMemAttrReservedMemHigh)
    gs().graphMem.reservedHigh = gs().graphMem.pool;
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
  if (!gs().condChunk || gs().condChunkUsed + sizeof(uint32_t) > kCondChunkBytes) {
    uint64_t a =
        ctx.engine().memory().allocate(kCondChunkBytes, ptxsim::ptx::exec::AllocKind::Device);
    if (!a)
      return ret(cudaErrorMemoryAllocation);
    gs().condChunk = static_cast<char *>(ptxsim::ptx::exec::DeviceMemory::host(a));
    gs().condChunkUsed = 0;
  }
  char *slot = gs().condChunk + gs().condChunkUsed;
  gs().condChunkUsed += sizeof(uint32_t);
  // without cudaGraphCondAssignDefault the default is never applied: the handle starts at 0 (an
  // H200 skips a while loop on such a handle created with default 1)
  unsigned initial = (flags & cudaGraphCondAssignDefault) ? defaultLaunchValue : 0;
  std::memcpy(slot, &initial, sizeof initial);
  CondHandle h;
  h.handle = reinterpret_cast<cudaGraphConditionalHandle>(slot);
  h.defaultValue = defaultLaunchValue;
  h.flags = flags;
  graphOf(graph)->condHandles.push_back(h);
  gs().condHandles.insert(h.handle);
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
    for (auto &kv : gs().captures)
      if (!e && kv.second.sess->graph == graphOf(p.graph.graph))
        e = cudaErrorInvalidValue;
    if (e)
      return ret(e);
    auto n = std::make_unique<NodeObj>();
    n->kind = NodeKind::Child;
    n->child.reset(graphOf(p.graph.graph));
    gs().graphs.erase(n->child.get());
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
  case NodeKind::Kernel:
    t = cudaGraphNodeTypeKernel;
    break;
  case NodeKind::Memcpy:
    t = cudaGraphNodeTypeMemcpy;
    break;
  case NodeKind::Memset:
    t = cudaGraphNodeTypeMemset;
    break;
  case NodeKind::Host:
    t = cudaGraphNodeTypeHost;
    break;
  case NodeKind::Child:
    t = cudaGraphNodeTypeGraph;
    break;
  case NodeKind::Empty:
    t = cudaGraphNodeTypeEmpty;
    break;
  case NodeKind::EventRecord:
    t = cudaGraphNodeTypeEventRecord;
    break;
  case NodeKind::EventWait:
    t = cudaGraphNodeTypeWaitEvent;
    break;
  case NodeKind::MemAlloc:
    t = cudaGraphNodeTypeMemAlloc;
    break;
  case NodeKind::MemFree:
    t = cudaGraphNodeTypeMemFree;
    break;
  case NodeKind::Conditional:
    t = cudaGraphNodeTypeConditional;
    break;
  default:
    return false;
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

// --- symbol copy nodes, user objects, DOT output
// --------------------------------------------------

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
  NodeObj *n =
      exec ? execNode(exec, node, NodeKind::Memcpy)
           : (validNode(node) && nodeOf(node)->kind == NodeKind::Memcpy ? nodeOf(node) : nullptr);
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
                                                                const void *symbol, const void *src,
                                                                size_t count, size_t offset,
                                                                cudaMemcpyKind kind) {
  if (!hGraphExec)
    return ret(cudaErrorInvalidValue);
  return setSymbolNode(hGraphExec, node, symbol, const_cast<void *>(src), count, offset, kind,
                       true);
}

PTXSIM_API cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                                  cudaGraphNode_t node, void *dst,
                                                                  const void *symbol, size_t count,
                                                                  size_t offset,
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
  gs().userObjs.insert(o);
  gs().deadUserObjs.erase(o);
  *object_out = reinterpret_cast<cudaUserObject_t>(o);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  PTXSIM_LOCK;
  if (!count || !gs().userObjs.count(userObjOf(object)))
    return ret(cudaErrorInvalidValue);
  userObjOf(object)->refs += count;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  PTXSIM_LOCK;
  // the handle of an object already destroyed (say by a graph's release of references it never
  // held): an H200 returns cudaSuccess and nothing happens
  if (count && gs().deadUserObjs.count(userObjOf(object)))
    return cudaSuccess;
  if (!count || !gs().userObjs.count(userObjOf(object)))
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
      !gs().userObjs.count(userObjOf(object)))
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
  if (!count || !validGraph(graph) || !gs().userObjs.count(userObjOf(object)))
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
    case NodeKind::Memset:
      kind = "memset";
      break;
    case NodeKind::Host:
      kind = "host";
      break;
    case NodeKind::Empty:
      kind = "empty";
      break;
    case NodeKind::Child:
      kind = "graph";
      break;
    case NodeKind::EventRecord:
      kind = "event record";
      break;
    case NodeKind::EventWait:
      kind = "event wait";
      break;
    case NodeKind::MemAlloc:
      kind = "mem alloc";
      break;
    case NodeKind::MemFree:
      kind = "mem free";
      break;
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
      std::fprintf(f, "  subgraph \"cluster_%s\" {\n  label=\"%s body %zu\";\n", sub.c_str(), kind,
                   j);
      dotGraph(f, *inner[j], sub);
      std::fprintf(f, "  }\n");
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const NodeObj *d : g.nodes[i]->deps)
      std::fprintf(f, "  \"%sn%zu\" -> \"%sn%zu\";\n", prefix.c_str(), index.at(d), prefix.c_str(),
                   i);
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
