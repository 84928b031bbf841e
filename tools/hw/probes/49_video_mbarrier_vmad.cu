// hwtex probe (ptxsim branch hwtex): vmad semantics on the GPU. Every variant below runs on
// the same inputs (edge values and pseudo-random words); each line prints the variant, the
// inputs and the result in hex, so the output can be diffed line by line against a simulator.
// Question behind it: tests/kernels/49_video_mbarrier op 14 (vmad.u32.u32.u32.shr15 with
// a=0, b=40, c=0xffffffff) gave 0xffffffff on an H100 where the PTX ISA text (c zero-extended
// for unsigned) gives 0x0001ffff: is c sign-extended, and what do .sat / .po / signed types do?
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NV 40
#define V(i, s) case i: asm(s : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;

__device__ unsigned vm(unsigned a, unsigned b, unsigned c, int k) {
    unsigned d = 0;
    switch (k) {
    V(0, "vmad.u32.u32.u32 %0, %1, %2, %3;")
    V(1, "vmad.u32.u32.u32.shr7 %0, %1, %2, %3;")
    V(2, "vmad.u32.u32.u32.shr15 %0, %1, %2, %3;")
    V(3, "vmad.u32.u32.u32.sat %0, %1, %2, %3;")
    V(4, "vmad.u32.u32.u32.sat.shr15 %0, %1, %2, %3;")
    V(5, "vmad.u32.u32.u32.po %0, %1, %2, %3;")
    V(6, "vmad.u32.u32.u32.po.shr15 %0, %1, %2, %3;")
    V(7, "vmad.u32.u32.u32.shr15 %0, %1.h0, %2.h0, %3;")
    V(8, "vmad.u32.u32.u32.shr7 %0, %1.b0, %2.b1, %3;")
    V(9, "vmad.u32.u32.u32.sat.shr7 %0, %1.h1, %2.b2, %3;")
    V(10, "vmad.s32.s32.s32 %0, %1, %2, %3;")
    V(11, "vmad.s32.s32.s32.shr7 %0, %1, %2, %3;")
    V(12, "vmad.s32.s32.s32.shr15 %0, %1, %2, %3;")
    V(13, "vmad.s32.s32.s32.sat %0, %1, %2, %3;")
    V(14, "vmad.s32.s32.s32.sat.shr15 %0, %1, %2, %3;")
    V(15, "vmad.s32.s32.s32.shr15 %0, %1.h0, %2.h1, %3;")
    V(16, "vmad.s32.s32.s32.sat.shr7 %0, %1.b3, %2.b0, %3;")
    V(17, "vmad.s32.u32.s32 %0, %1, %2, %3;")
    V(18, "vmad.s32.u32.s32.shr15 %0, %1, %2, %3;")
    V(19, "vmad.s32.u32.s32.sat %0, %1, %2, %3;")
    V(20, "vmad.s32.s32.u32.shr7 %0, %1.h1, %2.h0, %3;")
    V(21, "vmad.s32.s32.u32.sat.shr15 %0, %1, %2, %3;")
    V(22, "vmad.u32.s32.s32.shr15 %0, %1, %2, %3;")
    V(23, "vmad.u32.s32.u32.sat %0, %1, %2, %3;")
    V(24, "vmad.u32.u32.s32.sat.shr7 %0, %1.b1, %2.h0, %3;")
    V(25, "vmad.s32.u32.u32 %0, %1, %2, %3;")
    V(26, "vmad.s32.u32.u32.shr15 %0, %1.h0, %2.h0, %3;")
    V(27, "vmad.s32.u32.u32.sat %0, %1, %2, %3;")
    V(28, "vmad.s32.u32.u32.sat.shr15 %0, %1, %2, %3;")
    V(29, "vmad.u32.u32.u32.sat %0, %1.h0, %2.h0, %3;")
    V(30, "vmad.u32.u32.u32.sat.shr15 %0, %1.h1, %2.h1, %3;")
    V(31, "vmad.s32.s32.s32.po %0, %1, %2, %3;")
    V(32, "vmad.s32.s32.s32.po.sat.shr7 %0, %1, %2, %3;")
    V(33, "vmad.u32.u32.u32.po.sat %0, %1, %2, %3;")
    V(34, "vmad.u32.u32.u32.shr7 %0, %1.h0, %2.b0, %3;")
    V(35, "vmad.u32.u32.u32.shr15 %0, %1.b0, %2.b0, %3;")
    V(36, "vmad.s32.s32.s32.shr15 %0, %1.b0, %2.b0, %3;")
    V(37, "vmad.u32.s32.u32.shr15 %0, %1.h0, %2.h0, %3;")
    V(38, "vmad.s32.u32.s32.shr15 %0, %1.h1, %2.h0, %3;")
    default: asm("vmad.u32.u32.u32.sat.shr7 %0, %1.b0, %2.b0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    }
    return d;
}

__global__ void kern(const unsigned *A, const unsigned *B, const unsigned *C, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < NV; ++k) out[i * NV + k] = vm(A[i], B[i], C[i], k);
}

int main() {
    const int n = 48;
    unsigned hA[n], hB[n], hC[n];
    const unsigned edge[][3] = {{0, 40, 0xffffffffu}, {0xffffffffu, 1, 0x7fffffffu}, {0x80808080u, 0x7f7f7f7fu, 0},
                                {0xffffffffu, 0xffffffffu, 0xffffffffu}, {0x7fffffffu, 0x7fffffffu, 0x7fffffffu},
                                {0x80000000u, 0x80000000u, 0x80000000u}, {0xffff, 0xffff, 0xffffffffu},
                                {0x8000, 0x8000, 0x80000000u}, {3, 5, 0xfffffff0u}, {0x10000, 0x10000, 1},
                                {0x12345678u, 0x9abcdef0u, 0x0fedcba9u}, {0xfffffffeu, 2, 0x80000000u}};
    int ne = sizeof edge / sizeof edge[0];
    unsigned x = 12345;
    for (int i = 0; i < n; ++i) {
        if (i < ne) { hA[i] = edge[i][0]; hB[i] = edge[i][1]; hC[i] = edge[i][2]; continue; }
        x = x * 1664525u + 1013904223u; hA[i] = x ^ (x >> 13);
        x = x * 1664525u + 1013904223u; hB[i] = x ^ (x >> 13);
        x = x * 1664525u + 1013904223u; hC[i] = x ^ (x >> 13);
    }
    unsigned *dA, *dB, *dC, *dO;
    cudaMalloc(&dA, n * 4); cudaMalloc(&dB, n * 4); cudaMalloc(&dC, n * 4); cudaMalloc(&dO, n * NV * 4);
    cudaMemcpy(dA, hA, n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, n * 4, cudaMemcpyHostToDevice);
    kern<<<1, 64>>>(dA, dB, dC, dO, n);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("kernel error %s\n", cudaGetErrorName(e)); return 1; }
    static unsigned out[n * NV];
    cudaMemcpy(out, dO, sizeof out, cudaMemcpyDeviceToHost);
    for (int k = 0; k < NV; ++k)
        for (int i = 0; i < n; ++i)
            printf("v%d a=%08x b=%08x c=%08x d=%08x\n", k, hA[i], hB[i], hC[i], out[i * NV + k]);
    printf("done\n");
    return 0;
}
