// Helpers shared by the ptxsim samples: a CUDA error check and a deterministic pseudo-random
// generator, so every run (and the host reference) sees the same input.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Runs a CUDA runtime call; on failure prints the call, the error and FAIL, and exits with 1.
#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::printf("%s:%d: %s failed: %s\nFAIL\n", __FILE__, __LINE__, #call,                       \
                  cudaGetErrorString(err_));                                                       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// xorshift32: small, fast and identical on every platform.
struct Rng {
  uint32_t state;
  explicit Rng(uint32_t seed) : state(seed ? seed : 1u) {}
  uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * (next() >> 8) * (1.0f / 16777216.0f);
  }
};

// Prints the verdict line the tests look for and returns the exit status.
inline int report(const char *name, bool ok) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  return ok ? 0 : 1;
}
