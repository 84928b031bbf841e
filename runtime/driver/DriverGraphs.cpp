// Driver-API graphs and stream capture: the runtime's graphs (runtime/api/Graph*.cpp) under the
// driver's names. CUgraph/CUgraphNode/CUgraphExec are the runtime's objects; parameter structs
// that share the runtime's layout (memset, host, edge data, update results, attribute values)
// are passed through, kernel and copy parameters are converted.

#include "runtime/driver/DriverApi.h"


#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace ptxsim::runtime;
using namespace ptxsim::driver;

namespace {
cudaGraph_t graph(CUgraph g) { return reinterpret_cast<cudaGraph_t>(g); }
cudaGraph_t *graphOut(CUgraph *g) { return reinterpret_cast<cudaGraph_t *>(g); }
cudaGraphNode_t node(CUgraphNode n) { return reinterpret_cast<cudaGraphNode_t>(n); }
cudaGraphNode_t *nodes(CUgraphNode *n) { return reinterpret_cast<cudaGraphNode_t *>(n); }
const cudaGraphNode_t *nodes(const CUgraphNode *n) {
  return reinterpret_cast<const cudaGraphNode_t *>(n);
}
cudaGraphExec_t exec(CUgraphExec e) { return reinterpret_cast<cudaGraphExec_t>(e); }
cudaStream_t stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t event(CUevent e) { return reinterpret_cast<cudaEvent_t>(e); }
cudaGraphEdgeData *edges(CUgraphEdgeData *e) { return reinterpret_cast<cudaGraphEdgeData *>(e); }
const cudaGraphEdgeData *edges(const CUgraphEdgeData *e) {
  return reinterpret_cast<const cudaGraphEdgeData *>(e);
}

/// A kernel node's runtime parameters. With `extra` (a parameter buffer) the argument pointers
/// point into that buffer, in `storage`; the runtime copies the values when it stores the node.
CUresult kernelParams(const CUDA_KERNEL_NODE_PARAMS &p, cudaKernelNodeParams &out,
                      std::vector<void *> &storage) {
  const void *f = p.func ? static_cast<const void *>(p.func) : static_cast<const void *>(p.kern);
  out = cudaKernelNodeParams{};
  out.func = const_cast<void *>(f);
  out.gridDim = dim3(p.gridDimX, p.gridDimY, p.gridDimZ);
  out.blockDim = dim3(p.blockDimX, p.blockDimY, p.blockDimZ);
  out.sharedMemBytes = p.sharedMemBytes;
  out.kernelParams = p.kernelParams;
  if (p.kernelParams || !p.extra)
    return p.kernelParams && p.extra ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
  char *buffer = nullptr;
  for (size_t i = 0; p.extra[i] != CU_LAUNCH_PARAM_END; i += 2)
    if (p.extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
      buffer = static_cast<char *>(p.extra[i + 1]);
  PTXSIM_LOCK;
  KernelEntry *k = f ? ctx.findKernel(f) : nullptr;
  if (!k || !k->kernel)
    return kNotAFunction;
  if (!buffer && !k->kernel->paramOffsets.empty())
    return CUDA_ERROR_INVALID_VALUE;
  storage.clear();
  for (uint32_t off : k->kernel->paramOffsets)
    storage.push_back(buffer + off);
  out.kernelParams = storage.data();
  return CUDA_SUCCESS;
}

void fromRuntime(const cudaKernelNodeParams &p, CUDA_KERNEL_NODE_PARAMS &out) {
  out = CUDA_KERNEL_NODE_PARAMS{};
  out.func = reinterpret_cast<CUfunction>(p.func);
  out.gridDimX = p.gridDim.x;
  out.gridDimY = p.gridDim.y;
  out.gridDimZ = p.gridDim.z;
  out.blockDimX = p.blockDim.x;
  out.blockDimY = p.blockDim.y;
  out.blockDimZ = p.blockDim.z;
  out.sharedMemBytes = p.sharedMemBytes;
  out.kernelParams = p.kernelParams;
  out.extra = p.extra;
  // A CUkernel and its CUfunction are one object here; NVIDIA's runtime maps `kern` back.
  out.kern = reinterpret_cast<CUkernel>(p.func);
  cuCtxGetCurrent(&out.ctx);
}

/// One side of a copy as the runtime's pitched pointer; false for CUDA arrays.
bool pitched(CUmemorytype type, const void *host, CUdeviceptr dev, size_t pitch, size_t width,
             size_t height, cudaPitchedPtr &out, bool &device) {
  void *p;
  switch (type) {
  case CU_MEMORYTYPE_HOST:
    p = const_cast<void *>(host);
    device = false;
    break;
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    p = reinterpret_cast<void *>(dev);
    device = true;
    break;
  default:
    return false;
  }
  out = cudaPitchedPtr{p, pitch ? pitch : width, width, height};
  return true;
}

CUresult copyParams(const CUDA_MEMCPY3D &p, cudaMemcpy3DParms &out) {
  out = cudaMemcpy3DParms{};
  bool srcDev, dstDev;
  if (!pitched(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcPitch, p.WidthInBytes,
               p.srcHeight ? p.srcHeight : p.Height, out.srcPtr, srcDev) ||
      !pitched(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstPitch, p.WidthInBytes,
               p.dstHeight ? p.dstHeight : p.Height, out.dstPtr, dstDev))
    return CUresult(unsupportedCall("a driver-API graph copy node with a CUDA array"));
  out.srcPos = cudaPos{p.srcXInBytes, p.srcY, p.srcZ};
  out.dstPos = cudaPos{p.dstXInBytes, p.dstY, p.dstZ};
  out.extent = cudaExtent{p.WidthInBytes, p.Height, p.Depth ? p.Depth : 1};
  out.kind = srcDev ? (dstDev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                    : (dstDev ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  return CUDA_SUCCESS;
}

void fromRuntime(const cudaMemcpy3DParms &p, CUDA_MEMCPY3D &out) {
  out = CUDA_MEMCPY3D{};
  bool srcDev = p.kind == cudaMemcpyDeviceToDevice || p.kind == cudaMemcpyDeviceToHost ||
                p.kind == cudaMemcpyDefault;
  bool dstDev = p.kind == cudaMemcpyDeviceToDevice || p.kind == cudaMemcpyHostToDevice ||
                p.kind == cudaMemcpyDefault;
  out.srcXInBytes = p.srcPos.x;
  out.srcY = p.srcPos.y;
  out.srcZ = p.srcPos.z;
  out.srcMemoryType = srcDev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  if (srcDev)
    out.srcDevice = CUdeviceptr(p.srcPtr.ptr);
  else
    out.srcHost = p.srcPtr.ptr;
  out.srcPitch = p.srcPtr.pitch;
  out.srcHeight = p.srcPtr.ysize;
  out.dstXInBytes = p.dstPos.x;
  out.dstY = p.dstPos.y;
  out.dstZ = p.dstPos.z;
  out.dstMemoryType = dstDev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  if (dstDev)
    out.dstDevice = CUdeviceptr(p.dstPtr.ptr);
  else
    out.dstHost = p.dstPtr.ptr;
  out.dstPitch = p.dstPtr.pitch;
  out.dstHeight = p.dstPtr.ysize;
  out.WidthInBytes = p.extent.width;
  out.Height = p.extent.height;
  out.Depth = p.extent.depth;
}
} // namespace

// --- graphs and nodes ------------------------------------------------------------------------

DRIVER_API CUresult cuGraphCreate(CUgraph *g, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphCreate(graphOut(g), flags); });
}
DRIVER_API CUresult cuGraphDestroy(CUgraph g) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphDestroy(graph(g)); });
}
DRIVER_API CUresult cuGraphClone(CUgraph *clone, CUgraph g) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphClone(graphOut(clone), graph(g)); });
}
DRIVER_API CUresult cuGraphNodeFindInClone(CUgraphNode *n, CUgraphNode original, CUgraph clone) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphNodeFindInClone(nodes(n), node(original), graph(clone)); });
}
DRIVER_API CUresult cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *type) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphNodeGetType(node(n), reinterpret_cast<cudaGraphNodeType *>(type)); });
}
DRIVER_API CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *out, size_t *count) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphGetNodes(graph(g), nodes(out), count); });
}
DRIVER_API CUresult cuGraphGetRootNodes(CUgraph g, CUgraphNode *out, size_t *count) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphGetRootNodes(graph(g), nodes(out), count); });
}
DRIVER_API CUresult cuGraphGetEdges_v2(CUgraph g, CUgraphNode *from, CUgraphNode *to,
                                       CUgraphEdgeData *data, size_t *count) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphGetEdges(graph(g), nodes(from), nodes(to), edges(data), count); });
}
#undef cuGraphGetEdges // the CUDA 12.2 entry point, without edge data
DRIVER_API CUresult cuGraphGetEdges(CUgraph g, CUgraphNode *from, CUgraphNode *to, size_t *count) {
  return cuGraphGetEdges_v2(g, from, to, nullptr, count);
}
DRIVER_API CUresult cuGraphNodeGetDependencies_v2(CUgraphNode n, CUgraphNode *deps,
                                                  CUgraphEdgeData *data, size_t *count) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphNodeGetDependencies(node(n), nodes(deps), edges(data), count); });
}
#undef cuGraphNodeGetDependencies // the CUDA 12.2 entry point, without edge data
DRIVER_API CUresult cuGraphNodeGetDependencies(CUgraphNode n, CUgraphNode *deps, size_t *count) {
  return cuGraphNodeGetDependencies_v2(n, deps, nullptr, count);
}
DRIVER_API CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode n, CUgraphNode *deps,
                                                    CUgraphEdgeData *data, size_t *count) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphNodeGetDependentNodes(node(n), nodes(deps), edges(data), count); });
}
#undef cuGraphNodeGetDependentNodes // the CUDA 12.2 entry point, without edge data
DRIVER_API CUresult cuGraphNodeGetDependentNodes(CUgraphNode n, CUgraphNode *deps, size_t *count) {
  return cuGraphNodeGetDependentNodes_v2(n, deps, nullptr, count);
}
DRIVER_API CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from,
                                              const CUgraphNode *to, const CUgraphEdgeData *data,
                                              size_t count) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphAddDependencies(graph(g), nodes(from), nodes(to), edges(data), count); });
}
#undef cuGraphAddDependencies // the CUDA 12.2 entry point, without edge data
DRIVER_API CUresult cuGraphAddDependencies(CUgraph g, const CUgraphNode *from,
                                           const CUgraphNode *to, size_t count) {
  return cuGraphAddDependencies_v2(g, from, to, nullptr, count);
}
DRIVER_API CUresult cuGraphRemoveDependencies_v2(CUgraph g, const CUgraphNode *from,
                                                 const CUgraphNode *to,
                                                 const CUgraphEdgeData *data, size_t count) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphRemoveDependencies(graph(g), nodes(from), nodes(to), edges(data), count);
  });
}
#undef cuGraphRemoveDependencies // the CUDA 12.2 entry point, without edge data
DRIVER_API CUresult cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *from,
                                              const CUgraphNode *to, size_t count) {
  return cuGraphRemoveDependencies_v2(g, from, to, nullptr, count);
}
DRIVER_API CUresult cuGraphDestroyNode(CUgraphNode n) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphDestroyNode(node(n)); });
}

