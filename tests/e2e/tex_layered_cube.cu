// ptxsim e2e: layered and cubemap textures. Self-checking: prints PASS tex_layered_cube / FAIL.
//
// 1D layered (float), 2D layered (float2) and cubemap / layered cubemap (float) CUDA arrays
// filled with cudaMemcpy3D, sampled with tex1DLayered, tex2DLayered, texCubemap and
// texCubemapLayered, point and linear filtering, normalized and unnormalized coordinates,
// clamp / wrap / border addressing; each result is checked against a CPU model of the texture
// unit (linear weights as test_common.h's texLinearWeights; cube faces chosen by the major axis per the CUDA
// programming guide's table, clamp-to-edge on a face). Coordinates are chosen off texel
// boundaries so the model does not depend on rounding. Also checks cudaArrayGetInfo and the
// extent errors of cudaMalloc3DArray for layered and cubemap arrays.
static const char *kName = "tex_layered_cube";
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "../kernels/test_common.h"

__global__ void sample1DLayered(cudaTextureObject_t t, float *out, const float *xs, const int *ls, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1DLayered<float>(t, xs[i], ls[i]);
}
__global__ void sample2DLayered(cudaTextureObject_t t, float2 *out, const float *xs, const float *ys,
                                const int *ls, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float2>(t, xs[i], ys[i], ls[i]);
}
__global__ void sampleCube(cudaTextureObject_t t, float *out, const float3 *d, const int *ls, int n,
                           int layered) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = layered ? texCubemapLayered<float>(t, d[i].x, d[i].y, d[i].z, ls[i])
                     : texCubemap<float>(t, d[i].x, d[i].y, d[i].z);
}

// ---- CPU model ------------------------------------------------------------------------------
struct Tex {
    int W, H, layers, ch;
    std::vector<float> v; // layers x H x W x ch
    bool linear, norm, edge;
    cudaTextureAddressMode mode;
    float border;
};

static bool index(const Tex &t, int n, long long &i) {
    cudaTextureAddressMode m = t.edge ? cudaAddressModeClamp : t.mode;
    if (!t.norm && (m == cudaAddressModeWrap || m == cudaAddressModeMirror)) m = cudaAddressModeClamp;
    if (m == cudaAddressModeBorder) return i >= 0 && i < n;
    if (m == cudaAddressModeWrap) i = ((i % n) + n) % n;
    else i = std::max(0LL, std::min((long long)n - 1, i));
    return true;
}
static float texel(const Tex &t, int layer, long long x, long long y, int c) {
    if (!index(t, t.W, x) || !index(t, t.H, y)) return t.border;
    return t.v[(((size_t)layer * t.H + y) * t.W + x) * t.ch + c];
}
// (u, v) in texel units after normalization; 1D textures have H == 1 and v = 0.5.
static float filter(const Tex &t, int layer, float u, float v, int c) {
    if (!t.linear) return texel(t, layer, (long long)std::floor(u), (long long)std::floor(v), c);
    cudaTextureAddressMode m = t.edge ? cudaAddressModeClamp : t.mode;
    if (m == cudaAddressModeClamp || (!t.norm && m != cudaAddressModeBorder)) {
        u = texClampCoord(u, t.W); // clamp addressing clamps the coordinate first
        if (t.H > 1) v = texClampCoord(v, t.H);
    }
    float xb = u - 0.5f, yb = v - 0.5f;
    long long i = (long long)std::floor(xb), j = (long long)std::floor(yb);
    int q[2] = {texFrac256(xb - std::floor(xb)), texFrac256(yb - std::floor(yb))};
    float w[4];
    texLinearWeights(t.H == 1 ? 1 : 2, q, w);
    if (t.H == 1) return w[0] * texel(t, layer, i, 0, c) + w[1] * texel(t, layer, i + 1, 0, c);
    return w[0] * texel(t, layer, i, j, c) + w[1] * texel(t, layer, i + 1, j, c) + w[2] * texel(t, layer, i, j + 1, c) +
           w[3] * texel(t, layer, i + 1, j + 1, c);
}
// The CUDA programming guide's cubemap table (directions here never tie between axes).
static int face(float x, float y, float z, float &u, float &v) {
    float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z), m, s, t;
    int f;
    if (ax > ay && ax > az) { m = ax; if (x >= 0) { f = 0; s = -z; t = -y; } else { f = 1; s = z; t = -y; } }
    else if (ay > ax && ay > az) { m = ay; if (y >= 0) { f = 2; s = x; t = z; } else { f = 3; s = x; t = -z; } }
    else { m = az; if (z >= 0) { f = 4; s = x; t = -y; } else { f = 5; s = -x; t = -y; } }
    u = (s / m + 1) / 2;
    v = (t / m + 1) / 2;
    return f;
}

static bool close(float a, float b) { return std::fabs(a - b) <= 1e-4f * (1 + std::fabs(b)); }

