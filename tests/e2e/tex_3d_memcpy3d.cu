// ptxsim e2e: 3D arrays, cudaMemcpy3D and 3D texture filtering. Self-checking: prints
// PASS tex_3d_memcpy3d / FAIL tex_3d_memcpy3d.
//
// cudaMalloc3DArray + cudaMemcpy3D host -> array, array -> host, array -> array (sub-boxes at
// offsets), array <-> cudaMalloc3D pitched device memory, pitched <-> pitched with byte
// positions, cudaMemcpy3DAsync on a stream and cudaMemcpy3DPeer; cudaMemset3D; tex3D point and
// trilinear filtering (corner weights in 1/256 steps as test_common.h's texLinearWeights) with
// clamp, wrap and border addressing against a CPU model, on float and on uchar (normalized
// float) arrays; and the argument errors of
// cudaMemcpy3D (cudaErrorInvalidValue, cudaErrorInvalidPitchValue,
// cudaErrorInvalidMemcpyDirection, cudaErrorInvalidDevice).
static const char *kName = "tex_3d_memcpy3d";
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "../kernels/test_common.h"

__global__ void sample3D(cudaTextureObject_t t, float *out, const float4 *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, c[i].x, c[i].y, c[i].z);
}

// Adds 1000 * z to every float of a pitched 3D box (width in floats).
__global__ void bump(cudaPitchedPtr p, int w, int h, int d) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= w || y >= h || z >= d) return;
    float *row = (float *)((char *)p.ptr + (z * p.ysize + y) * p.pitch);
    row[x] += 1000.0f * z;
}

static float val(int x, int y, int z) { return (float)((x * 7 + y * 13 + z * 29) % 61) - 30.0f + 0.125f * z; }

// ---- CPU model of tex3D ----------------------------------------------------------------------
struct Vol {
    int W, H, D;
    std::vector<float> v;
    bool linear, norm;
    cudaTextureAddressMode mode;
    float border;
};
static bool idx(const Vol &t, int n, long long &i) {
    cudaTextureAddressMode m = t.mode;
    if (!t.norm && m == cudaAddressModeWrap) m = cudaAddressModeClamp;
    if (m == cudaAddressModeBorder) return i >= 0 && i < n;
    if (m == cudaAddressModeWrap) i = ((i % n) + n) % n;
    else i = std::max(0LL, std::min((long long)n - 1, i));
    return true;
}
static float at(const Vol &t, long long x, long long y, long long z) {
    if (!idx(t, t.W, x) || !idx(t, t.H, y) || !idx(t, t.D, z)) return t.border;
    return t.v[((size_t)z * t.H + y) * t.W + x];
}
static float model(const Vol &t, float x, float y, float z) {
    if (t.norm) { x = texNormToTexels(x, t.W); y = texNormToTexels(y, t.H); z = texNormToTexels(z, t.D); }
    if (!t.linear) return at(t, (long long)std::floor(x), (long long)std::floor(y), (long long)std::floor(z));
    if (t.mode != cudaAddressModeBorder && !(t.norm && t.mode == cudaAddressModeWrap)) {
        x = texClampCoord(x, t.W); // clamp addressing clamps the coordinate first
        y = texClampCoord(y, t.H);
        z = texClampCoord(z, t.D);
    }
    float c[3] = {x - 0.5f, y - 0.5f, z - 0.5f}, w[8];
    long long b[3];
    int q[3];
    for (int k = 0; k < 3; ++k) {
        b[k] = (long long)std::floor(c[k]);
        q[k] = texFrac256(c[k] - std::floor(c[k])); // 8 fraction bits
    }
    texLinearWeights(3, q, w); // whole 1/256 steps, as the GPU computes them
    float sum = 0;
    for (int corner = 0; corner < 8; ++corner)
        sum += w[corner] * at(t, b[0] + (corner & 1), b[1] + ((corner >> 1) & 1), b[2] + ((corner >> 2) & 1));
    return sum;
}