DRIVER_API CUresult cuGraphAddKernelNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                            size_t count, const CUDA_KERNEL_NODE_PARAMS *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  if (traceOn())
    std::fprintf(stderr, "ptxsim-driver:   func %p kern %p ctx %p params %p extra %p\n",
                 (void *)p->func, (void *)p->kern, (void *)p->ctx, (void *)p->kernelParams,
                 (void *)p->extra);
  cudaKernelNodeParams rp;
  std::vector<void *> storage;
  if (CUresult r = kernelParams(*p, rp, storage))
    return r;
  return viaRuntime(
      [&] { return cudaGraphAddKernelNode(nodes(n), graph(g), nodes(deps), count, &rp); });
}
DRIVER_API CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaKernelNodeParams rp;
  if (CUresult r = viaRuntime([&] { return cudaGraphKernelNodeGetParams(node(n), &rp); }))
    return r;
  fromRuntime(rp, *p);
  return CUDA_SUCCESS;
}
DRIVER_API CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaKernelNodeParams rp;
  std::vector<void *> storage;
  if (CUresult r = kernelParams(*p, rp, storage))
    return r;
  return viaRuntime([&] { return cudaGraphKernelNodeSetParams(node(n), &rp); });
}
DRIVER_API CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode n,
                                                      const CUDA_KERNEL_NODE_PARAMS *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaKernelNodeParams rp;
  std::vector<void *> storage;
  if (CUresult r = kernelParams(*p, rp, storage))
    return r;
  return viaRuntime([&] { return cudaGraphExecKernelNodeSetParams(exec(e), node(n), &rp); });
}
DRIVER_API CUresult cuGraphKernelNodeSetAttribute(CUgraphNode n, CUkernelNodeAttrID id,
                                                  const CUkernelNodeAttrValue *v) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphKernelNodeSetAttribute(node(n), cudaKernelNodeAttrID(id),
                                           reinterpret_cast<const cudaKernelNodeAttrValue *>(v));
  });
}
DRIVER_API CUresult cuGraphKernelNodeGetAttribute(CUgraphNode n, CUkernelNodeAttrID id,
                                                  CUkernelNodeAttrValue *v) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphKernelNodeGetAttribute(node(n), cudaKernelNodeAttrID(id),
                                           reinterpret_cast<cudaKernelNodeAttrValue *>(v));
  });
}
DRIVER_API CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphKernelNodeCopyAttributes(node(dst), node(src)); });
}

