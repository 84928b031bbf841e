#pragma once
// One chiplet's side of the multi-chiplet simulation: its coordinates and cycle clock, sends and
// receives of 32-bit words, and the conservative cycle synchronization shared by every
// transport.
//
// Contract (the synchronization; docs/chiplets.md has the picture):
//  - Every chiplet has a clock in cycles. Before it acts (sends, receives, finishes) at cycle t it
//    passes every barrier at a cycle <= t. A barrier completes when every chiplet has arrived at
//    it, is blocked in a receive, or has finished, so once barrier B completes no chiplet will
//    send a message stamped before B: all of them are known.
//  - Barriers are W = the network's minimum delay (the lookahead) apart at least; the next one is
//    placed at the window holding the earliest cycle any chiplet can next send at, so idle spans
//    cost no barriers.
//  - At each barrier every chiplet adds the newly known messages, in (time, source, sequence)
//    order, to the same causal network model (noc::PathModel), so every chiplet computes the same
//    arrival cycle for every message. A message sent at T is never received before its arrival
//    (T + network delay); a receive that waits completes at max(clock, arrival).
//  - Results and cycle counts depend only on the messages, never on host scheduling or on the
//    transport: `files` and `mpi` give the same numbers.
//  - A chiplet that never arrives makes the others fail after the timeout with an error naming
//    it; receives nobody can satisfy are reported as a deadlock naming who waits for whom.

#include "isa_ext/chiplet/noc/Network.h"
#include "isa_ext/chiplet/noc/PathModel.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ptxsim::chiplet {

/// One send, as the trace file `bench.<sx>.<sy>` records it: `T sx sy dx dy n`.
struct TraceRecord {
  uint64_t time = 0;
  unsigned sx = 0, sy = 0, dx = 0, dy = 0;
  uint32_t bytes = 0;
};
std::string formatTraceLine(const TraceRecord &r);

enum class SyncState : uint32_t { Running = 0, Blocked = 1, Done = 2 };

/// What a chiplet reports when it arrives at a barrier.
struct SyncStatus {
  SyncState state = SyncState::Running;
  uint64_t clock = 0;     ///< its clock (Running: the cycle of the action it waits to perform)
  uint32_t waitFrom = 0;  ///< Blocked: chiplet index it receives from
  uint64_t needEnd = 0;   ///< Blocked: bytes from that source it needs, counted from the start
};

/// Where the chiplets and their files are, and the settings every chiplet shares.
struct EndpointConfig {
  unsigned x = 0, y = 0;          ///< this chiplet
  unsigned width = 1, height = 1; ///< the grid
  std::string dir = ".";          ///< files transport: data, trace and synchronization files
  double timeoutSec = 60;         ///< a barrier waits this long for a missing chiplet
  noc::NetworkConfig net;         ///< the network between chiplets (radix = max(width, height))
  unsigned index() const { return y * width + x; }
  unsigned count() const { return width * height; }
};

/// The transport-specific half: moving data and records, and gathering barrier arrivals.
///
/// Contract: send() makes the words and the record durable before it returns (a reader never
/// sees half of either). barrier() returns only when every chiplet has arrived at barrier
/// `cycle` or finished; exactly one caller (files) or every caller (mpi) runs `decide` on the
/// statuses of all chiplets, after which newRecords() yields every record stamped before `cycle`.
/// take() returns the next words `src` sent to this chiplet, in order; it is called only for
/// words whose records barrier() has already made known.
/// A trace record a transport has learned of, with its sender and the sender's sequence number.
struct PendingRecord {
  TraceRecord rec;
  unsigned src;
  uint64_t seq;
};

/// Moves the records sent before cycle `before` from `pending` to `out`, ordered by (time,
/// sender, sequence): the order in which every chiplet feeds them to its network model.
inline void releaseRecords(std::vector<PendingRecord> &pending, uint64_t before,
                           std::vector<TraceRecord> &out) {
  auto split = std::stable_partition(pending.begin(), pending.end(),
                                     [&](const PendingRecord &p) { return p.rec.time < before; });
  std::vector<PendingRecord> ready(pending.begin(), split);
  pending.erase(pending.begin(), split);
  std::sort(ready.begin(), ready.end(), [](const PendingRecord &a, const PendingRecord &b) {
    return a.rec.time != b.rec.time ? a.rec.time < b.rec.time
           : a.src != b.src         ? a.src < b.src
                                    : a.seq < b.seq;
  });
  for (const PendingRecord &p : ready)
    out.push_back(p.rec);
}

