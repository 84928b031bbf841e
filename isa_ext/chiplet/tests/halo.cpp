// Host-API halo exchange for the synchronization measurements and the scale tests: every round
// each chiplet sends WORDS words to each of its mesh neighbours, charges 20 cycles of host work
// and receives its neighbours' words, checking each one. Few words and many rounds make the
// barriers, not the data, the cost: wall time / barriers is the cost of one synchronization.
//   halo [rounds] [words]

#include "isa_ext/chiplet/include/ptxsim_chiplet_host.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

static int word(int sx, int sy, int dx, int dy, int round, int i) {
  return (((sx * 64 + sy) * 64 + dx) * 64 + dy) * 4 + ((round * 131 + i) & 3);
}

int main(int argc, char **argv) {
  int x, y, w, h;
  if (!ptxsimChipletSelf(&x, &y, &w, &h)) {
    std::fprintf(stderr, "not a chiplet run\n");
    return 2;
  }
  int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  int words = argc > 2 ? std::atoi(argv[2]) : 1;
  const int nb[4][2] = {{0, -1}, {0, 1}, {-1, 0}, {1, 0}};
  std::vector<int> msg(words), got(words);
  long long sum = 0;
  for (int r = 0; r < rounds; ++r) {
    for (auto &d : nb) {
      int dx = x + d[0], dy = y + d[1];
      if (dx < 0 || dy < 0 || dx >= w || dy >= h)
        continue;
      for (int i = 0; i < words; ++i)
        msg[i] = word(x, y, dx, dy, r, i);
      sendGpuMessage(dx, dy, x, y, msg.data(), words);
    }
    ptxsimChipletAdvance(20);
    for (auto &d : nb) {
      int sx = x + d[0], sy = y + d[1];
      if (sx < 0 || sy < 0 || sx >= w || sy >= h)
        continue;
      readGpuMessage(sx, sy, x, y, got.data(), words);
      for (int i = 0; i < words; ++i) {
        if (got[i] != word(sx, sy, x, y, r, i)) {
          std::printf("FAIL: round %d word %d from (%d,%d) is %d, want %d\n", r, i, sx, sy, got[i],
                      word(sx, sy, x, y, r, i));
          return 1;
        }
        sum += got[i];
      }
    }
  }
  std::printf("chiplet (%d,%d) clock %llu checksum %lld PASS\n", x, y,
              (unsigned long long)ptxsimChipletClock(), sum);
  return 0;
}
