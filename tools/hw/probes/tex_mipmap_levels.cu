// hwtex probe (ptxsim branch hwtex): mipmapped arrays on the GPU.
//  free  : what cudaFreeArray returns for a level from cudaGetMipmappedArrayLevel, whether the
//          level still works afterwards (copy, texture), and what freeing the whole array says
//  lod   : linear and point mipmap filtering of a 32x16 array whose level l holds l everywhere:
//          tex2DLod's result as a function of the level of detail (blend weight steps, ties,
//          nearest-level rule), with a bias and level clamps
//  grad  : tex2DGrad's level of detail from gradient lengths (isotropic and not)
//  tri   : trilinear weights: level 0 a one-hot 2x2 float4, level 1 zero
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d: %s\n", #call, __LINE__, cudaGetErrorName(e_)); exit(1); } } while (0)

__global__ void kLod(cudaTextureObject_t t, float *out, const float *lod, int n, float u, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float>(t, u, v, lod[i]);
}
__global__ void kGrad(cudaTextureObject_t t, float *out, const float4 *g, int n, float u, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DGrad<float>(t, u, v, make_float2(g[i].x, g[i].y), make_float2(g[i].z, g[i].w));
}
__global__ void kTri(cudaTextureObject_t t, float4 *out, const float4 *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float4>(t, c[i].x, c[i].y, c[i].z);
}

static cudaTextureObject_t mipTex(cudaMipmappedArray_t mm, bool linear, bool mipLinear, float bias, float lo, float hi) {
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeMipmappedArray;
    rd.res.mipmap.mipmap = mm;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.mipmapFilterMode = mipLinear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.mipmapLevelBias = bias;
    td.minMipmapLevelClamp = lo;
    td.maxMipmapLevelClamp = hi;
    td.normalizedCoords = 1;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    return t;
}

