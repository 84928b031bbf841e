// A cp.async benchmark's timing loop: each block stages tiles of a global array into shared
// memory with cuda::memcpy_async through a two-stage cuda::pipeline, transforms them and writes
// them back; the kernel is launched many times between CUDA events (warm-up, then a timed loop)
// and the elapsed time read, as copy-bandwidth benchmarks do. Checked against the host after
// the loop.
// cuda::pipeline_shared_state in __shared__ has a constructor nvcc does not run (as in
// NVIDIA's own samples); make_pipeline initialises it.
#pragma nv_diag_suppress static_var_with_dynamic_init
static const char *kName = "cp_async_timing_loop";
#include "../kernels/test_common.h"

#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

const int kTile = 256, kStages = 2;

__global__ void stagedScale(const float *in, float *out, int n, float k) {
    __shared__ alignas(16) float buf[kStages][kTile];
    auto block = cg::this_thread_block();
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto pipe = cuda::make_pipeline(block, &state);
    int tiles = n / kTile;
    int first = blockIdx.x, stride = gridDim.x;
    int fetch = first, compute = first;
    for (int st = 0; st < kStages && fetch < tiles; ++st, fetch += stride) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[st], in + (size_t)fetch * kTile, sizeof(float) * kTile, pipe);
        pipe.producer_commit();
    }
    for (int stage = 0; compute < tiles; compute += stride, stage = (stage + 1) % kStages) {
        pipe.consumer_wait();
        out[(size_t)compute * kTile + threadIdx.x] = buf[stage][threadIdx.x] * k + 1.0f;
        block.sync();
        pipe.consumer_release();
        if (fetch < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[stage], in + (size_t)fetch * kTile, sizeof(float) * kTile,
                               pipe);
            pipe.producer_commit();
            fetch += stride;
        }
    }
}

int main() {
    const char *env = getenv("CPASYNC_N");
    const int n = env ? atoi(env) : (1 << 16);
    const char *itEnv = getenv("CPASYNC_ITERS");
    const int iters = itEnv ? atoi(itEnv) : 100;
    std::vector<float> h(n), got(n);
    for (int i = 0; i < n; ++i) h[i] = (float)(i % 1000) * 0.25f;
    float *in, *out;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(out, 0, n * sizeof(float)));
    const int blocks = 32;
    for (int w = 0; w < 3; ++w) stagedScale<<<blocks, kTile>>>(in, out, n, 2.0f); // warm-up
    CK(cudaGetLastError());
    cudaEvent_t start, stop;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    CK(cudaEventRecord(start));
    for (int it = 0; it < iters; ++it) stagedScale<<<blocks, kTile>>>(in, out, n, 2.0f);
    CK(cudaGetLastError());
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f, "negative elapsed time %g", ms);
    printf("%d launches, %.3f ms, %.1f GB/s\n", iters, ms,
           ms > 0 ? 2.0 * n * sizeof(float) * iters / (ms * 1e6) : 0.0);
    CK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        EXPECT(got[i] == h[i] * 2.0f + 1.0f, "out[%d] = %g, expected %g", i, got[i], h[i] * 2.0f + 1.0f);
    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    CK(cudaFree(in));
    CK(cudaFree(out));
    return finish();
}
