// Virtual addresses of graph memory nodes. Within one graph, an allocation whose node depends on
// the free of an earlier allocation of the same size gets the earlier one's address (the CUDA
// Programming Guide's "address reuse within a graph"; NVIDIA's graph memory sample shows it on
// an alloc -> free -> alloc chain), both from explicit alloc/free nodes and from
// cudaMallocAsync/cudaFreeAsync in stream capture; allocations whose lifetimes may overlap (a
// parallel branch, other graphs instantiated at the same time) get distinct addresses. Each
// graph writes through its allocations and is replayed; the results are checked.
static const char *kName = "graph_mem_va_reuse";
#include "../kernels/test_common.h"

#include <vector>

__global__ void fill(int *p, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

__global__ void accumulate(const int *p, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += p[i];
}

static cudaMemAllocNodeParams allocParams(size_t bytes) {
    cudaMemAllocNodeParams p = {};
    p.bytesize = bytes;
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    return p;
}

static int g_n = 3000;
static const int kThreads = 128;

static cudaGraphNode_t addKernel(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                 void *func, void **args) {
    cudaKernelNodeParams kp = {};
    kp.func = func;
    kp.gridDim = dim3((g_n + kThreads - 1) / kThreads);
    kp.blockDim = dim3(kThreads);
    kp.kernelParams = args;
    cudaGraphNode_t node;
    CK(cudaGraphAddKernelNode(&node, g, deps, ndeps, &kp));
    return node;
}

// alloc -> fill(base) -> accumulate into out -> free, after `dep` (may be null); returns the
// free node and the allocation's address
static cudaGraphNode_t addUse(cudaGraph_t g, cudaGraphNode_t dep, int base, int *out,
                              int **addr) {
    cudaMemAllocNodeParams ap = allocParams(g_n * sizeof(int));
    cudaGraphNode_t alloc;
    CK(cudaGraphAddMemAllocNode(&alloc, g, dep ? &dep : nullptr, dep ? 1 : 0, &ap));
    int *p = (int *)ap.dptr;
    *addr = p;
    void *fillArgs[] = {&p, &g_n, &base};
    cudaGraphNode_t k1 = addKernel(g, &alloc, 1, (void *)fill, fillArgs);
    void *accArgs[] = {&p, &out, &g_n};
    cudaGraphNode_t k2 = addKernel(g, &k1, 1, (void *)accumulate, accArgs);
    cudaGraphNode_t freeNode;
    CK(cudaGraphAddMemFreeNode(&freeNode, g, &k2, 1, p));
    return freeNode;
}

static void checkOut(const int *dout, int launches, int sumBases, int users, const char *what) {
    std::vector<int> h(g_n);
    CK(cudaMemcpy(h.data(), dout, g_n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < g_n; ++i) {
        int want = launches * (sumBases + users * i);
        EXPECT(h[i] == want, "%s: out[%d] = %d, expected %d", what, i, h[i], want);
    }
}

int main() {
    int *out, *out2;
    CK(cudaMalloc(&out, g_n * sizeof(int)));
    CK(cudaMalloc(&out2, g_n * sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // 1. one graph: A, then B after A's free (same address), C in parallel with both (its own)
    {
        cudaGraph_t g;
        CK(cudaGraphCreate(&g, 0));
        int *a, *b, *c, *d;
        cudaGraphNode_t freeA = addUse(g, nullptr, 100, out, &a);
        cudaGraphNode_t freeB = addUse(g, freeA, 2000, out, &b);
        addUse(g, nullptr, 30000, out2, &c); // its own output: it may run beside the others
        EXPECT(a == b, "an allocation after the free of another of the same size in one graph "
                       "got %p, not the freed %p", (void *)b, (void *)a);
        EXPECT(c != a, "an allocation that may overlap another's lifetime shares its address");
        // a third one in the chain (after B's free) reuses it again
        addUse(g, freeB, 400000, out, &d);
        EXPECT(d == a, "the third allocation of a chain got %p, not %p", (void *)d, (void *)a);
        size_t count = 0;
        CK(cudaGraphGetNodes(g, nullptr, &count));
        std::vector<cudaGraphNode_t> nodes(count);
        CK(cudaGraphGetNodes(g, nodes.data(), &count));
        int allocNodes = 0;
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType t;
            CK(cudaGraphNodeGetType(node, &t));
            if (t != cudaGraphNodeTypeMemAlloc) continue;
            ++allocNodes;
            cudaMemAllocNodeParams got;
            CK(cudaGraphMemAllocNodeGetParams(node, &got));
            EXPECT(got.bytesize == g_n * sizeof(int), "alloc node reports %zu bytes", got.bytesize);
        }
        EXPECT(allocNodes == 4, "%d alloc nodes, expected 4", allocNodes);
        // the edges of a graph with memory nodes cannot be deleted (the order is what lets
        // allocations share an address)
        size_t numEdges = 0;
        CK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &numEdges));
        std::vector<cudaGraphNode_t> from(numEdges), to(numEdges);
        CK(cudaGraphGetEdges(g, from.data(), to.data(), nullptr, &numEdges));
        EXPECT(numEdges > 0 && cudaGraphRemoveDependencies(g, from.data(), to.data(), nullptr, 1) !=
                                   cudaSuccess,
               "an edge of a graph with memory nodes was removed");
        cudaGetLastError();
        cudaGraphExec_t exec;
        CK(cudaGraphInstantiate(&exec, g, 0));
        CK(cudaMemsetAsync(out, 0, g_n * sizeof(int), s));
        CK(cudaMemsetAsync(out2, 0, g_n * sizeof(int), s));
        const int launches = 5;
        for (int it = 0; it < launches; ++it) CK(cudaGraphLaunch(exec, s));
        CK(cudaStreamSynchronize(s));
        checkOut(out, launches, 100 + 2000 + 400000, 3, "chained allocations");
        checkOut(out2, launches, 30000, 1, "parallel allocation");
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphDestroy(g));
    }

    // 2. graphs instantiated together never share an address (their lifetimes may overlap)
    {
        const int kGraphs = 4;
        cudaGraph_t g[kGraphs];
        cudaGraphExec_t exec[kGraphs];
        int *addr[kGraphs];
        for (int i = 0; i < kGraphs; ++i) {
            CK(cudaGraphCreate(&g[i], 0));
            addUse(g[i], nullptr, i, out, &addr[i]);
            CK(cudaGraphInstantiate(&exec[i], g[i], 0));
        }
        for (int i = 0; i < kGraphs; ++i)
            for (int j = i + 1; j < kGraphs; ++j)
                EXPECT(addr[i] != addr[j], "graphs %d and %d share the address %p", i, j,
                       (void *)addr[i]);
        CK(cudaMemsetAsync(out, 0, g_n * sizeof(int), s));
        for (int i = 0; i < kGraphs; ++i) CK(cudaGraphLaunch(exec[i], s));
        CK(cudaStreamSynchronize(s));
        checkOut(out, 1, 0 + 1 + 2 + 3, kGraphs, "separate graphs");
        for (int i = 0; i < kGraphs; ++i) {
            CK(cudaGraphExecDestroy(exec[i]));
            CK(cudaGraphDestroy(g[i]));
        }
    }

    // 3. stream capture: cudaMallocAsync after a cudaFreeAsync of the same size on one stream
    {
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        int *a = nullptr, *b = nullptr;
        const int blocks = (g_n + kThreads - 1) / kThreads;
        CK(cudaMallocAsync((void **)&a, g_n * sizeof(int), s));
        fill<<<blocks, kThreads, 0, s>>>(a, g_n, 7);
        accumulate<<<blocks, kThreads, 0, s>>>(a, out, g_n);
        CK(cudaFreeAsync(a, s));
        CK(cudaMallocAsync((void **)&b, g_n * sizeof(int), s));
        fill<<<blocks, kThreads, 0, s>>>(b, g_n, 80);
        accumulate<<<blocks, kThreads, 0, s>>>(b, out, g_n);
        CK(cudaFreeAsync(b, s));
        cudaGraph_t g;
        CK(cudaStreamEndCapture(s, &g));
        EXPECT(a == b, "captured allocation after a captured free got %p, not the freed %p",
               (void *)b, (void *)a);
        cudaGraphExec_t exec;
        CK(cudaGraphInstantiate(&exec, g, 0));
        CK(cudaMemsetAsync(out, 0, g_n * sizeof(int), s));
        for (int it = 0; it < 3; ++it) CK(cudaGraphLaunch(exec, s));
        CK(cudaStreamSynchronize(s));
        checkOut(out, 3, 7 + 80, 2, "captured chain");
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphDestroy(g));
    }
    CK(cudaDeviceGraphMemTrim(0));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(out));
    CK(cudaFree(out2));
    return finish();
}
