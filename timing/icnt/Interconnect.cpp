#include "timing/icnt/Interconnect.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ptxsim::timing {

Interconnect::Interconnect(const MemoryConfig &cfg, uint32_t numSms, uint32_t numPartitions)
    : numSms_(numSms), lat_(cfg.icntLatency), flitBytes_(std::max(1u, cfg.icntFlitBytes)),
      writeMinFlits_(std::max(1u, cfg.icntWriteMinFlits)) {
  uint32_t n = numSms + numPartitions;
  topo_ = topologyRegistry().create(cfg.topology, n);
  if (!topo_) {
    std::fprintf(stderr, "ptxsim: internal error: interconnect: unknown topology '%s'\n",
                 cfg.topology.c_str());
    std::abort();
  }
  srcFree_.assign(n, 0);
  dstFree_.assign(n, 0);
  dstQ_.resize(n);
  smPending_.assign((numSms + 7) / 8 * 8, 0);
  partPending_.assign((numPartitions + 7) / 8 * 8, 0);
}

static uint32_t payloadOf(const MemRequest &r) {
  return (r.isResponse ? !r.write || r.atomic : r.write || r.atomic) ? r.bytes : 0;
}

uint32_t Interconnect::flitsFor(const MemRequest &r) const {
  uint32_t flits = std::max(1u, (payloadOf(r) + flitBytes_ - 1) / flitBytes_);
  // A store's write request holds the ports for a minimum however few bytes it carries (the
  // H100 sends a scattered store's one-sector lines at the rate of full lines: docs/timing.md,
  // "Scattered stores").
  if (!r.isResponse && r.write && !r.atomic)
    flits = std::max(flits, writeMinFlits_);
  return flits;
}

uint32_t Interconnect::latency(uint32_t src, uint32_t dst) const {
  return topo_->hops(src, dst) * lat_;
}

Interconnect::~Interconnect() = default;

void Interconnect::send(uint32_t src, uint32_t dst, const MemRequest &r, Cycle now) {
  uint32_t flits = flitsFor(r);
  Cycle inject = std::max(now, srcFree_[src]);
  srcFree_[src] = inject + flits;
  Cycle eject = std::max(inject + latency(src, dst), dstFree_[dst]);
  dstFree_[dst] = eject + flits;
  dstQ_[dst].q.push({r, eject + flits - 1});
  (dst < numSms_ ? smPending_[dst] : partPending_[dst - numSms_]) = 1;
  ++stats_.packets;
  stats_.flits += flits;
  stats_.bytes += payloadOf(r);
  if (r.isResponse)
    ++stats_.replyPackets;
  else
    ++stats_.requestPackets;
}

MemRequest Interconnect::pop(uint32_t node) {
  auto &q = dstQ_[node].q;
  MemRequest r = q.pop().first;
  if (q.empty())
    (node < numSms_ ? smPending_[node] : partPending_[node - numSms_]) = 0;
  return r;
}

Cycle Interconnect::nextArrival() const {
  if (idle())
    return kNever;
  // (the nodes with a packet through their flags: a node's flag is set while its queue is not
  // empty, and the queues are a cache line each)
  Cycle best = kNever;
  forEachByteSet(smPending_, 0, numSms_, [&](size_t i) {
    best = std::min(best, dstQ_[i].q.front().second);
  });
  forEachByteSet(partPending_, 0, dstQ_.size() - numSms_, [&](size_t p) {
    best = std::min(best, dstQ_[numSms_ + p].q.front().second);
  });
  return best;
}

} // namespace ptxsim::timing
