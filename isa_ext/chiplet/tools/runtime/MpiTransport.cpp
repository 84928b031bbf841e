// The `mpi` transport (libptxsim_chiplet_mpi.so, loaded only when PTXSIM_CHIPLET_TRANSPORT=mpi):
// rank r is chiplet (r % width, r / width). At each barrier every rank sends every other rank one
// message: its status, the trace records of its sends since the last barrier (with the sites
// they name first), and the words it sent to that rank; every rank then decides the next
// barrier from the same statuses and records, so no rank leads. Point-to-point messages (not a
// collective) let a barrier that waits long name the ranks it still misses, and check their
// liveness (pids and hosts are exchanged at the start: a missing rank on this host is failed
// when its process is gone, stopped or idle; one on another host is left to mpirun, which ends
// the job when a process dies). Rank 0 writes every chiplet's trace file (`bench.<x>.<y>`, the
// document's format) as the records come, and the statistics at the end, so several hosts need
// no shared directory. Per rank, memory holds only the peers it exchanges words with.

#include "isa_ext/chiplet/tools/runtime/Endpoint.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace ptxsim::chiplet {
namespace {

/// Barrier messages alternate between two tags: a rank can be at most one barrier ahead (it
/// cannot complete the next without this rank's message), so a probe for any source with this
/// barrier's tag never takes the next barrier's message.
constexpr int kTag = 4710;

struct Header {
  uint64_t cycle, clock, needBytes;
  uint32_t state, waitFrom, channel, nSites;
  uint64_t nRecords, nWords, siteBytes;
};
struct WireRecord {
  uint64_t time;
  uint32_t sx, sy, dx, dy, bytes, channel, site, pad;
};
struct Identity {
  int64_t pid;
  char host[64];
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
    seqs_.assign(size_, 0);
    // Who is where, for liveness checks of ranks on this host.
    Identity me{};
    me.pid = (int64_t)::getpid();
    ::gethostname(me.host, sizeof me.host - 1);
    ids_.resize(size_);
    MPI_Allgather(&me, sizeof me, MPI_BYTE, ids_.data(), sizeof me, MPI_BYTE, MPI_COMM_WORLD);
    return true;
  }

  bool send(const TraceRecord &rec, unsigned dstIndex, const uint32_t *words, size_t n,
            std::string &) override {
    myRecords_.push_back(rec);
    auto &v = outWords_[dstIndex];
    v.insert(v.end(), words, words + n);
    return true;
  }

  bool defineSite(uint32_t id, const std::string &text, std::string &) override {
    newSites_.push_back({id, text});
    sites_[{(unsigned)rank_, id}] = text;
    return true;
  }

  std::string siteText(unsigned src, uint32_t id) override {
    auto it = sites_.find({src, id});
    return it == sites_.end() ? "" : it->second;
  }

  /// The barrier message: header, site definitions (id, length, text), records, words.
  std::vector<uint8_t> message(uint64_t cycle, const SyncStatus &mine,
                               const std::vector<uint32_t> *words) const {
    std::string siteBytes;
    for (auto &[id, text] : newSites_) {
      uint32_t hdr[2] = {id, (uint32_t)text.size()};
      siteBytes.append((const char *)hdr, sizeof hdr);
      siteBytes += text;
    }
    size_t nw = words ? words->size() : 0;
    Header h{cycle, mine.clock, mine.needBytes, (uint32_t)mine.state, mine.waitFrom,
             mine.channel, (uint32_t)newSites_.size(), myRecords_.size(), nw, siteBytes.size()};
    std::vector<uint8_t> b(sizeof h + siteBytes.size() + myRecords_.size() * sizeof(WireRecord) +
                           nw * 4);
    uint8_t *p = b.data();
    std::memcpy(p, &h, sizeof h);
    p += sizeof h;
    std::memcpy(p, siteBytes.data(), siteBytes.size());
    p += siteBytes.size();
    for (const TraceRecord &t : myRecords_) {
      WireRecord w{t.time, t.sx, t.sy, t.dx, t.dy, t.bytes, t.channel, t.site, 0};
      std::memcpy(p, &w, sizeof w);
      p += sizeof w;
    }
    if (nw)
      std::memcpy(p, words->data(), nw * 4);
    return b;
  }

