// ptxsim test kernel: named_barrier
// Self-checking: prints PASS named_barrier / FAIL named_barrier.
static const char* kName = "named_barrier";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Named barriers via inline PTX: bar.sync id, count / bar.arrive id, count
// Block of 128 threads = 4 warps. Warps {0,1} form group A, warps {2,3} group B.
// Each group synchronises on its own barrier with a thread count of 64, then a
// producer warp signals a consumer warp with bar.arrive / bar.sync.

__device__ __forceinline__ void named_sync(unsigned id, unsigned count) {
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_arrive(unsigned id, unsigned count) {
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count) : "memory");
}

__global__ void named_barriers(const int* in, int* out1, int* out2, int* out3) {
    __shared__ int sh[128];
    __shared__ int mail[2][32];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    int group = tid / 64;           // 0 or 1
    int gbase = group * 64;
    int warp = tid / 32;

    // phase 1: exchange within the group, synchronised by barrier 1+group with 64 threads
    sh[tid] = in[g] * 2;
    named_sync(1 + group, 64);
    out1[g] = sh[gbase + ((tid - gbase + 33) % 64)];

    // phase 2: producer (even warp) -> consumer (odd warp) in each group
    int lane = tid & 31;
    if ((warp & 1) == 0) {
        mail[group][lane] = in[g] + 1000 * (group + 1);
        named_arrive(3 + group, 64);   // signal, do not wait
    } else {
        named_sync(3 + group, 64);     // wait for the producer
        out2[g] = mail[group][31 - lane];
    }

    // phase 3: whole-block barrier with explicit id and no count
    asm volatile("bar.sync 5;" ::: "memory");
    sh[tid] = tid * 3;
    asm volatile("bar.sync 6, 128;" ::: "memory");
    out3[g] = sh[127 - tid] + ((warp & 1) == 0 ? -1 : 0);
}

int main() {
    const int B = 128, G = 2, n = B * G;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = i * 5 - 300;
    int *din, *d1, *d2, *d3;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&d1, sizeof(h))); CK(cudaMalloc(&d2, sizeof(h))); CK(cudaMalloc(&d3, sizeof(h)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    CK(cudaMemset(d2, 0xff, sizeof(h)));
    named_barriers<<<G, B>>>(din, d1, d2, d3);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int o1[n], o2[n], o3[n];
    CK(cudaMemcpy(o1, d1, sizeof(o1), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o2, d2, sizeof(o2), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o3, d3, sizeof(o3), cudaMemcpyDeviceToHost));
    for (int b = 0; b < G; ++b)
        for (int t = 0; t < B; ++t) {
            int g = b * B + t, group = t / 64, gbase = group * 64, warp = t / 32, lane = t & 31;
            int e1 = h[b * B + gbase + ((t - gbase + 33) % 64)] * 2;
            EXPECT(o1[g] == e1, "phase1 [%d]=%d expected %d", g, o1[g], e1);
            int e2 = (warp & 1) ? h[b * B + (warp - 1) * 32 + (31 - lane)] + 1000 * (group + 1) : -1;
            EXPECT(o2[g] == e2, "phase2 [%d]=%d expected %d", g, o2[g], e2);
            int e3 = (127 - t) * 3 + ((warp & 1) == 0 ? -1 : 0);
            EXPECT(o3[g] == e3, "phase3 [%d]=%d expected %d", g, o3[g], e3);
        }
    cudaFree(din); cudaFree(d1); cudaFree(d2); cudaFree(d3);
    return finish();
}
