// Stream-ordered allocation during stream capture: cudaMallocAsync / cudaMallocFromPoolAsync /
// cudaFreeAsync on a capturing stream become memory allocation and free nodes (the pointer is
// returned at capture time and stays the graph's). A pipeline with a scratch buffer allocated
// and freed inside the capture, a buffer used by a forked stream, and an allocation that
// outlives the graph and is freed later with cudaFreeAsync; the graphs are replayed many
// times and checked against the host.
static const char *kName = "capture_malloc_async";
#include "../kernels/test_common.h"

#include <cstdint>
#include <vector>

__global__ void scale(const float *in, float *out, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * k;
}

__global__ void addArrays(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

static void countTypes(cudaGraph_t g, int &allocs, int &frees, int &kernels) {
    size_t count = 0;
    CK(cudaGraphGetNodes(g, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    CK(cudaGraphGetNodes(g, nodes.data(), &count));
    allocs = frees = kernels = 0;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType t;
        CK(cudaGraphNodeGetType(node, &t));
        allocs += t == cudaGraphNodeTypeMemAlloc;
        frees += t == cudaGraphNodeTypeMemFree;
        kernels += t == cudaGraphNodeTypeKernel;
    }
}

int main() {
    const int n = 20000, threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<float> hin(n);
    for (int i = 0; i < n; ++i) hin[i] = (float)(i % 97) - 40.0f;
    float *in, *out;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    cudaStream_t s1, s2;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaMemPool_t pool;
    CK(cudaDeviceGetDefaultMemPool(&pool, 0));

    // out = in*2 + in*3, with two scratch buffers allocated in the capture (one on a forked
    // stream, from the pool) and freed in it
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    float *a = nullptr, *b = nullptr;
    CK(cudaMallocAsync((void **)&a, n * sizeof(float), s1));
    EXPECT(a != nullptr, "cudaMallocAsync during capture returned no pointer");
    CK(cudaEventRecord(fork, s1));
    CK(cudaStreamWaitEvent(s2, fork, 0));
    CK(cudaMallocFromPoolAsync((void **)&b, n * sizeof(float), pool, s2));
    scale<<<blocks, threads, 0, s2>>>(in, b, n, 3.0f);
    CK(cudaEventRecord(join, s2));
    scale<<<blocks, threads, 0, s1>>>(in, a, n, 2.0f);
    CK(cudaStreamWaitEvent(s1, join, 0));
    addArrays<<<blocks, threads, 0, s1>>>(a, b, out, n);
    CK(cudaFreeAsync(a, s1));
    CK(cudaFreeAsync(b, s1));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s1, &g));
    int allocs, frees, kernels;
    countTypes(g, allocs, frees, kernels);
    EXPECT(allocs == 2 && frees == 2 && kernels == 3,
           "captured graph has %d alloc, %d free and %d kernel nodes", allocs, frees, kernels);
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int it = 0; it < 20; ++it) {
        for (int i = 0; i < n; ++i) hin[i] += 1.0f;
        CK(cudaMemcpyAsync(in, hin.data(), n * sizeof(float), cudaMemcpyHostToDevice, s1));
        CK(cudaGraphLaunch(exec, s1));
        std::vector<float> got(n);
        CK(cudaMemcpyAsync(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
        CK(cudaStreamSynchronize(s1));
        for (int i = 0; i < n; ++i)
            EXPECT(got[i] == hin[i] * 5.0f, "iteration %d element %d: %g, want %g", it, i, got[i],
                   hin[i] * 5.0f);
    }
    // the graphs' memory pool keeps what the allocations needed (32 MiB, the step it grows in on
    // an H100) after they are freed, until a trim gives it back
    uint64_t used = 1, reserved = 1;
    CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    EXPECT(used == 32u << 20 && reserved == used, "graph memory pool: used %llu, reserved %llu",
           (unsigned long long)used, (unsigned long long)reserved);
    CK(cudaDeviceGraphMemTrim(0));
    CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT(used == 0, "graph memory still in use after a trim: %llu", (unsigned long long)used);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));

    // an allocation that the captured graph leaves live: used after the launch, then freed
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
    float *keep = nullptr;
    CK(cudaMallocAsync((void **)&keep, n * sizeof(float), s1));
    scale<<<blocks, threads, 0, s1>>>(in, keep, n, -1.0f);
    CK(cudaStreamEndCapture(s1, &g));
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int it = 0; it < 3; ++it) {
        CK(cudaGraphLaunch(exec, s1));
        addArrays<<<blocks, threads, 0, s1>>>(keep, in, out, n);
        std::vector<float> got(n);
        CK(cudaMemcpyAsync(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
        CK(cudaFreeAsync(keep, s1));
        CK(cudaStreamSynchronize(s1));
        for (int i = 0; i < n; ++i)
            EXPECT(got[i] == 0.0f, "live allocation, iteration %d element %d: %g", it, i, got[i]);
    }
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));

    CK(cudaEventDestroy(fork));
    CK(cudaEventDestroy(join));
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
    CK(cudaFree(in));
    CK(cudaFree(out));
    return finish();
}
