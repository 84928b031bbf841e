// The L1/shared split as a program sees it: the device reports the 1 KiB the system reserves per
// CTA, and the per-CTA opt-in maximum is the SM's shared memory less that reserve; the occupancy
// API counts the reserve with each CTA's shared memory; the preferred carve-out attribute takes
// -1..100, reads back, and refuses anything else with cudaErrorInvalidValue; and kernels compute
// the same with any carve-out preference and with the opt-in maximum of dynamic shared memory.
// In timing mode (H100 preset) the launches also take the adaptive carve-out's path.
static const char *kName = "shared_carveout";
#include "../kernels/test_common.h"

#include <vector>

// Each CTA stages its slice of `in` in dynamic shared memory, reversed, and writes the sum of
// each element and its mirror: out[i] = in[i] + in[base + n - 1 - (i - base)].
__global__ void mirrorSum(const int *in, int *out, int perCta) {
    extern __shared__ int s[];
    const int base = blockIdx.x * perCta;
    for (int i = threadIdx.x; i < perCta; i += blockDim.x) s[perCta - 1 - i] = in[base + i];
    __syncthreads();
    for (int i = threadIdx.x; i < perCta; i += blockDim.x) out[base + i] = in[base + i] + s[i];
}

// No shared memory at all.
__global__ void scale(const int *in, int *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 3 * in[i] + 1;
}

static void checkMirror(const std::vector<int> &in, const std::vector<int> &out, int perCta, int ctas, const char *what) {
    int bad = 0;
    for (int c = 0; c < ctas; ++c)
        for (int i = 0; i < perCta; ++i) {
            int b = c * perCta;
            bad += out[b + i] != in[b + i] + in[b + perCta - 1 - i];
        }
    EXPECT(bad == 0, "%s: %d wrong sums", what, bad);
}

int main() {
    int dev = 0;
    CK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    int reserved = -1, optin = -1, perSm = -1;
    CK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CK(cudaDeviceGetAttribute(&perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    EXPECT(reserved == 1024, "reserved shared memory per block %d", reserved);
    EXPECT(perSm == (int)prop.sharedMemPerMultiprocessor, "shared per SM %d vs %zu", perSm, prop.sharedMemPerMultiprocessor);
    EXPECT(optin == perSm - reserved, "opt-in %d, shared per SM %d, reserved %d", optin, perSm, reserved);

    // occupancy: each CTA takes its shared memory and the reserve
    const int blk = 128;
    for (int kib : {16, 32, 48}) {
        size_t dyn = (size_t)kib << 10;
        if (dyn > 48u << 10) CK(cudaFuncSetAttribute(mirrorSum, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
        int blocks = -1;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, mirrorSum, blk, dyn));
        int bySmem = perSm / (int)(dyn + reserved);
        int byThreads = prop.maxThreadsPerMultiProcessor / blk;
        int expect = bySmem < byThreads ? bySmem : byThreads;
        if (expect > prop.maxBlocksPerMultiProcessor) expect = prop.maxBlocksPerMultiProcessor;
        EXPECT(blocks == expect, "%d KiB per CTA: %d CTAs per SM, expected %d", kib, blocks, expect);
    }

    // the preferred carve-out: -1 (none) .. 100 percent
    cudaFuncAttributes fa;
    CK(cudaFuncSetAttribute(scale, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    CK(cudaFuncGetAttributes(&fa, scale));
    EXPECT(fa.preferredShmemCarveout == 100, "carve-out read back %d", fa.preferredShmemCarveout);
    cudaError_t e = cudaFuncSetAttribute(scale, cudaFuncAttributePreferredSharedMemoryCarveout, 101);
    EXPECT(e == cudaErrorInvalidValue, "carve-out 101: %s", cudaGetErrorName(e));
    e = cudaFuncSetAttribute(scale, cudaFuncAttributePreferredSharedMemoryCarveout, -2);
    EXPECT(e == cudaErrorInvalidValue, "carve-out -2: %s", cudaGetErrorName(e));
    e = cudaGetLastError(); // the refusal is the thread's last error, once
    EXPECT(e == cudaErrorInvalidValue, "last error after the refusals: %s", cudaGetErrorName(e));
    EXPECT(cudaGetLastError() == cudaSuccess, "the last error is reset once read");
    CK(cudaFuncGetAttributes(&fa, scale));
    EXPECT(fa.preferredShmemCarveout == 100, "carve-out after refusals %d", fa.preferredShmemCarveout);

    const int n = 1 << 16;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 10007 - 5000;
    int *din = nullptr, *dout = nullptr;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dout, n * sizeof(int)));
    CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // a kernel without shared memory under each preference
    for (int pref : {100, 0, 50, -1}) {
        CK(cudaFuncSetAttribute(scale, cudaFuncAttributePreferredSharedMemoryCarveout, pref));
        CK(cudaMemset(dout, 0, n * sizeof(int)));
        scale<<<64, 256>>>(din, dout, n);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += out[i] != 3 * in[i] + 1;
        EXPECT(bad == 0, "scale with carve-out preference %d: %d wrong", pref, bad);
    }

    // shared-memory CTAs: 4 KiB each under two preferences, then the opt-in maximum (one CTA per SM)
    for (int pref : {-1, 25}) {
        CK(cudaFuncSetAttribute(mirrorSum, cudaFuncAttributePreferredSharedMemoryCarveout, pref));
        const int perCta = 1024;
        CK(cudaMemset(dout, 0, n * sizeof(int)));
        mirrorSum<<<n / perCta, 256, perCta * sizeof(int)>>>(din, dout, perCta);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
        checkMirror(in, out, perCta, n / perCta, pref < 0 ? "4 KiB CTAs" : "4 KiB CTAs, 25 % preferred");
    }
    {
        CK(cudaFuncSetAttribute(mirrorSum, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
        int perCta = optin / (int)sizeof(int);
        int ctas = n / perCta; // whole slices only
        int blocks = -1;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, mirrorSum, 256, optin));
        EXPECT(blocks == 1, "opt-in maximum: %d CTAs per SM", blocks);
        CK(cudaMemset(dout, 0, n * sizeof(int)));
        mirrorSum<<<ctas, 256, optin>>>(din, dout, perCta);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
        checkMirror(in, out, perCta, ctas, "opt-in maximum");
        // one byte more is refused
        e = cudaFuncSetAttribute(mirrorSum, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1);
        EXPECT(e == cudaErrorInvalidValue, "opt-in + 1: %s", cudaGetErrorName(e));
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    return finish();
}
