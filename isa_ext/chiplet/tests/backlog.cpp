// A lagging receiver on a 2x1 grid: (0,0) sends N messages of 8 words to (1,0), which receives
// them all only after 1,000,000 cycles of host work, checking each word. With the files
// transport a send and a receive must cost the same whatever the backlog (tests/scale.sh's
// companion measurement in docs/chiplets.md).
//   backlog [N]

#include "isa_ext/chiplet/include/ptxsim_chiplet_host.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  int x, y, w, h;
  if (!ptxsimChipletSelf(&x, &y, &w, &h) || w != 2 || h != 1) {
    std::fprintf(stderr, "run it with: ptxsim chiplets --grid 2x1 -- ./backlog\n");
    return 2;
  }
  int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  int msg[8];
  if (x == 0) {
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 8; ++k)
        msg[k] = i * 8 + k;
      sendGpuMessage(1, 0, 0, 0, msg, 8);
    }
  } else {
    ptxsimChipletAdvance(1000000);
    for (int i = 0; i < n; ++i) {
      readGpuMessage(0, 0, 1, 0, msg, 8);
      for (int k = 0; k < 8; ++k)
        if (msg[k] != i * 8 + k) {
          std::printf("FAIL: message %d word %d is %d\n", i, k, msg[k]);
          return 1;
        }
    }
  }
  std::printf("chiplet (%d,%d) PASS\n", x, y);
  return 0;
}
