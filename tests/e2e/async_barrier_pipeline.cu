// ptxsim e2e: libcu++ asynchronous data movement, against a CPU model.
//   - cuda::barrier<thread_scope_block> in shared memory: arrive/wait phases across the block,
//     arrive_and_drop, and cuda::memcpy_async(group, dst, src, size, barrier) staging tiles of a
//     1D stencil (cp.async.bulk + mbarrier transactions on sm_90, cp.async + mbarrier on sm_80,
//     plain copies below)
//   - cuda::pipeline (block scope, two stages) double-buffering tiles with producer_acquire /
//     memcpy_async / producer_commit / consumer_wait / consumer_release
//   - the __pipeline_* primitives with zero fill (cuda_pipeline.h)
#include <cstdint>
#include <cstring>
#include <vector>
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
static const char *kName = "async_barrier_pipeline";
#include "../kernels/test_common.h"
namespace cg = cooperative_groups;
// block-scope barrier and pipeline state in shared memory are initialised by init() / make_pipeline
#pragma nv_diag_suppress static_var_with_dynamic_init

constexpr int kTile = 256;

// Each block walks tiles of `in` (plus a halo of 1 on each side), staging each tile with
// memcpy_async on a barrier, and writes out[i] = in[i-1] + 2 in[i] + in[i+1] (0 outside).
__global__ void stencilBarrier(const int *in, int *out, int n) {
    __shared__ alignas(16) int tile[kTile + 8];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    for (int base = blockIdx.x * kTile; base < n; base += gridDim.x * kTile) {
        // the tile [base, base + kTile) goes to tile[4..]; the halos are plain loads
        int count = n - base < kTile ? n - base : kTile;
        cuda::memcpy_async(block, tile + 4, in + base, sizeof(int) * count, bar);
        if (block.thread_rank() == 0) {
            tile[3] = base > 0 ? in[base - 1] : 0;
            tile[4 + count] = base + count < n ? in[base + count] : 0;
        }
        bar.arrive_and_wait();  // the copy and the halo stores are visible
        for (int i = block.thread_rank(); i < count; i += block.size())
            out[base + i] = tile[3 + i] + 2 * tile[4 + i] + tile[5 + i];
        bar.arrive_and_wait();  // the tile may be overwritten
    }
}

// Phases of a barrier: every thread arrives each phase and thread t drops out after phase t % 4;
// each phase, the threads still present add their id to a shared sum checked after the wait.
__global__ void barrierPhases(int *sums) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int acc[8];
    int t = threadIdx.x;
    if (t == 0) {
        init(&bar, blockDim.x);
        for (int k = 0; k < 8; ++k) acc[k] = 0;
    }
    __syncthreads();
    for (int phase = 0; phase < 8; ++phase) {
        atomicAdd(&acc[phase], t + 1);
        if (phase == t % 4 + 3) {  // leave the barrier for good
            bar.arrive_and_drop();
            break;
        }
        bar.arrive_and_wait();
    }
    __syncthreads();
    if (t < 8) sums[blockIdx.x * 8 + t] = acc[t];
}

// Double-buffered reduction with a two-stage cuda::pipeline: block b sums squares of its share.
__global__ void pipelineSum(const int *in, long long *out, int n) {
    constexpr int stages = 2;
    __shared__ alignas(16) int buf[stages][kTile];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    int tiles = (n + kTile - 1) / kTile;
    long long local = 0;
    int fetch = blockIdx.x, consume = blockIdx.x;
    for (int s = 0; s < stages && fetch < tiles; ++s, fetch += gridDim.x) {
        pipe.producer_acquire();
        int count = n - fetch * kTile < kTile ? n - fetch * kTile : kTile;
        cuda::memcpy_async(block, buf[s], in + fetch * kTile, sizeof(int) * count, pipe);
        pipe.producer_commit();
    }
    for (int s = 0; consume < tiles; consume += gridDim.x, s = (s + 1) % stages) {
        pipe.consumer_wait();
        int count = n - consume * kTile < kTile ? n - consume * kTile : kTile;
        for (int i = block.thread_rank(); i < count; i += block.size()) local += (long long)buf[s][i] * buf[s][i];
        pipe.consumer_release();
        if (fetch < tiles) {
            pipe.producer_acquire();
            int c2 = n - fetch * kTile < kTile ? n - fetch * kTile : kTile;
            cuda::memcpy_async(block, buf[s], in + fetch * kTile, sizeof(int) * c2, pipe);
            pipe.producer_commit();
            fetch += gridDim.x;
        }
    }
    atomicAdd((unsigned long long *)out, (unsigned long long)local);
}

