// Independent thread scheduling: __match_any_sync and __shfl_sync after divergence. Lanes of a
// warp first take a spin lock one by one (which leaves them running apart under independent
// thread scheduling), then group themselves by key with __match_any_sync over the full warp and
// read their group leader's value with __shfl_sync; a second kernel shuffles with a partial
// member mask inside a data-dependent branch and votes after it.
static const char *kName = "its_match_shfl";
#include "../../kernels/test_common.h"

__global__ void afterLock(const int *keys, int *lock, unsigned *order, unsigned *groups, int *leaderVals) {
  __shared__ unsigned next;
  if (threadIdx.x == 0)
    next = 0;
  __syncthreads();
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  unsigned mine = next;
  next = mine + 1;
  __threadfence();
  atomicExch(lock, 0);
  order[tid] = mine;
  int key = keys[tid];
  unsigned g = __match_any_sync(0xffffffffu, key);
  int leader = __ffs(g) - 1;
  int val = __shfl_sync(0xffffffffu, (int)tid * 10, leader);
  groups[tid] = g;
  leaderVals[tid] = val;
}

__global__ void partialMask(const int *keys, int *out, unsigned *ballots) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
  int k = keys[tid];
  int r = -1;
  if (lane < 20) {
    int x = k * 2 + (int)lane;
    if (k & 1)
      x += 1000; // divergence inside the branch
    r = __shfl_sync(0x000fffffu, x, (lane + 1) % 20);
  }
  unsigned b = __ballot_sync(0xffffffffu, r > 500);
  out[tid] = r;
  ballots[tid] = b;
}

int main() {
  const int blocks = 2, threads = 64, n = blocks * threads;
  int *keys, *lock, *leaderVals, *out;
  unsigned *order, *groups, *ballots;
  CK(cudaMallocManaged(&keys, n * sizeof(int)));
  CK(cudaMallocManaged(&lock, sizeof(int)));
  CK(cudaMallocManaged(&leaderVals, n * sizeof(int)));
  CK(cudaMallocManaged(&out, n * sizeof(int)));
  CK(cudaMallocManaged(&order, n * sizeof(unsigned)));
  CK(cudaMallocManaged(&groups, n * sizeof(unsigned)));
  CK(cudaMallocManaged(&ballots, n * sizeof(unsigned)));
  for (int i = 0; i < n; ++i)
    keys[i] = (i * 7) % 5;
  *lock = 0;
  afterLock<<<blocks, threads>>>(keys, lock, order, groups, leaderVals);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (int b = 0; b < blocks; ++b) {
    unsigned seen[threads] = {};
    for (int x = 0; x < threads; ++x) {
      unsigned o = order[b * threads + x];
      EXPECT(o < (unsigned)threads && !seen[o], "block %d: order %u twice or out of range", b, o);
      if (o < (unsigned)threads)
        seen[o] = 1;
    }
  }
  for (int i = 0; i < n; ++i) {
    int w = i - i % 32;
    unsigned want = 0;
    for (int l = 0; l < 32; ++l)
      if (keys[w + l] == keys[i])
        want |= 1u << l;
    EXPECT(groups[i] == want, "match: thread %d got %08x, want %08x", i, groups[i], want);
    int leader = __builtin_ctz(want);
    EXPECT(leaderVals[i] == (w + leader) * 10, "shfl: thread %d got %d", i, leaderVals[i]);
  }

  partialMask<<<blocks, threads>>>(keys, out, ballots);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    int w = i - i % 32, lane = i % 32;
    int want = -1;
    if (lane < 20) {
      int src = (lane + 1) % 20, k = keys[w + src];
      want = k * 2 + src + ((k & 1) ? 1000 : 0);
    }
    EXPECT(out[i] == want, "partial shfl: thread %d got %d, want %d", i, out[i], want);
    unsigned wb = 0;
    for (int l = 0; l < 20; ++l) {
      int src = (l + 1) % 20, k = keys[w + src];
      if (k * 2 + src + ((k & 1) ? 1000 : 0) > 500)
        wb |= 1u << l;
    }
    EXPECT(ballots[i] == wb, "ballot: thread %d got %08x, want %08x", i, ballots[i], wb);
  }
  return finish();
}
