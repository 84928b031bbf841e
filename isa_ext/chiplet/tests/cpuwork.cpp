// A CPU chiplet whose host work grows with an argument, for the CPU model's tests
// (docs/chiplets.md): chiplet (0,0) runs WORK rounds of a sort of 4096 pseudo-random words and a
// strided walk over a 1 MiB table (branches, mispredictions, cache misses), sends the checksum of
// each round to (1,0) and reads (1,0)'s acknowledgement; (1,0) computes the same checksums and
// checks them. Every chiplet prints its clock. At load time a helper thread runs a job the loading
// code waits for, as the CUDA runtime's service thread registers a program's kernels: the end of
// its wait for the next job may run after main has begun, and the CPU model must let it finish
// before it measures. With `napper`, (0,0) also runs a thread that wakes
// every 200 us while it works: the CPU model must report that thread's instructions (it shares
// callgrind's simulated caches) rather than give other cycles silently.
//   cpuwork WORK [napper]

#include "isa_ext/chiplet/include/ptxsim_chiplet_host.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <time.h>

// static data: its addresses do not depend on the environment or on what the transport allocated
static uint32_t gKeys[4096];
static uint32_t gTable[1 << 18];

/// Runs jobs on a thread of its own and waits for each (WorkerPool::runOffCaller's pattern).
class Helper {
public:
  void run(void (*job)()) {
    std::unique_lock<std::mutex> l(m_);
    if (!t_.joinable())
      t_ = std::thread([this] {
        std::unique_lock<std::mutex> l(m_);
        for (;;) {
          wake_.wait(l, [this] { return job_ != nullptr; });
          job_();
          job_ = nullptr;
          done_.notify_one(); // the caller goes on; this thread goes back to its wait
        }
      });
    job_ = job;
    wake_.notify_one();
    done_.wait(l, [this] { return job_ == nullptr; });
  }

private:
  std::mutex m_;
  std::condition_variable wake_, done_;
  void (*job_)() = nullptr;
  std::thread t_;
};
static uint32_t gLoaded;
static const bool gLoadTimeJob = [] {
  static auto *helper = new Helper; // never destroyed: its thread waits to the end
  helper->run([] { gLoaded = 1; });
  return true;
}();

static int roundChecksum(int r) {
  uint32_t s = 12345u + (uint32_t)r * 2654435761u;
  for (uint32_t &k : gKeys) {
    s = s * 1664525u + 1013904223u;
    k = s >> 8;
  }
  std::sort(gKeys, gKeys + 4096);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < (1u << 18); i += 16) // one word per 64-byte line
    sum += gTable[(i * 7u + (uint32_t)r * 64u) & ((1u << 18) - 1)] + (uint32_t)i;
  for (int i = 0; i < 4096; i += 64)
    sum = sum * 31u + gKeys[i];
  return (int)(sum & 0x7fffffff);
}

int main(int argc, char **argv) {
  int x, y, w, h;
  if (!ptxsimChipletSelf(&x, &y, &w, &h) || w != 2 || h != 1) {
    std::fprintf(stderr, "cpuwork runs on a 2x1 chiplet grid\n");
    return 2;
  }
  int work = argc > 1 ? std::atoi(argv[1]) : 1;
  if (work < 1 || work > 1000) {
    std::fprintf(stderr, "cpuwork: WORK must be 1..1000\n");
    return 2;
  }
  for (uint32_t i = 0; i < (1u << 18); ++i)
    gTable[i] = i * 2246822519u;
  std::atomic<bool> stop{false};
  std::thread napper;
  if (x == 0 && argc > 2 && std::strcmp(argv[2], "napper") == 0)
    napper = std::thread([&stop] {
      while (!stop.load()) {
        timespec t = {0, 200000};
        nanosleep(&t, nullptr);
      }
    });
  bool ok = true;
  for (int r = 0; r < work; ++r) {
    int sum[1];
    if (x == 0) {
      sum[0] = roundChecksum(r);
      sendGpuMessage(1, 0, 0, 0, sum, 1);
      readGpuMessage(1, 0, 0, 0, sum, 1);
      ok = ok && sum[0] == r;
    } else {
      readGpuMessage(0, 0, 1, 0, sum, 1);
      ok = ok && sum[0] == roundChecksum(r);
      int ack[1] = {r};
      sendGpuMessage(0, 0, 1, 0, ack, 1);
    }
  }
  if (napper.joinable()) {
    stop = true;
    napper.join();
  }
  std::printf("chiplet (%d,%d) work %d clock %llu %s\n", x, y, work,
              (unsigned long long)ptxsimChipletClock(), ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
