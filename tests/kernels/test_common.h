// Shared checking helpers for the ptxsim CUDA test programs. Each program defines
// `static const char *kName` before including this header.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

// Runs a CUDA API call; on error prints it and FAIL, and exits.
#define CK(call) do { cudaError_t err_ = (call); if (err_ != cudaSuccess) { \
    printf("CUDA error '%s' at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(err_)); \
    printf("FAIL %s\n", kName); exit(1); } } while (0)

static int g_bad = 0;
static int g_shown = 0;
// Records a mismatch. The first one of each EXPECT (up to 16 in all) is printed with its line, so
// a run on a real GPU shows every check that disagrees, not only the first.
#define EXPECT(cond, ...) do { static bool seen_ = false; if (!(cond)) { \
    if (!seen_ && g_shown < 16) { seen_ = true; \
      printf("%s (line %d): ", g_shown++ == 0 ? "first mismatch" : "mismatch", __LINE__); \
      printf(__VA_ARGS__); printf("\n"); } \
    ++g_bad; } } while (0)

// Prints PASS or FAIL for the program and returns its exit status.
static int finish() {
    if (g_bad) { printf("FAIL %s (%d mismatches)\n", kName, g_bad); return 1; }
    printf("PASS %s\n", kName); return 0;
}

// A texture object over CUDA array `a`: point or linear filtering, normalized coordinates or not,
// one address mode for every dimension and a border value for every channel.
static inline cudaTextureObject_t makeArrayTexture(cudaArray_t a, bool linear, bool norm,
        cudaTextureAddressMode mode = cudaAddressModeClamp, float border = 0,
        cudaTextureReadMode readMode = cudaReadModeElementType) {
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = mode;
    td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.readMode = readMode;
    td.normalizedCoords = norm;
    for (float &b : td.borderColor) b = border;
    cudaTextureObject_t t = 0;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    return t;
}

// Linear texture filtering as the GPU computes it (checked natively on an H200, sm_90): the
// fraction of x - 0.5 along each dimension is rounded to 8 bits (halves up; 256 just below the
// next texel), and the corner weights are whole multiples of 1/256 summing to 1, not the exact
// products of the fractions: the weight 256 is split one dimension at a time (3D: z, x, y; 2D:
// x, y), the upper part of p along fraction q being p * q / 256 rounded to nearest, halves up,
// except in the y split of a group on the lower texel in x, where halves round down.
static inline int texFrac256(float frac) { return (int)std::floor((double)frac * 256.0 + 0.5); }
// Corner c (bit k: the upper texel along dimension k) of `dims` (1-3) gets w[c] (a float in
// 1/256 steps) from the 8-bit fractions q[0..dims); `total` (in 1/256) is the weight split,
// less than 256 for one of two blended mip levels (its share, split first).
static inline void texLinearWeights(int dims, const int *q, float *w, int total = 256) {
    static const int order[3][3] = {{0, 0, 0}, {0, 1, 0}, {2, 0, 1}};
    int n = 1 << dims, iw[8] = {total, 0, 0, 0, 0, 0, 0, 0};
    for (int s = 0; s < dims; ++s) {
        int d = order[dims - 1][s], bit = 1 << d;
        for (int c = 0; c < n; ++c)
            if (!(c & bit)) {
                int hi = (iw[c] * q[d] + (d == 1 && !(c & 1) ? 127 : 128)) >> 8;
                iw[c | bit] = hi;
                iw[c] -= hi;
            }
    }
    for (int c = 0; c < n; ++c) w[c] = iw[c] / 256.0f;
}
// Linear filtering with clamp addressing first clamps the texel-space coordinate to the outer
// texel centres (which changes how the other dimensions' weights round).
static inline float texClampCoord(float x, int n) { return x < 0.5f ? 0.5f : x > n - 0.5f ? n - 0.5f : x; }
// A normalized coordinate in texels as the GPU converts it: u in fixed point with 21 fraction
// bits (truncated), times the size.
static inline float texNormToTexels(float u, int size) {
    return (float)(std::floor((double)u * 2097152.0) * size / 2097152.0);
}
