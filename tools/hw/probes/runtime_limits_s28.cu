// What CUDA 13 returns for the questions issue 28's changes assumed (allocation sizes that overflow,
// large stack limits, stream/event queries of unfinished work and the last error, host functions'
// thread, cudaEventElapsedTime on an unreached record, IPC handle of one's own allocation).
// Prints one line per question: the call and the error name it returned.
#include <cstdio>
#include <cstdint>
#include <thread>
#include <cuda_runtime.h>

#define SHOW(call) do { cudaError_t e_ = (call); printf("%-70s -> %s\n", #call, cudaGetErrorName(e_)); } while (0)

__global__ void waitFlag(volatile int *flag) { while (*flag == 0) { } }

static std::thread::id g_hostFnThread;
static void CUDART_CB hostFn(void *) { g_hostFnThread = std::this_thread::get_id(); }

int main() {
  void *p = nullptr; size_t pitch = 0;
  SHOW(cudaMalloc(&p, SIZE_MAX));
  SHOW(cudaGetLastError());
  SHOW(cudaMalloc(&p, SIZE_MAX / 2));
  SHOW(cudaMalloc(&p, (size_t)1 << 50));
  SHOW(cudaMallocManaged(&p, SIZE_MAX));
  SHOW(cudaMallocManaged(&p, (size_t)1 << 50));
  SHOW(cudaMallocHost(&p, SIZE_MAX));
  SHOW(cudaMallocHost(&p, (size_t)1 << 50));
  SHOW(cudaHostAlloc(&p, SIZE_MAX, cudaHostAllocMapped));
  SHOW(cudaMallocPitch(&p, &pitch, SIZE_MAX, 2));
  SHOW(cudaMallocPitch(&p, &pitch, (size_t)1 << 40, (size_t)1 << 40));
  SHOW(cudaMallocPitch(&p, &pitch, 1024, SIZE_MAX / 512));
  cudaPitchedPtr pp; SHOW(cudaMalloc3D(&pp, make_cudaExtent((size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 30)));
  cudaStream_t s; cudaStreamCreate(&s);
  SHOW(cudaMallocAsync(&p, SIZE_MAX, s));
  SHOW(cudaStreamSynchronize(s));
  SHOW(cudaGetLastError());
  size_t freeB = 0, totalB = 0; cudaMemGetInfo(&freeB, &totalB);
  printf("memGetInfo free %zu total %zu\n", freeB, totalB);
  size_t stack = 0;
  cudaDeviceGetLimit(&stack, cudaLimitStackSize); printf("default stack %zu\n", stack);
  for (size_t mb : {1, 8, 64, 256, 1024}) {
    cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, mb << 20);
    cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    cudaMemGetInfo(&freeB, &totalB);
    printf("cudaDeviceSetLimit(stack, %zu MiB) -> %s; limit now %zu; free %zu\n", mb, cudaGetErrorName(e), stack, freeB);
    cudaGetLastError();
  }
  cudaDeviceSetLimit(cudaLimitStackSize, 1024);
  // Queries of unfinished work and the last error.
  int *flag = nullptr; cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped); *flag = 0;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a, s);
  waitFlag<<<1, 1, 0, s>>>(flag);
  cudaEventRecord(b, s);
  cudaLaunchHostFunc(s, hostFn, nullptr);
  SHOW(cudaStreamQuery(s));
  SHOW(cudaEventQuery(b));
  float ms = 0; SHOW(cudaEventElapsedTime(&ms, a, b));
  SHOW(cudaGetLastError());
  SHOW(cudaPeekAtLastError());
  void *q = nullptr; SHOW(cudaMalloc(&q, 1 << 20));
  __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
  SHOW(cudaStreamSynchronize(s));
  printf("host function on the caller's thread: %s\n", g_hostFnThread == std::this_thread::get_id() ? "yes" : "no");
  cudaIpcMemHandle_t h; SHOW(cudaIpcGetMemHandle(&h, q));
  void *o = nullptr; SHOW(cudaIpcOpenMemHandle(&o, h, cudaIpcMemLazyEnablePeerAccess));
  SHOW(cudaDeviceSetLimit(cudaLimitMallocHeapSize, SIZE_MAX));
  SHOW(cudaGetLastError());
  return 0;
}