DRIVER_API CUresult cuGraphAddMemcpyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                         size_t count, const CUDA_MEMCPY3D *p, CUcontext) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpy3DParms rp;
  if (CUresult r = copyParams(*p, rp))
    return r;
  return viaRuntime(
      [&] { return cudaGraphAddMemcpyNode(nodes(n), graph(g), nodes(deps), count, &rp); });
}
DRIVER_API CUresult cuGraphMemcpyNodeGetParams(CUgraphNode n, CUDA_MEMCPY3D *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpy3DParms rp;
  if (CUresult r = viaRuntime([&] { return cudaGraphMemcpyNodeGetParams(node(n), &rp); }))
    return r;
  fromRuntime(rp, *p);
  return CUDA_SUCCESS;
}
DRIVER_API CUresult cuGraphMemcpyNodeSetParams(CUgraphNode n, const CUDA_MEMCPY3D *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpy3DParms rp;
  if (CUresult r = copyParams(*p, rp))
    return r;
  return viaRuntime([&] { return cudaGraphMemcpyNodeSetParams(node(n), &rp); });
}
DRIVER_API CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec e, CUgraphNode n,
                                                   const CUDA_MEMCPY3D *p, CUcontext) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpy3DParms rp;
  if (CUresult r = copyParams(*p, rp))
    return r;
  return viaRuntime([&] { return cudaGraphExecMemcpyNodeSetParams(exec(e), node(n), &rp); });
}

