// Shared checking helpers for the ptxsim CUDA test programs. Each program defines
// `static const char *kName` before including this header.
#pragma once
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
