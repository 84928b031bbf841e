// Graph memory nodes: allocation and free nodes made with cudaGraphAddMemAllocNode /
// cudaGraphAddMemFreeNode and with cudaGraphAddNode, used by kernel nodes between them and
// launched many times (the address stays the same); an allocation left live by its graph and
// freed with cudaFree, cudaFreeAsync, by another graph's free node or by an auto-free launch;
// the device's graph memory attributes (used/reserved, current/high) and cudaDeviceGraphMemTrim;
// and the errors CUDA returns for misuse (freeing twice, foreign memory, relaunch while live).
static const char *kName = "graph_mem_nodes";
#include "../kernels/test_common.h"

#include <cstdint>
#include <vector>

__global__ void fill(int *buf, int n, int seed) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        buf[i] = (i * 7 + seed) % 1000;
}

__global__ void sum(const int *buf, int n, unsigned long long *out) {
    unsigned long long local = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        local += buf[i];
    atomicAdd(out, local);
}

static unsigned long long expected(int n, int seed) {
    unsigned long long s = 0;
    for (int i = 0; i < n; ++i) s += (i * 7 + seed) % 1000;
    return s;
}

// the step the graphs' memory pool grows in on an H100 and an H200: one small allocation takes it
static const uint64_t kPool = 32u << 20;

static uint64_t graphMem(cudaGraphMemAttributeType a) {
    uint64_t v = ~0ull;
    CK(cudaDeviceGetGraphMemAttribute(0, a, &v));
    return v;
}

static cudaGraphNode_t kernelNode(cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                  const void *f, void **args) {
    cudaKernelNodeParams p = {};
    p.func = const_cast<void *>(f);
    p.gridDim = dim3(8);
    p.blockDim = dim3(128);
    p.kernelParams = args;
    cudaGraphNode_t node;
    CK(cudaGraphAddKernelNode(&node, g, deps, nd, &p));
    return node;
}

