// hwapi probe: virtual_functions' expression-tree kernel (recursive virtual eval/depth on objects
// placement-new'ed in a 768-byte local arena) under several cudaLimitStackSize values, each in a
// fresh child process (a fault is sticky): which limits fault. Also cudaFuncGetAttributes.
#include <cstdio>
#include <new>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

struct Expr {
  __device__ virtual ~Expr() {}
  __device__ virtual long long eval(long long x) const = 0;
  __device__ virtual int depth() const { return 1; }
};
struct Const : Expr { long long v; __device__ Const(long long v_) : v(v_) {} __device__ long long eval(long long) const override { return v; } };
struct Var : Expr { __device__ long long eval(long long x) const override { return x; } };
struct Bin : Expr {
  const Expr *l, *r;
  __device__ Bin(const Expr *a, const Expr *b) : l(a), r(b) {}
  __device__ int depth() const override { int a = l->depth(), b = r->depth(); return 1 + (a > b ? a : b); }
};
struct Add : Bin { __device__ Add(const Expr *a, const Expr *b) : Bin(a, b) {} __device__ long long eval(long long x) const override { return l->eval(x) + r->eval(x); } };
struct Mul : Bin { __device__ Mul(const Expr *a, const Expr *b) : Bin(a, b) {} __device__ long long eval(long long x) const override { return l->eval(x) * r->eval(x); } };
struct Sub : Bin { __device__ Sub(const Expr *a, const Expr *b) : Bin(a, b) {} __device__ long long eval(long long x) const override { return l->eval(x) - r->eval(x); } };

__global__ void exprTrees(int n, long long *val, int *depth, int maxLevels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  alignas(16) char arena[24 * 32];
  int used = 0;
  auto alloc = [&](size_t bytes) { void *p = arena + used; used += (int)((bytes + 15) & ~15); return p; };
  const Expr *x = new (alloc(sizeof(Var))) Var();
  const Expr *e = x;
  int levels = i % maxLevels + 2;
  for (int l = 0; l < levels; ++l) {
    const Expr *c = new (alloc(sizeof(Const))) Const(l * 3 + i % 4);
    const Expr *m = new (alloc(sizeof(Mul))) Mul(e, x);
    if ((l + i) % 2) e = new (alloc(sizeof(Add))) Add(m, c);
    else e = new (alloc(sizeof(Sub))) Sub(m, c);
  }
  val[i] = e->eval(i % 11 - 5);
  depth[i] = e->depth();
}

static void run(size_t stack, int maxLevels) {
  pid_t pid = fork();
  if (pid == 0) {
    size_t def = 0;
    cudaDeviceGetLimit(&def, cudaLimitStackSize);
    cudaError_t se = stack ? cudaDeviceSetLimit(cudaLimitStackSize, stack) : cudaSuccess;
    size_t now = 0;
    cudaDeviceGetLimit(&now, cudaLimitStackSize);
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, exprTrees);
    long long *v; int *d;
    cudaMalloc(&v, 256 * 8); cudaMalloc(&d, 256 * 4);
    exprTrees<<<2, 128>>>(256, v, d, maxLevels);
    cudaError_t le = cudaGetLastError();
    cudaError_t e = cudaDeviceSynchronize();
    printf("default stack %zu, set %zu (%s) -> now %zu; localSizeBytes %zu; levels up to %d: launch %s, sync %s\n",
           def, stack, cudaGetErrorName(se), now, fa.localSizeBytes, maxLevels + 1, cudaGetErrorName(le), cudaGetErrorName(e));
    fflush(stdout);
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  for (size_t s : {size_t(0), size_t(1024), size_t(1280), size_t(1536), size_t(2048), size_t(4096)}) run(s, 6);
  for (int lv : {1, 2, 3, 4, 5}) run(0, lv);
  printf("DONE\n");
  return 0;
}