// CUDA_MEMSET_NODE_PARAMS and cudaMemsetParams, CUDA_HOST_NODE_PARAMS and cudaHostNodeParams
// have the same layout.
DRIVER_API CUresult cuGraphAddMemsetNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                         size_t count, const CUDA_MEMSET_NODE_PARAMS *p,
                                         CUcontext) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphAddMemsetNode(nodes(n), graph(g), nodes(deps), count,
                                  reinterpret_cast<const cudaMemsetParams *>(p));
  });
}
DRIVER_API CUresult cuGraphMemsetNodeGetParams(CUgraphNode n, CUDA_MEMSET_NODE_PARAMS *p) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphMemsetNodeGetParams(node(n), reinterpret_cast<cudaMemsetParams *>(p));
  });
}
DRIVER_API CUresult cuGraphMemsetNodeSetParams(CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphMemsetNodeSetParams(node(n), reinterpret_cast<const cudaMemsetParams *>(p));
  });
}
DRIVER_API CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec e, CUgraphNode n,
                                                   const CUDA_MEMSET_NODE_PARAMS *p, CUcontext) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphExecMemsetNodeSetParams(exec(e), node(n),
                                            reinterpret_cast<const cudaMemsetParams *>(p));
  });
}
DRIVER_API CUresult cuGraphAddHostNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                       size_t count, const CUDA_HOST_NODE_PARAMS *p) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphAddHostNode(nodes(n), graph(g), nodes(deps), count,
                                reinterpret_cast<const cudaHostNodeParams *>(p));
  });
}
DRIVER_API CUresult cuGraphHostNodeGetParams(CUgraphNode n, CUDA_HOST_NODE_PARAMS *p) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphHostNodeGetParams(node(n), reinterpret_cast<cudaHostNodeParams *>(p));
  });
}
DRIVER_API CUresult cuGraphHostNodeSetParams(CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphHostNodeSetParams(node(n), reinterpret_cast<const cudaHostNodeParams *>(p));
  });
}
DRIVER_API CUresult cuGraphExecHostNodeSetParams(CUgraphExec e, CUgraphNode n,
                                                 const CUDA_HOST_NODE_PARAMS *p) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphExecHostNodeSetParams(exec(e), node(n),
                                          reinterpret_cast<const cudaHostNodeParams *>(p));
  });
}
DRIVER_API CUresult cuGraphAddEmptyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                        size_t count) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphAddEmptyNode(nodes(n), graph(g), nodes(deps), count); });
}
DRIVER_API CUresult cuGraphAddChildGraphNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                             size_t count, CUgraph child) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphAddChildGraphNode(nodes(n), graph(g), nodes(deps), count, graph(child));
  });
}
DRIVER_API CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode n, CUgraph *child) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphChildGraphNodeGetGraph(node(n), graphOut(child)); });
}
DRIVER_API CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec e, CUgraphNode n, CUgraph child) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphExecChildGraphNodeSetParams(exec(e), node(n), graph(child)); });
}
DRIVER_API CUresult cuGraphAddEventRecordNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                              size_t count, CUevent ev) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphAddEventRecordNode(nodes(n), graph(g), nodes(deps), count, event(ev));
  });
}
DRIVER_API CUresult cuGraphAddEventWaitNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                            size_t count, CUevent ev) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphAddEventWaitNode(nodes(n), graph(g), nodes(deps), count, event(ev));
  });
}
DRIVER_API CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode n, CUevent *ev) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphEventRecordNodeGetEvent(node(n), reinterpret_cast<cudaEvent_t *>(ev));
  });
}
DRIVER_API CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode n, CUevent ev) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphEventRecordNodeSetEvent(node(n), event(ev)); });
}
DRIVER_API CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode n, CUevent *ev) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphEventWaitNodeGetEvent(node(n), reinterpret_cast<cudaEvent_t *>(ev));
  });
}
DRIVER_API CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode n, CUevent ev) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphEventWaitNodeSetEvent(node(n), event(ev)); });
}
DRIVER_API CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec e, CUgraphNode n, CUevent ev) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphExecEventRecordNodeSetEvent(exec(e), node(n), event(ev)); });
}
DRIVER_API CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec e, CUgraphNode n, CUevent ev) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaGraphExecEventWaitNodeSetEvent(exec(e), node(n), event(ev)); });
}

