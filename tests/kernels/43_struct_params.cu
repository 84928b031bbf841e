// ptxsim test kernel: struct_params
// Self-checking: prints PASS struct_params / FAIL struct_params.
static const char* kName = "struct_params";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cstring>

#include "test_common.h"

// Kernel parameters: a mixed-type struct passed by value (padding, nested struct,
// pointer member, small array), a 64-int struct, a 512-int (2 KiB) struct, many
// scalar parameters of different sizes, and a struct returned by a device function.

struct Inner { short s; double d; };
struct Mixed {
    char c;
    Inner in;
    int arr[3];
    float f;
    const int* ptr;
    unsigned char flags;
    long long ll;
    float2 v;
};
struct Big64 { int v[64]; };
struct Big512 { int v[512]; };

__device__ __noinline__ Mixed make_mixed(int k) {
    Mixed m;
    m.c = (char)k; m.in.s = (short)(k * 2); m.in.d = k * 0.5; m.arr[0] = k; m.arr[1] = -k; m.arr[2] = k * k;
    m.f = k * 0.25f; m.ptr = nullptr; m.flags = (unsigned char)(k | 0x80); m.ll = (long long)k << 33; m.v = make_float2(k, -k);
    return m;
}

__global__ void mixed_kernel(Mixed m, long long* out) {
    int t = threadIdx.x;
    Mixed r = make_mixed(t);
    out[t * 4 + 0] = m.c + m.in.s + (long long)(m.in.d * 4.0) + m.arr[t % 3] + m.ptr[t];
    out[t * 4 + 1] = (long long)(m.f * 8.0f) + m.flags + m.ll + (long long)(m.v.x - m.v.y);
    out[t * 4 + 2] = r.c + r.in.s + r.arr[2] + r.flags + (r.ll >> 33) + (long long)(r.in.d * 2.0 + r.f * 4.0f + r.v.x);
    out[t * 4 + 3] = sizeof(Mixed);
}

__global__ void big_kernel(Big64 a, Big512 b, int* out) {
    int t = threadIdx.x;  // 64 threads
    int s = 0;
    for (int k = 0; k < 8; ++k) s += b.v[t * 8 + k];
    out[t] = a.v[t] * 3 + a.v[63 - t] + s;
}

__global__ void many_scalars(char a, unsigned char b, short c, unsigned short d, int e, unsigned f, long long g,
                             unsigned long long h, float i, double j, bool k, int* out, double* dout) {
    out[0] = a; out[1] = b; out[2] = c; out[3] = d; out[4] = e; out[5] = (int)f; out[6] = (int)(g >> 32);
    out[7] = (int)(h & 0xffffffff); out[8] = (int)(i * 4.0f); out[9] = k ? 1 : 0;
    dout[0] = j * 2.0 + i;
}

int main() {
    int hp[32];
    for (int k = 0; k < 32; ++k) hp[k] = 1000 + k;
    int* dp;
    CK(cudaMalloc(&dp, sizeof(hp)));
    CK(cudaMemcpy(dp, hp, sizeof(hp), cudaMemcpyHostToDevice));
    Mixed m;
    memset(&m, 0, sizeof(m));
    m.c = -5; m.in.s = 300; m.in.d = 2.75; m.arr[0] = 10; m.arr[1] = 20; m.arr[2] = 30; m.f = 1.125f; m.ptr = dp;
    m.flags = 200; m.ll = 1LL << 40; m.v = make_float2(7.0f, -3.0f);
    long long* dout;
    CK(cudaMalloc(&dout, 32 * 4 * 8));
    mixed_kernel<<<1, 32>>>(m, dout);
    CK(cudaGetLastError());
    Big64 a; Big512 b;
    for (int k = 0; k < 64; ++k) a.v[k] = k * k - 7;
    for (int k = 0; k < 512; ++k) b.v[k] = (k * 31) % 97;
    int* dbig;
    CK(cudaMalloc(&dbig, 64 * 4));
    big_kernel<<<1, 64>>>(a, b, dbig);
    CK(cudaGetLastError());
    int* dsc; double* dsd;
    CK(cudaMalloc(&dsc, 10 * 4)); CK(cudaMalloc(&dsd, 8));
    many_scalars<<<1, 1>>>((char)-100, (unsigned char)250, (short)-30000, (unsigned short)60000, -123456789, 4000000000u,
                           0x7654321012345678LL, 0xfedcba9876543210ULL, 2.75f, -1.5, true, dsc, dsd);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    long long out[128]; int big[64], sc[10]; double sd;
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(big, dbig, sizeof(big), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sc, dsc, sizeof(sc), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&sd, dsd, sizeof(sd), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; ++t) {
        long long e0 = -5 + 300 + 11 + m.arr[t % 3] + hp[t];
        long long e1 = 9 + 200 + (1LL << 40) + 10;
        long long e2 = (char)t + (short)(t * 2) + t * t + (unsigned char)(t | 0x80) + t + (long long)(t * 0.5 * 2.0 + t * 0.25f * 4.0f + t);
        EXPECT(out[t * 4] == e0, "mixed0 [%d]=%lld expected %lld", t, out[t * 4], e0);
        EXPECT(out[t * 4 + 1] == e1, "mixed1 [%d]=%lld expected %lld", t, out[t * 4 + 1], e1);
        EXPECT(out[t * 4 + 2] == e2, "mixed2 [%d]=%lld expected %lld", t, out[t * 4 + 2], e2);
        EXPECT(out[t * 4 + 3] == (long long)sizeof(Mixed), "sizeof(Mixed) device %lld host %zu", out[t * 4 + 3], sizeof(Mixed));
    }
    for (int t = 0; t < 64; ++t) {
        int s = 0; for (int k = 0; k < 8; ++k) s += b.v[t * 8 + k];
        EXPECT(big[t] == a.v[t] * 3 + a.v[63 - t] + s, "big [%d]=%d", t, big[t]);
    }
    int esc[10] = {-100, 250, -30000, 60000, -123456789, (int)4000000000u, 0x76543210, (int)0x76543210u, 11, 1};
    for (int k = 0; k < 10; ++k) EXPECT(sc[k] == esc[k], "scalar %d = %d expected %d", k, sc[k], esc[k]);
    EXPECT(sd == -3.0 + 2.75, "double scalar %f", sd);
    cudaFree(dp); cudaFree(dout); cudaFree(dbig); cudaFree(dsc); cudaFree(dsd);
    return finish();
}
