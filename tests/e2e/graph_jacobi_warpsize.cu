// A Jacobi solver driven by a CUDA graph, with every reduction written against warpSize (the PTX
// constant WARP_SZ): one warp per matrix row (lanes stride the row by warpSize and combine with
// shuffles), per-row squared updates reduced by a one-block kernel whose shared partials are
// indexed by warp. Two sweeps, the residual reduction and its copy to pinned host memory are
// captured from two streams into a graph that is replayed until the update is small, then the
// solution is checked against the same iteration on the host and against A x = b.
// Usage: graph_jacobi_warpsize   (n rows: $JACOBI_N, else 192; at least 2)
static const char *kName = "graph_jacobi_warpsize";
#include "../kernels/test_common.h"

#include <cmath>
#include <cstdlib>
#include <vector>

__device__ double warpReduceSum(double v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// xOut = D^-1 (b - R xIn), one warp per row; rowDelta[r] = (xOut[r] - xIn[r])^2.
__global__ void jacobiSweep(const double *A, const double *b, const double *xIn, double *xOut,
                            double *rowDelta, int n) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int lane = threadIdx.x % warpSize;
    if (row >= n)
        return;
    double s = 0;
    for (int c = lane; c < n; c += warpSize)
        if (c != row)
            s += A[size_t(row) * n + c] * xIn[c];
    s = warpReduceSum(s);
    if (lane == 0) {
        double x = (b[row] - s) / A[size_t(row) * n + row];
        xOut[row] = x;
        rowDelta[row] = (x - xIn[row]) * (x - xIn[row]);
    }
}

// One block: sum of rowDelta into *out, per-warp partials in shared memory.
__global__ void sumDeltas(const double *rowDelta, int n, double *out) {
    __shared__ double partial[1024 / 32];
    double v = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        v += rowDelta[i];
    v = warpReduceSum(v);
    int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int warps = blockDim.x / warpSize;
        v = lane < warps ? partial[lane] : 0;
        v = warpReduceSum(v);
        if (lane == 0)
            *out = v;
    }
}

int main() {
    const char *env = std::getenv("JACOBI_N");
    const int n = env && std::atoi(env) >= 2 ? std::atoi(env) : 192;
    std::vector<double> A(size_t(n) * n), b(n);
    unsigned s = 7;
    auto rnd = [&] { s = s * 1103515245u + 12345u; return double((s >> 8) % 2001) / 1000.0 - 1.0; };
    for (int r = 0; r < n; ++r) {
        double off = 0;
        for (int c = 0; c < n; ++c)
            if (c != r) { A[size_t(r) * n + c] = 1.5 * (rnd() + 1) / n; off += std::fabs(A[size_t(r) * n + c]); }
        A[size_t(r) * n + r] = 0.3 + off; // strictly diagonally dominant: Jacobi converges
        b[r] = rnd() * 10;
    }
    double *dA, *db, *dx0, *dx1, *dDelta, *dSum, *hSum;
    CK(cudaMalloc(&dA, A.size() * sizeof(double)));
    CK(cudaMalloc(&db, n * sizeof(double)));
    CK(cudaMalloc(&dx0, n * sizeof(double)));
    CK(cudaMalloc(&dx1, n * sizeof(double)));
    CK(cudaMalloc(&dDelta, n * sizeof(double)));
    CK(cudaMalloc(&dSum, sizeof(double)));
    CK(cudaMallocHost(&hSum, sizeof(double)));
    CK(cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaMemset(dx0, 0, n * sizeof(double)));

    int warpSizeHost = 0;
    CK(cudaDeviceGetAttribute(&warpSizeHost, cudaDevAttrWarpSize, 0));
    const int threads = 128, rowsPerBlock = threads / warpSizeHost;
    const int blocks = (n + rowsPerBlock - 1) / rowsPerBlock;

    // capture: sweep x0 -> x1, sweep x1 -> x0, then the residual of the second sweep on a forked
    // stream, copied to pinned memory
    cudaStream_t s0, s1;
    CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaGraph_t graph;
    CK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
    jacobiSweep<<<blocks, threads, 0, s0>>>(dA, db, dx0, dx1, dDelta, n);
    jacobiSweep<<<blocks, threads, 0, s0>>>(dA, db, dx1, dx0, dDelta, n);
    CK(cudaEventRecord(fork, s0));
    CK(cudaStreamWaitEvent(s1, fork, 0));
    sumDeltas<<<1, 256, 0, s1>>>(dDelta, n, dSum);
    CK(cudaMemcpyAsync(hSum, dSum, sizeof(double), cudaMemcpyDeviceToHost, s1));
    CK(cudaEventRecord(join, s1));
    CK(cudaStreamWaitEvent(s0, join, 0));
    CK(cudaStreamEndCapture(s0, &graph));
    size_t nodes = 0;
    CK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT(nodes == 4, "captured %zu nodes, want 4", nodes);
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, graph, 0));

    int replays = 0;
    const double tol = 1e-24;
    do {
        CK(cudaGraphLaunch(exec, s0));
        CK(cudaStreamSynchronize(s0));
        ++replays;
    } while (*hSum > tol && replays < 200);
    EXPECT(*hSum <= tol, "no convergence after %d replays: delta %g", replays, *hSum);

    // the same iteration on the host
    std::vector<double> x(n, 0.0), y(n);
    for (int it = 0; it < 2 * replays; ++it) {
        for (int r = 0; r < n; ++r) {
            double acc = 0;
            for (int c = 0; c < n; ++c)
                if (c != r) acc += A[size_t(r) * n + c] * x[c];
            y[r] = (b[r] - acc) / A[size_t(r) * n + r];
        }
        x.swap(y);
    }
    std::vector<double> got(n);
    CK(cudaMemcpy(got.data(), dx0, n * sizeof(double), cudaMemcpyDeviceToHost));
    double worstResidual = 0;
    for (int r = 0; r < n; ++r) {
        EXPECT(std::fabs(got[r] - x[r]) <= 1e-12 * (1 + std::fabs(x[r])), "x[%d] = %.17g, host %.17g", r, got[r], x[r]);
        double ax = 0;
        for (int c = 0; c < n; ++c) ax += A[size_t(r) * n + c] * got[c];
        worstResidual = std::fmax(worstResidual, std::fabs(ax - b[r]));
    }
    EXPECT(worstResidual < 1e-9, "|Ax - b| up to %g", worstResidual);
    printf("converged after %d replays (%d sweeps), max |Ax-b| %.3g\n", replays, 2 * replays, worstResidual);

    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaEventDestroy(fork));
    CK(cudaEventDestroy(join));
    CK(cudaStreamDestroy(s0));
    CK(cudaStreamDestroy(s1));
    CK(cudaFreeHost(hSum));
    for (double *p : {dA, db, dx0, dx1, dDelta, dSum}) CK(cudaFree(p));
    return finish();
}