// --- executable graphs -----------------------------------------------------------------------

DRIVER_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g,
                                                unsigned long long flags) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphInstantiateWithFlags(reinterpret_cast<cudaGraphExec_t *>(e), graph(g), flags);
  });
}
DRIVER_API CUresult cuGraphInstantiateWithParams(CUgraphExec *e, CUgraph g,
                                                 CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = cuGraphInstantiateWithFlags(e, g, p->flags);
  p->hErrNode_out = nullptr;
  p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
  return r;
}
DRIVER_API CUresult cuGraphExecGetFlags(CUgraphExec e, cuuint64_t *flags) {
  DRIVER_TRACE();
  unsigned long long f = 0;
  CUresult r = viaRuntime([&] { return cudaGraphExecGetFlags(exec(e), &f); });
  if (r == CUDA_SUCCESS && flags)
    *flags = f;
  return r;
}
DRIVER_API CUresult cuGraphExecDestroy(CUgraphExec e) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphExecDestroy(exec(e)); });
}
DRIVER_API CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphLaunch(exec(e), stream(s)); });
}
DRIVER_API CUresult cuGraphUpload(CUgraphExec e, CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphUpload(exec(e), stream(s)); });
}
DRIVER_API CUresult cuGraphExecUpdate_v2(CUgraphExec e, CUgraph g,
                                         CUgraphExecUpdateResultInfo *info) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphExecUpdate(exec(e), graph(g),
                               reinterpret_cast<cudaGraphExecUpdateResultInfo *>(info));
  });
}
DRIVER_API CUresult cuGraphNodeSetEnabled(CUgraphExec e, CUgraphNode n, unsigned int enabled) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphNodeSetEnabled(exec(e), node(n), enabled); });
}
DRIVER_API CUresult cuGraphNodeGetEnabled(CUgraphExec e, CUgraphNode n, unsigned int *enabled) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphNodeGetEnabled(exec(e), node(n), enabled); });
}

