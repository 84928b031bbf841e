// cudaFuncGetAttributes' localSizeBytes of a program that carries SASS (built with -arch=sm_90):
// the local-memory frame of ptxas's code, as an H200 reports it (tools/hw/probes/
// device_attrs_funcattrs_local.cu), not the PTX's .local declarations: a volatile local array
// ptxas keeps in registers is 0 bytes, one indexed at run time keeps its 256 bytes, and the
// recursive virtual calls of tools/hw/probes/virtual_functions_stack.cu need a 768-byte frame
// where the PTX declares more.
#include <cstdio>
#include <new>
#include <cuda_runtime.h>

static int failures = 0;
#define EXPECT(cond, ...) do { if (!(cond)) { ++failures; printf("mismatch: " __VA_ARGS__); printf("\n"); } } while (0)

__global__ void foldedLocal(const int *idx, float *out) {
  volatile int local[64];
  int t = threadIdx.x;
  for (int i = 0; i < 64; ++i) local[i] = i * t;
  out[t] = local[idx[t] & 63];
}

__global__ void loadedLocal(const int *idx, float *out) {
  int local[64];
  int t = threadIdx.x;
  for (int i = 0; i < 64; ++i) local[i] = idx[(i * 5 + t) & 255] * t;
  out[t] = local[idx[t] & 63];
}

struct Expr {
  __device__ virtual ~Expr() {}
  __device__ virtual long long eval(long long x) const = 0;
};
struct Var : Expr { __device__ long long eval(long long x) const override { return x; } };
struct Add : Expr {
  const Expr *l, *r;
  __device__ Add(const Expr *a, const Expr *b) : l(a), r(b) {}
  __device__ long long eval(long long x) const override { return l->eval(x) + r->eval(x); }
};

__global__ void exprTree(int levels, long long *val) {
  alignas(16) char arena[24 * 32];
  int used = 0;
  auto alloc = [&](size_t bytes) { void *p = arena + used; used += (int)((bytes + 15) & ~15); return p; };
  const Expr *x = new (alloc(sizeof(Var))) Var();
  const Expr *e = x;
  for (int l = 0; l < levels; ++l) e = new (alloc(sizeof(Add))) Add(e, x);
  val[threadIdx.x] = e->eval(threadIdx.x);
}

static size_t localOf(const void *f) {
  cudaFuncAttributes a;
  cudaError_t e = cudaFuncGetAttributes(&a, f);
  EXPECT(e == cudaSuccess, "cudaFuncGetAttributes: %s", cudaGetErrorName(e));
  return e == cudaSuccess ? a.localSizeBytes : size_t(-1);
}

int main() {
  size_t folded = localOf((const void *)foldedLocal), loaded = localOf((const void *)loadedLocal),
         tree = localOf((const void *)exprTree);
  EXPECT(folded == 0, "foldedLocal: localSizeBytes %zu, ptxas's frame is 0", folded);
  EXPECT(loaded == 256, "loadedLocal: localSizeBytes %zu, ptxas's frame is 256", loaded);
  EXPECT(tree == 768, "exprTree: localSizeBytes %zu, ptxas's frame is 768", tree);
  printf(failures ? "FAIL funcattrs_sass\n" : "PASS funcattrs_sass\n");
  return failures != 0;
}
