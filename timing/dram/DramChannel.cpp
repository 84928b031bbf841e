#include "timing/dram/DramChannel.h"
#include <cstdlib>

#include <algorithm>
#include <cassert>

namespace ptxsim::timing {

std::string DramChannel::checkConfig(const DramConfig &cfg, DramAddressMapKind mapping) {
  auto zero = [](const char *field) {
    return std::string("dram: DramConfig.") + field + " must be non-zero";
  };
  if (cfg.banks == 0)
    return zero("banks");
  if (cfg.rowBytes == 0)
    return zero("rowBytes");
  if (cfg.busWidthBytes == 0)
    return zero("busWidthBytes");
  if (cfg.burstLength == 0)
    return zero("burstLength");
  if (cfg.dataRate == 0)
    return zero("dataRate");
  if (cfg.queueEntries == 0)
    return zero("queueEntries");
  if (!dramSchedulerRegistry().create(cfg.scheduler))
    return "dram: unknown DramConfig.scheduler '" + cfg.scheduler + "' (not registered)";
  if (mapping == DramAddressMapKind::BankXor && (cfg.banks & (cfg.banks - 1)) != 0)
    return "dram: DramConfig.banks must be a power of two for the XOR bank mapping";
  return {};
}

DramChannel::DramChannel(const DramConfig &cfg, uint32_t id, DramAddressMapKind mapping)
    : cfg_(cfg), id_(id), mapping_(mapping), sched_(dramSchedulerRegistry().create(cfg.scheduler)) {
  assert(checkConfig(cfg, mapping).empty() && "DramChannel built from an unchecked config");
  sched_->setQueueEntries(cfg.queueEntries);
  burstCycles_ = std::max<uint32_t>(1, (cfg.burstLength + cfg.dataRate - 1) / cfg.dataRate);
  colSpacing_ = std::max(cfg.tCCD, burstCycles_);
  burstBytes_ = cfg.busWidthBytes * cfg.burstLength;
  banks_.resize(cfg.banks);
  refreshDue_ = cfg.tREFI;
}

uint32_t DramChannel::burstsFor(uint32_t bytes) const {
  return std::max<uint32_t>(1, (bytes + burstBytes_ - 1) / burstBytes_);
}

DramAddress DramChannel::decode(uint64_t addr) const {
  DramAddress da;
  da.column = uint32_t(addr % cfg_.rowBytes);
  uint64_t rest = addr / cfg_.rowBytes;
  da.bank = uint32_t(rest % cfg_.banks);
  da.row = rest / cfg_.banks;
  if (mapping_ == DramAddressMapKind::BankXor)
    da.bank = uint32_t((da.bank ^ da.row) & (cfg_.banks - 1));
  return da;
}

bool DramChannel::canAccept() const { return queue_.size() < cfg_.queueEntries; }

void DramChannel::push(const MemRequest &r, Cycle now) {
  stateChanged();
  assert(canAccept() && "DramChannel::push without canAccept()");
  catchUpIdle(now);
  Entry e;
  e.req = r;
  e.da = decode(r.addr);
  e.arrival = now;
  assert(uint64_t(e.da.column) + std::max<uint32_t>(r.bytes, 1) <= cfg_.rowBytes &&
         "DRAM request straddles a row");
  queue_.push_back(e);
  keys_.push_back({e.da.row, e.da.bank, r.write});
}

MemRequest DramChannel::popResponse() {
  assert(!ready_.empty() && "DramChannel::popResponse without hasResponse()");
  MemRequest r = ready_.front();
  ready_.pop_front();
  return r;
}

DramChannel::Cmd DramChannel::nextCmd(const Key &k) const {
  const Bank &b = banks_[k.bank];
  if (!b.open)
    return Cmd::Act;
  return b.row == k.row ? Cmd::Col : Cmd::Pre;
}

Cycle DramChannel::earliest(const Key &k, Cmd c) const {
  const Bank &b = banks_[k.bank];
  switch (c) {
  case Cmd::Act:
    return std::max(b.actReady, nextAct_);
  case Cmd::Pre:
    return b.preReady;
  case Cmd::Col:
    return std::max({b.colReady, nextCol_, k.write ? nextWrite_ : nextRead_});
  }
  return kNever;
}

void DramChannel::issue(size_t i, Cmd c, Cycle now) {
  stateChanged();
  Entry &e = queue_[i];
  Bank &b = banks_[e.da.bank];
  switch (c) {
  case Cmd::Act:
    b.open = true;
    b.row = e.da.row;
    b.colReady = now + cfg_.tRCD;
    b.preReady = std::max(b.preReady, now + cfg_.tRAS);
    b.actReady = std::max(b.actReady, now + cfg_.tRC);
    nextAct_ = now + cfg_.tRRD;
    e.didAct = true;
    ++stats_.activates;
    return;
  case Cmd::Pre:
    b.open = false;
    b.actReady = std::max(b.actReady, now + cfg_.tRP);
    e.didPre = true;
    ++stats_.precharges;
    return;
  case Cmd::Col:
    break;
  }
  uint32_t n = burstsFor(e.req.bytes);
  Cycle last = now + Cycle(n - 1) * colSpacing_; // the request's last column command
  Cycle done = last + cfg_.tCL + burstCycles_;
  nextCol_ = now + Cycle(n) * colSpacing_;
  if (e.req.write) {
    nextRead_ = std::max(nextRead_, done + cfg_.tWTR);
    b.preReady = std::max(b.preReady, done + cfg_.tWR);
  } else {
    nextWrite_ = std::max(nextWrite_, last + burstCycles_ + cfg_.tRTW);
    b.preReady = std::max(b.preReady, last + burstCycles_);
  }
  if (e.didPre)
    ++stats_.rowConflicts;
  else if (e.didAct)
    ++stats_.rowMisses;
  else
    ++stats_.rowHits;
  stats_.busBusyCycles += uint64_t(n) * burstCycles_;
  // reads also pay the controller/PHY return pipeline (-dram_latency); banks and bus are free
  InFlight f{e.req, e.arrival, done + (e.req.write ? 0 : cfg_.extraLatency)};
  auto pos = std::upper_bound(inFlight_.begin(), inFlight_.end(), done,
                              [](Cycle d, const InFlight &x) { return d < x.done; });
  inFlight_.insert(pos, f);
  queue_.erase(queue_.begin() + std::ptrdiff_t(i));
  keys_.erase(keys_.begin() + std::ptrdiff_t(i));
}

void DramChannel::scheduleRequests(Cycle now) {
  // Bank and bus state change only when a command issues (a refresh only delays), so after a
  // scan that found nothing, nothing can issue before the earliest time that scan computed.
  if (now < sleepUntil_)
    return;
  candidates_.resize(queue_.size());
  Cycle first = kNever; // (every entry's earliest command: nextEventCycle's scan)
  for (size_t i = 0; i < queue_.size(); ++i) {
    const Key &k = keys_[i];
    Cmd c = nextCmd(k);
    DramCandidate &d = candidates_[i];
    d.bank = k.bank;
    d.cmd = c == Cmd::Col ? DramCmd::Col : c == Cmd::Pre ? DramCmd::Pre : DramCmd::Act;
    d.earliest = earliest(k, c);
    d.write = k.write;
    first = std::min(first, d.earliest);
  }
  Cycle soonest = kNever;
  int pick = sched_->pick(candidates_, uint32_t(banks_.size()), now, soonest);
  if (pick >= 0) {
    size_t i = size_t(pick);
    return issue(i, nextCmd(keys_[i]), now);
  }
  sleepUntil_ = soonest;
  queueFirst_ = first;
  queueFirstOk_ = true;
}

bool DramChannel::refreshStep(Cycle now) {
  if (!refreshEnabled())
    return false;
  if (!refreshPending_ && now >= refreshDue_) {
    refreshPending_ = true;
    refreshDue_ += cfg_.tREFI;
  }
  if (!refreshPending_)
    return false;
  bool anyOpen = false;
  for (Bank &b : banks_) {
    if (!b.open)
      continue;
    anyOpen = true;
    if (b.preReady <= now) {
      b.open = false;
      b.actReady = std::max(b.actReady, now + cfg_.tRP);
      stateChanged(); // bank state changed outside issue()
      ++stats_.precharges;
      return true;
    }
  }
  if (anyOpen)
    return true;
  Cycle allReady = 0;
  for (const Bank &b : banks_)
    allReady = std::max(allReady, b.actReady);
  if (allReady <= now) {
    for (Bank &b : banks_)
      b.actReady = now + cfg_.tRFC;
    stateChanged();
    ++stats_.refreshes;
    refreshPending_ = false;
  }
  return true;
}

void DramChannel::catchUpIdle(Cycle now) {
  // Only an idle channel can have been skipped past a refresh (nextEventCycle() reports the
  // next refresh otherwise); replay the skipped refresh cycles so skipping changes nothing.
  if (!refreshEnabled() || !queue_.empty() || !inFlight_.empty())
    return;
  Cycle c = nextTick_;
  while (c < now) {
    if (!refreshPending_) {
      if (refreshDue_ >= now)
        break;
      c = std::max(c, refreshDue_);
    }
    refreshStep(c);
    ++c;
  }
  nextTick_ = std::max(nextTick_, now);
}

void DramChannel::retire(Cycle now) {
  while (!inFlight_.empty() && inFlight_.front().done <= now) {
    InFlight &f = inFlight_.front();
    uint64_t latency = f.done - f.arrival;
    if (f.req.write) {
      ++stats_.writes;
      stats_.writeBytes += f.req.bytes;
    } else {
      ++stats_.reads;
      stats_.readBytes += f.req.bytes;
    }
    stats_.totalLatency += latency;
    stats_.maxLatency = std::max(stats_.maxLatency, latency);
    stats_.latency.sample(latency);
    stats_.avgLatency = double(stats_.totalLatency) / double(stats_.reads + stats_.writes);
    f.req.isResponse = true;
    ready_.push_back(f.req);
    inFlight_.pop_front();
  }
}

void DramChannel::tick(Cycle now) {
  catchUpIdle(now);
  retire(now);
  if (queue_.size() >= cfg_.queueEntries)
    ++stats_.queueFullCycles;
  if (!refreshStep(now))
    scheduleRequests(now);
  nextTick_ = now + 1;
}

Cycle DramChannel::nextEventCycle(Cycle now) const {
  if (queue_.empty() && inFlight_.empty())
    return kNever;
  Cycle t = inFlight_.empty() ? kNever : inFlight_.front().done;
  if (refreshEnabled())
    t = std::min(t, refreshPending_ ? now + 1 : refreshDue_);
  if (queueFirstOk_) {
    t = std::min(t, queueFirst_);
  } else {
    for (const Key &k : keys_)
      t = std::min(t, earliest(k, nextCmd(k)));
  }
  return std::max(t, now + 1);
}

} // namespace ptxsim::timing
