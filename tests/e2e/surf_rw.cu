// ptxsim e2e: surface objects. Self-checking: prints PASS surf_rw / FAIL surf_rw.
//
// surf1D/2D/3D writes and reads of several element types (char, short2, int, float, uchar4,
// uint2, long long, float4) on CUDA arrays, checked against host patterns through array
// copies; a 3x3 box blur from one surface into another with clamped reads; 1D and 2D layered
// surfaces and a cubemap surface read back through layered and cubemap textures; boundary
// mode zero (reads 0, drops writes) and clamp; the runtime's surface-object API and its errors;
// and last, an out-of-range read in trap mode, which faults the kernel (cudaErrorIllegalAddress).
static const char *kName = "surf_rw";
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "../kernels/test_common.h"

// ---- patterns ----------------------------------------------------------------------------
__host__ __device__ inline unsigned pat(int x, int y, int z, int salt) {
    unsigned v = ((unsigned)x * 73856093u) ^ ((unsigned)y * 19349663u) ^ ((unsigned)z * 83492791u) ^ (unsigned)salt;
    return v * 2654435761u;
}

// ---- kernels -------------------------------------------------------------------------------
template <class T> __device__ T make(unsigned v);
template <> __device__ char make<char>(unsigned v) { return (char)v; }
template <> __device__ short2 make<short2>(unsigned v) { return make_short2((short)v, (short)(v >> 16)); }
template <> __device__ int make<int>(unsigned v) { return (int)v; }
template <> __device__ float make<float>(unsigned v) { return (float)(v % 100000) * 0.25f; }
template <> __device__ uchar4 make<uchar4>(unsigned v) { return make_uchar4(v, v >> 8, v >> 16, v >> 24); }
template <> __device__ uint2 make<uint2>(unsigned v) { return make_uint2(v, ~v); }
template <> __device__ long long make<long long>(unsigned v) { return (long long)v * -977; }
template <> __device__ float4 make<float4>(unsigned v) {
    return make_float4((float)(v & 255), (float)((v >> 8) & 255), -(float)((v >> 16) & 255), 0.5f);
}

template <class T> __global__ void write1D(cudaSurfaceObject_t s, int w, int salt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < w) surf1Dwrite(make<T>(pat(x, 0, 0, salt)), s, x * (int)sizeof(T));
}
template <class T> __global__ void write2D(cudaSurfaceObject_t s, int w, int h, int salt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) surf2Dwrite(make<T>(pat(x, y, 0, salt)), s, x * (int)sizeof(T), y);
}
template <class T> __global__ void write3D(cudaSurfaceObject_t s, int w, int h, int d, int salt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x < w && y < h && z < d) surf3Dwrite(make<T>(pat(x, y, z, salt)), s, x * (int)sizeof(T), y, z);
}
// Reads every element back into linear memory (row-major), so the host checks reads and writes.
template <class T> __global__ void read3D(cudaSurfaceObject_t s, T *out, int w, int h, int d, int dims) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= w || y >= h || z >= d) return;
    T v;
    if (dims == 1) v = surf1Dread<T>(s, x * (int)sizeof(T));
    else if (dims == 2) v = surf2Dread<T>(s, x * (int)sizeof(T), y);
    else v = surf3Dread<T>(s, x * (int)sizeof(T), y, z);
    out[((size_t)z * h + y) * w + x] = v;
}

