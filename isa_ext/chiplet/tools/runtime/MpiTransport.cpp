// The `mpi` transport (libptxsim_chiplet_mpi.so, loaded only when PTXSIM_CHIPLET_TRANSPORT=mpi):
// rank r is chiplet (r % width, r / width). At each barrier every rank sends every other rank one
// message: its status, the trace records of its sends since the last barrier, and the words it
// sent to that rank; every rank then decides the next barrier from the same statuses and
// records, so no rank leads. Point-to-point messages (not a collective) let a barrier that
// waits too long name the ranks it still misses. Rank 0 writes every chiplet's trace file
// (`bench.<x>.<y>`, the document's format) and statistics at the end, so several hosts need no
// shared directory.

#include "isa_ext/chiplet/tools/runtime/Endpoint.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <thread>

namespace ptxsim::chiplet {
namespace {

constexpr int kTag = 4711;

struct Header {
  uint64_t cycle, clock, needEnd;
  uint32_t state, waitFrom;
  uint64_t nRecords, nWords;
};
struct WireRecord {
  uint64_t time;
  uint32_t sx, sy, dx, dy, bytes, pad;
};

class MpiTransport : public Transport {
public:
  bool start(const EndpointConfig &cfg, uint64_t, std::string &err) override {
    cfg_ = cfg;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
      int provided;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if ((unsigned)size_ != cfg.count()) {
      err = "mpirun started " + std::to_string(size_) + " ranks for a " +
            std::to_string(cfg.width) + "x" + std::to_string(cfg.height) + " grid (needs " +
            std::to_string(cfg.count()) + ")";
      return false;
    }
    if ((unsigned)rank_ != cfg.index()) {
      err = "rank " + std::to_string(rank_) + " is not chiplet index " +
            std::to_string(cfg.index());
      return false;
    }
    outWords_.resize(size_);
    inbox_.resize(size_);
    seqs_.assign(size_, 0);
    allLines_.resize(size_);
    return true;
  }

  bool send(const TraceRecord &rec, unsigned dstIndex, const uint32_t *words, size_t n,
            std::string &) override {
    myRecords_.push_back(rec);
    outWords_[dstIndex].insert(outWords_[dstIndex].end(), words, words + n);
    return true;
  }

  bool barrier(uint64_t cycle, const SyncStatus &mine, const DecideFn &decide, uint64_t &next,
               std::string &err) override {
    std::vector<std::vector<uint8_t>> bufs(size_);
    std::vector<MPI_Request> reqs;
    for (int r = 0; r < size_; ++r) {
      Header h{cycle, mine.clock, mine.needEnd, (uint32_t)mine.state, mine.waitFrom,
               myRecords_.size(), outWords_[r].size()};
      std::vector<uint8_t> &b = bufs[r];
      b.resize(sizeof h + myRecords_.size() * sizeof(WireRecord) + outWords_[r].size() * 4);
      std::memcpy(b.data(), &h, sizeof h);
      uint8_t *p = b.data() + sizeof h;
      for (const TraceRecord &t : myRecords_) {
        WireRecord w{t.time, t.sx, t.sy, t.dx, t.dy, t.bytes, 0};
        std::memcpy(p, &w, sizeof w);
        p += sizeof w;
      }
      if (!outWords_[r].empty())
        std::memcpy(p, outWords_[r].data(), outWords_[r].size() * 4);
      if (r == rank_)
        continue;
      reqs.emplace_back();
      MPI_Isend(b.data(), (int)b.size(), MPI_BYTE, r, kTag, MPI_COMM_WORLD, &reqs.back());
    }
    std::vector<SyncStatus> all(size_);
    if (!absorb(rank_, bufs[rank_], cycle, all[rank_], err))
      return false;
    std::vector<bool> got(size_, false);
    got[rank_] = true;
    int left = size_ - 1;
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds((int64_t)(cfg_.timeoutSec * 1000));
    unsigned idle = 0;
    while (left > 0) {
      bool progressed = false;
      for (int r = 0; r < size_; ++r) {
        if (got[r])
          continue;
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(r, kTag, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
          continue;
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        std::vector<uint8_t> b((size_t)bytes);
        MPI_Recv(b.data(), bytes, MPI_BYTE, r, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!absorb(r, b, cycle, all[r], err))
          return false;
        got[r] = true;
        --left;
        progressed = true;
      }
      if (progressed) {
        idle = 0;
        continue;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        std::string who;
        for (int r = 0; r < size_; ++r)
          if (!got[r])
            who += (who.empty() ? "chiplet (" : ", (") + std::to_string(r % cfg_.width) + "," +
                   std::to_string(r / cfg_.width) + ") [rank " + std::to_string(r) + "]";
        err = "timed out after " + std::to_string((int)cfg_.timeoutSec) +
              " s at the barrier at cycle " + std::to_string(cycle) + " waiting for " + who +
              " (never arrived: crashed or stuck)";
        return false;
      }
      // MPI has no blocking probe with a timeout: back off from 50 us to 2 ms between probes.
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(2000u, 50u << std::min(idle, 6u))));
      ++idle;
    }
    MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);
    myRecords_.clear();
    for (auto &w : outWords_)
      w.clear();
    next = decide(all, err);
    return next != kDeadlock;
  }

