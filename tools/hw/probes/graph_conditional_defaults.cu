// hwapi probe: when cudaGraphCondAssignDefault puts a conditional handle back to its default:
// a while loop nested in a while body (inner handle created in the outer body graph, default
// 1), launched twice; the same with the handle created in the top-level graph; and an if node
// whose handle (default 1) the body never sets, in a while loop.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void countBody(int *count, int limit, cudaGraphConditionalHandle h) {
  if (threadIdx.x == 0) { int c = ++*count; cudaGraphSetConditional(h, c < limit); }
}
__global__ void bump(int *count) { if (threadIdx.x == 0) ++*count; }

static cudaGraphNode_t addKernel(cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd, const void *f, void **args) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = const_cast<void *>(f);
  p.kernel.gridDim = dim3(1); p.kernel.blockDim = dim3(32); p.kernel.kernelParams = args;
  cudaGraphNode_t n;
  cudaError_t e = cudaGraphAddNode(&n, g, deps, nullptr, nd, &p);
  if (e) printf("addKernel -> %s\n", cudaGetErrorName(e));
  return n;
}
static cudaGraphNode_t addCond(cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd, cudaGraphConditionalHandle h,
                               cudaGraphConditionalNodeType t, cudaGraph_t *body) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h; p.conditional.type = t; p.conditional.size = 1;
  cudaGraphNode_t n;
  cudaError_t e = cudaGraphAddNode(&n, g, deps, nullptr, nd, &p);
  if (e) printf("addCond -> %s\n", cudaGetErrorName(e));
  *body = p.conditional.phGraph_out[0];
  return n;
}
static int readInt(int *d) { int v = -1; cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost); return v; }

static void nested(bool innerHandleInTop, unsigned innerFlags) {
  int *outer, *inner;
  cudaMalloc(&outer, 4); cudaMalloc(&inner, 4);
  cudaMemset(outer, 0, 4); cudaMemset(inner, 0, 4);
  cudaGraph_t g, ob, ib;
  cudaGraphCreate(&g, 0);
  cudaGraphConditionalHandle ho, hi;
  cudaGraphConditionalHandleCreate(&ho, g, 1, cudaGraphCondAssignDefault);
  addCond(g, nullptr, 0, ho, cudaGraphCondTypeWhile, &ob);
  cudaError_t e = cudaGraphConditionalHandleCreate(&hi, innerHandleInTop ? g : ob, 1, innerFlags);
  printf("inner handle in %s graph, flags %u: create -> %s\n", innerHandleInTop ? "top" : "outer body", innerFlags, cudaGetErrorName(e));
  cudaGraphNode_t innerLoop = addCond(ob, nullptr, 0, hi, cudaGraphCondTypeWhile, &ib);
  int innerLimit = 3, outerLimit = 4;
  void *ia[] = {&inner, &innerLimit, &hi};
  addKernel(ib, nullptr, 0, (const void *)countBody, ia);
  void *oa[] = {&outer, &outerLimit, &ho};
  addKernel(ob, &innerLoop, 1, (const void *)countBody, oa);
  cudaGraphExec_t x;
  e = cudaGraphInstantiate(&x, g, 0);
  printf("  instantiate -> %s\n", cudaGetErrorName(e));
  if (e) { cudaGetLastError(); return; }
  for (int l = 0; l < 2; ++l) {
    e = cudaGraphLaunch(x, 0);
    cudaError_t s = cudaDeviceSynchronize();
    printf("  launch %d (%s/%s): outer counter %d inner counter %d\n", l, cudaGetErrorName(e), cudaGetErrorName(s), readInt(outer), readInt(inner));
  }
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaFree(outer); cudaFree(inner);
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  nested(false, cudaGraphCondAssignDefault);
  nested(true, cudaGraphCondAssignDefault);
  nested(false, 0);
  // while loop (4 iterations) whose body has an if node on a handle with default 1 that nobody sets
  {
    int *cnt, *ifc;
    cudaMalloc(&cnt, 4); cudaMalloc(&ifc, 4);
    cudaMemset(cnt, 0, 4); cudaMemset(ifc, 0, 4);
    cudaGraph_t g, wb, ifb;
    cudaGraphCreate(&g, 0);
    cudaGraphConditionalHandle hw, hif;
    cudaGraphConditionalHandleCreate(&hw, g, 1, cudaGraphCondAssignDefault);
    addCond(g, nullptr, 0, hw, cudaGraphCondTypeWhile, &wb);
    cudaGraphConditionalHandleCreate(&hif, wb, 1, cudaGraphCondAssignDefault);
    cudaGraphNode_t ifn = addCond(wb, nullptr, 0, hif, cudaGraphCondTypeIf, &ifb);
    void *ba[] = {&ifc};
    addKernel(ifb, nullptr, 0, (const void *)bump, ba);
    int limit = 4;
    void *ca[] = {&cnt, &limit, &hw};
    addKernel(wb, &ifn, 1, (const void *)countBody, ca);
    cudaGraphExec_t x;
    cudaError_t e = cudaGraphInstantiate(&x, g, 0);
    printf("while{if(default 1)}: instantiate -> %s\n", cudaGetErrorName(e));
    if (!e) {
      cudaGraphLaunch(x, 0);
      cudaError_t s = cudaDeviceSynchronize();
      printf("  (%s) while ran %d, if body ran %d\n", cudaGetErrorName(s), readInt(cnt), readInt(ifc));
    }
  }
  printf("DONE\n");
  return 0;
}
