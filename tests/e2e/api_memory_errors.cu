// ptxsim e2e: misuse of the memory API returns the errors CUDA returns, each recorded as the
// last error, and none of them is sticky.
static const char *kName = "api_memory_errors";
#include <cstring>
#include "../kernels/test_common.h"

#define EXPECT_ERR(call, want) do { cudaError_t e_ = (call); \
    EXPECT(e_ == (want), "%s returned %s, expected %s", #call, cudaGetErrorName(e_), #want); } while (0)

__device__ int g_var[4];

int main() {
    const size_t n = 1000;
    char *d = nullptr, *h = nullptr;
    static char buf[4096];
    EXPECT_ERR(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    CK(cudaMalloc(&d, n));
    CK(cudaMallocHost(&h, n));

    EXPECT_ERR(cudaFree(nullptr), cudaSuccess);
    EXPECT_ERR(cudaFree(buf), cudaErrorInvalidValue);          // not a device allocation
    EXPECT_ERR(cudaFree(d + 8), cudaErrorInvalidValue);        // inside, not the start
    EXPECT_ERR(cudaFree(h), cudaErrorInvalidValue);            // pinned host memory
    EXPECT_ERR(cudaFreeHost(d), cudaErrorInvalidValue);        // device memory

    EXPECT_ERR(cudaMemcpy(d, buf, n + 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(buf, d + 500, 501, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(buf, buf + 8, 8, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d, buf, 8, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    EXPECT_ERR(cudaMemset(d + 1, 0, n), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyToSymbol(g_var, buf, 5 * sizeof(int)), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyToSymbol(buf, buf, 4), cudaErrorInvalidSymbol);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidSymbol);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);

    cudaEvent_t a, b;
    float ms;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    EXPECT_ERR(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle); // not recorded
    CK(cudaEventRecord(a));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    EXPECT(ms >= 0.0f, "elapsed %f", ms);
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));

    // Nothing above was sticky: a full round trip through every copy kind still works.
    for (size_t i = 0; i < n; ++i) h[i] = (char)(i * 7);
    CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
    CK(cudaMemset(d, 3, 10));
    char *d2;
    CK(cudaMalloc(&d2, n));
    CK(cudaMemcpy(d2, d, n, cudaMemcpyDefault));
    memset(buf, 0, n);
    CK(cudaMemcpy(buf, d2, n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        EXPECT(buf[i] == (i < 10 ? 3 : (char)(i * 7)), "buf[%zu]=%d", i, buf[i]);
    int v[4] = {1, 2, 3, 4}, w[4] = {};
    CK(cudaMemcpyToSymbol(g_var, v, sizeof v));
    CK(cudaMemcpyFromSymbol(w, g_var, 2 * sizeof(int), 2 * sizeof(int)));
    EXPECT(w[0] == 3 && w[1] == 4, "symbol read %d %d", w[0], w[1]);

    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, d));
    EXPECT(pa.type == cudaMemoryTypeDevice, "device pointer type %d", (int)pa.type);
    CK(cudaPointerGetAttributes(&pa, h));
    EXPECT(pa.type == cudaMemoryTypeHost, "host pointer type %d", (int)pa.type);
    CK(cudaPointerGetAttributes(&pa, buf));
    EXPECT(pa.type == cudaMemoryTypeUnregistered, "plain pointer type %d", (int)pa.type);

    EXPECT(strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0, "name");
    EXPECT(strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0, "string");
    CK(cudaFree(d));
    CK(cudaFree(d2));
    CK(cudaFreeHost(h));
    return finish();
}