// __pipeline_memcpy_async with zero fill: thread t copies 16 bytes keeping the first t % 17.
__global__ void primitivesZfill(const unsigned char *src, unsigned char *dst) {
    __shared__ alignas(16) unsigned char s[64 * 16];
    int t = threadIdx.x;
    __pipeline_memcpy_async(s + 16 * t, src + 16 * t, 16, 16 - t % 17);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int i = 0; i < 16; ++i) dst[16 * t + i] = s[16 * t + i];
}

int main() {
    // stencil through a barrier and memcpy_async
    {
        const int n = 2000;
        std::vector<int> h(n), o(n);
        for (int i = 0; i < n; ++i) h[i] = (i * 31) % 97 - 40;
        int *in, *out;
        CK(cudaMalloc(&in, n * 4));
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        stencilBarrier<<<3, 128>>>(in, out, n);
        CK(cudaGetLastError());
        CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            int want = (i ? h[i - 1] : 0) + 2 * h[i] + (i + 1 < n ? h[i + 1] : 0);
            EXPECT(o[i] == want, "stencil out[%d] = %d, expected %d", i, o[i], want);
        }
        CK(cudaFree(in));
        CK(cudaFree(out));
    }
    // barrier phases with arrive_and_drop
    {
        int *sums;
        CK(cudaMallocManaged(&sums, 2 * 8 * 4));
        barrierPhases<<<2, 64>>>(sums);
        CK(cudaDeviceSynchronize());
        for (int b = 0; b < 2; ++b)
            for (int phase = 0; phase < 8; ++phase) {
                int want = 0;
                for (int t = 0; t < 64; ++t)
                    if (t % 4 + 3 >= phase) want += t + 1;  // still present in this phase
                EXPECT(sums[b * 8 + phase] == want, "block %d phase %d sum %d, expected %d", b, phase, sums[b * 8 + phase], want);
            }
        CK(cudaFree(sums));
    }
    // pipeline
    {
        const int n = 5000;
        std::vector<int> h(n);
        long long want = 0;
        for (int i = 0; i < n; ++i) { h[i] = i % 301 - 150; want += (long long)h[i] * h[i]; }
        int *in;
        long long *out;
        CK(cudaMalloc(&in, n * 4));
        CK(cudaMallocManaged(&out, 8));
        *out = 0;
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        pipelineSum<<<4, 128>>>(in, out, n);
        CK(cudaDeviceSynchronize());
        EXPECT(*out == want, "pipeline sum %lld, expected %lld", *out, want);
        CK(cudaFree(in));
        CK(cudaFree(out));
    }
    // primitives with zero fill
    {
        std::vector<unsigned char> h(64 * 16), o(64 * 16);
        for (size_t i = 0; i < h.size(); ++i) h[i] = (unsigned char)(i * 5 + 7);
        unsigned char *src, *dst;
        CK(cudaMalloc(&src, h.size()));
        CK(cudaMalloc(&dst, h.size()));
        CK(cudaMemcpy(src, h.data(), h.size(), cudaMemcpyHostToDevice));
        primitivesZfill<<<1, 64>>>(src, dst);
        CK(cudaGetLastError());
        CK(cudaMemcpy(o.data(), dst, o.size(), cudaMemcpyDeviceToHost));
        for (int t = 0; t < 64; ++t)
            for (int i = 0; i < 16; ++i) {
                // zfill = 16 - t % 17 bytes at the end are zero; 16 - zfill = t % 17 kept
                int keep = t % 17 > 16 ? 16 : t % 17;
                unsigned char want = i < keep ? h[16 * t + i] : 0;
                EXPECT(o[16 * t + i] == want, "zfill thread %d byte %d = %d, expected %d", t, i, o[16 * t + i], want);
            }
        CK(cudaFree(src));
        CK(cudaFree(dst));
    }
    return finish();
}