template <class T> static T *upload(const std::vector<T> &v) {
    T *p;
    CK(cudaMalloc(&p, v.size() * sizeof(T)));
    CK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

static void fill(Tex &t, int salt) {
    t.v.resize((size_t)t.layers * t.H * t.W * t.ch);
    for (size_t i = 0; i < t.v.size(); ++i) t.v[i] = (float)((i * 37 + salt * 11) % 89) * 0.5f - 20.0f;
}

// Copies the model's texels into a layered array through cudaMemcpy3D (height 1 for 1D).
static void copyIn(cudaArray_t a, const Tex &t) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr((void *)t.v.data(), t.W * t.ch * sizeof(float), t.W, t.H);
    p.dstArray = a;
    p.extent = make_cudaExtent(t.W, t.H, t.layers);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
}

static void layered1D() {
    Tex t{13, 1, 5, 1, {}, false, false, false, cudaAddressModeClamp, 0};
    fill(t, 1);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(t.W, 0, t.layers), cudaArrayLayered));
    copyIn(a, t);
    cudaExtent e;
    unsigned flags;
    CK(cudaArrayGetInfo(nullptr, &e, &flags, a));
    EXPECT(e.width == 13 && e.height == 0 && e.depth == 5 && flags == cudaArrayLayered, "1D layered info");
    const int n = 200;
    std::vector<float> xs(n);
    std::vector<int> ls(n);
    for (int i = 0; i < n; ++i) {
        xs[i] = -3.0f + 0.097f * i + 1.0f / 128;
        ls[i] = i % 7; // layers 5 and 6 clamp to 4
    }
    float *dx = upload(xs), *out;
    int *dl = upload(ls);
    CK(cudaMalloc(&out, n * 4));
    for (int mode = 0; mode < 4; ++mode) {
        t.linear = mode & 1;
        t.norm = mode & 2;
        t.mode = t.norm ? cudaAddressModeWrap : cudaAddressModeBorder;
        t.border = -7.25f;
        std::vector<float> x = xs;
        if (t.norm) for (float &v : x) v /= t.W;
        float *dxn = upload(x);
        cudaTextureObject_t to = makeArrayTexture(a, t.linear, t.norm, t.mode, t.border);
        sample1DLayered<<<(n + 63) / 64, 64>>>(to, out, dxn, dl, n);
        std::vector<float> got(n);
        CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            int layer = std::min(t.layers - 1, std::max(0, ls[i]));
            float want = filter(t, layer, t.norm ? texNormToTexels(x[i], t.W) : x[i], 0.5f, 0);
            EXPECT(close(got[i], want), "1D layered linear=%d norm=%d x=%f layer=%d: %f, want %f", t.linear,
                   t.norm, x[i], ls[i], got[i], want);
        }
        CK(cudaDestroyTextureObject(to));
        cudaFree(dxn);
    }
    cudaFree(dx); cudaFree(dl); cudaFree(out);
    CK(cudaFreeArray(a));
}

static void layered2D() {
    Tex t{9, 6, 4, 2, {}, false, false, false, cudaAddressModeClamp, 0};
    fill(t, 2);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float2>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(t.W, t.H, t.layers), cudaArrayLayered));
    copyIn(a, t);
    const int n = 256;
    std::vector<float> xs(n), ys(n);
    std::vector<int> ls(n);
    for (int i = 0; i < n; ++i) {
        xs[i] = -2.0f + 0.053f * i + 1.0f / 128;
        ys[i] = 8.0f - 0.041f * i + 1.0f / 256;
        ls[i] = (i * 5) % 4;
    }
    int *dl = upload(ls);
    float2 *out;
    CK(cudaMalloc(&out, n * 8));
    const cudaTextureAddressMode modes[3] = {cudaAddressModeClamp, cudaAddressModeWrap, cudaAddressModeBorder};
    for (int lin = 0; lin < 2; ++lin)
        for (int norm = 0; norm < 2; ++norm)
            for (int mi = 0; mi < 3; ++mi) {
                t.linear = lin;
                t.norm = norm;
                t.mode = modes[mi];
                t.border = 3.5f;
                std::vector<float> x = xs, y = ys;
                if (norm) for (int i = 0; i < n; ++i) { x[i] /= t.W; y[i] /= t.H; }
                float *dx = upload(x), *dy = upload(y);
                cudaTextureObject_t to = makeArrayTexture(a, lin, norm, t.mode, t.border);
                sample2DLayered<<<(n + 63) / 64, 64>>>(to, out, dx, dy, dl, n);
                std::vector<float2> got(n);
                CK(cudaMemcpy(got.data(), out, n * 8, cudaMemcpyDeviceToHost));
                for (int i = 0; i < n; ++i) {
                    float u = norm ? texNormToTexels(x[i], t.W) : x[i], v = norm ? texNormToTexels(y[i], t.H) : y[i];
                    float w0 = filter(t, ls[i], u, v, 0), w1 = filter(t, ls[i], u, v, 1);
                    EXPECT(close(got[i].x, w0) && close(got[i].y, w1),
                           "2D layered linear=%d norm=%d mode=%d (%f,%f) layer %d: (%f,%f), want (%f,%f)", lin, norm,
                           mi, x[i], y[i], ls[i], got[i].x, got[i].y, w0, w1);
                }
                CK(cudaDestroyTextureObject(to));
                cudaFree(dx);
                cudaFree(dy);
            }
    cudaFree(dl); cudaFree(out);
    CK(cudaFreeArray(a));
}