__global__ void blur(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float sum = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            sum += surf2Dread<float>(in, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
    surf2Dwrite(sum / 9.0f, out, x * 4, y);
}

__global__ void writeLayered(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, int w, int h, int layers) {
    int x = threadIdx.x, y = blockIdx.y, l = blockIdx.z;
    if (x >= w || y >= h || l >= layers) return;
    unsigned v = pat(x, y, l, 5);
    if (y == 0) surf1DLayeredwrite((float)(v % 1000), s1, x * 4, l);
    surf2DLayeredwrite(make_uchar4(v, v >> 8, v >> 16, v >> 24), s2, x * 4, y, l);
}
__global__ void readLayered(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaTextureObject_t t1,
                            cudaTextureObject_t t2, float *o1, float *o1t, uchar4 *o2, float4 *o2t,
                            int w, int h, int layers) {
    int x = threadIdx.x, y = blockIdx.y, l = blockIdx.z;
    if (x >= w || y >= h || l >= layers) return;
    int i = (l * h + y) * w + x;
    if (y == 0) {
        o1[l * w + x] = surf1DLayeredread<float>(s1, x * 4, l);
        o1t[l * w + x] = tex1DLayered<float>(t1, x + 0.5f, l);
    }
    o2[i] = surf2DLayeredread<uchar4>(s2, x * 4, y, l);
    o2t[i] = tex2DLayered<float4>(t2, x + 0.5f, y + 0.5f, l);
}

__global__ void writeCube(cudaSurfaceObject_t s, int w) {
    int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
    surfCubemapwrite((float)(face * 1000 + y * w + x), s, x * 4, y, face);
}
// Samples the cubemap at the centre of texel (x, y) of `face`, as a direction.
__global__ void readCube(cudaTextureObject_t t, float *out, const float3 *dirs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemap<float>(t, dirs[i].x, dirs[i].y, dirs[i].z);
}

__global__ void boundaryModes(cudaSurfaceObject_t s, int *out, int w, int h) {
    int i = threadIdx.x;
    int x = i % 8 - 2, y = i / 8 - 1; // some coordinates outside the w x h surface
    out[i] = surf2Dread<int>(s, x * 4, y, cudaBoundaryModeZero);
    out[32 + i] = surf2Dread<int>(s, x * 4, y, cudaBoundaryModeClamp);
    surf2Dwrite(-1 - i, s, x * 4, y, cudaBoundaryModeZero);
}

__global__ void outOfRange(cudaSurfaceObject_t s, int *out, int x) { out[0] = surf2Dread<int>(s, x * 4, 0); }

// ---- host ------------------------------------------------------------------------------------
template <class T> unsigned bits(const T &v) { unsigned u = 0; memcpy(&u, &v, sizeof v < 4 ? sizeof v : 4); return u; }
template <class T> T hostMake(unsigned v);
template <> char hostMake<char>(unsigned v) { return (char)v; }
template <> short2 hostMake<short2>(unsigned v) { return make_short2((short)v, (short)(v >> 16)); }
template <> int hostMake<int>(unsigned v) { return (int)v; }
template <> float hostMake<float>(unsigned v) { return (float)(v % 100000) * 0.25f; }
template <> uchar4 hostMake<uchar4>(unsigned v) { return make_uchar4(v, v >> 8, v >> 16, v >> 24); }
template <> uint2 hostMake<uint2>(unsigned v) { return make_uint2(v, ~v); }
template <> long long hostMake<long long>(unsigned v) { return (long long)v * -977; }
template <> float4 hostMake<float4>(unsigned v) {
    return make_float4((float)(v & 255), (float)((v >> 8) & 255), -(float)((v >> 16) & 255), 0.5f);
}

// Channel format of an element type; 8-byte scalars live in two-channel 32-bit arrays (CUDA has
// no 64-bit channel format).
template <class T> cudaChannelFormatDesc chanDesc() { return cudaCreateChannelDesc<T>(); }
template <> cudaChannelFormatDesc chanDesc<long long>() { return cudaCreateChannelDesc<int2>(); }

static cudaSurfaceObject_t makeSurf(cudaArray_t a) {
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s = 0;
    CK(cudaCreateSurfaceObject(&s, &rd));
    return s;
}

// Writes a w x h x d pattern with surfaces, checks it through cudaMemcpy3D (array -> host) and
// through surface reads into linear memory.
template <class T> static void roundTrip(const char *what, int w, int h, int d, int salt) {
    int dims = d ? 3 : h ? 2 : 1;
    int H = h ? h : 1, D = d ? d : 1;
    cudaChannelFormatDesc cd = chanDesc<T>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(w, h, d), cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = makeSurf(a);
    dim3 grid((w + 63) / 64, H, D);
    if (dims == 1) write1D<T><<<grid, 64>>>(s, w, salt);
    else if (dims == 2) write2D<T><<<grid, 64>>>(s, w, H, salt);
    else write3D<T><<<grid, 64>>>(s, w, H, D, salt);
    CK(cudaGetLastError());
    std::vector<T> host((size_t)w * H * D), back((size_t)w * H * D);
    cudaMemcpy3DParms p = {};
    p.srcArray = a;
    p.dstPtr = make_cudaPitchedPtr(host.data(), w * sizeof(T), w, H);
    p.extent = make_cudaExtent(w, H, D);
    p.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&p));
    T *dev;
    CK(cudaMalloc(&dev, host.size() * sizeof(T)));
    read3D<T><<<grid, 64>>>(s, dev, w, H, D, dims);
    CK(cudaMemcpy(back.data(), dev, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < w; ++x) {
                size_t i = ((size_t)z * H + y) * w + x;
                T want = hostMake<T>(pat(x, y, z, salt));
                EXPECT(memcmp(&host[i], &want, sizeof(T)) == 0, "%s: array element (%d,%d,%d) is %08x, want %08x",
                       what, x, y, z, bits(host[i]), bits(want));
                EXPECT(memcmp(&back[i], &want, sizeof(T)) == 0, "%s: surface read (%d,%d,%d) is %08x, want %08x",
                       what, x, y, z, bits(back[i]), bits(want));
            }
    CK(cudaFree(dev));
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
}

