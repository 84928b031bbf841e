// Independent thread scheduling: a lock-free producer/consumer queue between lanes of one
// warp. Even lanes produce a sequence into a small ring buffer in shared memory, the odd lane
// next to each consumes it; head and tail are single-writer indices. The ring holds fewer
// items than are sent, so producer and consumer must take turns while diverged: with the
// pre-Volta reconvergence stack (--simt ipdom) the side that runs first spins forever and
// ptxsim reports a livelock.
static const char *kName = "its_prodcons";
#include "../../kernels/test_common.h"

constexpr int kCap = 4;      // ring slots per pair
constexpr int kItems = 200;  // items sent per pair

__device__ unsigned item(unsigned pair, unsigned i) { return pair * 1000003u + i * i + 7u; }

__global__ void pairs(unsigned long long *sums, unsigned *orderOk) {
  const int pairsPerBlock = blockDim.x / 2;
  extern __shared__ unsigned smem[];
  unsigned *ring = smem;                          // kCap per pair
  volatile unsigned *head = smem + kCap * pairsPerBlock; // written by the producer
  volatile unsigned *tail = head + pairsPerBlock;        // written by the consumer
  unsigned p = threadIdx.x / 2;
  unsigned gp = blockIdx.x * pairsPerBlock + p;
  if (threadIdx.x % 2 == 0) {
    head[p] = 0;
    tail[p] = 0;
  }
  __syncthreads();
  if (threadIdx.x % 2 == 0) { // producer
    for (unsigned i = 0; i < kItems; ++i) {
      while (head[p] - tail[p] == kCap) {
      }
      ((volatile unsigned *)ring)[p * kCap + head[p] % kCap] = item(gp, i);
      __threadfence_block();
      head[p] = head[p] + 1;
    }
  } else { // consumer
    unsigned long long sum = 0;
    unsigned ok = 1;
    for (unsigned i = 0; i < kItems; ++i) {
      while (tail[p] == head[p]) {
      }
      __threadfence_block();
      unsigned v = ((volatile unsigned *)ring)[p * kCap + tail[p] % kCap];
      ok &= v == item(gp, i);
      sum += v;
      tail[p] = tail[p] + 1;
    }
    sums[gp] = sum;
    orderOk[gp] = ok;
  }
}

int main() {
  const int blocks = 3, threads = 64, pairsPerBlock = threads / 2, np = blocks * pairsPerBlock;
  unsigned long long *sums;
  unsigned *ok;
  CK(cudaMallocManaged(&sums, np * sizeof(unsigned long long)));
  CK(cudaMallocManaged(&ok, np * sizeof(unsigned)));
  size_t shared = (kCap + 2) * pairsPerBlock * sizeof(unsigned);
  pairs<<<blocks, threads, shared>>>(sums, ok);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (unsigned gp = 0; gp < (unsigned)np; ++gp) {
    unsigned long long want = 0;
    for (unsigned i = 0; i < kItems; ++i)
      want += gp * 1000003u + i * i + 7u;
    EXPECT(ok[gp] == 1, "pair %u received items out of order", gp);
    EXPECT(sums[gp] == want, "pair %u sum %llu, want %llu", gp, sums[gp], want);
  }
  return finish();
}
