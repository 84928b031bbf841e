// Contended global atomics for the correlation set (issue 31, item 2): same-address atomicAdd
// from the lanes of one warp, from the warps of one CTA and from every SM; one address per warp
// (coalesced within the warp, spread over the L2 slices); 64 addresses from all threads; a float
// atomicAdd on one word; an atomicCAS loop on one word; a kernel mixing atomicAdd, atomicCAS and
// atomicExch on four words from all threads. Each kernel runs once, in this order (= the launch
// index of the correlation data), prints its cycles per CTA (%clock64) and is checked. The CAS
// loops and the mix run only with the argument `all`: on an H200 they took 0.09-2.9 M cycles
// (cas_cta, varying from run to run by 30x), 153 M (cas_grid) and 457 M (mix), far too long to
// simulate and, for cas_cta, not reproducible enough to correlate (tools/hw/data/
// h200-2026-11-28-fidelity). Any other argument names the one case to run (warp_same, cta_same,
// grid_same, grid_same_red, warp_per_word, grid_64words, grid_same_f32, cas_cta, cas_grid, mix):
// a quick measurement of one kernel under the model, not a correlated run.
// Build: nvcc -cudart shared -O2 -arch=sm_90.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

__device__ long long g_cyc[1024];
__device__ __forceinline__ long long clk() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
#define T0 long long t0_ = clk();
#define T1 if (threadIdx.x == 0) g_cyc[blockIdx.x] = clk() - t0_;

// All threads add 1 to word `addr[(tid / div) % mod]`, `iters` times (atomicAdd with its result
// used, so it is an ATOM, not a RED).
__global__ void add_to(unsigned *addr, int div, int mod, int iters, unsigned *sink) {
  T0
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, acc = 0;
  unsigned *p = addr + (tid / div) % mod * 32;  // 128 bytes apart
  for (int i = 0; i < iters; ++i) acc += atomicAdd(p, 1u);
  T1
  if (acc == 0xffffffffu) sink[0] = acc;
}
// The same without using the result (RED).
__global__ void red_to(unsigned *addr, int div, int mod, int iters) {
  T0
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *p = addr + (tid / div) % mod * 32;
  for (int i = 0; i < iters; ++i) atomicAdd(p, 1u);
  T1
}
__global__ void addf_one(float *addr, int iters, float *sink) {
  T0
  float acc = 0.f;
  for (int i = 0; i < iters; ++i) acc += atomicAdd(addr, 1.0f);
  T1
  if (acc < 0.f) sink[0] = acc;
}
// Each thread increments the word `iters` times with a CAS loop.
__global__ void cas_loop(unsigned *addr, int iters) {
  T0
  for (int i = 0; i < iters; ++i) {
    unsigned old = *(volatile unsigned *)addr, seen;
    while ((seen = atomicCAS(addr, old, old + 1)) != old) old = seen;
  }
  T1
}
// Mix on four words: add, CAS increment, exchange.
__global__ void mix(unsigned *w, int iters, unsigned *sink) {
  T0
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, acc = 0;
  for (int i = 0; i < iters; ++i) {
    acc += atomicAdd(&w[0], 1u);
    unsigned old = w[32], seen;
    while ((seen = atomicCAS(&w[32], old, old + 1)) != old) old = seen;
    acc += atomicExch(&w[64 + (tid & 1) * 32], tid);
  }
  T1
  if (acc == 0xffffffffu) sink[0] = acc;
}

static void report(const char *name, int nb, double per, const char *unit) {
  std::vector<long long> c(nb);
  CHECK(cudaMemcpyFromSymbol(c.data(), g_cyc, nb * sizeof(long long)));
  long long mx = 0;
  double avg = 0;
  for (long long v : c) { avg += v; mx = v > mx ? v : mx; }
  avg /= nb;
  printf("KERNEL %-16s ctas %4d cta_cycles_avg %10.1f max %8lld", name, nb, avg, mx);
  if (per > 0) printf("  %s %.3f", unit, mx / per);
  printf("\n");
}

