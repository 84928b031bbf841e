// ptxsim test kernel: atomics_float
// Self-checking: prints PASS atomics_float / FAIL atomics_float.
#include <cmath>
static const char* kName = "atomics_float";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// float and double atomicAdd on global and shared memory, atomicExch on float,
// using returned values. Inputs are multiples of 1/8 so sums are exact.

__global__ void fatomics(const float* fin, const double* din, float* fsum, float* fbins, double* dsum,
                         double* dbins, float* fold, float* blocksums) {
    __shared__ float sblock;
    __shared__ double sdouble;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) { sblock = 0.0f; sdouble = 0.0; }
    __syncthreads();
    float f = fin[t];
    double d = din[t];
    fold[t] = atomicAdd(fsum, f);         // old value returned (order dependent: checked as range)
    atomicAdd(&fbins[t % 16], f);
    atomicAdd(dsum, d);
    atomicAdd(&dbins[t % 8], d * 2.0);
    atomicAdd(&sblock, f);
    atomicAdd(&sdouble, d);
    __syncthreads();
    if (threadIdx.x == 0) {
        blocksums[blockIdx.x * 2] = sblock;
        blocksums[blockIdx.x * 2 + 1] = (float)sdouble;
        atomicExch(&fbins[16 + blockIdx.x], sblock * 0.5f);
    }
}

int main() {
    const int B = 256, G = 4, n = B * G;
    float hf[n]; double hd[n];
    for (int i = 0; i < n; ++i) { hf[i] = ((i * 13) % 41 - 20) * 0.125f; hd[i] = ((i * 7) % 33) * 0.0625; }
    float *dfin, *dfsum, *dfbins, *dfold, *dbs; double *ddin, *ddsum, *ddbins;
    CK(cudaMalloc(&dfin, sizeof(hf))); CK(cudaMalloc(&ddin, sizeof(hd)));
    CK(cudaMalloc(&dfsum, sizeof(float))); CK(cudaMalloc(&dfbins, (16 + G) * sizeof(float)));
    CK(cudaMalloc(&ddsum, sizeof(double))); CK(cudaMalloc(&ddbins, 8 * sizeof(double)));
    CK(cudaMalloc(&dfold, n * sizeof(float))); CK(cudaMalloc(&dbs, 2 * G * sizeof(float)));
    CK(cudaMemcpy(dfin, hf, sizeof(hf), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddin, hd, sizeof(hd), cudaMemcpyHostToDevice));
    CK(cudaMemset(dfsum, 0, sizeof(float))); CK(cudaMemset(dfbins, 0, (16 + G) * sizeof(float)));
    CK(cudaMemset(ddsum, 0, sizeof(double))); CK(cudaMemset(ddbins, 0, 8 * sizeof(double)));
    fatomics<<<G, B>>>(dfin, ddin, dfsum, dfbins, ddsum, ddbins, dfold, dbs);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float fsum, fbins[16 + G], fold[n], bs[2 * G]; double dsum, dbins[8];
    CK(cudaMemcpy(&fsum, dfsum, sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(fbins, dfbins, sizeof(fbins), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(fold, dfold, sizeof(fold), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bs, dbs, sizeof(bs), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&dsum, ddsum, sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dbins, ddbins, sizeof(dbins), cudaMemcpyDeviceToHost));
    double efsum = 0, edsum = 0, efb[16] = {0}, edb[8] = {0}, eblk[G] = {0}, edblk[G] = {0};
    double minpref = 0, maxpref = 0, pos = 0, neg = 0;
    for (int i = 0; i < n; ++i) {
        efsum += hf[i]; edsum += hd[i]; efb[i % 16] += hf[i]; edb[i % 8] += hd[i] * 2.0;
        eblk[i / B] += hf[i]; edblk[i / B] += hd[i];
        if (hf[i] > 0) pos += hf[i]; else neg += hf[i];
    }
    minpref = neg; maxpref = pos;
    EXPECT(fabs(fsum - efsum) < 1e-4, "float sum %f expected %f", fsum, efsum);
    EXPECT(fabs(dsum - edsum) < 1e-9, "double sum %f expected %f", dsum, edsum);
    for (int k = 0; k < 16; ++k) EXPECT(fabs(fbins[k] - efb[k]) < 1e-4, "fbin %d %f expected %f", k, fbins[k], efb[k]);
    for (int k = 0; k < 8; ++k) EXPECT(fabs(dbins[k] - edb[k]) < 1e-9, "dbin %d %f expected %f", k, dbins[k], edb[k]);
    for (int b = 0; b < G; ++b) {
        EXPECT(fabs(bs[2 * b] - eblk[b]) < 1e-4, "shared float block %d %f expected %f", b, bs[2 * b], eblk[b]);
        EXPECT(fabs(bs[2 * b + 1] - edblk[b]) < 1e-4, "shared double block %d %f expected %f", b, bs[2 * b + 1], edblk[b]);
        EXPECT(fabs(fbins[16 + b] - eblk[b] * 0.5) < 1e-4, "exch block %d %f expected %f", b, fbins[16 + b], eblk[b] * 0.5);
    }
    // every returned old value is a partial sum, so it lies within [sum of negatives, sum of positives]
    // and values are multiples of 1/8
    int zeros = 0;
    for (int i = 0; i < n; ++i) {
        EXPECT(fold[i] >= minpref - 1e-3 && fold[i] <= maxpref + 1e-3, "old value %d out of range: %f", i, fold[i]);
        EXPECT(fold[i] * 8.0f == floorf(fold[i] * 8.0f), "old value %d not a multiple of 1/8: %f", i, fold[i]);
        if (fold[i] == 0.0f) zeros++;
    }
    EXPECT(zeros >= 1, "no thread saw the initial value 0");
    cudaFree(dfin); cudaFree(ddin); cudaFree(dfsum); cudaFree(dfbins); cudaFree(ddsum); cudaFree(ddbins);
    cudaFree(dfold); cudaFree(dbs);
    return finish();
}
