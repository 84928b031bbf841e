// A program that reads host memory it never initialised, as a public benchmark does: it
// mallocs a host array, copies it to the device, accumulates into it and expects the sum it
// would get from zeros. On a machine with a GPU this passes because glibc hands a young
// program fresh, zero-filled heap memory; under ptxsim it needs ptxsim's own temporary
// allocations (reading the fat binary, parsing PTX, running launches) to stay out of the
// program's malloc arena. Arrays of several sizes below glibc's mmap threshold are checked
// after module loading, kernel launches, a stream and a graph.
static const char *kName = "host_heap_fresh";
#include "../kernels/test_common.h"

#include <cstdlib>

__global__ void accumulate(float *a, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += v;
}

// malloc(n floats) never written by the host, through the device and back: every element
// must come back as `v` (0 + v).
static void roundTrip(int n, float v) {
    float *h = (float *)malloc(n * sizeof(float));
    float *d;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    accumulate<<<(n + 255) / 256, 256>>>(d, n, v);
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += h[i] != v;
    EXPECT(bad == 0, "%d of %d elements of an uninitialised %zu-byte host array were not zero",
           bad, n, n * sizeof(float));
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
    for (int n : {256, 1000, 4096, 16384, 30000})
        roundTrip(n, 3.0f);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(scratch));
    return finish();
}