static void sampleAndCheck(cudaArray_t a, Vol &m, const char *what, cudaTextureReadMode rm) {
    const int n = 512;
    std::vector<float4> c(n);
    for (int i = 0; i < n; ++i) {
        float f = (float)i;
        c[i] = make_float4(-2.0f + std::fmod(f * 0.377f, m.W + 4.0f) + 1.0f / 128,
                           -1.5f + std::fmod(f * 0.291f, m.H + 3.0f) + 1.0f / 256,
                           -1.0f + std::fmod(f * 0.173f, m.D + 2.0f) + 3.0f / 256, 0);
    }
    float4 *dc;
    float *out;
    CK(cudaMalloc(&dc, n * sizeof(float4)));
    CK(cudaMalloc(&out, n * 4));
    const cudaTextureAddressMode modes[3] = {cudaAddressModeClamp, cudaAddressModeWrap, cudaAddressModeBorder};
    for (int lin = 0; lin < 2; ++lin)
        for (int norm = 0; norm < 2; ++norm)
            for (int mi = 0; mi < 3; ++mi) {
                m.linear = lin;
                m.norm = norm;
                m.mode = modes[mi];
                m.border = -99.0f;
                std::vector<float4> cc = c;
                if (norm)
                    for (auto &p : cc) { p.x /= m.W; p.y /= m.H; p.z /= m.D; }
                CK(cudaMemcpy(dc, cc.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
                cudaTextureObject_t t = makeArrayTexture(a, lin, norm, m.mode, m.border, rm);
                // unsigned bytes read as normalized floats: the GPU clamps the border color to
                // [0, 1] (-99 reads as 0)
                Vol mm = m;
                if (rm == cudaReadModeNormalizedFloat) mm.border = std::max(0.0f, std::min(1.0f, m.border));
                sample3D<<<(n + 127) / 128, 128>>>(t, out, dc, n);
                std::vector<float> got(n);
                CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
                for (int i = 0; i < n; ++i) {
                    float want = model(mm, cc[i].x, cc[i].y, cc[i].z);
                    EXPECT(std::fabs(got[i] - want) <= 1e-4f * (1 + std::fabs(want)),
                           "%s linear=%d norm=%d mode=%d at (%f,%f,%f): %f, want %f", what, lin, norm, mi, cc[i].x,
                           cc[i].y, cc[i].z, got[i], want);
                }
                CK(cudaDestroyTextureObject(t));
            }
    cudaFree(dc);
    cudaFree(out);
}

int main() {
    const int W = 11, H = 7, D = 5;
    std::vector<float> host(W * H * D), back(W * H * D, 0);
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) host[(z * H + y) * W + x] = val(x, y, z);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a, b;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, H, D)));
    CK(cudaMalloc3DArray(&b, &cd, make_cudaExtent(W, H, D)));

    // host -> array, array -> host
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(host.data(), W * sizeof(float), W, H);
    p.dstArray = a;
    p.extent = make_cudaExtent(W, H, D); // elements: an array takes part
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaMemcpy3DParms q = {};
    q.srcArray = a;
    q.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(float), W, H);
    q.extent = make_cudaExtent(W, H, D);
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    EXPECT(back == host, "host -> array -> host round trip");

    // array -> array: a 4x3x2 box from (5,2,1) of a to (1,4,3) of b, which is zeroed first
    std::vector<float> zeros(W * H * D, 0.0f), bb(W * H * D);
    p.dstArray = b;
    p.srcPtr = make_cudaPitchedPtr(zeros.data(), W * sizeof(float), W, H);
    CK(cudaMemcpy3D(&p));
    cudaMemcpy3DParms r = {};
    r.srcArray = a;
    r.srcPos = make_cudaPos(5, 2, 1);
    r.dstArray = b;
    r.dstPos = make_cudaPos(1, 4, 3);
    r.extent = make_cudaExtent(4, 3, 2);
    r.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3D(&r));
    q.srcArray = b;
    q.dstPtr = make_cudaPitchedPtr(bb.data(), W * sizeof(float), W, H);
    CK(cudaMemcpy3D(&q));
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                bool in = x >= 1 && x < 5 && y >= 4 && y < 7 && z >= 3 && z < 5;
                float want = in ? val(x + 4, y - 2, z - 2) : 0.0f;
                EXPECT(bb[(z * H + y) * W + x] == want, "array -> array box at (%d,%d,%d): %f, want %f", x, y, z,
                       bb[(z * H + y) * W + x], want);
            }

    // array -> cudaMalloc3D pitched memory (extent width in bytes there), a kernel bumps each
    // slice, then pitched -> array asynchronously on a stream
    cudaPitchedPtr pp;
    CK(cudaMalloc3D(&pp, make_cudaExtent(W * sizeof(float), H, D)));
    EXPECT(pp.pitch >= W * sizeof(float) && pp.xsize == W * sizeof(float) && pp.ysize == H,
           "cudaMalloc3D pitch %zu xsize %zu ysize %zu", pp.pitch, pp.xsize, pp.ysize);
    cudaMemcpy3DParms s = {};
    s.srcArray = a;
    s.dstPtr = pp;
    s.extent = make_cudaExtent(W, H, D);
    s.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3D(&s));
    bump<<<dim3(1, H, D), 32>>>(pp, W, H, D);
    CK(cudaGetLastError());
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cudaMemcpy3DParms u = {};
    u.srcPtr = pp;
    u.dstArray = b;
    u.extent = make_cudaExtent(W, H, D);
    u.kind = cudaMemcpyDefault;
    CK(cudaMemcpy3DAsync(&u, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy3D(&q));
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x)
                EXPECT(bb[(z * H + y) * W + x] == val(x, y, z) + 1000.0f * z, "pitched round trip at (%d,%d,%d)", x, y, z);

    // pitched -> pitched with byte positions: host box of 3 x 2 x 2 floats from pp at float
    // (2,3,1) into a host buffer at float (1,0,1)
    std::vector<float> hb(6 * 4 * 3, -1.0f);
    cudaMemcpy3DParms v = {};
    v.srcPtr = pp;
    v.srcPos = make_cudaPos(2 * sizeof(float), 3, 1);
    v.dstPtr = make_cudaPitchedPtr(hb.data(), 6 * sizeof(float), 6, 4);
    v.dstPos = make_cudaPos(1 * sizeof(float), 0, 1);
    v.extent = make_cudaExtent(3 * sizeof(float), 2, 2);
    v.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&v));
    for (int z = 0; z < 3; ++z)
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 6; ++x) {
                bool in = x >= 1 && x < 4 && y < 2 && z >= 1;
                float want = in ? val(x + 1, y + 3, z) + 1000.0f * z : -1.0f;
                EXPECT(hb[(z * 4 + y) * 6 + x] == want, "pitched -> pitched at (%d,%d,%d): %f, want %f", x, y, z,
                       hb[(z * 4 + y) * 6 + x], want);
            }

    // cudaMemset3D on a sub-box (width in bytes), checked through a peer copy to the host
    CK(cudaMemset3D(make_cudaPitchedPtr((char *)pp.ptr + 4, pp.pitch, pp.xsize, pp.ysize), 0,
                    make_cudaExtent(2 * sizeof(float), H, D)));
    std::vector<float> hp(W * H * D);
    cudaMemcpy3DPeerParms pr = {};
    pr.srcPtr = pp;
    pr.dstPtr = make_cudaPitchedPtr(hp.data(), W * sizeof(float), W, H);
    pr.extent = make_cudaExtent(W * sizeof(float), H, D);
    // a peer copy goes between devices: device memory on both sides
    float *dlin;
    CK(cudaMalloc(&dlin, W * H * D * sizeof(float)));
    pr.dstPtr = make_cudaPitchedPtr(dlin, W * sizeof(float), W, H);
    CK(cudaMemcpy3DPeer(&pr));
    CK(cudaMemcpy(hp.data(), dlin, hp.size() * 4, cudaMemcpyDeviceToHost));
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                float want = x == 1 || x == 2 ? 0.0f : val(x, y, z) + 1000.0f * z;
                EXPECT(hp[(z * H + y) * W + x] == want, "memset3D + peer copy at (%d,%d,%d): %f, want %f", x, y, z,
                       hp[(z * H + y) * W + x], want);
            }
    pr.dstDevice = 1;
    EXPECT(cudaMemcpy3DPeer(&pr) == cudaErrorInvalidDevice, "peer copy to device 1");

    // argument errors
    cudaMemcpy3DParms e = p;
    e.dstArray = a;
    e.srcPtr = make_cudaPitchedPtr(host.data(), W * sizeof(float), W, H);
    e.srcArray = b; // two sources
    EXPECT(cudaMemcpy3D(&e) == cudaErrorInvalidValue, "two sources");
    e.srcArray = nullptr;
    e.srcPtr.ptr = nullptr; // no source
    EXPECT(cudaMemcpy3D(&e) == cudaErrorInvalidValue, "no source");
    e = p;
    e.dstArray = a;
    e.srcPtr.pitch = 4; // narrower than a row
    EXPECT(cudaMemcpy3D(&e) == cudaErrorInvalidPitchValue, "pitch smaller than the row");
    e = p;
    e.dstArray = a;
    e.dstPos = make_cudaPos(1, 0, 0); // the box leaves the array
    EXPECT(cudaMemcpy3D(&e) == cudaErrorInvalidValue, "box outside the array");
    e = p;
    e.dstArray = a;
    e.kind = (cudaMemcpyKind)7;
    EXPECT(cudaMemcpy3D(&e) == cudaErrorInvalidMemcpyDirection, "bad kind");
    cudaArray_t c8;
    cudaChannelFormatDesc cd8 = cudaCreateChannelDesc<unsigned char>();
    CK(cudaMalloc3DArray(&c8, &cd8, make_cudaExtent(W, H, D)));
    e = r;
    e.dstArray = c8;
    e.dstPos = make_cudaPos(0, 0, 0);
    EXPECT(cudaMemcpy3D(&e) == cudaErrorInvalidValue, "arrays of different element sizes");
    EXPECT(cudaMemcpy3D(nullptr) == cudaErrorInvalidValue, "null parameters");
    cudaGetLastError();

    // 3D filtering of the float array
    Vol m{W, H, D, host, false, false, cudaAddressModeClamp, 0};
    sampleAndCheck(a, m, "float", cudaReadModeElementType);

    // uchar array read as normalized floats, filled from pitched device memory
    std::vector<unsigned char> bytes(W * H * D);
    Vol mb{W, H, D, {}, false, false, cudaAddressModeClamp, 0};
    for (size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = (unsigned char)(i * 97 + 3);
        mb.v.push_back(bytes[i] / 255.0f);
    }
    cudaPitchedPtr p8;
    CK(cudaMalloc3D(&p8, make_cudaExtent(W, H, D)));
    cudaMemcpy3DParms w8 = {};
    w8.srcPtr = make_cudaPitchedPtr(bytes.data(), W, W, H);
    w8.dstPtr = p8;
    w8.extent = make_cudaExtent(W, H, D);
    w8.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&w8));
    cudaMemcpy3DParms a8 = {};
    a8.srcPtr = p8;
    a8.dstArray = c8;
    a8.extent = make_cudaExtent(W, H, D);
    a8.kind = cudaMemcpyDeviceToHost; // corrected to device-to-device: arrays live on the device
    CK(cudaMemcpy3D(&a8));
    sampleAndCheck(c8, mb, "uchar", cudaReadModeNormalizedFloat);

    CK(cudaFree(pp.ptr));
    CK(cudaFree(p8.ptr));
    CK(cudaFree(dlin));
    CK(cudaStreamDestroy(st));
    CK(cudaFreeArray(a));
    CK(cudaFreeArray(b));
    CK(cudaFreeArray(c8));
    return finish();
}