  bool sameHost(int r) const { return std::strncmp(ids_[r].host, ids_[rank_].host, 64) == 0; }

  bool barrier(uint64_t cycle, const SyncStatus &mine, const DecideFn &decide, uint64_t &next,
               std::string &err) override {
    // One buffer for every rank this one sent no words to, one per rank it did.
    int tag = kTag + (int)(barriers_++ & 1);
    std::vector<uint8_t> common = message(cycle, mine, nullptr);
    std::vector<std::vector<uint8_t>> own;
    own.reserve(outWords_.size());
    std::vector<MPI_Request> reqs;
    reqs.reserve(size_);
    for (int r = 0; r < size_; ++r) {
      if (r == rank_)
        continue;
      const std::vector<uint8_t> *b = &common;
      auto it = outWords_.find((unsigned)r);
      if (it != outWords_.end() && !it->second.empty()) {
        own.push_back(message(cycle, mine, &it->second));
        b = &own.back();
      }
      reqs.emplace_back();
      MPI_Isend(b->data(), (int)b->size(), MPI_BYTE, r, tag, MPI_COMM_WORLD, &reqs.back());
    }
    std::vector<SyncStatus> all(size_);
    {
      auto it = outWords_.find((unsigned)rank_);
      std::vector<uint8_t> self = message(cycle, mine, it == outWords_.end() ? nullptr : &it->second);
      if (!absorb(rank_, self, cycle, all[rank_], err))
        return false;
    }
    std::vector<bool> got(size_, false);
    got[rank_] = true;
    int left = size_ - 1;
    // Liveness, not silence: every half timeout the missing ranks on this host are sampled;
    // one that is gone, stopped, or used no CPU time since the last sample fails the barrier.
    auto half = std::chrono::milliseconds(std::max<int64_t>(1, (int64_t)(cfg_.timeoutSec * 500)));
    auto checkAt = std::chrono::steady_clock::now() + half;
    std::map<int, ProcessSample> before;
    unsigned idle = 0;
    std::vector<uint8_t> b;
    while (left > 0) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
        int bytes = 0, r = st.MPI_SOURCE;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        b.resize((size_t)bytes);
        MPI_Recv(b.data(), bytes, MPI_BYTE, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got[r]) {
          err = "rank " + std::to_string(r) + " sent two messages for the barrier at cycle " +
                std::to_string(cycle);
          return false;
        }
        if (!absorb(r, b, cycle, all[r], err))
          return false;
        got[r] = true;
        --left;
        idle = 0;
        continue;
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= checkAt) {
        std::string problems;
        std::map<int, ProcessSample> samples;
        for (int r = 0; r < size_; ++r) {
          if (got[r] || !sameHost(r))
            continue; // on another host: mpirun ends the job if its process dies
          samples[r] = sampleProcess((long)ids_[r].pid);
          auto bi = before.find(r);
          std::string why = livenessProblem((long)ids_[r].pid,
                                            bi == before.end() ? ProcessSample() : bi->second,
                                            samples[r], cfg_.timeoutSec / 2);
          if (!why.empty())
            problems += (problems.empty() ? "chiplet (" : "; chiplet (") +
                        std::to_string(r % cfg_.width) + "," + std::to_string(r / cfg_.width) +
                        ") [rank " + std::to_string(r) + "]: " + why;
        }
        if (!problems.empty()) {
          err = "at the barrier at cycle " + std::to_string(cycle) + ", waiting for " + problems;
          return false;
        }
        before = std::move(samples);
        checkAt = now + half;
      }
      // MPI has no blocking probe with a timeout: back off from 50 us to 2 ms between probes.
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(2000u, 50u << std::min(idle, 6u))));
      ++idle;
    }
    MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);
    myRecords_.clear();
    newSites_.clear();
    outWords_.clear();
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
    if (h.cycle != cycle || b.size() != sizeof h + h.siteBytes + h.nRecords * sizeof(WireRecord) +
                                           h.nWords * 4) {
      err = "rank " + std::to_string(src) + " is at the barrier at cycle " +
            std::to_string(h.cycle) + ", this rank at " + std::to_string(cycle);
      return false;
    }
    st.state = (SyncState)h.state;
    st.clock = h.clock;
    st.waitFrom = h.waitFrom;
    st.channel = h.channel;
    st.needBytes = h.needBytes;
    const uint8_t *p = b.data() + sizeof h;
    if (src != rank_)
      for (uint32_t i = 0; i < h.nSites; ++i) {
        uint32_t hdr[2];
        std::memcpy(hdr, p, sizeof hdr);
        p += sizeof hdr;
        sites_[{(unsigned)src, hdr[0]}] = std::string((const char *)p, hdr[1]);
        p += hdr[1];
      }
    else
      p += h.siteBytes;
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
      t.channel = w.channel;
      t.site = w.site;
      pending_.push_back({t, (unsigned)src, seqs_[src]++});
      if (rank_ == 0 && !writeTrace(src, t, err))
        return false;
    }
    if (h.nWords) {
      auto &q = inbox_[(unsigned)src];
      for (uint64_t i = 0; i < h.nWords; ++i) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        p += 4;
        q.push_back(w);
      }
    }
    return true;
  }

  /// Rank 0: appends a record to the sender's `bench.<x>.<y>` (the files transport's bytes).
  bool writeTrace(int src, const TraceRecord &t, std::string &err) {
    auto it = traces_.find(src);
    if (it == traces_.end()) {
      std::string path = cfg_.dir + "/bench." + std::to_string(src % cfg_.width) + "." +
                         std::to_string(src / cfg_.width);
      FILE *f = std::fopen(path.c_str(), "w");
      if (!f) {
        err = "cannot write " + path + ": " + std::strerror(errno);
        return false;
      }
      it = traces_.emplace(src, f).first;
    }
    std::string line = formatTraceLine(t);
    return std::fwrite(line.data(), 1, line.size(), it->second) == line.size();
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
    for (auto &kv : traces_)
      std::fclose(kv.second);
    traces_.clear();
    // Statistics to rank 0, which writes them next to the traces.
    int len = (int)statsJson.size();
    std::vector<int> lens(rank_ == 0 ? size_ : 0), displs(rank_ == 0 ? size_ : 0);
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
    if (rank_ == 0)
      for (int r = 0; r < size_; ++r) {
        std::string xy = std::to_string(r % cfg_.width) + "." + std::to_string(r / cfg_.width);
        std::ofstream(cfg_.dir + "/stats." + xy + ".json")
            << all.substr((size_t)displs[r], (size_t)lens[r]) << "\n";
      }
    MPI_Finalize();
  }

private:
  EndpointConfig cfg_;
  int rank_ = 0, size_ = 1;
  uint64_t barriers_ = 0;
  std::vector<Identity> ids_;
  std::vector<TraceRecord> myRecords_;
  std::vector<std::pair<uint32_t, std::string>> newSites_;
  std::map<std::pair<unsigned, uint32_t>, std::string> sites_;
  /// Only the ranks this one exchanges words with.
  std::unordered_map<unsigned, std::vector<uint32_t>> outWords_;
  std::unordered_map<unsigned, std::deque<uint32_t>> inbox_;
  std::vector<PendingRecord> pending_;
  std::vector<uint64_t> seqs_;
  std::unordered_map<int, FILE *> traces_;
};

} // namespace
} // namespace ptxsim::chiplet

extern "C" __attribute__((visibility("default"))) ptxsim::chiplet::Transport *
ptxsimChipletMakeMpiTransport() {
  return new ptxsim::chiplet::MpiTransport();
}