// --- stream capture --------------------------------------------------------------------------

DRIVER_API CUresult cuStreamGetCaptureInfo_v3(CUstream s, CUstreamCaptureStatus *status,
                                              cuuint64_t *id, CUgraph *g,
                                              const CUgraphNode **deps,
                                              const CUgraphEdgeData **data, size_t *count) {
  DRIVER_TRACE();
  unsigned long long rid = 0;
  CUresult r = viaRuntime([&] {
    return cudaStreamGetCaptureInfo(stream(s), reinterpret_cast<cudaStreamCaptureStatus *>(status),
                                    id ? &rid : nullptr, graphOut(g),
                                    reinterpret_cast<const cudaGraphNode_t **>(deps),
                                    reinterpret_cast<const cudaGraphEdgeData **>(data), count);
  });
  if (r == CUDA_SUCCESS && id)
    *id = rid;
  return r;
}
DRIVER_API CUresult cuStreamGetCaptureInfo_v2(CUstream s, CUstreamCaptureStatus *status,
                                              cuuint64_t *id, CUgraph *g,
                                              const CUgraphNode **deps, size_t *count) {
  return cuStreamGetCaptureInfo_v3(s, status, id, g, deps, nullptr, count);
}
#undef cuStreamGetCaptureInfo // the original entry point, which cuda.h maps to its _v3
DRIVER_API CUresult cuStreamGetCaptureInfo(CUstream s, CUstreamCaptureStatus *status,
                                           cuuint64_t *id) {
  return cuStreamGetCaptureInfo_v3(s, status, id, nullptr, nullptr, nullptr, nullptr);
}

// --- graph memory (CUgraphMem_attribute numbers like cudaGraphMemAttributeType) ----------------