int main(int argc, char **argv) {
  int sms = 0, fails = 0;
  const std::string arg = argc > 1 ? argv[1] : "";
  const bool all = arg == "all";
  auto run = [&](const char *name) { return arg.empty() || all || arg == name; };
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned *w, *sink;
  float *f;
  CHECK(cudaMalloc(&w, 4096 * 32 * 4));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMalloc(&f, 4));
  std::vector<unsigned> h(4096 * 32);
  auto sum = [&](int words) {
    CHECK(cudaMemcpy(h.data(), w, words * 32 * 4, cudaMemcpyDeviceToHost));
    unsigned long long s = 0;
    for (int i = 0; i < words; ++i) s += h[i * 32];
    return s;
  };
  struct Case { const char *name; int grid, block, div, mod, iters; bool red; };
  const Case cases[] = {
      {"warp_same", 1, 32, 32, 1, 512, false},          // one warp, all lanes one word
      {"cta_same", 1, 1024, 1024, 1, 64, false},        // 32 warps of one CTA, one word
      {"grid_same", sms, 512, 1 << 30, 1, 8, false},    // every SM, one word
      {"grid_same_red", sms, 512, 1 << 30, 1, 8, true}, // the same as RED
      {"warp_per_word", sms, 512, 32, 4096, 32, false}, // one word per warp (coalesced in the warp)
      {"grid_64words", sms, 512, 1, 64, 8, false},      // lanes spread over 64 words
  };
  for (const Case &c : cases) {
    if (!run(c.name)) continue;
    CHECK(cudaMemset(w, 0, 4096 * 32 * 4));
    if (c.red) red_to<<<c.grid, c.block>>>(w, c.div, c.mod, c.iters);
    else add_to<<<c.grid, c.block>>>(w, c.div, c.mod, c.iters, sink);
    CHECK(cudaDeviceSynchronize());
    int warps_per_word = c.mod == 1 ? c.grid * c.block / 32 : 1;
    report(c.name, c.grid, (double)c.iters * warps_per_word, "cycles_per_warp_atomic_on_a_word");
    unsigned long long want = (unsigned long long)c.grid * c.block * c.iters;
    if (sum(c.mod) != want) { printf("%s: sum %llu want %llu\n", c.name, sum(c.mod), want); fails++; }
  }
  if (run("grid_same_f32")) {
    CHECK(cudaMemset(f, 0, 4));
    addf_one<<<sms, 256>>>(f, 4, (float *)sink);
    CHECK(cudaDeviceSynchronize());
    report("grid_same_f32", sms, 4.0 * sms * 8, "cycles_per_warp_atomic_on_a_word");
    float hf;
    CHECK(cudaMemcpy(&hf, f, 4, cudaMemcpyDeviceToHost));
    if (hf != (float)(sms * 256 * 4)) fails++;
  }
  if (arg.empty()) {
    if (fails) { printf("FAIL atomics_contended (%d checks)\n", fails); return 1; }
    printf("PASS atomics_contended\n");
    return 0;
  }
  if (run("cas_cta")) {
    CHECK(cudaMemset(w, 0, 4));
    cas_loop<<<1, 512>>>(w, 8);
    CHECK(cudaDeviceSynchronize());
    report("cas_cta", 1, 512 * 8, "cycles_per_successful_cas");
    if (sum(1) != 512 * 8) fails++;
  }
  if (run("cas_grid")) {
    CHECK(cudaMemset(w, 0, 4));
    cas_loop<<<sms, 128>>>(w, 2);
    CHECK(cudaDeviceSynchronize());
    report("cas_grid", sms, sms * 128 * 2, "cycles_per_successful_cas");
    if (sum(1) != (unsigned long long)sms * 128 * 2) fails++;
  }
  if (run("mix")) {
    CHECK(cudaMemset(w, 0, 4096 * 32 * 4));
    mix<<<sms, 256>>>(w, 2, sink);
    CHECK(cudaDeviceSynchronize());
    report("mix", sms, 0, "");
    CHECK(cudaMemcpy(h.data(), w, 64 * 4, cudaMemcpyDeviceToHost));
    if (h[0] != (unsigned)sms * 256 * 2 || h[32] != (unsigned)sms * 256 * 2) fails++;
  }
  if (fails) { printf("FAIL atomics_contended (%d checks)\n", fails); return 1; }
  printf("PASS atomics_contended\n");
  return 0;
}