int main() {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    const int W = 32, H = 16;
    cudaMipmappedArray_t mm;
    CK(cudaMallocMipmappedArray(&mm, &cd, make_cudaExtent(W, H, 0), 6, 0));
    for (int l = 0; l < 6; ++l) {
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, mm, l));
        int w = W >> l > 0 ? W >> l : 1, h = H >> l > 0 ? H >> l : 1;
        std::vector<float> v(w * h, (float)l);
        CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    }

    // ---- lod sweeps ----
    const int n = 8 * 1024;
    std::vector<float> lods(n);
    for (int k = 0; k < n; ++k) lods[k] = -1.0f + k / 1024.0f; // -1 .. 7
    float *dl, *out;
    CK(cudaMalloc(&dl, n * 4));
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMemcpy(dl, lods.data(), n * 4, cudaMemcpyHostToDevice));
    struct Case { bool linear, mipLinear; float bias, lo, hi; };
    const Case cases[] = {{false, true, 0, 0, 10}, {false, false, 0, 0, 10}, {true, true, 0, 0, 10},
                          {false, true, 0.75f, 0, 10}, {false, true, -0.4f, 1.0f, 3.5f}, {false, false, -0.4f, 1.0f, 3.5f},
                          {false, false, 0, 0, 0}, {false, true, 0.3f, 0.25f, 2.75f}};
    std::vector<float> r(n);
    for (const Case &c : cases) {
        cudaTextureObject_t t = mipTex(mm, c.linear, c.mipLinear, c.bias, c.lo, c.hi);
        kLod<<<n / 128, 128>>>(t, out, dl, n, 0.5f, 0.5f);
        CK(cudaGetLastError());
        CK(cudaMemcpy(r.data(), out, n * 4, cudaMemcpyDeviceToHost));
        printf("lod case linear=%d mip=%d bias=%g clamp=[%g,%g]:\n", c.linear, c.mipLinear, c.bias, c.lo, c.hi);
        float prev = -1e9f;
        int changes = 0;
        for (int k = 0; k < n; ++k)
            if (r[k] != prev) {
                float L = lods[k];
                bool show = (L > -1.1f && L < 1.1f) || (L > 1.3f && L < 1.5f) || (L > 2.4f && L < 2.5f) ||
                            (L > 3.8f && L < 4.0f) || (L > 4.9f && L < 5.1f);
                ++changes;
                if (show) printf("  lod %d/1024 (%g) -> %.9g (%a)\n", k - 1024, lods[k], r[k], r[k]);
                prev = r[k];
            }
        printf("  %d changes\n", changes);
        CK(cudaDestroyTextureObject(t));
    }
    // lod exactly at k/256 + 1/512 (ties of the blend weight) and ulps around
    {
        cudaTextureObject_t t = mipTex(mm, false, true, 0, 0, 10);
        std::vector<float> tl;
        for (int j = 0; j < 256 * 3; j += 37)
            for (int u = -1; u <= 1; ++u) {
                float x = (j + 0.5f) / 256.0f;
                if (u) x = nextafterf(x, u < 0 ? -10.0f : 10.0f);
                tl.push_back(x);
            }
        CK(cudaMemcpy(dl, tl.data(), tl.size() * 4, cudaMemcpyHostToDevice));
        kLod<<<(unsigned)(tl.size() + 127) / 128, 128>>>(t, out, dl, (int)tl.size(), 0.5f, 0.5f);
        CK(cudaMemcpy(r.data(), out, tl.size() * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < tl.size(); ++i) printf("lod tie %a (%.9g*256) -> %.9g\n", tl[i], tl[i] * 256, r[i]);
        CK(cudaDestroyTextureObject(t));
    }

    // ---- grad: gradient lengths in texels of level 0 ----
    {
        cudaTextureObject_t t = mipTex(mm, false, true, 0, 0, 10);
        std::vector<float4> g;
        std::vector<double> gl;
        // isotropic, x along dPdx and y along dPdy (like tex_mipmap); log2 lengths in 1/1024 steps
        // (every quarter of a 1/256 blend step: truncation and rounding differ)
        for (int k = -300; k < 6 * 1024; k += 3) {
            if (!((k < 1300) || (k > 2900 && k < 3300) || (k > 5100 && k < 5200))) continue;
            double len = std::exp2(k / 1024.0);
            g.push_back(make_float4((float)(len / W), 0, 0, (float)(len / H)));
            gl.push_back(len);
        }
        size_t iso = g.size();
        for (int k = 0; k < 200; ++k) { // anisotropic and diagonal gradients
            double a = std::exp2((k % 23) / 4.0 - 0.5), b = std::exp2((k % 17) / 3.0 - 0.7), th = k * 0.37;
            g.push_back(make_float4((float)(a * std::cos(th) / W), (float)(a * std::sin(th) / H), (float)(-b * std::sin(th) / W),
                                    (float)(b * std::cos(th) / H)));
            gl.push_back(0);
        }
        float4 *dg;
        CK(cudaMalloc(&dg, g.size() * 16));
        CK(cudaMemcpy(dg, g.data(), g.size() * 16, cudaMemcpyHostToDevice));
        kGrad<<<(unsigned)(g.size() + 127) / 128, 128>>>(t, out, dg, (int)g.size(), 0.5f, 0.5f);
        CK(cudaGetLastError());
        CK(cudaMemcpy(r.data(), out, g.size() * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < g.size(); ++i) {
            if (i < iso)
                printf("grad iso len %a log2 %.9g (*256 %.4f) -> %.9g\n", (float)gl[i], std::log2(gl[i]), std::log2(gl[i]) * 256, r[i]);
            else
                printf("grad dx=(%a,%a) dy=(%a,%a) |dx|=%.6g |dy|=%.6g texels -> %.9g\n", g[i].x, g[i].y, g[i].z, g[i].w,
                       std::hypot(g[i].x * W, g[i].y * H), std::hypot(g[i].z * W, g[i].w * H), r[i]);
        }
        cudaFree(dg);
        CK(cudaDestroyTextureObject(t));
    }

    // ---- tri: level 0 one-hot 2x2 float4, level 1 zero ----
    {
        cudaChannelFormatDesc c4 = cudaCreateChannelDesc<float4>();
        cudaMipmappedArray_t m2;
        CK(cudaMallocMipmappedArray(&m2, &c4, make_cudaExtent(2, 2, 0), 2, 0));
        cudaArray_t l0, l1;
        CK(cudaGetMipmappedArrayLevel(&l0, m2, 0));
        CK(cudaGetMipmappedArrayLevel(&l1, m2, 1));
        float4 oh[4] = {make_float4(1, 0, 0, 0), make_float4(0, 1, 0, 0), make_float4(0, 0, 1, 0), make_float4(0, 0, 0, 1)};
        float4 z = make_float4(0, 0, 0, 0);
        CK(cudaMemcpy2DToArray(l0, 0, 0, oh, 32, 32, 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy2DToArray(l1, 0, 0, &z, 16, 16, 1, cudaMemcpyHostToDevice));
        cudaTextureObject_t t = mipTex(m2, true, true, 0, 0, 10);
        std::vector<float4> c;
        for (int i = 0; i < 300; ++i) {
            int qx = (i * 37 + 3) % 256, qy = (i * 73 + 11) % 256, ql = (i * 29 + 1) % 256;
            c.push_back(make_float4((0.5f + (qx + 0.25f) / 256) / 2, (0.5f + (qy + 0.25f) / 256) / 2, (ql + 0.25f) / 256, 0));
        }
        float4 *dc, *o;
        CK(cudaMalloc(&dc, c.size() * 16));
        CK(cudaMalloc(&o, c.size() * 16));
        CK(cudaMemcpy(dc, c.data(), c.size() * 16, cudaMemcpyHostToDevice));
        kTri<<<(unsigned)(c.size() + 127) / 128, 128>>>(t, o, dc, (int)c.size());
        CK(cudaGetLastError());
        std::vector<float4> ro(c.size());
        CK(cudaMemcpy(ro.data(), o, ro.size() * 16, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < c.size(); ++i) {
            int qx = ((int)i * 37 + 3) % 256, qy = ((int)i * 73 + 11) % 256, ql = ((int)i * 29 + 1) % 256;
            printf("tri q=(%d,%d) mip %d: *65536 = %.3f %.3f %.3f %.3f\n", qx, qy, ql, ro[i].x * 65536, ro[i].y * 65536,
                   ro[i].z * 65536, ro[i].w * 65536);
        }
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeMipmappedArray(m2));
    }

    // ---- free: a level on its own ----
    {
        cudaArray_t a2;
        CK(cudaGetMipmappedArrayLevel(&a2, mm, 2));
        cudaError_t e = cudaFreeArray(a2);
        printf("free: cudaFreeArray(level 2) -> %s; cudaGetLastError -> %s\n", cudaGetErrorName(e),
               cudaGetErrorName(cudaGetLastError()));
        std::vector<float> back(8 * 4, -1);
        e = cudaMemcpy2DFromArray(back.data(), 32, a2, 0, 0, 32, 4, cudaMemcpyDeviceToHost);
        printf("free: copy from the freed level handle -> %s, first %g last %g; last error %s\n", cudaGetErrorName(e), back[0],
               back[31], cudaGetErrorName(cudaGetLastError()));
        cudaArray_t again;
        e = cudaGetMipmappedArrayLevel(&again, mm, 2);
        printf("free: level 2 again -> %s, same handle %d\n", cudaGetErrorName(e), e == cudaSuccess && again == a2);
        if (e == cudaSuccess) {
            e = cudaMemcpy2DFromArray(back.data(), 32, again, 0, 0, 32, 4, cudaMemcpyDeviceToHost);
            printf("free: copy from level 2 again -> %s, first %g\n", cudaGetErrorName(e), back[0]);
            cudaExtent ext;
            unsigned fl;
            e = cudaArrayGetInfo(nullptr, &ext, &fl, again);
            printf("free: cudaArrayGetInfo -> %s %zux%zux%zu flags %u\n", cudaGetErrorName(e), ext.width, ext.height, ext.depth, fl);
        }
        cudaGetLastError();
        // sampling level 2 through the texture after the free
        cudaTextureObject_t t = mipTex(mm, false, false, 0, 0, 10);
        float two = 2.0f;
        CK(cudaMemcpy(dl, &two, 4, cudaMemcpyHostToDevice));
        kLod<<<1, 1>>>(t, out, dl, 1, 0.5f, 0.5f);
        e = cudaDeviceSynchronize();
        float v = -1;
        cudaMemcpy(&v, out, 4, cudaMemcpyDeviceToHost);
        printf("free: tex2DLod level 2 after the free -> %s value %g\n", cudaGetErrorName(e), v);
        cudaDestroyTextureObject(t);
        e = cudaFreeArray(a2);
        printf("free: cudaFreeArray(level 2) a second time -> %s\n", cudaGetErrorName(e));
        cudaGetLastError();
        cudaArray_t l0;
        CK(cudaGetMipmappedArrayLevel(&l0, mm, 0));
        e = cudaFreeArray(l0);
        printf("free: cudaFreeArray(level 0) -> %s\n", cudaGetErrorName(e));
        cudaGetLastError();
        e = cudaFreeMipmappedArray(mm);
        printf("free: cudaFreeMipmappedArray -> %s\n", cudaGetErrorName(e));
        e = cudaFreeMipmappedArray(mm);
        printf("free: cudaFreeMipmappedArray again -> %s\n", cudaGetErrorName(e));
        cudaGetLastError();
        // a level of a mipmapped array created with cudaArraySurfaceLoadStore (like tex_mipmap)
        cudaMipmappedArray_t m3;
        CK(cudaMallocMipmappedArray(&m3, &cd, make_cudaExtent(W, H, 0), 10, cudaArraySurfaceLoadStore));
        cudaArray_t a3;
        CK(cudaGetMipmappedArrayLevel(&a3, m3, 2));
        e = cudaFreeArray(a3);
        printf("free: surface-load-store mipmap, cudaFreeArray(level 2) -> %s\n", cudaGetErrorName(e));
        cudaGetLastError();
        e = cudaFreeMipmappedArray(m3);
        printf("free: then cudaFreeMipmappedArray -> %s\n", cudaGetErrorName(e));
        cudaGetLastError();
    }
    printf("done\n");
    return 0;
}