DRIVER_API CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr,
                                                 void *value) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaDeviceGetGraphMemAttribute(dev, cudaGraphMemAttributeType(attr), value);
  });
}
DRIVER_API CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr,
                                                 void *value) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaDeviceSetGraphMemAttribute(dev, cudaGraphMemAttributeType(attr), value);
  });
}
DRIVER_API CUresult cuDeviceGraphMemTrim(CUdevice dev) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDeviceGraphMemTrim(dev); });
}

// --- memory nodes, conditional nodes, generic nodes, user objects ----------------------------
// The parameter structs of these share the runtime's layout (CUDA declares both from one
// definition): memory pool properties, access descriptors, conditional parameters.
static_assert(sizeof(CUDA_MEM_ALLOC_NODE_PARAMS) == sizeof(cudaMemAllocNodeParams),
              "memory allocation node parameters differ between the driver and the runtime");
static_assert(sizeof(CUgraphNodeParams) == sizeof(cudaGraphNodeParams),
              "generic node parameters differ between the driver and the runtime");
// the driver's conditional parameters add a context after the runtime's four fields
static_assert(offsetof(CUDA_CONDITIONAL_NODE_PARAMS, phGraph_out) ==
                  offsetof(cudaConditionalNodeParams, phGraph_out),
              "conditional node parameters differ between the driver and the runtime");

DRIVER_API CUresult cuGraphAddMemAllocNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                           size_t count, CUDA_MEM_ALLOC_NODE_PARAMS *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  return viaRuntime([&] {
    return cudaGraphAddMemAllocNode(nodes(n), graph(g), nodes(deps), count,
                                    reinterpret_cast<cudaMemAllocNodeParams *>(p));
  });
}
DRIVER_API CUresult cuGraphMemAllocNodeGetParams(CUgraphNode n, CUDA_MEM_ALLOC_NODE_PARAMS *p) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphMemAllocNodeGetParams(node(n), reinterpret_cast<cudaMemAllocNodeParams *>(p));
  });
}
DRIVER_API CUresult cuGraphAddMemFreeNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                          size_t count, CUdeviceptr dptr) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphAddMemFreeNode(nodes(n), graph(g), nodes(deps), count,
                                   reinterpret_cast<void *>(dptr));
  });
}
DRIVER_API CUresult cuGraphMemFreeNodeGetParams(CUgraphNode n, CUdeviceptr *dptr) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphMemFreeNodeGetParams(node(n), dptr); });
}

DRIVER_API CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *h, CUgraph g,
                                                   CUcontext, unsigned int defaultLaunchValue,
                                                   unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphConditionalHandleCreate(reinterpret_cast<cudaGraphConditionalHandle *>(h),
                                            graph(g), defaultLaunchValue, flags);
  });
}

/// Generic node creation. Node types whose parameters share the runtime's layout pass through;
/// kernel and copy nodes (a CUfunction, a CUDA_MEMCPY3D) are converted through the typed calls,
/// which take no edge data.
DRIVER_API CUresult cuGraphAddNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                      const CUgraphEdgeData *edgeData, size_t count,
                                      CUgraphNodeParams *p) {
  DRIVER_TRACE();
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  if (p->type == CU_GRAPH_NODE_TYPE_KERNEL || p->type == CU_GRAPH_NODE_TYPE_MEMCPY) {
    if (edgeData) {
      std::fprintf(stderr, "ptxsim: cuGraphAddNode: kernel and copy nodes with edge data are "
                           "not supported (CUDA_ERROR_NOT_SUPPORTED)\n");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (p->type == CU_GRAPH_NODE_TYPE_MEMCPY)
      return cuGraphAddMemcpyNode(n, g, deps, count, &p->memcpy.copyParams, p->memcpy.copyCtx);
    CUDA_KERNEL_NODE_PARAMS k;
    std::memcpy(&k, &p->kernel, sizeof k);
    return cuGraphAddKernelNode_v2(n, g, deps, count, &k);
  }
  return viaRuntime([&] {
    return cudaGraphAddNode(nodes(n), graph(g), nodes(deps), edges(edgeData), count,
                            reinterpret_cast<cudaGraphNodeParams *>(p));
  });
}
DRIVER_API CUresult cuGraphDebugDotPrint(CUgraph g, const char *path, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaGraphDebugDotPrint(graph(g), path, flags); });
}

