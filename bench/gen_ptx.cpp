// Writes a generated PTX module of N megabytes to stdout (default 10), for timing the CLI:
//   build/bin/gen_ptx 10 > big.ptx && time build/bin/ptxsim ptx check big.ptx
#include "PtxGen.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  double mb = argc > 1 ? std::atof(argv[1]) : 10.0;
  if (mb <= 0 || mb > 4096) {
    std::fprintf(stderr, "usage: gen_ptx [MEGABYTES]  (0 < MEGABYTES <= 4096)\n");
    return 2;
  }
  std::string s = ptxsim::bench::generatePtx(static_cast<size_t>(mb * 1024 * 1024));
  std::fwrite(s.data(), 1, s.size(), stdout);
  return 0;
}
