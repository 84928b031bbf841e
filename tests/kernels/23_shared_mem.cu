// ptxsim test kernel: shared_mem
// Self-checking: prints PASS shared_mem / FAIL shared_mem.
static const char* kName = "shared_mem";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Dynamic shared memory (extern __shared__, size chosen at launch, carved into
// several typed arrays), static shared arrays (1D and 2D), and a kernel using both.

__global__ void dyn_only(const float* in, float* out, int* iout, int n) {
    extern __shared__ unsigned char smem[];
    float* fs = (float*)smem;                      // blockDim.x floats
    int* is = (int*)(smem + blockDim.x * sizeof(float));  // blockDim.x ints
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    fs[t] = g < n ? in[g] : 0.0f;
    is[t] = g;
    __syncthreads();
    int j = (t + 5) % blockDim.x;
    if (g < n) { out[g] = fs[j] * 2.0f; iout[g] = is[blockDim.x - 1 - t]; }
}

#define TS 16
__global__ void static_and_dyn(const int* in, int* out, int width) {
    __shared__ int tile[TS][TS + 1];
    __shared__ int rowsum[TS];
    extern __shared__ int dyn[];  // blockDim.x * blockDim.y ints
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * TS + tx, y = blockIdx.y * TS + ty;
    int v = in[y * width + x];
    tile[ty][tx] = v;
    dyn[ty * TS + tx] = v * 10;
    __syncthreads();
    if (tx == 0) { int s = 0; for (int k = 0; k < TS; ++k) s += tile[ty][k]; rowsum[ty] = s; }
    __syncthreads();
    out[y * width + x] = tile[tx][ty] + rowsum[ty] + dyn[(TS - 1 - ty) * TS + (TS - 1 - tx)];
}

int main() {
    const int n = 1000;
    float hin[n];
    for (int i = 0; i < n; ++i) hin[i] = i * 0.25f - 7.0f;
    float *din, *dout; int* diout;
    CK(cudaMalloc(&din, sizeof(hin))); CK(cudaMalloc(&dout, sizeof(hin))); CK(cudaMalloc(&diout, n * sizeof(int)));
    CK(cudaMemcpy(din, hin, sizeof(hin), cudaMemcpyHostToDevice));
    float out[n]; int iout[n];
    const int blocks[2] = {128, 96};
    for (int r = 0; r < 2; ++r) {  // two different dynamic sizes
        int B = blocks[r];
        size_t shm = B * (sizeof(float) + sizeof(int));
        dyn_only<<<(n + B - 1) / B, B, shm>>>(din, dout, diout, n);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(iout, diout, sizeof(iout), cudaMemcpyDeviceToHost));
        for (int g = 0; g < n; ++g) {
            int b = g / B, t = g % B, j = (t + 5) % B, src = b * B + j;
            float e = (src < n ? hin[src] : 0.0f) * 2.0f;
            int ei = b * B + (B - 1 - t);
            EXPECT(out[g] == e, "B=%d out[%d]=%f expected %f", B, g, out[g], e);
            EXPECT(iout[g] == ei, "B=%d iout[%d]=%d expected %d", B, g, iout[g], ei);
        }
    }
    const int W = 32, H = 48;
    int h2[W * H], o2[W * H];
    for (int i = 0; i < W * H; ++i) h2[i] = (i * 7) % 31 - 9;
    int *d2in, *d2out;
    CK(cudaMalloc(&d2in, sizeof(h2))); CK(cudaMalloc(&d2out, sizeof(h2)));
    CK(cudaMemcpy(d2in, h2, sizeof(h2), cudaMemcpyHostToDevice));
    static_and_dyn<<<dim3(W / TS, H / TS), dim3(TS, TS), TS * TS * sizeof(int)>>>(d2in, d2out, W);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(o2, d2out, sizeof(o2), cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            int bx = x / TS, by = y / TS, tx = x % TS, ty = y % TS;
            int tr = h2[(by * TS + tx) * W + bx * TS + ty];
            int rs = 0; for (int k = 0; k < TS; ++k) rs += h2[(by * TS + ty) * W + bx * TS + k];
            int dv = h2[(by * TS + TS - 1 - ty) * W + bx * TS + TS - 1 - tx] * 10;
            EXPECT(o2[y * W + x] == tr + rs + dv, "2d (%d,%d)=%d expected %d", x, y, o2[y * W + x], tr + rs + dv);
        }
    cudaFree(din); cudaFree(dout); cudaFree(diout); cudaFree(d2in); cudaFree(d2out);
    return finish();
}
