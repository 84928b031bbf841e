// Load-latency probe for comparing ptxsim's timing model with the H100 figures of the micro set
// (../shared/hw/h100/micro, chase.cu): one thread chases 8-byte pointers at the start of 128-byte
// lines and times the hops with clock64(). Prints METRIC lines like the hardware programs:
//   lat_l1      ld.global over 64 lines already visited (L1 hits)          H100: 32
//   lat_l2      ld.global.cg over 64 lines already visited (L2 hits)       H100: 276
//   lat_cold    ld.global.cg over lines no kernel touched, after a 128 MiB memset has pushed the
//               copied chain out of the L2 (DRAM, L2 cold; micro/chase.cu does the same with 256
//               MiB)                                                       H100: ~680 (lat_cold_cg)
// Usage: latency [hops]   (default 256)
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void chase(const unsigned long long *start, int warm, int hops, int cg, long long *out) {
  const unsigned long long *p = start;
  for (int i = 0; i < warm; ++i) p = (const unsigned long long *)*p;
  long long t0 = clock64();
  for (int i = 0; i < hops; ++i)
    p = cg ? (const unsigned long long *)__ldcg(p) : (const unsigned long long *)*p;
  long long t1 = clock64();
  out[0] = t1 - t0;
  out[1] = (long long)p;
}

int main(int argc, char **argv) {
  int hops = argc > 1 ? atoi(argv[1]) : 256;
  const size_t line = 128, stride = 4096 + line;  // new DRAM row and L2 set each hop
  size_t n = (size_t)hops * 4 + 64;
  std::vector<unsigned long long> host(n * stride / 8, 0);
  unsigned long long *d;
  long long *out, h[2];
  cudaMalloc(&d, n * stride);
  cudaMalloc(&out, 16);
  auto build = [&](size_t first, size_t count, bool cycle) {
    for (size_t i = 0; i < count; ++i) {
      size_t next = (i + 1 == count && cycle) ? first : first + i + 1;
      host[(first + i) * stride / 8] = (unsigned long long)d + next * stride;
    }
  };
  build(0, 64, true);             // 64 lines in a cycle: warmed, then L1 / L2 hits
  build(64, n - 64, false);       // a long chain of untouched lines
  cudaMemcpy(d, host.data(), n * stride, cudaMemcpyHostToDevice);
  void *flush; // the copy leaves the chain in the L2: write over 2.5x the L2 (50 MiB) before the chases
  cudaMalloc(&flush, 128u << 20);
  cudaMemset(flush, 0, 128u << 20);
  const char *names[3] = {"lat_l1", "lat_l2", "lat_cold"};
  for (int k = 0; k < 3; ++k) {
    const unsigned long long *s = k < 2 ? d : (const unsigned long long *)((char *)d + 64 * stride);
    chase<<<1, 1>>>(s, k < 2 ? 64 : 0, hops, k >= 1, out);
    cudaMemcpy(h, out, 16, cudaMemcpyDeviceToHost);
    printf("METRIC %s %.2f cycles\n", names[k], (double)h[0] / hops);
  }
  return 0;
}
