// CUDA graphs: the graph, node, edge and executable-graph entry points (GraphObjects.h).

#include "runtime/api/GraphObjects.h"

#include <algorithm>
#include <cstring>

using namespace ptxsim::runtime;
using namespace ptxsim::runtime::graphs;

extern "C" {

// --- graphs -----------------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
  if (!pGraph || flags)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  auto *g = new GraphObj;
  gs().graphs.insert(g);
  *pGraph = reinterpret_cast<cudaGraph_t>(g);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  PTXSIM_LOCK;
  if (!validGraph(graph) || graphOf(graph)->ownedByNode)
    return ret(cudaErrorInvalidValue); // a conditional node's body lives as long as the node
  for (auto &kv : gs().captures)
    if (kv.second.sess->graph == graphOf(graph))
      return ret(cudaErrorIllegalState); // still being captured into
  forgetNodes(*graphOf(graph));
  gs().graphs.erase(graphOf(graph));
  for (ExecObj *x : gs().execs)
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

PTXSIM_API cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node,
                                                       cudaKernelNodeAttrID attr,
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

PTXSIM_API cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node,
                                                       cudaKernelNodeAttrID attr,
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
                                                size_t numDependencies, void *dst, const void *src,
                                                size_t count, cudaMemcpyKind kind) {
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
                                              size_t numDependencies, const cudaMemcpy3DParms *p) {
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
  gs().graphs.insert(g);
  *pGraphClone = reinterpret_cast<cudaGraph_t>(g);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  PTXSIM_LOCK;
  if (!validNode(node) || !gs().graphs.count(nodeOf(node)->graph))
    return ret(cudaErrorInvalidValue); // not a node of a user graph
  NodeObj *n = nodeOf(node);
  GraphObj *g = n->graph;
  if (hasKind(*g, NodeKind::MemAlloc) || hasKind(*g, NodeKind::MemFree))
    return ret(cudaErrorNotSupported); // CUDA: nodes of such graphs cannot be deleted
  for (auto &other : g->nodes)
    other->deps.erase(std::remove(other->deps.begin(), other->deps.end(), n), other->deps.end());
  for (ExecObj *x : gs().execs)
    x->fromOrig.erase(n);
  if (n->child)
    forgetNodes(*n->child);
  for (auto &b : n->bodies) {
    forgetNodes(*b);
    gs().graphs.erase(b.get());
  }
  gs().nodes.erase(n);
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
  if (!pNodeParams || !pNodeParams->fn || !validNode(node) || nodeOf(node)->kind != NodeKind::Host)
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
  case NodeKind::Kernel:
    *pType = cudaGraphNodeTypeKernel;
    break;
  case NodeKind::Memcpy:
    *pType = cudaGraphNodeTypeMemcpy;
    break;
  case NodeKind::Memset:
    *pType = cudaGraphNodeTypeMemset;
    break;
  case NodeKind::Host:
    *pType = cudaGraphNodeTypeHost;
    break;
  case NodeKind::Child:
    *pType = cudaGraphNodeTypeGraph;
    break;
  case NodeKind::Empty:
    *pType = cudaGraphNodeTypeEmpty;
    break;
  case NodeKind::EventRecord:
    *pType = cudaGraphNodeTypeEventRecord;
    break;
  case NodeKind::EventWait:
    *pType = cudaGraphNodeTypeWaitEvent;
    break;
  case NodeKind::MemAlloc:
    *pType = cudaGraphNodeTypeMemAlloc;
    break;
  case NodeKind::MemFree:
    *pType = cudaGraphNodeTypeMemFree;
    break;
  case NodeKind::Conditional:
    *pType = cudaGraphNodeTypeConditional;
    break;
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

PTXSIM_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                     unsigned long long flags) {
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
    for (ExecObj *other : gs().execs)
      if (other->source == &src)
        return ret(cudaErrorNotSupported);
  auto *x = new ExecObj;
  x->g = cloneGraph(*graphOf(graph), &x->fromOrig);
  x->source = &src;
  x->flags = flags;
  gs().execs.insert(x);
  *pGraphExec = reinterpret_cast<cudaGraphExec_t>(x);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                            unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

PTXSIM_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  PTXSIM_LOCK;
  if (!graphExec || !gs().execs.erase(execOf(graphExec)))
    return ret(cudaErrorInvalidValue);
  forgetNodes(*execOf(graphExec)->g);
  delete execOf(graphExec);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  const GraphObj *g = nullptr;
  {
    PTXSIM_LOCK_CHECKED;
    if (!graphExec || !gs().execs.count(execOf(graphExec)))
      return ret(cudaErrorInvalidValue);
    if (!ctx.validStream(stream))
      return ret(cudaErrorInvalidResourceHandle);
    ExecObj *x = execOf(graphExec);
    // a capturing stream cannot take a graph launch: CUDA 13 on an H100 refuses it
    // (cudaErrorStreamCaptureUnsupported) and the capture is invalidated, as by a synchronising
    // call; a program adds the graph to a capture as a child graph node instead
    if (auto r = gs().captureSyncCall(stream))
      return ret(*r);
    g = x->g.get();
    // allocations of an earlier launch that are still live: freed by an auto-free launch,
    // otherwise the launch fails
    std::vector<void *> allocs;
    allocsOf(*g, allocs);
    for (void *p : allocs)
      if (gs().graphAllocs[p].live) {
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
  if (!graphExec || !gs().execs.count(execOf(graphExec)))
    return ret(cudaErrorInvalidValue);
  return ctx.validStream(stream) ? cudaSuccess : ret(cudaErrorInvalidResourceHandle);
}

PTXSIM_API cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                                        cudaGraphNode_t node,
                                                        const cudaKernelNodeParams *pNodeParams) {
  PTXSIM_LOCK;
  if (!pNodeParams || !hGraphExec || !gs().execs.count(execOf(hGraphExec)) || !validNode(node))
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
  if (!hGraphExec || !gs().execs.count(execOf(hGraphExec)) || !validGraph(hGraph))
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
  if (!flags || !graphExec || !gs().execs.count(execOf(graphExec)))
    return ret(cudaErrorInvalidValue);
  *flags = execOf(graphExec)->flags;
  return cudaSuccess;
}

/// The exec copy of `node` (any kind), or null (under the lock).
static NodeObj *execNodeAny(cudaGraphExec_t hGraphExec, cudaGraphNode_t node) {
  if (!hGraphExec || !gs().execs.count(execOf(hGraphExec)) || !validNode(node))
    return nullptr;
  auto &m = execOf(hGraphExec)->fromOrig;
  auto it = m.find(nodeOf(node));
  return it == m.end() ? nullptr : it->second;
}

PTXSIM_API cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               unsigned int isEnabled) {
  PTXSIM_LOCK;
  NodeObj *n = execNodeAny(hGraphExec, hNode);
  if (!n ||
      (n->kind != NodeKind::Kernel && n->kind != NodeKind::Memcpy && n->kind != NodeKind::Memset))
    return ret(cudaErrorInvalidValue);
  n->enabled = isEnabled != 0;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               unsigned int *isEnabled) {
  PTXSIM_LOCK;
  NodeObj *n = execNodeAny(hGraphExec, hNode);
  if (!n || !isEnabled ||
      (n->kind != NodeKind::Kernel && n->kind != NodeKind::Memcpy && n->kind != NodeKind::Memset))
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

static cudaError_t setExecEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, cudaEvent_t event,
                                NodeKind kind) {
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

PTXSIM_API cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode,
                                                cudaGraphNode_t originalNode,
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

} // extern "C"
