// Independent thread scheduling: a spin lock taken by the lanes of one warp inside divergent
// code. Every lane of every warp increments a plain (non-atomic) counter under the lock, once
// with a per-block lock and counter in shared memory and once with one lock and counter in
// global memory shared by all blocks. Each increment also records which thread drew which
// ticket, so a lost update or a double ticket is caught. Needs sm_70+ scheduling: with the
// pre-Volta reconvergence stack (--simt ipdom) the lane that wins the lock waits to reconverge
// with the lanes spinning on it, and ptxsim reports a livelock.
static const char *kName = "its_spinlock";
#include "../../kernels/test_common.h"

__device__ void acquire(int *lock) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
}

__device__ void release(int *lock) {
  __threadfence();
  atomicExch(lock, 0);
}

__global__ void sharedCounter(unsigned *perBlock, unsigned *tickets) {
  __shared__ int lock;
  __shared__ unsigned counter;
  if (threadIdx.x == 0) {
    lock = 0;
    counter = 0;
  }
  __syncthreads();
  acquire(&lock);
  volatile unsigned *c = &counter;
  unsigned v = *c;
  *c = v + 1;
  tickets[blockIdx.x * blockDim.x + v] = threadIdx.x;
  release(&lock);
  __syncthreads();
  if (threadIdx.x == 0)
    perBlock[blockIdx.x] = counter;
}

__global__ void globalCounter(int *lock, unsigned *counter, unsigned *tickets) {
  // only some lanes take part, in a data-dependent branch
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  if ((tid * 7u) % 3u != 1u) {
    acquire(lock);
    volatile unsigned *c = counter;
    unsigned v = *c;
    *c = v + 1;
    tickets[v] = tid;
    release(lock);
  }
}

int main() {
  const int blocks = 3, threads = 64, n = blocks * threads;
  unsigned *perBlock, *tickets, *counter;
  int *lock;
  CK(cudaMallocManaged(&perBlock, blocks * sizeof(unsigned)));
  CK(cudaMallocManaged(&tickets, n * sizeof(unsigned)));
  CK(cudaMallocManaged(&counter, sizeof(unsigned)));
  CK(cudaMallocManaged(&lock, sizeof(int)));
  for (int i = 0; i < n; ++i)
    tickets[i] = ~0u;
  sharedCounter<<<blocks, threads>>>(perBlock, tickets);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (int b = 0; b < blocks; ++b) {
    EXPECT(perBlock[b] == (unsigned)threads, "block %d counted %u, want %d", b, perBlock[b], threads);
    unsigned seen[threads] = {};
    for (int t = 0; t < threads; ++t) {
      unsigned who = tickets[b * threads + t];
      EXPECT(who < (unsigned)threads && !seen[who], "block %d ticket %d went to thread %u", b, t, who);
      if (who < (unsigned)threads)
        seen[who] = 1;
    }
  }

  *counter = 0;
  *lock = 0;
  for (int i = 0; i < n; ++i)
    tickets[i] = ~0u;
  globalCounter<<<blocks, threads>>>(lock, counter, tickets);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned want = 0;
  for (unsigned t = 0; t < (unsigned)n; ++t)
    want += (t * 7u) % 3u != 1u;
  EXPECT(*counter == want, "global counter %u, want %u", *counter, want);
  unsigned char *seen = (unsigned char *)calloc(n, 1);
  for (unsigned t = 0; t < want; ++t) {
    unsigned who = tickets[t];
    EXPECT(who < (unsigned)n && (who * 7u) % 3u != 1u && !seen[who], "ticket %u went to thread %u", t, who);
    if (who < (unsigned)n)
      seen[who] = 1;
  }
  free(seen);
  EXPECT(*lock == 0, "lock left taken");
  return finish();
}
