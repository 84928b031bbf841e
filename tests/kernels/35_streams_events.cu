// ptxsim test kernel: streams_events
// Self-checking: prints PASS streams_events / FAIL streams_events.
static const char* kName = "streams_events";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Multiple kernels in sequence on the default stream, work split across three
// streams with pinned memory and cudaMemcpyAsync, cross-stream dependencies with
// cudaEventRecord + cudaStreamWaitEvent, event timing and queries, and a launch
// through cudaLaunchKernel.

__global__ void scale(int* a, int n, int mul) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= mul;
}
__global__ void add_offset(int* a, int n, int off) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += off;
}
__global__ void combine(const int* a, const int* b, int* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] - 2 * b[i];
}

int main() {
    const int n = 3072, NS = 3, chunk = n / NS;
    int *ha, *hb, *hc;
    CK(cudaMallocHost(&ha, n * 4)); CK(cudaMallocHost(&hb, n * 4)); CK(cudaMallocHost(&hc, n * 4));
    for (int i = 0; i < n; ++i) { ha[i] = i % 500 - 250; hb[i] = (i * 3) % 77; }
    int *da, *db, *dc;
    CK(cudaMalloc(&da, n * 4)); CK(cudaMalloc(&db, n * 4)); CK(cudaMalloc(&dc, n * 4));
    cudaStream_t s[NS];
    cudaEvent_t ready[NS], start, stop;
    for (int k = 0; k < NS; ++k) { CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking)); CK(cudaEventCreateWithFlags(&ready[k], cudaEventDisableTiming)); }
    CK(cudaEventCreate(&start)); CK(cudaEventCreate(&stop));

    // 1. sequence of dependent kernels on the legacy default stream
    CK(cudaMemcpy(da, ha, n * 4, cudaMemcpyHostToDevice));
    CK(cudaEventRecord(start, 0));
    scale<<<(n + 255) / 256, 256>>>(da, n, 3);
    add_offset<<<(n + 255) / 256, 256>>>(da, n, -7);
    scale<<<(n + 127) / 128, 128>>>(da, n, -2);
    CK(cudaGetLastError());
    CK(cudaEventRecord(stop, 0));
    CK(cudaEventSynchronize(stop));
    float ms = -1.0f;
    CK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f, "elapsed time negative: %f", ms);
    CK(cudaMemcpy(hc, da, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(hc[i] == (ha[i] * 3 - 7) * -2, "sequence [%d]=%d", i, hc[i]);

    // 2. per-stream chunks: copy a, copy b, process; the combine for chunk k waits
    //    on the event of chunk (k+1)%NS because it reads b from that chunk
    for (int k = 0; k < NS; ++k) {
        int off = k * chunk;
        CK(cudaMemcpyAsync(da + off, ha + off, chunk * 4, cudaMemcpyHostToDevice, s[k]));
        CK(cudaMemcpyAsync(db + off, hb + off, chunk * 4, cudaMemcpyHostToDevice, s[k]));
        scale<<<(chunk + 127) / 128, 128, 0, s[k]>>>(db + off, chunk, 5);
        CK(cudaGetLastError());
        CK(cudaEventRecord(ready[k], s[k]));
    }
    for (int k = 0; k < NS; ++k) {
        int off = k * chunk, nk = (k + 1) % NS;
        CK(cudaStreamWaitEvent(s[k], ready[nk], 0));
        // c[off..] = a[off..] - 2 * b[next chunk]
        int* pa = da + off; int* pb = db + nk * chunk; int* pc = dc + off; int cn = chunk;
        void* args[] = {&pa, &pb, &pc, &cn};
        CK(cudaLaunchKernel((const void*)combine, dim3((chunk + 255) / 256), dim3(256), args, 0, s[k]));
        CK(cudaMemcpyAsync(hc + off, dc + off, chunk * 4, cudaMemcpyDeviceToHost, s[k]));
    }
    for (int k = 0; k < NS; ++k) CK(cudaStreamSynchronize(s[k]));
    for (int k = 0; k < NS; ++k) {
        cudaError_t q = cudaStreamQuery(s[k]);
        EXPECT(q == cudaSuccess, "stream %d not idle after sync: %d", k, (int)q);
    }
    for (int i = 0; i < n; ++i) {
        int k = i / chunk, j = i % chunk, nk = (k + 1) % NS;
        int e = ha[i] - 2 * (hb[nk * chunk + j] * 5);
        EXPECT(hc[i] == e, "streams [%d]=%d expected %d", i, hc[i], e);
    }
    for (int k = 0; k < NS; ++k) { CK(cudaStreamDestroy(s[k])); CK(cudaEventDestroy(ready[k])); }
    CK(cudaEventDestroy(start)); CK(cudaEventDestroy(stop));
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFreeHost(ha); cudaFreeHost(hb); cudaFreeHost(hc);
    return finish();
}
