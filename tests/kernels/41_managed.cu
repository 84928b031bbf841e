// ptxsim test kernel: managed
// Self-checking: prints PASS managed / FAIL managed.
static const char* kName = "managed";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Unified memory: cudaMallocManaged buffers initialised and checked directly on
// the host, a __managed__ global variable, and cudaMemPrefetchAsync-free access
// across several kernel launches.

__managed__ int m_counter = 0;
__managed__ float m_scale = 2.0f;

__global__ void update(float* data, int* idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = data[i] * m_scale + 1.0f;
        idx[i] = n - 1 - i;
        atomicAdd(&m_counter, 1);
    }
}

__global__ void gather(const float* data, const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = data[idx[i]];
}

int main() {
    const int n = 1500;
    float *data, *out; int* idx;
    CK(cudaMallocManaged(&data, n * sizeof(float)));
    CK(cudaMallocManaged(&idx, n * sizeof(int)));
    CK(cudaMallocManaged(&out, n * sizeof(float), cudaMemAttachGlobal));
    for (int i = 0; i < n; ++i) data[i] = i * 0.5f;
    update<<<(n + 255) / 256, 256>>>(data, idx, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) EXPECT(data[i] == i * 0.5f * 2.0f + 1.0f, "data[%d]=%f", i, data[i]);
    EXPECT(m_counter == n, "m_counter=%d expected %d", m_counter, n);
    m_scale = -1.0f;  // host writes managed global between launches
    for (int i = 0; i < n; i += 2) data[i] = 0.0f;
    update<<<(n + 255) / 256, 256>>>(data, idx, n);
    gather<<<(n + 127) / 128, 128>>>(data, idx, out, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) {
        int j = n - 1 - i;
        float dj = (j % 2 == 0) ? 0.0f : j * 0.5f * 2.0f + 1.0f;
        float e = dj * -1.0f + 1.0f;
        EXPECT(out[i] == e, "out[%d]=%f expected %f", i, out[i], e);
    }
    EXPECT(m_counter == 2 * n, "m_counter=%d expected %d", m_counter, 2 * n);
    CK(cudaFree(data)); CK(cudaFree(idx)); CK(cudaFree(out));
    return finish();
}
