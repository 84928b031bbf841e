// Host-API chiplet program for the transport tests: every chiplet sends ROUNDS messages of
// varying length to every other chiplet (and one to itself), then receives them all in a
// different order than they were sent and checks every word. Prints its clock and a checksum.
//   allpairs [rounds] [at_round [hang|stop|busy SEC|deadlock] [X,Y]]   at round at_round chiplet
//   (X,Y) (default (1,1)) is killed; or with `hang` stops taking part without exiting; with
//   `stop` stops itself (SIGSTOP); with `busy` computes for SEC seconds (longer than the timeout:
//   it must not be declared dead); with `deadlock` receives a word nobody sends.

#include "isa_ext/chiplet/include/ptxsim_chiplet_host.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <string>
#include <unistd.h>
#include <vector>

static int word(int sx, int sy, int dx, int dy, int round, int i) {
  return ((sx * 16 + sy) * 256 + dx * 16 + dy) * 100000 + round * 1000 + i;
}

int main(int argc, char **argv) {
  int x, y, w, h;
  if (!ptxsimChipletSelf(&x, &y, &w, &h)) {
    std::fprintf(stderr, "not a chiplet run\n");
    return 2;
  }
  int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  int dieAt = argc > 2 ? std::atoi(argv[2]) : -1;
  std::string mode = argc > 3 ? argv[3] : "";
  int vx = 1, vy = 1;
  const char *victim = mode == "busy" ? (argc > 5 ? argv[5] : nullptr) : (argc > 4 ? argv[4] : nullptr);
  if (victim && std::sscanf(victim, "%d,%d", &vx, &vy) != 2) {
    std::fprintf(stderr, "allpairs: bad chiplet '%s' (X,Y)\n", victim);
    return 2;
  }
  bool isVictim = x == vx && y == vy;
  long long sum = 0;
  for (int r = 0; r < rounds; ++r) {
    if (r == dieAt && isVictim && mode == "busy") {
      // host computation between chiplet operations, longer than the launcher's --timeout
      double sec = argc > 4 ? std::atof(argv[4]) : 5, f = 1;
      auto t0 = std::chrono::steady_clock::now();
      while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < sec)
        for (int k = 0; k < 100000; ++k)
          f = f * 1.0000001 + 1e-9;
      if (f < 0)
        return 3;
    } else if (r == dieAt && isVictim && mode != "deadlock") {
      if (mode == "hang") // stay alive without taking part
        for (;;)
          pause();
      std::raise(mode == "stop" ? SIGSTOP : SIGKILL);
    }
    for (int dy = 0; dy < h; ++dy)
      for (int dx = 0; dx < w; ++dx) {
        int n = 1 + (r * 7 + dx * 3 + dy * 5 + x + y) % 40;
        std::vector<int> msg(n);
        for (int i = 0; i < n; ++i)
          msg[i] = word(x, y, dx, dy, r, i);
        sendGpuMessage(dx, dy, x, y, msg.data(), n);
      }
    ptxsimChipletAdvance(100 + 10 * x + y); // some host work between rounds
    // receive in reverse order of sources
    for (int sy = h - 1; sy >= 0; --sy)
      for (int sx = w - 1; sx >= 0; --sx) {
        int n = 1 + (r * 7 + x * 3 + y * 5 + sx + sy) % 40;
        std::vector<int> got(n);
        readGpuMessage(sx, sy, x, y, got.data(), n);
        for (int i = 0; i < n; ++i) {
          if (got[i] != word(sx, sy, x, y, r, i)) {
            std::printf("FAIL: word %d of round %d from (%d,%d) is %d, want %d\n", i, r, sx, sy,
                        got[i], word(sx, sy, x, y, r, i));
            return 1;
          }
          sum += got[i];
        }
      }
    if (r == dieAt && isVictim && mode == "deadlock") {
      int never; // a message to itself it never sends: everybody ends up waiting
      readGpuMessage(x, y, x, y, &never, 1);
    }
  }
  std::printf("chiplet (%d,%d) clock %llu checksum %lld PASS\n", x, y,
              (unsigned long long)ptxsimChipletClock(), sum);
  return 0;
}
