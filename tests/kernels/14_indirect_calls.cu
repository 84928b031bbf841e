// ptxsim test kernel: indirect_calls
// Self-checking: prints PASS indirect_calls / FAIL indirect_calls.
#include <new>
static const char* kName = "indirect_calls";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Indirect calls: a __device__ table of function pointers, a function pointer
// passed from the host (obtained with cudaMemcpyFromSymbol), and virtual
// functions on objects constructed in device memory with placement new.

typedef int (*binop_t)(int, int);

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_xor(int a, int b) { return a ^ b; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }

__device__ binop_t d_ops[5] = {op_add, op_sub, op_mul, op_xor, op_max};
__device__ binop_t d_selected = op_mul;

__global__ void call_table(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        binop_t f = d_ops[(a[i] + i) % 5 < 0 ? -((a[i] + i) % 5) : (a[i] + i) % 5];  // data-dependent, divergent
        out[i] = f(a[i], b[i]);
    }
}

__global__ void call_param(binop_t f, const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(a[i], b[i]);
}

struct Shape {
    int id;
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
    __device__ virtual ~Shape() {}
};
struct Rect : Shape {
    float w, h;
    __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
    __device__ float area() const override { return w * h; }
    __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
    float b, h;
    __device__ Tri(float b_, float h_) : b(b_), h(h_) {}
    __device__ float area() const override { return 0.5f * b * h; }
    __device__ int sides() const override { return 3; }
};
struct Circle : Shape {
    float r;
    __device__ Circle(float r_) : r(r_) {}
    __device__ float area() const override { return 3.0f * r * r; }  // "pi = 3" keeps it exact
};

#define SLOT 32  // bytes reserved per object
__global__ void make_shapes(unsigned char* storage, Shape** ptrs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    void* p = storage + (size_t)i * SLOT;
    Shape* s;
    switch (i % 3) {
        case 0: s = new (p) Rect(1.0f + i % 5, 2.0f); break;
        case 1: s = new (p) Tri(2.0f * (i % 4), 3.0f); break;
        default: s = new (p) Circle(0.5f * (i % 6)); break;
    }
    s->id = i;
    ptrs[i] = s;
}

__global__ void use_shapes(Shape* const* ptrs, float* areas, int* sides, int* ids, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Shape* s = ptrs[(i * 7) % n];
    areas[i] = s->area();
    sides[i] = s->sides();
    ids[i] = s->id;
}

static int h_op(int k, int a, int b) {
    switch (k) { case 0: return a + b; case 1: return a - b; case 2: return a * b; case 3: return a ^ b; default: return a > b ? a : b; }
}

int main() {
    const int n = 200;
    int ha[n], hb[n];
    for (int i = 0; i < n; ++i) { ha[i] = (i * 13) % 71 - 30; hb[i] = (i * 5) % 23 + 1; }
    int *da, *db, *dout, *dout2;
    CK(cudaMalloc(&da, sizeof(ha))); CK(cudaMalloc(&db, sizeof(hb)));
    CK(cudaMalloc(&dout, sizeof(ha))); CK(cudaMalloc(&dout2, sizeof(ha)));
    CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
    call_table<<<(n + 63) / 64, 64>>>(da, db, dout, n);
    CK(cudaGetLastError());
    binop_t hf;
    CK(cudaMemcpyFromSymbol(&hf, d_selected, sizeof(binop_t)));
    call_param<<<(n + 63) / 64, 64>>>(hf, da, db, dout2, n);
    CK(cudaGetLastError());

    const int ns = 90;
    unsigned char* storage; Shape** ptrs; float* dareas; int *dsides, *dids;
    CK(cudaMalloc(&storage, ns * SLOT)); CK(cudaMalloc(&ptrs, ns * sizeof(Shape*)));
    CK(cudaMalloc(&dareas, ns * sizeof(float))); CK(cudaMalloc(&dsides, ns * sizeof(int))); CK(cudaMalloc(&dids, ns * sizeof(int)));
    make_shapes<<<3, 32>>>(storage, ptrs, ns);
    CK(cudaGetLastError());
    use_shapes<<<3, 32>>>(ptrs, dareas, dsides, dids, ns);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    int out[n], out2[n]; float areas[ns]; int sides[ns], ids[ns];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out2, dout2, sizeof(out2), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(areas, dareas, sizeof(areas), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sides, dsides, sizeof(sides), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ids, dids, sizeof(ids), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        int k = (ha[i] + i) % 5; if (k < 0) k = -k;
        EXPECT(out[i] == h_op(k, ha[i], hb[i]), "table call [%d] op %d got %d expected %d", i, k, out[i], h_op(k, ha[i], hb[i]));
        EXPECT(out2[i] == ha[i] * hb[i], "param fptr [%d] got %d expected %d", i, out2[i], ha[i] * hb[i]);
    }
    for (int i = 0; i < ns; ++i) {
        int j = (i * 7) % ns;
        float ea; int es;
        switch (j % 3) {
            case 0: ea = (1.0f + j % 5) * 2.0f; es = 4; break;
            case 1: ea = 0.5f * (2.0f * (j % 4)) * 3.0f; es = 3; break;
            default: { float r = 0.5f * (j % 6); ea = 3.0f * r * r; es = 0; }
        }
        EXPECT(areas[i] == ea, "virtual area [%d] got %f expected %f", i, areas[i], ea);
        EXPECT(sides[i] == es, "virtual sides [%d] got %d expected %d", i, sides[i], es);
        EXPECT(ids[i] == j, "id [%d] got %d expected %d", i, ids[i], j);
    }
    cudaFree(da); cudaFree(db); cudaFree(dout); cudaFree(dout2);
    cudaFree(storage); cudaFree(ptrs); cudaFree(dareas); cudaFree(dsides); cudaFree(dids);
    return finish();
}