class Transport {
public:
  virtual ~Transport() = default;
  /// Called once before anything else.
  virtual bool start(const EndpointConfig &cfg, uint64_t window, std::string &err) = 0;
  virtual bool send(const TraceRecord &rec, unsigned dstIndex, const uint32_t *words, size_t n,
                    std::string &err) = 0;
  /// `decide(statuses)` returns the next barrier cycle, kAllDone or kDeadlock (err set).
  using DecideFn = std::function<uint64_t(const std::vector<SyncStatus> &, std::string &err)>;
  virtual bool barrier(uint64_t cycle, const SyncStatus &mine, const DecideFn &decide,
                       uint64_t &next, std::string &err) = 0;
  /// Records (of every chiplet) stamped before `before` not returned yet, in (time, source,
  /// sequence) order.
  virtual bool newRecords(uint64_t before, std::vector<TraceRecord> &out, std::string &err) = 0;
  virtual bool take(unsigned srcIndex, uint32_t *words, size_t n, std::string &err) = 0;
  /// The process ends: publish this chiplet's statistics (JSON object) where the launcher finds
  /// them (`stats.<x>.<y>.json` in the run directory) and release the transport.
  virtual void close(const std::string &statsJson) = 0;
  /// Files: a finished chiplet leaves without waiting for the others (its files stay).
  virtual bool leavesWhenDone() const { return false; }
};

constexpr uint64_t kAllDone = ~0ull;
constexpr uint64_t kDeadlock = ~0ull - 1;

std::unique_ptr<Transport> makeFilesTransport();
/// Loads the mpi transport plugin (libptxsim_chiplet_mpi.so); null with `err` when unavailable.
std::unique_ptr<Transport> makeMpiTransport(std::string &err);

/// Counters a chiplet reports at the end (the launcher's per-chiplet table).
struct EndpointStats {
  uint64_t sends = 0, sentBytes = 0, receives = 0, receivedBytes = 0;
  uint64_t barriers = 0;       ///< synchronizations this chiplet took part in
  uint64_t waitCycles = 0;     ///< cycles receives waited for data
  uint64_t finalClock = 0;
};

class Endpoint {
public:
  Endpoint(EndpointConfig cfg, std::unique_ptr<Transport> t);
  ~Endpoint();
  bool start(std::string &err);

  const EndpointConfig &config() const { return cfg_; }
  uint64_t clock() const { return clock_; }
  /// Moves the clock forward to `t` (never back).
  void advanceClock(uint64_t t);

  /// Sends `n` words to chiplet (dx,dy) at this chiplet's clock (after `at`, if later).
  bool send(unsigned dx, unsigned dy, const uint32_t *words, size_t n, uint64_t at,
            std::string &err);
  /// Receives `n` words from (sx,sy); blocks until they have arrived in simulated time. The clock
  /// becomes max(clock, at, arrival of the last word).
  bool receive(unsigned sx, unsigned sy, uint32_t *words, size_t n, uint64_t at, std::string &err);
  /// This chiplet is done at cycle `at`; with mpi it keeps taking part in barriers until every
  /// chiplet is done.
  bool finish(uint64_t at, std::string &err);

  const EndpointStats &stats() const { return stats_; }
  /// This chiplet's counters as a JSON object.
  std::string statsJson() const;
  /// Publishes the statistics and releases the transport (after finish()).
  void close();
  uint64_t window() const { return window_; }
  std::mutex &mutex() { return mu_; }

private:
  bool advanceTo(uint64_t t, std::string &err);
  bool doBarrier(const SyncStatus &st, std::string &err);
  bool ingest(uint64_t before, std::string &err);
  uint64_t decide(const std::vector<SyncStatus> &all, uint64_t barrier, std::string &err);
  /// Arrival of the message holding byte `end - 1` from src to dst, or ~0 if not known yet.
  uint64_t arrivalOf(unsigned src, unsigned dst, uint64_t end) const;

  EndpointConfig cfg_;
  std::unique_ptr<Transport> t_;
  noc::PathModel model_;
  uint64_t window_ = 1;
  uint64_t clock_ = 0;
  uint64_t nextBarrier_ = 0;
  uint64_t ingestedBefore_ = 0;
  bool finished_ = false;
  /// Per (src * count + dst): messages known, as (cumulative byte end, arrival cycle).
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> known_;
  std::vector<uint64_t> consumed_; ///< bytes taken from each source
  EndpointStats stats_;
  std::mutex mu_;
};

/// The process's endpoint, created from the environment on first use (PTXSIM_CHIPLET_X/Y,
/// PTXSIM_CHIPLET_GRID=WxH, PTXSIM_CHIPLET_DIR, PTXSIM_CHIPLET_TRANSPORT=files|mpi,
/// PTXSIM_CHIPLET_TIMEOUT seconds, PTXSIM_CHIPLET_NET=popnet options). Null when
/// PTXSIM_CHIPLET_GRID is unset (not a chiplet run). Errors are fatal: they print a message
/// naming this chiplet and exit the process with status 3, so the others and the launcher see it.
Endpoint *processEndpoint();
/// Prints "ptxsim chiplet (x,y): error: msg" and exits with status 3.
[[noreturn]] void fatalAt(const EndpointConfig *cfg, const std::string &msg);
/// Parses popnet-style options ("-A 3 -c 2 -V 3 ...") into `cfg`; false with `err`.
bool parseNetOptions(const std::string &opts, noc::NetworkConfig &cfg, std::string &err);

} // namespace ptxsim::chiplet