DRIVER_API CUresult cuUserObjectCreate(CUuserObject *o, void *ptr, CUhostFn destroy,
                                       unsigned int initialRefcount, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaUserObjectCreate(reinterpret_cast<cudaUserObject_t *>(o), ptr, destroy,
                                initialRefcount, flags);
  });
}
DRIVER_API CUresult cuUserObjectRetain(CUuserObject o, unsigned int count) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaUserObjectRetain(reinterpret_cast<cudaUserObject_t>(o), count); });
}
DRIVER_API CUresult cuUserObjectRelease(CUuserObject o, unsigned int count) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaUserObjectRelease(reinterpret_cast<cudaUserObject_t>(o), count); });
}
DRIVER_API CUresult cuGraphRetainUserObject(CUgraph g, CUuserObject o, unsigned int count,
                                            unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphRetainUserObject(graph(g), reinterpret_cast<cudaUserObject_t>(o), count,
                                     flags);
  });
}
DRIVER_API CUresult cuGraphReleaseUserObject(CUgraph g, CUuserObject o, unsigned int count) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGraphReleaseUserObject(graph(g), reinterpret_cast<cudaUserObject_t>(o), count);
  });
}

/// cuGraphNodeSetParams and cuGraphExecNodeSetParams: kernel and copy nodes are converted
/// through the typed setters, the other node types pass through (`e` null: the graph's node).
static CUresult setNodeParams(CUgraphExec e, CUgraphNode n, CUgraphNodeParams *p) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  if (p->type == CU_GRAPH_NODE_TYPE_KERNEL) {
    CUDA_KERNEL_NODE_PARAMS k;
    std::memcpy(&k, &p->kernel, sizeof k);
    return e ? cuGraphExecKernelNodeSetParams_v2(e, n, &k) : cuGraphKernelNodeSetParams_v2(n, &k);
  }
  if (p->type == CU_GRAPH_NODE_TYPE_MEMCPY)
    return e ? cuGraphExecMemcpyNodeSetParams(e, n, &p->memcpy.copyParams, p->memcpy.copyCtx)
             : cuGraphMemcpyNodeSetParams(n, &p->memcpy.copyParams);
  auto *rp = reinterpret_cast<cudaGraphNodeParams *>(p);
  return viaRuntime([&] {
    return e ? cudaGraphExecNodeSetParams(exec(e), node(n), rp) : cudaGraphNodeSetParams(node(n), rp);
  });
}
DRIVER_API CUresult cuGraphNodeSetParams(CUgraphNode n, CUgraphNodeParams *p) {
  DRIVER_TRACE();
  return setNodeParams(nullptr, n, p);
}
DRIVER_API CUresult cuGraphExecNodeSetParams(CUgraphExec e, CUgraphNode n, CUgraphNodeParams *p) {
  DRIVER_TRACE();
  if (!e)
    return CUDA_ERROR_INVALID_VALUE;
  return setNodeParams(e, n, p);
}

DRIVER_API CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps,
                                                const CUgraphEdgeData *edgeData, size_t count,
                                                CUstreamCaptureMode mode) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaStreamBeginCaptureToGraph(stream(s), graph(g), nodes(deps), edges(edgeData), count,
                                         cudaStreamCaptureMode(mode));
  });
}
DRIVER_API CUresult cuStreamUpdateCaptureDependencies_v2(CUstream s, CUgraphNode *deps,
                                                         const CUgraphEdgeData *edgeData,
                                                         size_t count, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaStreamUpdateCaptureDependencies(stream(s), nodes(deps), edges(edgeData), count,
                                               flags);
  });
}
