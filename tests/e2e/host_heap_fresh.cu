// A program that reads host memory it never initialised, as a public benchmark does: it mallocs
// a host array, copies it to the device, adds to it on the device and copies it back. Arrays of
// several sizes below glibc's mmap threshold are checked after module loading, kernel launches,
// a stream and a graph.
//   - everywhere: the device receives exactly the bytes the host array holds, whatever they are
//     (the result is what the host computes from a snapshot taken before the copy)
//   - under ptxsim only: the arrays are all zero. On a real GPU they are not (NVIDIA's driver
//     allocates and frees host heap memory of its own, and an H100 run found 127 of the first
//     array's 256 floats non-zero), so the program cannot expect it there. Under ptxsim it holds
//     because ptxsim's own set-up, fat-binary and PTX parsing, launches and timing runs happen on
//     its pool/service threads (their own malloc arenas) and leave the program's heap as a fresh
//     process has it.
static const char *kName = "host_heap_fresh";
#include "../kernels/test_common.h"

#include <cmath>
#include <cstdlib>

__global__ void accumulate(float *a, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += v;
}

static bool g_ptxsim = false;
static float g_before[30000]; // snapshots, kept off the heap the program checks

// malloc(n floats) never written by the host, through the device and back.
static void roundTrip(int n, float v) {
    float *h = (float *)malloc(n * sizeof(float));
    float *before = g_before;
    memcpy(before, h, n * sizeof(float)); // whatever the heap holds
    float *d;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    accumulate<<<(n + 255) / 256, 256>>>(d, n, v);
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0, nonzero = 0;
    for (int i = 0; i < n; ++i) {
        float want = before[i] + v;
        wrong += !(h[i] == want || (std::isnan(h[i]) && std::isnan(want)));
        nonzero += before[i] != 0.0f;
    }
    EXPECT(wrong == 0, "%d of %d elements of a %zu-byte host array came back wrong", wrong, n,
           n * sizeof(float));
    if (g_ptxsim)
        EXPECT(nonzero == 0, "%d of %d elements of an uninitialised %zu-byte host array were not "
               "zero under ptxsim", nonzero, n, n * sizeof(float));
    CK(cudaFree(d));
    // the array is not freed, as the benchmark leaves it
}

int main() {
    // CUDA work first: module load, launches, a stream with an async copy, a graph
    float *scratch;
    CK(cudaMalloc(&scratch, 1 << 20));
    accumulate<<<1024, 256>>>(scratch, 1 << 18, 1.0f);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemsetAsync(scratch, 0, 1 << 20, s));
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    accumulate<<<64, 256, 0, s>>>(scratch, 1 << 14, 2.0f);
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    g_ptxsim = strncmp(prop.name, "ptxsim", 6) == 0; // ptxsim names its device "ptxsim ..."
    for (int n : {256, 1000, 4096, 16384, 30000})
        roundTrip(n, 3.0f);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(scratch));
    return finish();
}
