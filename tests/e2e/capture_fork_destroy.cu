// Stream capture as public programs use it: a capture into the program's own graph
// (cudaStreamBeginCaptureToGraph) ended with cudaStreamEndCapture(stream, nullptr), which CUDA
// accepts (the nodes are already in that graph), and a capture that forks into a second stream
// through an event, allocates and frees with cudaMallocAsync/cudaFreeAsync on both streams
// (a buffer allocated on the second stream is freed on the first), joins the second stream back
// and destroys it before the capture ends (the second stream's work stays in the graph). The
// graphs are replayed and their results checked against the host.
static const char *kName = "capture_fork_destroy";
#include "../kernels/test_common.h"

#include <vector>

__global__ void fill(float *out, int n, float base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = base + (float)(i % 13);
}

__global__ void axpy(const float *x, float *y, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

__global__ void combine(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * 2.0f + b[i];
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
    const int n = 5000, threads = 128, blocks = (n + threads - 1) / threads;
    float *y, *out;
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    std::vector<float> h(n);

    // 1. capture into the program's graph, after a node it added itself, ended with nullptr
    {
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaGraph_t g;
        CK(cudaGraphCreate(&g, 0));
        cudaGraphNode_t first;
        cudaKernelNodeParams kp = {};
        float base = 1.0f;
        int nn = n;
        void *fillArgs[] = {&y, &nn, &base};
        kp.func = (void *)fill;
        kp.gridDim = dim3(blocks);
        kp.blockDim = dim3(threads);
        kp.kernelParams = fillArgs;
        CK(cudaGraphAddKernelNode(&first, g, nullptr, 0, &kp));
        CK(cudaStreamBeginCaptureToGraph(s, g, &first, nullptr, 1, cudaStreamCaptureModeGlobal));
        axpy<<<blocks, threads, 0, s>>>(y, y, n, 1.0f); // y = 2 * y
        CK(cudaGetLastError());
        CK(cudaStreamEndCapture(s, nullptr));
        cudaStreamCaptureStatus st;
        CK(cudaStreamIsCapturing(s, &st));
        EXPECT(st == cudaStreamCaptureStatusNone, "stream still capturing after EndCapture(nullptr)");
        size_t count = 0;
        CK(cudaGraphGetNodes(g, nullptr, &count));
        EXPECT(count == 2, "graph has %zu nodes after the capture, expected 2", count);
        // a second capture into the same graph, ended with a pointer: it names that graph
        cudaGraphNode_t leaves[4];
        size_t numLeaves = 4;
        CK(cudaGraphGetRootNodes(g, leaves, &numLeaves));
        EXPECT(numLeaves == 1, "%zu root nodes, expected 1", numLeaves);
        size_t numEdges = 0;
        CK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &numEdges));
        EXPECT(numEdges == 1, "%zu edges, expected 1", numEdges);
        std::vector<cudaGraphNode_t> from(numEdges), to(numEdges);
        CK(cudaGraphGetEdges(g, from.data(), to.data(), nullptr, &numEdges));
        CK(cudaStreamBeginCaptureToGraph(s, g, to.data(), nullptr, 1, cudaStreamCaptureModeGlobal));
        axpy<<<blocks, threads, 0, s>>>(y, y, n, 0.5f); // y = 1.5 * y
        cudaGraph_t ended = nullptr;
        CK(cudaStreamEndCapture(s, &ended));
        EXPECT(ended == g, "EndCapture of a capture into a graph returned another graph");
        cudaGraphExec_t exec;
        CK(cudaGraphInstantiate(&exec, g, 0));
        for (int it = 0; it < 3; ++it) CK(cudaGraphLaunch(exec, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            float want = (1.0f + (float)(i % 13)) * 3.0f;
            EXPECT(h[i] == want, "capture to graph: y[%d] = %g, expected %g", i, h[i], want);
        }
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphDestroy(g));
        CK(cudaStreamDestroy(s));
    }

    // 2. fork into a second stream, allocate and free on both, join, destroy the second stream
    {
        cudaStream_t s1;
        CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
        cudaEvent_t forkEv, joinEv;
        CK(cudaEventCreateWithFlags(&forkEv, cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&joinEv, cudaEventDisableTiming));
        cudaGraph_t g = nullptr;
        for (int round = 0; round < 2; ++round) {
            // round 1 captures into a graph of the program's and ends with nullptr; relaxed
            // mode, so that destroying a stream is no call that global mode could refuse
            cudaStream_t s2;
            CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
            if (round == 0) {
                CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
            } else {
                CK(cudaGraphCreate(&g, 0));
                CK(cudaStreamBeginCaptureToGraph(s1, g, nullptr, nullptr, 0,
                                                 cudaStreamCaptureModeRelaxed));
            }
            float *a = nullptr, *b = nullptr, *t1 = nullptr, *t2 = nullptr;
            CK(cudaMallocAsync((void **)&a, n * sizeof(float), s1));
            CK(cudaEventRecord(forkEv, s1));
            CK(cudaStreamWaitEvent(s2, forkEv, 0));
            cudaStreamCaptureStatus st;
            CK(cudaStreamIsCapturing(s2, &st));
            EXPECT(st == cudaStreamCaptureStatusActive, "forked stream not capturing");
            CK(cudaMallocAsync((void **)&b, n * sizeof(float), s2));
            CK(cudaMallocAsync((void **)&t2, n * sizeof(float), s2));
            fill<<<blocks, threads, 0, s2>>>(t2, n, 10.0f);
            fill<<<blocks, threads, 0, s2>>>(b, n, 0.0f);
            axpy<<<blocks, threads, 0, s2>>>(t2, b, n, 1.0f); // b = 10 + 2 (i%13)
            CK(cudaFreeAsync(t2, s2));
            CK(cudaEventRecord(joinEv, s2));
            CK(cudaMallocAsync((void **)&t1, n * sizeof(float), s1));
            fill<<<blocks, threads, 0, s1>>>(t1, n, 1.0f);
            fill<<<blocks, threads, 0, s1>>>(a, n, 0.0f);
            axpy<<<blocks, threads, 0, s1>>>(t1, a, n, 3.0f); // a = 3 + 4 (i%13)
            CK(cudaFreeAsync(t1, s1));
            CK(cudaStreamWaitEvent(s1, joinEv, 0));
            CK(cudaStreamDestroy(s2)); // joined back: its work stays in the capture
            combine<<<blocks, threads, 0, s1>>>(a, b, out, n);
            CK(cudaGetLastError());
            CK(cudaFreeAsync(a, s1));
            CK(cudaFreeAsync(b, s1)); // allocated on the destroyed stream
            CK(cudaStreamIsCapturing(s1, &st));
            EXPECT(st == cudaStreamCaptureStatusActive, "capture not active after the join, round %d",
                   round);
            if (round == 0)
                CK(cudaStreamEndCapture(s1, &g));
            else
                CK(cudaStreamEndCapture(s1, nullptr));
            int allocs, frees, kernels;
            countTypes(g, allocs, frees, kernels);
            EXPECT(allocs == 4 && frees == 4 && kernels == 7,
                   "round %d: graph has %d alloc, %d free and %d kernel nodes", round, allocs,
                   frees, kernels);
            cudaGraphExec_t exec;
            CK(cudaGraphInstantiate(&exec, g, 0));
            for (int it = 0; it < 4; ++it) {
                CK(cudaMemsetAsync(out, 0, n * sizeof(float), s1));
                CK(cudaGraphLaunch(exec, s1));
            }
            CK(cudaStreamSynchronize(s1));
            CK(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
            for (int i = 0; i < n; ++i) {
                float want = (3.0f + 4.0f * (float)(i % 13)) * 2.0f + 10.0f + 2.0f * (float)(i % 13);
                EXPECT(h[i] == want, "round %d: out[%d] = %g, expected %g", round, i, h[i], want);
            }
            CK(cudaGraphExecDestroy(exec));
            CK(cudaGraphDestroy(g));
        }
        CK(cudaEventDestroy(forkEv));
        CK(cudaEventDestroy(joinEv));
        CK(cudaStreamDestroy(s1));
    }
    CK(cudaFree(y));
    CK(cudaFree(out));
    return finish();
}