static void cubemaps(bool layeredCubes) {
    const int W = 8, cubes = layeredCubes ? 3 : 1;
    Tex t{W, W, 6 * cubes, 1, {}, false, true, true, cudaAddressModeClamp, 0};
    fill(t, layeredCubes ? 4 : 3);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, W, 6 * cubes),
                         cudaArrayCubemap | (layeredCubes ? cudaArrayLayered : 0)));
    copyIn(a, t);
    // directions sweeping every face, including texels at the face edges
    std::vector<float3> dirs;
    std::vector<int> ls;
    for (int i = 0; i < 300; ++i) {
        float th = 0.0731f * i + 0.013f, ph = 0.0417f * i - 1.3f;
        float r = 0.5f + (i % 5);
        dirs.push_back(make_float3(r * std::cos(ph) * std::cos(th), r * std::sin(ph), r * std::cos(ph) * std::sin(th)));
        ls.push_back(i % 4); // layered: cube 3 clamps to cube 2
    }
    // plus one direction through each face centre, and near each face corner
    const float big[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int f = 0; f < 6; ++f) {
        dirs.push_back(make_float3(big[f][0] * 2 + 0.01f, big[f][1] * 2 + 0.02f, big[f][2] * 2 + 0.03f));
        ls.push_back(f % 3);
        dirs.push_back(make_float3(big[f][0] + 0.93f * (1 - std::fabs(big[f][0])), big[f][1] - 0.95f * (1 - std::fabs(big[f][1])),
                                   big[f][2] + 0.91f * (1 - std::fabs(big[f][2]))));
        ls.push_back(1);
    }
    int n = (int)dirs.size();
    float3 *dd = upload(dirs);
    int *dl = upload(ls);
    float *out;
    CK(cudaMalloc(&out, n * 4));
    for (int lin = 0; lin < 2; ++lin) {
        t.linear = lin;
        cudaTextureObject_t to = makeArrayTexture(a, lin, true, cudaAddressModeClamp, 0);
        sampleCube<<<(n + 63) / 64, 64>>>(to, out, dd, dl, n, layeredCubes);
        std::vector<float> got(n);
        CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            float u, v;
            int f = face(dirs[i].x, dirs[i].y, dirs[i].z, u, v);
            int cube = layeredCubes ? std::min(cubes - 1, ls[i]) : 0;
            float want = filter(t, cube * 6 + f, texNormToTexels(u, W), texNormToTexels(v, W), 0);
            EXPECT(close(got[i], want), "cubemap layered=%d linear=%d dir (%f,%f,%f) face %d: %f, want %f",
                   layeredCubes, lin, dirs[i].x, dirs[i].y, dirs[i].z, f, got[i], want);
        }
        CK(cudaDestroyTextureObject(to));
    }
    cudaFree(dd); cudaFree(dl); cudaFree(out);
    CK(cudaFreeArray(a));
}

static void extentErrors() {
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    EXPECT(cudaMalloc3DArray(&a, &cd, make_cudaExtent(8, 6, 6), cudaArrayCubemap) == cudaErrorInvalidValue,
           "cubemap with width != height");
    EXPECT(cudaMalloc3DArray(&a, &cd, make_cudaExtent(8, 8, 5), cudaArrayCubemap) == cudaErrorInvalidValue,
           "cubemap with depth != 6");
    EXPECT(cudaMalloc3DArray(&a, &cd, make_cudaExtent(8, 8, 9), cudaArrayCubemap | cudaArrayLayered) ==
               cudaErrorInvalidValue,
           "layered cubemap with depth not a multiple of 6");
    EXPECT(cudaMalloc3DArray(&a, &cd, make_cudaExtent(8, 8, 0), cudaArrayLayered) == cudaErrorInvalidValue,
           "layered array without layers");
    EXPECT(cudaMalloc3DArray(&a, &cd, make_cudaExtent(8, 0, 4), 0) == cudaErrorInvalidValue,
           "3D array without height");
    cudaGetLastError();
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(8, 8, 12), cudaArrayCubemap | cudaArrayLayered));
    cudaExtent e;
    unsigned flags;
    CK(cudaArrayGetInfo(nullptr, &e, &flags, a));
    EXPECT(e.width == 8 && e.height == 8 && e.depth == 12 && flags == (cudaArrayCubemap | cudaArrayLayered),
           "layered cubemap info");
    CK(cudaFreeArray(a));
}

int main() {
    layered1D();
    layered2D();
    cubemaps(false);
    cubemaps(true);
    extentErrors();
    CK(cudaDeviceSynchronize());
    return finish();
}