  bool absorb(int src, const std::vector<uint8_t> &b, uint64_t cycle, SyncStatus &st,
              std::string &err) {
    Header h;
    if (b.size() < sizeof h) {
      err = "short barrier message from rank " + std::to_string(src);
      return false;
    }
    std::memcpy(&h, b.data(), sizeof h);
    if (h.cycle != cycle || b.size() != sizeof h + h.nRecords * sizeof(WireRecord) + h.nWords * 4) {
      err = "rank " + std::to_string(src) + " is at the barrier at cycle " +
            std::to_string(h.cycle) + ", this rank at " + std::to_string(cycle);
      return false;
    }
    st.state = (SyncState)h.state;
    st.clock = h.clock;
    st.waitFrom = h.waitFrom;
    st.needEnd = h.needEnd;
    const uint8_t *p = b.data() + sizeof h;
    for (uint64_t i = 0; i < h.nRecords; ++i) {
      WireRecord w;
      std::memcpy(&w, p, sizeof w);
      p += sizeof w;
      TraceRecord t;
      t.time = w.time;
      t.sx = w.sx;
      t.sy = w.sy;
      t.dx = w.dx;
      t.dy = w.dy;
      t.bytes = w.bytes;
      pending_.push_back({t, (unsigned)src, seqs_[src]++});
      allLines_[src] += formatTraceLine(t);
    }
    for (uint64_t i = 0; i < h.nWords; ++i) {
      uint32_t w;
      std::memcpy(&w, p, 4);
      p += 4;
      inbox_[src].push_back(w);
    }
    return true;
  }

  bool newRecords(uint64_t before, std::vector<TraceRecord> &out, std::string &) override {
    releaseRecords(pending_, before, out);
    return true;
  }

  bool take(unsigned srcIndex, uint32_t *words, size_t n, std::string &err) override {
    auto &q = inbox_[srcIndex];
    if (q.size() < n) {
      err = "rank " + std::to_string(srcIndex) + " delivered " + std::to_string(q.size()) +
            " words, its records promise " + std::to_string(n);
      return false;
    }
    for (size_t i = 0; i < n; ++i) {
      words[i] = q.front();
      q.pop_front();
    }
    return true;
  }

  void close(const std::string &statsJson) override {
    // Statistics to rank 0, which writes them and every chiplet's trace next to each other.
    int len = (int)statsJson.size();
    std::vector<int> lens(size_), displs(size_);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank_ == 0) {
      int total = 0;
      for (int r = 0; r < size_; ++r) {
        displs[r] = total;
        total += lens[r];
      }
      all.resize((size_t)total);
    }
    MPI_Gatherv(statsJson.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                0, MPI_COMM_WORLD);
    if (rank_ == 0) {
      for (int r = 0; r < size_; ++r) {
        std::string xy = std::to_string(r % cfg_.width) + "." + std::to_string(r / cfg_.width);
        std::ofstream(cfg_.dir + "/stats." + xy + ".json")
            << all.substr((size_t)displs[r], (size_t)lens[r]) << "\n";
        if (!allLines_[r].empty())
          std::ofstream(cfg_.dir + "/bench." + xy) << allLines_[r];
      }
    }
    MPI_Finalize();
  }

private:
  EndpointConfig cfg_;
  int rank_ = 0, size_ = 1;
  std::vector<TraceRecord> myRecords_;
  std::vector<std::vector<uint32_t>> outWords_;
  std::vector<std::deque<uint32_t>> inbox_;
  std::vector<PendingRecord> pending_;
  std::vector<uint64_t> seqs_;
  std::vector<std::string> allLines_;
};

} // namespace
} // namespace ptxsim::chiplet

extern "C" __attribute__((visibility("default"))) ptxsim::chiplet::Transport *
ptxsimChipletMakeMpiTransport() {
  return new ptxsim::chiplet::MpiTransport();
}
