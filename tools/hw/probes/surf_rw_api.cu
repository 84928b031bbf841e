// hwtex probe (ptxsim branch hwtex): the surface-object API's answers on the GPU.
// tests/e2e/surf_rw expected cudaErrorInvalidValue from cudaCreateSurfaceObject on a CUDA
// array allocated without cudaArraySurfaceLoadStore; an H100 disagreed. This prints what each
// call returns and whether a surface on such an array can be written and read.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

__global__ void writeRead(cudaSurfaceObject_t s, float *out, int w, int h) {
    int x = threadIdx.x, y = threadIdx.y;
    if (x >= w || y >= h) return;
    surf2Dwrite(100.0f + x + 10.0f * y, s, x * 4, y);
    __syncthreads();
    out[y * w + x] = surf2Dread<float>(s, x * 4, y);
}

#define SHOW(expr) do { cudaError_t e_ = (expr); printf("%-70s -> %s\n", #expr, cudaGetErrorName(e_)); \
    cudaError_t l_ = cudaGetLastError(); if (l_ != cudaSuccess) printf("%-70s    (last error %s)\n", "", cudaGetErrorName(l_)); } while (0)

int main() {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t plain, surf, layered3d, plain3d;
    SHOW(cudaMallocArray(&plain, &cd, 8, 8));
    SHOW(cudaMallocArray(&surf, &cd, 8, 8, cudaArraySurfaceLoadStore));
    SHOW(cudaMalloc3DArray(&plain3d, &cd, make_cudaExtent(8, 8, 4), 0));
    SHOW(cudaMalloc3DArray(&layered3d, &cd, make_cudaExtent(8, 8, 4), cudaArrayLayered));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = plain;
    cudaSurfaceObject_t s = 0;
    SHOW(cudaCreateSurfaceObject(&s, &rd));
    printf("surface on a plain array: handle %llu\n", (unsigned long long)s);
    if (s) {
        float *out;
        cudaMalloc(&out, 64 * 4);
        cudaMemset(out, 0, 64 * 4);
        writeRead<<<1, dim3(8, 8)>>>(s, out, 8, 8);
        SHOW(cudaDeviceSynchronize());
        std::vector<float> h(64, -1);
        SHOW(cudaMemcpy(h.data(), out, 64 * 4, cudaMemcpyDeviceToHost));
        printf("plain-array surface read back: %g %g %g (want 100 101 177)\n", h[0], h[1], h[63]);
        std::vector<float> a(64, -1);
        SHOW(cudaMemcpy2DFromArray(a.data(), 32, plain, 0, 0, 32, 8, cudaMemcpyDeviceToHost));
        printf("plain array contents after surface writes: %g %g %g\n", a[0], a[1], a[63]);
        SHOW(cudaDestroySurfaceObject(s));
        cudaFree(out);
    }
    rd.res.array.array = plain3d;
    s = 0;
    SHOW(cudaCreateSurfaceObject(&s, &rd));
    if (s) SHOW(cudaDestroySurfaceObject(s));
    rd.res.array.array = layered3d;
    s = 0;
    SHOW(cudaCreateSurfaceObject(&s, &rd));
    if (s) SHOW(cudaDestroySurfaceObject(s));

    float *lin;
    cudaMalloc(&lin, 256);
    cudaResourceDesc rl;
    memset(&rl, 0, sizeof rl);
    rl.resType = cudaResourceTypeLinear;
    rl.res.linear.devPtr = lin;
    rl.res.linear.desc = cd;
    rl.res.linear.sizeInBytes = 256;
    s = 0;
    SHOW(cudaCreateSurfaceObject(&s, &rl));
    cudaResourceDesc rp;
    memset(&rp, 0, sizeof rp);
    rp.resType = cudaResourceTypePitch2D;
    rp.res.pitch2D.devPtr = lin;
    rp.res.pitch2D.desc = cd;
    rp.res.pitch2D.width = 8;
    rp.res.pitch2D.height = 2;
    rp.res.pitch2D.pitchInBytes = 128;
    s = 0;
    SHOW(cudaCreateSurfaceObject(&s, &rp));
    rd.res.array.array = surf;
    SHOW(cudaCreateSurfaceObject(nullptr, &rd));
    SHOW(cudaCreateSurfaceObject(&s, nullptr));
    rd.res.array.array = nullptr;
    SHOW(cudaCreateSurfaceObject(&s, &rd));
    rd.res.array.array = surf;
    s = 0;
    SHOW(cudaCreateSurfaceObject(&s, &rd));
    cudaResourceDesc back;
    memset(&back, 0, sizeof back);
    SHOW(cudaGetSurfaceObjectResourceDesc(&back, s));
    printf("resource desc: type %d array ok %d\n", (int)back.resType, back.res.array.array == surf);
    SHOW(cudaDestroySurfaceObject(s));
    SHOW(cudaDestroySurfaceObject(s));
    memset(&back, 0, sizeof back);
    SHOW(cudaGetSurfaceObjectResourceDesc(&back, s));
    printf("resource desc of the destroyed object: type %d array ok %d\n", (int)back.resType, back.res.array.array == surf);
    SHOW(cudaDestroySurfaceObject(0));
    SHOW(cudaGetSurfaceObjectResourceDesc(&back, 0));
    SHOW(cudaDestroySurfaceObject(123456789));
    unsigned flags = 0;
    cudaExtent ext;
    SHOW(cudaArrayGetInfo(nullptr, &ext, &flags, surf));
    printf("cudaArrayGetInfo(surf): flags %u extent %zu %zu %zu\n", flags, ext.width, ext.height, ext.depth);
    SHOW(cudaArrayGetInfo(nullptr, &ext, &flags, plain));
    printf("cudaArrayGetInfo(plain): flags %u extent %zu %zu %zu\n", flags, ext.width, ext.height, ext.depth);
    // a texture object destroyed twice, for comparison
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    cudaTextureObject_t t = 0;
    rd.res.array.array = plain;
    SHOW(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    SHOW(cudaDestroyTextureObject(t));
    SHOW(cudaDestroyTextureObject(t));
    cudaResourceDesc tb;
    SHOW(cudaGetTextureObjectResourceDesc(&tb, t));
    SHOW(cudaFree(lin));
    SHOW(cudaFreeArray(plain));
    SHOW(cudaFreeArray(surf));
    SHOW(cudaFreeArray(plain3d));
    SHOW(cudaFreeArray(layered3d));
    printf("done\n");
    return 0;
}
