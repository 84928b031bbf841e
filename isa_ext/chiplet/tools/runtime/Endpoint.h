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
//  - Every send is one message on a channel: a kernel's warp sends on its channel (its linear
//    index in the grid: CTA linear id x warps per CTA + warp id), host code on channel 0. A
//    chiplet.recv in warp v takes the next message the source sent on channel v, and its size
//    must be the message's (an error naming both sides otherwise). The document's word-stream
//    calls (readGpuMessage, legacy addc) take words from channel 0 across message boundaries.
//  - Results and cycle counts depend only on the messages, never on host scheduling or on the
//    transport: `files` and `mpi` give the same numbers.
//  - Liveness, not silence: a chiplet missing at a barrier is waited for as long as its process
//    is alive and using CPU time; the others fail (naming it) only when it is gone, stopped, or
//    has used no CPU time for half the timeout. Receives nobody can satisfy are a deadlock,
//    reported at once naming who waits for whom.

#include "isa_ext/chiplet/noc/Network.h"
#include "isa_ext/chiplet/noc/PathModel.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxsim::chiplet {

/// One send, as the trace file `bench.<sx>.<sy>` records it: `T sx sy dx dy n`.
struct TraceRecord {
  uint64_t time = 0;
  unsigned sx = 0, sy = 0, dx = 0, dy = 0;
  uint32_t bytes = 0;
  uint32_t channel = 0; ///< the sending warp's channel (0 for host code)
  uint32_t site = 0;    ///< the sender's site id (Transport::defineSite), 0 if none
};
std::string formatTraceLine(const TraceRecord &r);

enum class SyncState : uint32_t { Running = 0, Blocked = 1, Done = 2 };

/// What a chiplet reports when it arrives at a barrier.
struct SyncStatus {
  SyncState state = SyncState::Running;
  uint64_t clock = 0;     ///< its clock (Running: the cycle of the action it waits to perform)
  uint32_t waitFrom = 0;  ///< Blocked: chiplet index it receives from
  uint32_t channel = 0;   ///< Blocked: on this channel
  /// Blocked: bytes it needs beyond the ones it knows of (records before the previous barrier):
  /// its message is the one holding byte `needBytes - 1` among the channel's records of the
  /// window that barrier closes.
  uint64_t needBytes = 0;
};

/// What a chiplet waiting at a barrier learns about a missing chiplet's process (from
/// /proc/<pid>/stat; only for processes on this host).
struct ProcessSample {
  bool exists = false;   ///< false: gone (or a zombie)
  char state = '?';      ///< R, S, D, T (stopped), t (traced), ...
  uint64_t cpuTicks = 0; ///< user + system time, in clock ticks
};
ProcessSample sampleProcess(long pid);
/// Liveness of a chiplet missing at a barrier, from two samples of its process `sec` seconds
/// apart: empty when it is alive and working (or not on this host: pid 0), otherwise why it is
/// not ("gone", "stopped", "alive but idle ...").
std::string livenessProblem(long pid, const ProcessSample &before, const ProcessSample &now,
                            double sec);

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
  /// Publishes the text of this chiplet's site `id` (an instruction's PTX position, a host
  /// call) before a record that names it.
  virtual bool defineSite(uint32_t id, const std::string &text, std::string &err) = 0;
  /// The text chiplet `srcIndex` gave its site `id` ("" if unknown).
  virtual std::string siteText(unsigned srcIndex, uint32_t id) = 0;
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

  /// Sends `n` words as one message on `channel` to chiplet (dx,dy) at this chiplet's clock
  /// (after `at`, if later); `site` names the sending instruction or call in errors.
  bool send(unsigned dx, unsigned dy, const uint32_t *words, size_t n, uint64_t at,
            std::string &err, uint32_t channel = 0, const std::string &site = "");
  /// Receives `n` words from (sx,sy) on `channel`; blocks until they have arrived in simulated
  /// time. The clock becomes max(clock, at, arrival of the last word). `whole`: the words must
  /// be exactly the next message (its size differing is an error naming both sites); otherwise
  /// they are taken from the channel's word stream across message boundaries.
  bool receive(unsigned sx, unsigned sy, uint32_t *words, size_t n, uint64_t at, std::string &err,
               uint32_t channel = 0, bool whole = false, const std::string &site = "");
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
  /// A message to this chiplet the network model has delivered (its arrival is known).
  struct Msg {
    uint64_t bytes, arrival, time, stream; ///< stream: its index among the source's messages to us
    uint32_t site;
  };
  struct Channel {
    std::deque<Msg> msgs;        ///< known, not fully received, in order
    uint64_t headTaken = 0;      ///< words of msgs.front() a word-stream receive already took
    uint64_t knownBytes = 0;     ///< bytes of msgs not taken yet
    std::vector<uint32_t> head;  ///< the words of msgs.front() once fetched
  };
  /// A chiplet that sent to this one: only those exist (no P x P tables).
  struct Peer {
    std::map<uint32_t, Channel> channels;
    uint64_t nextStream = 0; ///< stream index of the next record to arrive from it
    uint64_t pulled = 0;     ///< messages taken from the transport's stream so far
    std::deque<uint64_t> sizes; ///< words of the messages not pulled yet, in stream order
    std::unordered_map<uint64_t, std::vector<uint32_t>> stash; ///< pulled for another channel
  };
  /// The words of message `stream` from `src` (pulling earlier ones of other channels aside).
  bool fetch(unsigned src, Peer &p, uint64_t stream, std::vector<uint32_t> &out, std::string &err);
  uint32_t siteId(const std::string &text, std::string &err);

  /// One record of the window the last ingest added, for decide().
  struct WindowRec {
    unsigned src, dst;
    uint32_t channel;
    uint64_t bytes, arrival;
  };

  EndpointConfig cfg_;
  std::unique_ptr<Transport> t_;
  noc::PathModel model_;
  uint64_t window_ = 1;
  uint64_t clock_ = 0;
  uint64_t nextBarrier_ = 0;
  uint64_t ingestedBefore_ = 0;
  bool finished_ = false;
  std::unordered_map<unsigned, Peer> peers_;
  std::vector<WindowRec> windowRecs_;
  std::unordered_map<std::string, uint32_t> sites_;
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