static void blurTest() {
    const int W = 37, H = 23;
    std::vector<float> img(W * H), out(W * H);
    for (int i = 0; i < W * H; ++i) img[i] = (float)(pat(i % W, i / W, 0, 9) % 1000) / 8.0f;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a, b;
    CK(cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore));
    CK(cudaMallocArray(&b, &cd, W, H, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(a, 0, 0, img.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaSurfaceObject_t sa = makeSurf(a), sb = makeSurf(b);
    blur<<<dim3((W + 15) / 16, (H + 7) / 8), dim3(16, 8)>>>(sa, sb, W, H);
    CK(cudaGetLastError());
    CK(cudaMemcpy2DFromArray(out.data(), W * 4, b, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            float sum = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int xx = std::min(W - 1, std::max(0, x + dx)), yy = std::min(H - 1, std::max(0, y + dy));
                    sum += img[yy * W + xx];
                }
            float want = sum / 9.0f;
            EXPECT(std::fabs(out[y * W + x] - want) <= 1e-4f * (1 + std::fabs(want)), "blur (%d,%d) = %f, want %f",
                   x, y, out[y * W + x], want);
        }
    CK(cudaDestroySurfaceObject(sa));
    CK(cudaDestroySurfaceObject(sb));
    CK(cudaFreeArray(a));
    CK(cudaFreeArray(b));
}

static void layeredTest() {
    const int W = 12, H = 5, L = 3;
    cudaChannelFormatDesc c1 = cudaCreateChannelDesc<float>(), c2 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a1, a2;
    CK(cudaMalloc3DArray(&a1, &c1, make_cudaExtent(W, 0, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
    CK(cudaMalloc3DArray(&a2, &c2, make_cudaExtent(W, H, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s1 = makeSurf(a1), s2 = makeSurf(a2);
    cudaTextureObject_t t1 = makeArrayTexture(a1, false, false, cudaAddressModeWrap);
    // uchar4 read as normalized floats
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a2;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t t2;
    CK(cudaCreateTextureObject(&t2, &rd, &td, nullptr));
    writeLayered<<<dim3(1, H, L), W>>>(s1, s2, W, H, L);
    float *o1, *o1t;
    uchar4 *o2;
    float4 *o2t;
    CK(cudaMalloc(&o1, W * L * 4));
    CK(cudaMalloc(&o1t, W * L * 4));
    CK(cudaMalloc(&o2, W * H * L * 4));
    CK(cudaMalloc(&o2t, W * H * L * 16));
    readLayered<<<dim3(1, H, L), W>>>(s1, s2, t1, t2, o1, o1t, o2, o2t, W, H, L);
    CK(cudaGetLastError());
    std::vector<float> h1(W * L), h1t(W * L);
    std::vector<uchar4> h2(W * H * L), h2a(W * H * L);
    std::vector<float4> h2t(W * H * L);
    CK(cudaMemcpy(h1.data(), o1, W * L * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h1t.data(), o1t, W * L * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h2.data(), o2, W * H * L * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h2t.data(), o2t, W * H * L * 16, cudaMemcpyDeviceToHost));
    // the layered array's memory as a 3D copy sees layers as depth
    cudaMemcpy3DParms p = {};
    p.srcArray = a2;
    p.dstPtr = make_cudaPitchedPtr(h2a.data(), W * 4, W, H);
    p.extent = make_cudaExtent(W, H, L);
    p.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&p));
    for (int l = 0; l < L; ++l)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                unsigned v = pat(x, y, l, 5);
                int i = (l * H + y) * W + x;
                if (y == 0) {
                    EXPECT(h1[l * W + x] == (float)(v % 1000), "1D layered surface (%d, layer %d) = %f", x, l, h1[l * W + x]);
                    EXPECT(h1t[l * W + x] == (float)(v % 1000), "1D layered texture (%d, layer %d) = %f", x, l, h1t[l * W + x]);
                }
                uchar4 want = make_uchar4(v, v >> 8, v >> 16, v >> 24);
                EXPECT(memcmp(&h2[i], &want, 4) == 0 && memcmp(&h2a[i], &want, 4) == 0,
                       "2D layered surface (%d,%d, layer %d)", x, y, l);
                EXPECT(std::fabs(h2t[i].x - want.x / 255.0f) < 1e-6f && std::fabs(h2t[i].w - want.w / 255.0f) < 1e-6f,
                       "2D layered texture (%d,%d, layer %d) = %f, want %f", x, y, l, h2t[i].x, want.x / 255.0f);
            }
    CK(cudaDestroyTextureObject(t1));
    CK(cudaDestroyTextureObject(t2));
    CK(cudaDestroySurfaceObject(s1));
    CK(cudaDestroySurfaceObject(s2));
    CK(cudaFreeArray(a1));
    CK(cudaFreeArray(a2));
    cudaFree(o1); cudaFree(o1t); cudaFree(o2); cudaFree(o2t);
}

// Direction through the centre of texel (x, y) of a cube face of width w (the inverse of the
// face table in the CUDA programming guide).
static float3 faceDir(int face, int x, int y, int w) {
    float s = 2 * (x + 0.5f) / w - 1, t = 2 * (y + 0.5f) / w - 1;
    switch (face) {
    case 0: return make_float3(1, -t, -s);
    case 1: return make_float3(-1, -t, s);
    case 2: return make_float3(s, 1, t);
    case 3: return make_float3(s, -1, -t);
    case 4: return make_float3(s, -t, 1);
    default: return make_float3(-s, -t, -1);
    }
}

static void cubeTest() {
    const int W = 6;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, W, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = makeSurf(a);
    writeCube<<<6, dim3(W, W)>>>(s, W);
    cudaTextureObject_t t = makeArrayTexture(a, false, true, cudaAddressModeWrap);
    std::vector<float3> dirs;
    for (int f = 0; f < 6; ++f)
        for (int y = 0; y < W; ++y)
            for (int x = 0; x < W; ++x) dirs.push_back(faceDir(f, x, y, W));
    float3 *dd;
    float *out;
    CK(cudaMalloc(&dd, dirs.size() * sizeof(float3)));
    CK(cudaMalloc(&out, dirs.size() * 4));
    CK(cudaMemcpy(dd, dirs.data(), dirs.size() * sizeof(float3), cudaMemcpyHostToDevice));
    readCube<<<(int)(dirs.size() + 63) / 64, 64>>>(t, out, dd, (int)dirs.size());
    std::vector<float> got(dirs.size());
    CK(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
    for (int f = 0; f < 6; ++f)
        for (int y = 0; y < W; ++y)
            for (int x = 0; x < W; ++x) {
                int i = (f * W + y) * W + x;
                EXPECT(got[i] == (float)(f * 1000 + y * W + x), "cubemap face %d texel (%d,%d) reads %f", f, x, y, got[i]);
            }
    cudaFree(dd);
    cudaFree(out);
    CK(cudaDestroyTextureObject(t));
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
}

static void boundaryTest() {
    const int W = 4, H = 2;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<int>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore));
    int init[W * H];
    for (int i = 0; i < W * H; ++i) init[i] = 100 + i;
    CK(cudaMemcpy2DToArray(a, 0, 0, init, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaSurfaceObject_t s = makeSurf(a);
    int *out;
    CK(cudaMalloc(&out, 64 * 4));
    boundaryModes<<<1, 32>>>(s, out, W, H);
    int got[64], after[W * H];
    CK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy2DFromArray(after, W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; ++i) {
        int x = i % 8 - 2, y = i / 8 - 1;
        bool in = x >= 0 && x < W && y >= 0 && y < H;
        int cx = std::min(W - 1, std::max(0, x)), cy = std::min(H - 1, std::max(0, y));
        EXPECT(got[i] == (in ? 100 + y * W + x : 0), "zero-mode read (%d,%d) = %d", x, y, got[i]);
        EXPECT(got[32 + i] == 100 + cy * W + cx, "clamp-mode read (%d,%d) = %d", x, y, got[32 + i]);
        if (in) EXPECT(after[y * W + x] == -1 - i, "zero-mode write (%d,%d) = %d", x, y, after[y * W + x]);
    }
    cudaFree(out);
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
}

static void apiTest() {
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t plain, surf;
    CK(cudaMallocArray(&plain, &cd, 8, 8));
    CK(cudaMallocArray(&surf, &cd, 8, 8, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = plain;
    cudaSurfaceObject_t s = 0;
    // the programming guide asks for cudaArraySurfaceLoadStore, but the H100's runtime creates
    // the surface without it too
    cudaError_t pe = cudaCreateSurfaceObject(&s, &rd);
    EXPECT(pe == cudaSuccess, "surface on an array without cudaArraySurfaceLoadStore: %s", cudaGetErrorName(pe));
    if (pe == cudaSuccess) CK(cudaDestroySurfaceObject(s));
    cudaGetLastError();
    float *lin;
    CK(cudaMalloc(&lin, 256));
    cudaResourceDesc rl;
    memset(&rl, 0, sizeof rl);
    rl.resType = cudaResourceTypeLinear;
    rl.res.linear.devPtr = lin;
    rl.res.linear.desc = cd;
    rl.res.linear.sizeInBytes = 256;
    EXPECT(cudaCreateSurfaceObject(&s, &rl) == cudaErrorInvalidValue, "surface on linear memory");
    EXPECT(cudaCreateSurfaceObject(nullptr, &rd) == cudaErrorInvalidValue, "null surface pointer");
    cudaGetLastError();
    rd.res.array.array = surf;
    CK(cudaCreateSurfaceObject(&s, &rd));
    cudaResourceDesc back;
    memset(&back, 0, sizeof back);
    CK(cudaGetSurfaceObjectResourceDesc(&back, s));
    EXPECT(back.resType == cudaResourceTypeArray && back.res.array.array == surf, "cudaGetSurfaceObjectResourceDesc");
    unsigned flags = 0;
    cudaExtent ext;
    CK(cudaArrayGetInfo(nullptr, &ext, &flags, surf));
    EXPECT(flags == cudaArraySurfaceLoadStore && ext.width == 8 && ext.height == 8 && ext.depth == 0,
           "cudaArrayGetInfo: flags %u extent %zu %zu %zu", flags, ext.width, ext.height, ext.depth);
    CK(cudaDestroySurfaceObject(s));
    // the H100's runtime does not check the handle: a second destroy succeeds (and changes nothing)
    EXPECT(cudaDestroySurfaceObject(s) == cudaSuccess, "destroying a surface object twice");
    EXPECT(cudaGetSurfaceObjectResourceDesc(&back, s) == cudaErrorInvalidValue, "resource desc of a destroyed object");
    cudaGetLastError();
    CK(cudaFree(lin));
    CK(cudaFreeArray(plain));
    CK(cudaFreeArray(surf));
}

int main() {
    roundTrip<char>("char 1D", 300, 0, 0, 1);
    roundTrip<short2>("short2 1D", 77, 0, 0, 2);
    roundTrip<int>("int 2D", 45, 17, 0, 3);
    roundTrip<float>("float 2D", 64, 9, 0, 4);
    roundTrip<uchar4>("uchar4 2D", 33, 12, 0, 5);
    roundTrip<uint2>("uint2 3D", 13, 6, 5, 6);
    roundTrip<long long>("long long 3D", 9, 4, 3, 7);
    roundTrip<float4>("float4 3D", 7, 5, 4, 8);
    blurTest();
    layeredTest();
    cubeTest();
    boundaryTest();
    apiTest();
    CK(cudaDeviceSynchronize());

    // a read past the edge in trap mode (the default) faults the kernel
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<int>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, 16, 1, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = makeSurf(a);
    int *out;
    CK(cudaMalloc(&out, 4));
    outOfRange<<<1, 1>>>(s, out, 16);
    cudaError_t e = cudaDeviceSynchronize();
    EXPECT(e == cudaErrorIllegalAddress, "out-of-range trap-mode read: %s", cudaGetErrorName(e));
    return finish();
}
