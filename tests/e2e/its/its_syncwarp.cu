// Independent thread scheduling: __syncwarp with partial and full masks. (1) Each half of a warp
// exchanges data through shared memory, synchronised by __syncwarp with its own half's mask
// inside a branch on the half. (2) Odd lanes wait at one __syncwarp() for the even lanes, which
// store first and reach another __syncwarp() in the other branch; sm_70+ lets the two meet, so
// the odd lanes read what the even lanes stored. (3) Groups of 4 lanes that took different
// numbers of loop iterations meet at __syncwarp(groupMask) after the loop.
static const char *kName = "its_syncwarp";
#include "../../kernels/test_common.h"

__global__ void halves(unsigned *out) {
  __shared__ unsigned s[256];
  unsigned lane = threadIdx.x % 32, base = threadIdx.x - lane;
  unsigned r;
  if (lane < 16) {
    s[threadIdx.x] = lane * 3 + 1;
    __syncwarp(0x0000ffffu);
    r = s[base + (lane ^ 5)];
  } else {
    s[threadIdx.x] = lane * 5 + 2;
    __syncwarp(0xffff0000u);
    r = s[base + 16 + ((lane - 16 + 3) % 16)];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

__global__ void handoff(unsigned *out) {
  __shared__ unsigned s[256];
  unsigned lane = threadIdx.x % 32;
  unsigned r;
  if (lane & 1) {
    __syncwarp();              // waits for the even lanes' stores
    r = s[threadIdx.x - 1] + 1;
  } else {
    s[threadIdx.x] = threadIdx.x * 11 + blockIdx.x;
    __syncwarp();
    r = s[threadIdx.x];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

__global__ void groupsOfFour(const unsigned *trips, unsigned *out) {
  __shared__ unsigned s[256];
  unsigned lane = threadIdx.x % 32, g = lane / 4;
  unsigned mask = 0xfu << (g * 4);
  unsigned acc = 0;
  for (unsigned i = 0; i < trips[blockIdx.x * blockDim.x + threadIdx.x]; ++i)
    acc += i * lane + 1;
  s[threadIdx.x] = acc;
  __syncwarp(mask);
  unsigned sum = 0;
  for (unsigned k = 0; k < 4; ++k)
    sum += s[threadIdx.x - lane + g * 4 + k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main() {
  const int blocks = 2, threads = 128, n = blocks * threads;
  unsigned *out, *trips;
  CK(cudaMallocManaged(&out, n * sizeof(unsigned)));
  CK(cudaMallocManaged(&trips, n * sizeof(unsigned)));

  halves<<<blocks, threads>>>(out);
  CK(cudaDeviceSynchronize());
  for (int t = 0; t < n; ++t) {
    unsigned lane = t % 32;
    unsigned want = lane < 16 ? (lane ^ 5) * 3 + 1 : (16 + (lane - 16 + 3) % 16) * 5 + 2;
    EXPECT(out[t] == want, "halves: thread %d got %u, want %u", t, out[t], want);
  }

  handoff<<<blocks, threads>>>(out);
  CK(cudaDeviceSynchronize());
  for (int t = 0; t < n; ++t) {
    unsigned b = t / threads, x = t % threads;
    unsigned want = (x & 1) ? (x - 1) * 11 + b + 1 : x * 11 + b;
    EXPECT(out[t] == want, "handoff: thread %d got %u, want %u", t, out[t], want);
  }

  for (int t = 0; t < n; ++t)
    trips[t] = (t * 37u) % 23u;
  groupsOfFour<<<blocks, threads>>>(trips, out);
  CK(cudaDeviceSynchronize());
  for (int t = 0; t < n; ++t) {
    unsigned lane = t % 32, g = lane / 4, sum = 0;
    for (unsigned k = 0; k < 4; ++k) {
      unsigned u = t - lane + g * 4 + k, l = u % 32, acc = 0;
      for (unsigned i = 0; i < trips[u]; ++i)
        acc += i * l + 1;
      sum += acc;
    }
    EXPECT(out[t] == sum, "groupsOfFour: thread %d got %u, want %u", t, out[t], sum);
  }
  return finish();
}
