// hwapi probe: a virtual call on the device through an object built on the host (its vtable
// pointer is a host address): what the synchronising call returns.
#include <cstdio>
#include <new>
struct B { __host__ __device__ virtual int f() const { return 1; } int x = 5; };
struct D : B { __host__ __device__ int f() const override { return 2; } };
__global__ void call(const B *b, int *out) { *out = b->f(); }
int main() {
  D h;  // built on the host: its vtable pointer is a host address
  B *d; int *o;
  cudaMalloc(&d, sizeof(D)); cudaMalloc(&o, 4);
  cudaMemcpy(d, &h, sizeof(D), cudaMemcpyHostToDevice);
  call<<<1, 1>>>(d, o);
  cudaError_t e = cudaDeviceSynchronize();
  printf("host-built object: %s\nDONE\n", cudaGetErrorName(e));
  return 0;
}
