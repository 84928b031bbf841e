// Checking helpers for the driver-API test programs (host-only C++ linked with -lcuda).
#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

// Runs a driver call; on error prints it and FAIL, and exits.
#define CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(r_, &n_); printf("driver error '%s' at %s:%d: %s\n", #call, __FILE__, __LINE__, n_); \
    printf("FAIL %s\n", kName); exit(1); } } while (0)

static int g_bad = 0;
static int g_shown = 0;
// Records a mismatch; the first one of each EXPECT (up to 16 in all) is printed with its line.
#define EXPECT(cond, ...) do { static bool seen_ = false; if (!(cond)) { \
    if (!seen_ && g_shown < 16) { seen_ = true; \
      printf("%s (line %d): ", g_shown++ == 0 ? "first mismatch" : "mismatch", __LINE__); \
      printf(__VA_ARGS__); printf("\n"); } \
    ++g_bad; } } while (0)

static int finish() {
  if (g_bad) { printf("FAIL %s (%d mismatches)\n", kName, g_bad); return 1; }
  printf("PASS %s\n", kName);
  return 0;
}

// A file next to this executable (the build puts drv_kernels.ptx and .fatbin there).
static std::string besideMe(const char *name) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string self(buf, n > 0 ? size_t(n) : 0);
  return self.substr(0, self.rfind('/') + 1) + name;
}

// The whole file, NUL-terminated (PTX text must be).
static std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) { printf("cannot open %s\nFAIL %s\n", path.c_str(), kName); exit(1); }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  s.push_back('\0');
  return s;
}
