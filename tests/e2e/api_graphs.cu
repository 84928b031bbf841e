// ptxsim e2e: explicit CUDA graphs: kernel, memcpy, memset, host, empty and child graph nodes,
// dependencies, instantiate, repeated launches, node parameter updates and cudaGraphExecUpdate.
static const char *kName = "api_graphs";
#include <vector>
#include "../kernels/test_common.h"

__global__ void addScalar(int *a, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] += v;
}

__global__ void accumulate(int *acc, const int *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += src[i];
}

static std::vector<int> g_order;
static void CUDART_CB record(void *p) { g_order.push_back(*(int *)p); }

int main() {
  const int n = 300;
  int *a, *acc;
  CK(cudaMalloc(&a, n * sizeof(int)));
  CK(cudaMalloc(&acc, n * sizeof(int)));
  CK(cudaMemset(acc, 0, n * sizeof(int)));
  std::vector<int> base(n), back(n);
  for (int i = 0; i < n; ++i)
    base[i] = i;
  cudaStream_t s;
  CK(cudaStreamCreate(&s));

  // chain: memcpy(base -> a) -> addScalar(a, 5) -> accumulate(acc += a); replay 100 times
  cudaGraph_t g;
  CK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t cp, k1, k2;
  CK(cudaGraphAddMemcpyNode1D(&cp, g, nullptr, 0, a, base.data(), n * sizeof(int),
                              cudaMemcpyHostToDevice));
  int v = 5, nn = n;
  void *args1[] = {&a, &v, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)addScalar;
  kp.gridDim = dim3((n + 127) / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args1;
  CK(cudaGraphAddKernelNode(&k1, g, &cp, 1, &kp));
  v = 1000; // the node owns a copy of the arguments
  void *args2[] = {&acc, &a, &nn};
  kp.func = (void *)accumulate;
  kp.kernelParams = args2;
  CK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp));
  size_t count = 0;
  CK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 3, "node count %zu", count);
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  for (int it = 0; it < 100; ++it)
    CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaMemcpy(back.data(), acc, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(back[i] == 100 * (i + 5), "acc[%d] = %d", i, back[i]);

  // kernel node parameters: read back, change the scalar in the exec graph only
  cudaKernelNodeParams got = {};
  CK(cudaGraphKernelNodeGetParams(k1, &got));
  EXPECT(got.func == (void *)addScalar && got.gridDim.x == (unsigned)(n + 127) / 128 &&
             *(int *)got.kernelParams[1] == 5,
         "kernel node params");
  int v2 = 7;
  void *args3[] = {&a, &v2, &nn};
  cudaKernelNodeParams kp3 = got;
  kp3.kernelParams = args3;
  CK(cudaGraphExecKernelNodeSetParams(x, k1, &kp3));
  CK(cudaMemset(acc, 0, n * sizeof(int)));
  CK(cudaGraphLaunch(x, s));
  CK(cudaMemcpy(back.data(), acc, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(back[i] == i + 7, "after exec set params acc[%d] = %d", i, back[i]);
  // the source graph still has 5: cudaGraphExecUpdate brings it back
  cudaGraphExecUpdateResultInfo info;
  CK(cudaGraphExecUpdate(x, g, &info));
  EXPECT(info.result == cudaGraphExecUpdateSuccess, "update result %d", (int)info.result);
  // set params on the graph node (v = 9), update again
  int v9 = 9;
  void *args9[] = {&a, &v9, &nn};
  kp3.kernelParams = args9;
  CK(cudaGraphKernelNodeSetParams(k1, &kp3));
  CK(cudaGraphExecUpdate(x, g, &info));
  CK(cudaMemset(acc, 0, n * sizeof(int)));
  CK(cudaGraphLaunch(x, s));
  CK(cudaMemcpy(back.data(), acc, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(back[i] == i + 9, "after exec update acc[%d] = %d", i, back[i]);

  // dependencies order host nodes: created in reverse of the order they must run
  cudaGraph_t h;
  CK(cudaGraphCreate(&h, 0));
  static int ids[5] = {0, 1, 2, 3, 4};
  cudaGraphNode_t hn[5];
  for (int i = 0; i < 5; ++i) {
    cudaHostNodeParams hp = {record, &ids[4 - i]};
    CK(cudaGraphAddHostNode(&hn[i], h, nullptr, 0, &hp));
  }
  // node 4-i records i: make hn[4] (records 0) -> hn[3] -> ... -> hn[0] (records 4)
  for (int i = 4; i > 0; --i)
    CK(cudaGraphAddDependencies(h, &hn[i], &hn[i - 1], nullptr, 1));
  cudaGraphNode_t empty, join;
  CK(cudaGraphAddEmptyNode(&empty, h, &hn[0], 1));
  cudaHostNodeParams last = {record, &ids[4]};
  int fortyTwo = 42;
  last.userData = &fortyTwo;
  CK(cudaGraphAddHostNode(&join, h, &empty, 1, &last));
  cudaGraphExec_t hx;
  CK(cudaGraphInstantiate(&hx, h, 0));
  CK(cudaGraphLaunch(hx, s));
  CK(cudaGraphLaunch(hx, s));
  CK(cudaStreamSynchronize(s)); // a graph launch is asynchronous: its host nodes run later
  EXPECT(g_order.size() == 12, "host nodes ran %zu times", g_order.size());
  for (size_t i = 0; i < g_order.size(); ++i)
    EXPECT(g_order[i] == (i % 6 == 5 ? 42 : int(i % 6)), "order[%zu] = %d", i, g_order[i]);

  // child graph: memset(a, 0) -> child(the chain graph g: acc += base + 9) -> memset 4-byte
  cudaGraph_t parent;
  CK(cudaGraphCreate(&parent, 0));
  cudaGraphNode_t ms, child, ms4;
  cudaMemsetParams mp = {};
  mp.dst = acc;
  mp.value = 0;
  mp.elementSize = 1;
  mp.width = n * sizeof(int);
  mp.height = 1;
  CK(cudaGraphAddMemsetNode(&ms, parent, nullptr, 0, &mp));
  CK(cudaGraphAddChildGraphNode(&child, parent, &ms, 1, g));
  cudaMemsetParams mp4 = {};
  mp4.dst = acc + n / 2;
  mp4.value = 0x01020304;
  mp4.elementSize = 4;
  mp4.width = 10;
  mp4.height = 1;
  CK(cudaGraphAddMemsetNode(&ms4, parent, &child, 1, &mp4));
  cudaGraphNodeType type;
  CK(cudaGraphNodeGetType(child, &type));
  EXPECT(type == cudaGraphNodeTypeGraph, "child node type %d", (int)type);
  cudaGraphExec_t px;
  CK(cudaGraphInstantiateWithFlags(&px, parent, 0));
  CK(cudaGraphLaunch(px, s));
  CK(cudaGraphLaunch(px, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaMemcpy(back.data(), acc, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int want = (i >= n / 2 && i < n / 2 + 10) ? 0x01020304 : i + 9;
    EXPECT(back[i] == want, "child graph acc[%d] = %d, want %d", i, back[i], want);
  }

  // node parameter get/set, clone, root nodes, node removal, exec-graph parameter updates
  {
    int *m;
    CK(cudaMalloc(&m, 64 * sizeof(int)));
    cudaGraph_t q;
    CK(cudaGraphCreate(&q, 0));
    cudaGraphNode_t set, copy, hostN;
    cudaMemsetParams sp = {};
    sp.dst = m;
    sp.value = 0x11;
    sp.elementSize = 1;
    sp.width = 64 * sizeof(int);
    sp.height = 1;
    CK(cudaGraphAddMemsetNode(&set, q, nullptr, 0, &sp));
    std::vector<int> out(64, 0), out2(64, 0);
    CK(cudaGraphAddMemcpyNode1D(&copy, q, &set, 1, out.data(), m, 64 * sizeof(int),
                                cudaMemcpyDeviceToHost));
    static int tag = 100;
    cudaHostNodeParams hp = {record, &tag};
    CK(cudaGraphAddHostNode(&hostN, q, &copy, 1, &hp));
    cudaGraphNode_t extra;
    CK(cudaGraphAddEmptyNode(&extra, q, nullptr, 0));
    size_t roots = 0;
    CK(cudaGraphGetRootNodes(q, nullptr, &roots));
    EXPECT(roots == 2, "root nodes %zu", roots);
    CK(cudaGraphDestroyNode(extra));
    CK(cudaGraphGetRootNodes(q, nullptr, &roots));
    EXPECT(roots == 1, "root nodes after destroy %zu", roots);
    cudaMemsetParams sg = {};
    CK(cudaGraphMemsetNodeGetParams(set, &sg));
    EXPECT(sg.value == 0x11 && sg.width == 64 * sizeof(int), "memset get params");
    sp.value = 4;
    sp.elementSize = 4;
    sp.width = 64;
    CK(cudaGraphMemsetNodeSetParams(set, &sp));
    cudaHostNodeParams hg = {};
    CK(cudaGraphHostNodeGetParams(hostN, &hg));
    EXPECT(hg.fn == record && hg.userData == &tag, "host get params");
    cudaGraph_t qc;
    CK(cudaGraphClone(&qc, q));
    size_t cn = 0;
    CK(cudaGraphGetNodes(qc, nullptr, &cn));
    EXPECT(cn == 3, "clone has %zu nodes", cn);
    cudaGraphExec_t qx;
    CK(cudaGraphInstantiate(&qx, q, 0));
    g_order.clear();
    CK(cudaGraphLaunch(qx, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(out[0] == 4 && out[63] == 4 && g_order.size() == 1 && g_order[0] == 100,
           "memset/copy/host graph: %d %zu", out[0], g_order.size());
    // exec-only updates: another value, destination and host argument
    static int tag2 = 200;
    cudaHostNodeParams hp2 = {record, &tag2};
    CK(cudaGraphExecHostNodeSetParams(qx, hostN, &hp2));
    sp.value = 9;
    CK(cudaGraphExecMemsetNodeSetParams(qx, set, &sp));
    CK(cudaGraphExecMemcpyNodeSetParams1D(qx, copy, out2.data(), m, 64 * sizeof(int),
                                          cudaMemcpyDeviceToHost));
    CK(cudaGraphLaunch(qx, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(out2[5] == 9 && out[5] == 4 && g_order.size() == 2 && g_order[1] == 200,
           "exec param updates: %d %d", out2[5], out[5]);
    // the clone still has the original parameters
    cudaGraphExec_t qcx;
    CK(cudaGraphInstantiate(&qcx, qc, 0));
    CK(cudaGraphLaunch(qcx, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(out[7] == 4 && g_order.size() == 3 && g_order[2] == 100, "clone replay");
    EXPECT(cudaGraphExecHostNodeSetParams(qx, set, &hp2) == cudaErrorInvalidValue,
           "host params on a memset node");
    // a pitched 2D copy through cudaMemcpy3DParms
    int hsrc[4][8], hdst[4][8] = {};
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 8; ++c)
        hsrc[r][c] = r * 8 + c;
    cudaGraph_t p3;
    CK(cudaGraphCreate(&p3, 0));
    cudaMemcpy3DParms cp3 = {};
    cp3.srcPtr = make_cudaPitchedPtr(hsrc, 8 * sizeof(int), 8, 4);
    cp3.dstPtr = make_cudaPitchedPtr(m, 16 * sizeof(int), 16, 4);
    cp3.extent = make_cudaExtent(5 * sizeof(int), 3, 1);
    cp3.kind = cudaMemcpyHostToDevice;
    cudaGraphNode_t c3, back3;
    CK(cudaGraphAddMemcpyNode(&c3, p3, nullptr, 0, &cp3));
    cudaMemcpy3DParms bk = {};
    bk.srcPtr = make_cudaPitchedPtr(m, 16 * sizeof(int), 16, 4);
    bk.dstPtr = make_cudaPitchedPtr(hdst, 8 * sizeof(int), 8, 4);
    bk.extent = make_cudaExtent(5 * sizeof(int), 3, 1);
    bk.kind = cudaMemcpyDeviceToHost;
    CK(cudaGraphAddMemcpyNode(&back3, p3, &c3, 1, &bk));
    cudaGraphExec_t p3x;
    CK(cudaGraphInstantiate(&p3x, p3, 0));
    CK(cudaGraphLaunch(p3x, s));
    CK(cudaStreamSynchronize(s));
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 8; ++c)
        EXPECT(hdst[r][c] == (r < 3 && c < 5 ? r * 8 + c : 0), "3D-params copy [%d][%d] = %d", r,
               c, hdst[r][c]);
    CK(cudaGraphExecDestroy(p3x));
    CK(cudaGraphDestroy(p3));
    CK(cudaGraphExecDestroy(qx));
    CK(cudaGraphExecDestroy(qcx));
    CK(cudaGraphDestroy(q));
    CK(cudaGraphDestroy(qc));
    CK(cudaFree(m));
  }

  // misuse
  cudaGraphNode_t bad;
  EXPECT(cudaGraphAddEmptyNode(&bad, g, &hn[0], 1) == cudaErrorInvalidValue,
         "dependency from another graph");
  EXPECT(cudaGraphAddEmptyNode(&bad, g, nullptr, 1) == cudaErrorInvalidValue, "null deps");
  cudaGraphNode_t dup[2] = {cp, cp};
  EXPECT(cudaGraphAddEmptyNode(&bad, g, dup, 2) == cudaErrorInvalidValue, "duplicate deps");
  kp.func = (void *)main;
  EXPECT(cudaGraphAddKernelNode(&bad, g, nullptr, 0, &kp) == cudaErrorInvalidResourceHandle,
         "not a kernel");
  EXPECT(cudaGraphCreate(&h, 1) == cudaErrorInvalidValue, "graph flags");
  mp.elementSize = 3;
  EXPECT(cudaGraphAddMemsetNode(&bad, parent, nullptr, 0, &mp) == cudaErrorInvalidValue,
         "memset element size");
  // a cycle cannot be instantiated
  cudaGraph_t cyc;
  CK(cudaGraphCreate(&cyc, 0));
  cudaGraphNode_t c1, c2;
  CK(cudaGraphAddEmptyNode(&c1, cyc, nullptr, 0));
  CK(cudaGraphAddEmptyNode(&c2, cyc, &c1, 1));
  CK(cudaGraphAddDependencies(cyc, &c2, &c1, nullptr, 1));
  cudaGraphExec_t cx;
  EXPECT(cudaGraphInstantiate(&cx, cyc, 0) != cudaSuccess, "cycle instantiated");
  // an update with another topology fails
  EXPECT(cudaGraphExecUpdate(x, parent, &info) == cudaErrorGraphExecUpdateFailure &&
             info.result != cudaGraphExecUpdateSuccess,
         "topology change accepted");
  cudaGetLastError();

  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphExecDestroy(hx));
  CK(cudaGraphExecDestroy(px));
  CK(cudaGraphDestroy(g));
  CK(cudaGraphDestroy(h));
  CK(cudaGraphDestroy(parent));
  CK(cudaGraphDestroy(cyc));
  CK(cudaStreamDestroy(s));
  CK(cudaFree(a));
  CK(cudaFree(acc));
  return finish();
}
