// Global-to-shared copies with cp.async, the way copy benchmarks write them: a multi-stage
// cuda::pipeline (cuda::memcpy_async of one tile per stage, producer_acquire/commit,
// consumer_wait/release) streaming a large array (2M floats) through shared memory with a
// transform, the same with the __pipeline_memcpy_async primitives (cuda_pipeline.h) and with
// cooperative_groups::memcpy_async + cg::wait; several block sizes, timed with events, each
// result checked against the host. COPY_N overrides the element count (the timing-mode tests
// use fewer elements).
// cuda::pipeline_shared_state in __shared__ has a constructor nvcc does not run (as in
// NVIDIA's own samples); make_pipeline initialises it.
#pragma nv_diag_suppress static_var_with_dynamic_init
static const char *kName = "cp_async_pipeline_copy";
#include "../kernels/test_common.h"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

constexpr int kStages = 4;

// Each block streams tiles of blockDim.x floats: tile t goes to stage t % kStages; the block
// works on tile t while tiles t+1..t+kStages-1 are in flight.
__global__ void pipelineCopy(const float *in, float *out, size_t n) {
    extern __shared__ float smem[];
    const size_t tile = blockDim.x;
    const size_t tiles = (n + tile - 1) / tile;
    auto block = cg::this_thread_block();
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto pipe = cuda::make_pipeline(block, &state);
    size_t fetch = blockIdx.x, compute = blockIdx.x;
    for (int s = 0; s < kStages; ++s, fetch += gridDim.x) {
        pipe.producer_acquire();
        if (fetch < tiles) {
            size_t base = fetch * tile, count = min(tile, n - base);
            if (threadIdx.x < count)
                cuda::memcpy_async(&smem[s * tile + threadIdx.x], &in[base + threadIdx.x],
                                   sizeof(float), pipe);
        }
        pipe.producer_commit();
    }
    for (int s = 0; compute < tiles; compute += gridDim.x, s = (s + 1) % kStages) {
        pipe.consumer_wait();
        size_t base = compute * tile;
        if (base + threadIdx.x < n) out[base + threadIdx.x] = smem[s * tile + threadIdx.x] * 2.0f + 1.0f;
        pipe.consumer_release();
        pipe.producer_acquire();
        if (fetch < tiles) {
            size_t fb = fetch * tile, count = min(tile, n - fb);
            if (threadIdx.x < count)
                cuda::memcpy_async(&smem[s * tile + threadIdx.x], &in[fb + threadIdx.x],
                                   sizeof(float), pipe);
        }
        pipe.producer_commit();
        fetch += gridDim.x;
    }
}

// The same with the primitives: 16-byte copies (float4), two stages per thread.
__global__ void primitiveCopy(const float4 *in, float4 *out, size_t n4) {
    extern __shared__ float4 buf[];
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    int stage = 0;
    if (i < n4) __pipeline_memcpy_async(&buf[threadIdx.x], &in[i], sizeof(float4));
    __pipeline_commit();
    for (; i < n4; i += stride) {
        size_t next = i + stride;
        int other = stage ^ 1;
        if (next < n4)
            __pipeline_memcpy_async(&buf[other * blockDim.x + threadIdx.x], &in[next], sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        float4 v = buf[stage * blockDim.x + threadIdx.x];
        out[i] = make_float4(v.x * 2.0f + 1.0f, v.y * 2.0f + 1.0f, v.z * 2.0f + 1.0f, v.w * 2.0f + 1.0f);
        stage = other;
    }
    __pipeline_wait_prior(0);
}

// A whole-tile copy per block with cooperative_groups::memcpy_async.
__global__ void cgCopy(const float *in, float *out, size_t n, size_t tile) {
    extern __shared__ float smem[];
    auto block = cg::this_thread_block();
    for (size_t base = (size_t)blockIdx.x * tile; base < n; base += (size_t)gridDim.x * tile) {
        size_t count = min(tile, n - base);
        cg::memcpy_async(block, smem, in + base, sizeof(float) * count);
        cg::wait(block);
        for (size_t j = threadIdx.x; j < count; j += blockDim.x) out[base + j] = smem[j] * 2.0f + 1.0f;
        block.sync();
    }
}

static size_t envSize(const char *name, size_t def) {
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, nullptr, 10) : def;
}

int main() {
    const size_t n = envSize("COPY_N", size_t(1) << 21);
    std::vector<float> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = (float)(int)((i * 2654435761u) % 10007) - 5000.0f;
    float *in, *out;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> got(n);
    auto check = [&](const char *what, int threads) {
        CK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; ++i)
            EXPECT(got[i] == h[i] * 2.0f + 1.0f, "%s, %d threads: element %zu is %g, want %g", what,
                   threads, i, got[i], h[i] * 2.0f + 1.0f);
    };
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int threads : {128, 256, 512}) {
        float ms[3];
        // two blocks per SM, fewer when there are fewer tiles
        int blocks = (int)std::min<size_t>(2 * sms, (n + threads - 1) / threads);
        CK(cudaMemset(out, 0, n * sizeof(float)));
        CK(cudaEventRecord(e0));
        pipelineCopy<<<blocks, threads, kStages * threads * sizeof(float)>>>(in, out, n);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[0], e0, e1));
        check("cuda::pipeline", threads);

        CK(cudaMemset(out, 0, n * sizeof(float)));
        CK(cudaEventRecord(e0));
        primitiveCopy<<<blocks, threads, 2 * threads * sizeof(float4)>>>(
            (const float4 *)in, (float4 *)out, n / 4);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[1], e0, e1));
        for (size_t i = n / 4 * 4; i < n; ++i) got[i] = h[i] * 2.0f + 1.0f; // tail not copied
        CK(cudaMemcpy(out + n / 4 * 4, got.data() + n / 4 * 4, (n % 4) * sizeof(float),
                      cudaMemcpyHostToDevice));
        check("__pipeline_memcpy_async", threads);

        CK(cudaMemset(out, 0, n * sizeof(float)));
        size_t tile = 4 * threads;
        CK(cudaEventRecord(e0));
        cgCopy<<<blocks, threads, tile * sizeof(float)>>>(in, out, n, tile);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[2], e0, e1));
        check("cg::memcpy_async", threads);
        printf("%d threads: cuda::pipeline %.3f ms, primitives %.3f ms, cg::memcpy_async %.3f ms "
               "(%.1f MB each)\n", threads, ms[0], ms[1], ms[2], n * 8.0 / 1e6);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(in));
    CK(cudaFree(out));
    return finish();
}
