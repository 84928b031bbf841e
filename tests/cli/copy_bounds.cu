// ptxsim-specific: pitched copies and memsets (2D and 3D, synchronous and stream-ordered, runtime
// and driver API) that run past the end of an allocation fail with cudaErrorInvalidValue and
// write nothing: ptxsim checks the whole extent first. (On a GPU an allocation is rounded up to
// pages, so a copy a little past its end may succeed there: not a native test.)
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

static int failures = 0;
#define CHECK(cond, ...)                   \
    do {                                   \
        if (!(cond)) {                     \
            printf("FAIL: " __VA_ARGS__);  \
            printf("\n");                  \
            ++failures;                    \
        }                                  \
    } while (0)

const size_t kPitch = 64, kRows = 4, kBytes = kPitch * kRows;
static unsigned char host[2 * kBytes];

// Every byte of the allocation still holds the 0xab it was filled with.
static bool untouched(const unsigned char *d, const char *what) {
    unsigned char back[kBytes];
    if (cudaMemcpy(back, d, kBytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        printf("FAIL: %s: cannot read the buffer back\n", what);
        ++failures;
        return false;
    }
    for (size_t i = 0; i < kBytes; ++i)
        if (back[i] != 0xab) {
            printf("FAIL: %s wrote byte %zu (0x%02x) although it failed\n", what, i, back[i]);
            ++failures;
            return false;
        }
    return true;
}

static void reset(unsigned char *d) { cudaMemset(d, 0xab, kBytes); }

int main() {
    unsigned char *d;
    cudaStream_t s;
    if (cudaMalloc(&d, kBytes) || cudaStreamCreate(&s)) {
        printf("set-up failed\n");
        return 1;
    }
    memset(host, 0x11, sizeof host);
    cudaError_t e;

    // 5 rows into an allocation of 4: the first 4 would fit
    reset(d);
    e = cudaMemcpy2D(d, kPitch, host, kPitch, kPitch, kRows + 1, cudaMemcpyHostToDevice);
    CHECK(e == cudaErrorInvalidValue, "cudaMemcpy2D past the end: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemcpy2D");
    reset(d);
    e = cudaMemcpy2DAsync(d, kPitch, host, kPitch, kPitch, kRows + 1, cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    CHECK(e == cudaErrorInvalidValue, "cudaMemcpy2DAsync past the end: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemcpy2DAsync");
    // the last row's start fits, its end does not
    reset(d);
    e = cudaMemcpy2D(d + 8, kPitch, host, kPitch, kPitch, kRows, cudaMemcpyHostToDevice);
    CHECK(e == cudaErrorInvalidValue, "cudaMemcpy2D ending 8 bytes late: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemcpy2D (8 bytes late)");
    // device to host with the source past the end: the host buffer stays as it was
    unsigned char sink[2 * kBytes];
    memset(sink, 0x5a, sizeof sink);
    e = cudaMemcpy2D(sink, kPitch, d, kPitch, kPitch, kRows + 1, cudaMemcpyDeviceToHost);
    CHECK(e == cudaErrorInvalidValue, "cudaMemcpy2D from past the end: %s", cudaGetErrorName(e));
    for (size_t i = 0; i < sizeof sink; ++i)
        if (sink[i] != 0x5a) {
            printf("FAIL: cudaMemcpy2D (device to host) wrote host byte %zu although it failed\n", i);
            ++failures;
            break;
        }
    reset(d);
    e = cudaMemset2D(d, kPitch, 0, kPitch, kRows + 1);
    CHECK(e == cudaErrorInvalidValue, "cudaMemset2D past the end: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemset2D");
    reset(d);
    e = cudaMemset2DAsync(d, kPitch, 0, kPitch, kRows + 1, s);
    cudaStreamSynchronize(s);
    CHECK(e == cudaErrorInvalidValue, "cudaMemset2DAsync past the end: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemset2DAsync");

    // 3D: two slices of 2 rows, the second slice past the end (the first would fit)
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(host, kPitch, kPitch, kRows);
    p.dstPtr = make_cudaPitchedPtr(d, kPitch, kPitch, 3);
    p.extent = make_cudaExtent(kPitch, 2, 2);  // slice 1 starts at row 3: rows 3 and 4
    p.kind = cudaMemcpyHostToDevice;
    reset(d);
    e = cudaMemcpy3D(&p);
    CHECK(e == cudaErrorInvalidValue, "cudaMemcpy3D past the end: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemcpy3D");
    reset(d);
    e = cudaMemcpy3DAsync(&p, s);
    cudaStreamSynchronize(s);
    CHECK(e == cudaErrorInvalidValue, "cudaMemcpy3DAsync past the end: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemcpy3DAsync");
    reset(d);
    e = cudaMemset3D(make_cudaPitchedPtr(d, kPitch, kPitch, 3), 0, make_cudaExtent(kPitch, 2, 2));
    CHECK(e == cudaErrorInvalidValue, "cudaMemset3D past the end: %s", cudaGetErrorName(e));
    untouched(d, "cudaMemset3D");

    // the driver API's pitched copies and sets
    CUDA_MEMCPY2D c = {};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = kPitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = (CUdeviceptr)d;
    c.dstPitch = kPitch;
    c.WidthInBytes = kPitch;
    c.Height = kRows + 1;
    reset(d);
    CUresult r = cuMemcpy2D(&c);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "cuMemcpy2D past the end: %d", (int)r);
    untouched(d, "cuMemcpy2D");
    CUDA_MEMCPY3D c3 = {};
    c3.srcMemoryType = CU_MEMORYTYPE_HOST;
    c3.srcHost = host;
    c3.srcPitch = kPitch;
    c3.srcHeight = kRows;
    c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c3.dstDevice = (CUdeviceptr)d;
    c3.dstPitch = kPitch;
    c3.dstHeight = 3;
    c3.WidthInBytes = kPitch;
    c3.Height = 2;
    c3.Depth = 2;
    reset(d);
    r = cuMemcpy3D(&c3);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "cuMemcpy3D past the end: %d", (int)r);
    untouched(d, "cuMemcpy3D");
    reset(d);
    r = cuMemsetD2D32((CUdeviceptr)d, kPitch, 0, kPitch / 4, kRows + 1);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "cuMemsetD2D32 past the end: %d", (int)r);
    untouched(d, "cuMemsetD2D32");

    // what fits exactly still works
    e = cudaMemcpy2D(d, kPitch, host, kPitch, kPitch, kRows, cudaMemcpyHostToDevice);
    CHECK(e == cudaSuccess, "cudaMemcpy2D of the whole allocation: %s", cudaGetErrorName(e));
    e = cudaMemset2D(d, kPitch, 0x22, kPitch, kRows);
    CHECK(e == cudaSuccess, "cudaMemset2D of the whole allocation: %s", cudaGetErrorName(e));
    unsigned char back[kBytes];
    cudaMemcpy(back, d, kBytes, cudaMemcpyDeviceToHost);
    CHECK(back[0] == 0x22 && back[kBytes - 1] == 0x22, "the exact-fit memset wrote 0x%02x", back[kBytes - 1]);
    if (failures)
        return 1;
    printf("PASS copy_bounds\n");
    return 0;
}