int main() {
    const int n = 100000;
    const size_t bytes = n * sizeof(int);
    unsigned long long *out;
    CK(cudaMalloc(&out, sizeof(unsigned long long)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == 0, "graph memory in use at start");

    // 1. alloc -> fill -> sum -> free, launched repeatedly with different seeds
    {
        cudaGraph_t g;
        CK(cudaGraphCreate(&g, 0));
        cudaMemAllocNodeParams ap = {};
        ap.poolProps.allocType = cudaMemAllocationTypePinned;
        ap.poolProps.location.type = cudaMemLocationTypeDevice;
        ap.poolProps.location.id = 0;
        ap.bytesize = bytes;
        cudaGraphNode_t alloc;
        CK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
        int *buf = (int *)ap.dptr;
        EXPECT(buf != nullptr, "allocation node returned no address");
        int nn = n, seed = 0;
        void *fa[] = {&buf, &nn, &seed};
        cudaGraphNode_t f = kernelNode(g, &alloc, 1, (const void *)fill, fa);
        void *sa[] = {&buf, &nn, &out};
        cudaGraphNode_t k = kernelNode(g, &f, 1, (const void *)sum, sa);
        cudaGraphNode_t fr;
        CK(cudaGraphAddMemFreeNode(&fr, g, &k, 1, buf));
        cudaGraphNodeType t;
        CK(cudaGraphNodeGetType(alloc, &t));
        EXPECT(t == cudaGraphNodeTypeMemAlloc, "alloc node type %d", (int)t);
        CK(cudaGraphNodeGetType(fr, &t));
        EXPECT(t == cudaGraphNodeTypeMemFree, "free node type %d", (int)t);
        cudaMemAllocNodeParams got = {};
        CK(cudaGraphMemAllocNodeGetParams(alloc, &got));
        EXPECT(got.dptr == buf && got.bytesize == bytes, "alloc node parameters");
        void *freed = nullptr;
        CK(cudaGraphMemFreeNodeGetParams(fr, &freed));
        EXPECT(freed == buf, "free node address");
        // misuse: a second free of the same allocation, freeing memory no graph allocated,
        // deleting nodes of a graph with memory nodes, cloning it
        cudaGraphNode_t bad;
        EXPECT(cudaGraphAddMemFreeNode(&bad, g, &k, 1, buf) == cudaErrorInvalidValue,
               "second free node of one allocation accepted");
        EXPECT(cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, out) == cudaErrorInvalidValue,
               "free node of cudaMalloc memory accepted");
        EXPECT(cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, buf + 1) == cudaErrorInvalidValue,
               "free node of an interior address accepted");
        cudaGraph_t clone;
        EXPECT(cudaGraphClone(&clone, g) == cudaErrorNotSupported, "graph with memory nodes cloned");
        EXPECT(cudaGraphDestroyNode(k) == cudaErrorNotSupported,
               "node deleted from a graph with memory nodes");
        cudaGetLastError();

        cudaGraphExec_t exec, second;
        CK(cudaGraphInstantiate(&exec, g, 0));
        // a graph with memory nodes has one executable graph at a time
        EXPECT(cudaGraphInstantiate(&second, g, 0) == cudaErrorNotSupported,
               "second instantiation of a graph with memory nodes");
        cudaGetLastError();
        for (int it = 0; it < 6; ++it) {
            seed = it * 13;
            cudaKernelNodeParams kp = {};
            kp.func = (void *)fill;
            kp.gridDim = dim3(8);
            kp.blockDim = dim3(128);
            kp.kernelParams = fa;
            CK(cudaGraphExecKernelNodeSetParams(exec, f, &kp));
            CK(cudaMemsetAsync(out, 0, sizeof *out, s));
            CK(cudaGraphLaunch(exec, s));
            unsigned long long h = 0;
            CK(cudaMemcpyAsync(&h, out, sizeof h, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            EXPECT(h == expected(n, seed), "launch %d: sum %llu, want %llu", it, h,
                   expected(n, seed));
            // the pool keeps the freed allocation's memory (it grows in 32 MiB steps on an
            // H100 and reports it as used and as reserved) until a trim
            EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == kPool &&
                       graphMem(cudaGraphMemAttrReservedMemCurrent) == kPool,
                   "launch %d: graph memory pool %llu used, %llu reserved", it,
                   (unsigned long long)graphMem(cudaGraphMemAttrUsedMemCurrent),
                   (unsigned long long)graphMem(cudaGraphMemAttrReservedMemCurrent));
        }
        EXPECT(graphMem(cudaGraphMemAttrUsedMemHigh) >= bytes, "used high-water mark %llu",
               (unsigned long long)graphMem(cudaGraphMemAttrUsedMemHigh));
        EXPECT(graphMem(cudaGraphMemAttrReservedMemCurrent) >= bytes, "reserved memory %llu",
               (unsigned long long)graphMem(cudaGraphMemAttrReservedMemCurrent));
        // the freed allocation cannot be freed outside its graph
        EXPECT(cudaFree(buf) == cudaErrorInvalidValue, "cudaFree of a graph-freed allocation");
        cudaGetLastError();
        CK(cudaDeviceGraphMemTrim(0));
        EXPECT(graphMem(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved after trim %llu",
               (unsigned long long)graphMem(cudaGraphMemAttrReservedMemCurrent));
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphDestroy(g));
    }

    // 2. an allocation that outlives its graph (made with cudaGraphAddNode)
    {
        cudaGraph_t g;
        CK(cudaGraphCreate(&g, 0));
        cudaGraphNodeParams p = {};
        p.type = cudaGraphNodeTypeMemAlloc;
        p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
        p.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
        p.alloc.bytesize = bytes;
        cudaGraphNode_t alloc;
        CK(cudaGraphAddNode(&alloc, g, nullptr, nullptr, 0, &p));
        int *buf = (int *)p.alloc.dptr;
        int nn = n, seed = 5;
        void *fa[] = {&buf, &nn, &seed};
        kernelNode(g, &alloc, 1, (const void *)fill, fa);
        cudaGraphExec_t exec, autoFree;
        CK(cudaGraphInstantiate(&exec, g, 0));
        CK(cudaGraphLaunch(exec, s));
        CK(cudaStreamSynchronize(s));
        EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == kPool, "used after launch %llu",
               (unsigned long long)graphMem(cudaGraphMemAttrUsedMemCurrent));
        // stream work after the graph may use the allocation
        CK(cudaMemsetAsync(out, 0, sizeof *out, s));
        sum<<<8, 128, 0, s>>>(buf, n, out);
        unsigned long long h = 0;
        CK(cudaMemcpyAsync(&h, out, sizeof h, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        EXPECT(h == expected(n, seed), "sum after the graph %llu, want %llu", h, expected(n, seed));
        // relaunching while the allocation is live fails
        EXPECT(cudaGraphLaunch(exec, s) == cudaErrorInvalidValue, "relaunch with a live allocation");
        cudaGetLastError();
        CK(cudaDeviceGraphMemTrim(0)); // the live allocation keeps its memory
        EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == kPool, "used after a trim %llu",
               (unsigned long long)graphMem(cudaGraphMemAttrUsedMemCurrent));
        CK(cudaFree(buf));
        EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == kPool, "used after cudaFree");
        CK(cudaDeviceGraphMemTrim(0));
        EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == 0, "used after cudaFree and a trim");
        EXPECT(cudaFree(buf) == cudaErrorInvalidValue, "second cudaFree of a graph allocation");
        cudaGetLastError();
        CK(cudaGraphLaunch(exec, s));
        CK(cudaFreeAsync(buf, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaGraphExecDestroy(exec));
        // another graph may free it: run g, then a graph holding only a free node
        cudaGraph_t freer;
        CK(cudaGraphCreate(&freer, 0));
        cudaGraphNodeParams fp = {};
        fp.type = cudaGraphNodeTypeMemFree;
        fp.free.dptr = buf;
        cudaGraphNode_t fnode;
        CK(cudaGraphAddNode(&fnode, freer, nullptr, nullptr, 0, &fp));
        // now the owning graph can no longer free it
        cudaGraphNode_t bad;
        EXPECT(cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, buf) == cudaErrorInvalidValue,
               "free node in the owner after another graph frees it");
        cudaGetLastError();
        cudaGraphExec_t freerExec;
        CK(cudaGraphInstantiate(&exec, g, 0));
        CK(cudaGraphInstantiate(&freerExec, freer, 0));
        for (int it = 0; it < 3; ++it) {
            CK(cudaGraphLaunch(exec, s));
            CK(cudaGraphLaunch(freerExec, s));
        }
        CK(cudaStreamSynchronize(s));
        CK(cudaDeviceGraphMemTrim(0));
        EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == 0, "used after the freeing graph");
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphExecDestroy(freerExec));
        CK(cudaGraphDestroy(freer));
        // auto free on launch: each launch frees the previous launch's allocation
        CK(cudaGraphInstantiateWithFlags(&autoFree, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
        for (int it = 0; it < 4; ++it) CK(cudaGraphLaunch(autoFree, s));
        CK(cudaStreamSynchronize(s));
        EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == kPool, "used with auto free %llu",
               (unsigned long long)graphMem(cudaGraphMemAttrUsedMemCurrent));
        CK(cudaFreeAsync(buf, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaGraphExecDestroy(autoFree));
        CK(cudaGraphDestroy(g));
    }

    // 3. attributes: only the high-water marks can be reset, only to zero, on device 0
    uint64_t zero = 0, one = 1;
    CK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    CK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
    // a reset high-water mark restarts from the current use
    EXPECT(graphMem(cudaGraphMemAttrUsedMemHigh) == graphMem(cudaGraphMemAttrUsedMemCurrent),
           "used high after reset %llu", (unsigned long long)graphMem(cudaGraphMemAttrUsedMemHigh));
    EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one) ==
               cudaErrorInvalidValue, "high-water mark set to 1");
    EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero) ==
               cudaErrorInvalidValue, "current use set");
    EXPECT(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &one) ==
               cudaErrorInvalidDevice, "attribute of device 1");
    EXPECT(cudaDeviceGraphMemTrim(1) == cudaErrorInvalidDevice, "trim of device 1");
    cudaGetLastError();

    CK(cudaStreamDestroy(s));
    CK(cudaFree(out));
    return finish();
}
