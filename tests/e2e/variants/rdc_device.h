// Declarations shared by the two translation units of the separate-compilation (-rdc=true) test.
#pragma once

// Defined in rdc_device.cu, used by kernels in rdc_main.cu.
extern __device__ int g_calls;        // how many times polynomial() ran
extern __device__ float g_coeffs[4];  // its coefficients (set from the host)
__device__ float polynomial(float x); // g_coeffs[0] + g_coeffs[1] x + ... + g_coeffs[3] x^3
__device__ int clampIndex(int i, int n);

// Defined in rdc_main.cu, used by polynomial() in rdc_device.cu.
extern __device__ float g_bias;

// A kernel defined in rdc_device.cu, launched from rdc_main.cu.
__global__ void fillSquares(int *out, int n);
