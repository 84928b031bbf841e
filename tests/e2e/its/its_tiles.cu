// Independent thread scheduling: cooperative-groups tiles that synchronise inside divergent
// branches. Tiles of 8 take different branches by their rank and each reduces its values with
// tile.sync() and shuffles there; inside each tile of 4, the first two lanes store to shared
// memory and the last two read it after meeting them at tile.sync() in the other branch.
static const char *kName = "its_tiles";
#include "../../kernels/test_common.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tiles(const int *in, int *sums, int *pairs) {
  __shared__ int s[256];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int r;
  if (t8.meta_group_rank() % 2 == 0) {
    s[threadIdx.x] = v * 2;
    t8.sync();
    r = 0;
    for (int k = 0; k < 8; ++k)
      r += s[threadIdx.x - t8.thread_rank() + k];
  } else {
    for (int off = 4; off > 0; off /= 2)
      v += t8.shfl_down(v, off);
    r = t8.shfl(v, 0) + 1;
    t8.sync();
  }
  sums[blockIdx.x * blockDim.x + threadIdx.x] = r;

  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
  int q;
  if (t4.thread_rank() < 2) {
    s[threadIdx.x] = (int)threadIdx.x * 3 - 5;
    t4.sync();
    q = s[threadIdx.x];
  } else {
    t4.sync();
    q = s[threadIdx.x - 2] + 100;
  }
  pairs[blockIdx.x * blockDim.x + threadIdx.x] = q;
}

int main() {
  const int blocks = 2, threads = 96, n = blocks * threads;
  int *in, *sums, *pairs;
  CK(cudaMallocManaged(&in, n * sizeof(int)));
  CK(cudaMallocManaged(&sums, n * sizeof(int)));
  CK(cudaMallocManaged(&pairs, n * sizeof(int)));
  for (int i = 0; i < n; ++i)
    in[i] = (i * 13) % 29 - 9;
  tiles<<<blocks, threads>>>(in, sums, pairs);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    int x = i % threads, tileBase = i - x % 8, rank = (x / 8), tsum = 0;
    for (int k = 0; k < 8; ++k)
      tsum += in[tileBase + k];
    int want = rank % 2 == 0 ? 2 * tsum : tsum + 1;
    EXPECT(sums[i] == want, "tile sum: thread %d got %d, want %d", i, sums[i], want);
    int wq = x % 4 < 2 ? x * 3 - 5 : (x - 2) * 3 - 5 + 100;
    EXPECT(pairs[i] == wq, "tile pair: thread %d got %d, want %d", i, pairs[i], wq);
  }
  return finish();
}
