// ptxsim test kernel: bitonic_sort
// Self-checking: prints PASS bitonic_sort / FAIL bitonic_sort.
static const char* kName = "bitonic_sort";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Bitonic sort: (1) a single block sorting 512 ints in shared memory, ascending;
// (2) a global-memory version sorting 256 keys with key/value pairs, one kernel
// launch per (k, j) stage, descending.

__global__ void bitonic_shared(int* data) {
    __shared__ int s[512];
    int t = threadIdx.x;  // 256 threads, 2 elements each
    s[t] = data[t]; s[t + 256] = data[t + 256];
    __syncthreads();
    for (int k = 2; k <= 512; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            // thread t handles the pair (i, i^j) with i having bit j clear
            int i = 2 * t - (t & (j - 1));
            int p = i ^ j;
            bool up = (i & k) == 0;
            int a = s[i], b = s[p];
            if ((a > b) == up) { s[i] = b; s[p] = a; }
            __syncthreads();
        }
    }
    data[t] = s[t]; data[t + 256] = s[t + 256];
}

__global__ void bitonic_step(int* keys, int* vals, int j, int k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = i ^ j;
    if (p > i) {
        bool desc = (i & k) == 0;  // overall descending order
        int ki = keys[i], kp = keys[p];
        if (desc ? (ki < kp) : (ki > kp)) {
            keys[i] = kp; keys[p] = ki;
            int v = vals[i]; vals[i] = vals[p]; vals[p] = v;
        }
    }
}

int main() {
    int h[512];
    for (int i = 0; i < 512; ++i) h[i] = (i * 7919) % 1000 - 500 + (i % 3 == 0 ? 0 : i % 5);  // includes duplicates
    int* d;
    CK(cudaMalloc(&d, sizeof(h)));
    CK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
    bitonic_shared<<<1, 256>>>(d);
    CK(cudaGetLastError());
    const int m = 256;
    int hk[m], hv[m];
    for (int i = 0; i < m; ++i) { hk[i] = (i * 37) % 64; hv[i] = i; }
    int *dk, *dv;
    CK(cudaMalloc(&dk, sizeof(hk))); CK(cudaMalloc(&dv, sizeof(hv)));
    CK(cudaMemcpy(dk, hk, sizeof(hk), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dv, hv, sizeof(hv), cudaMemcpyHostToDevice));
    for (int k = 2; k <= m; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            bitonic_step<<<m / 64, 64>>>(dk, dv, j, k);
            CK(cudaGetLastError());
        }
    CK(cudaDeviceSynchronize());
    int o[512], ok_[m], ov[m];
    CK(cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ok_, dk, sizeof(ok_), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ov, dv, sizeof(ov), cudaMemcpyDeviceToHost));
    // expected: counting-sort style reference
    int e[512];
    for (int i = 0; i < 512; ++i) e[i] = h[i];
    for (int i = 1; i < 512; ++i) for (int j = i; j > 0 && e[j - 1] > e[j]; --j) { int x = e[j]; e[j] = e[j - 1]; e[j - 1] = x; }
    for (int i = 0; i < 512; ++i) EXPECT(o[i] == e[i], "shared sort [%d]=%d expected %d", i, o[i], e[i]);
    int ek[m];
    for (int i = 0; i < m; ++i) ek[i] = hk[i];
    for (int i = 1; i < m; ++i) for (int j = i; j > 0 && ek[j - 1] < ek[j]; --j) { int x = ek[j]; ek[j] = ek[j - 1]; ek[j - 1] = x; }
    int seen[m] = {0};
    for (int i = 0; i < m; ++i) {
        EXPECT(ok_[i] == ek[i], "global sort key [%d]=%d expected %d", i, ok_[i], ek[i]);
        // each value must still be paired with its original key
        EXPECT(ov[i] >= 0 && ov[i] < m && hk[ov[i]] == ok_[i], "pair broken at %d (val %d)", i, ov[i]);
        if (ov[i] >= 0 && ov[i] < m) seen[ov[i]]++;
    }
    for (int i = 0; i < m; ++i) EXPECT(seen[i] == 1, "value %d seen %d times", i, seen[i]);
    cudaFree(d); cudaFree(dk); cudaFree(dv);
    return finish();
}
