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
  views_.resize(cfg.banks);
  maskWords_ = (cfg.banks + 63) / 64;
  for (unsigned w = 0; w < 2; ++w) {
    hitMask_[w].assign(maskWords_, 0);
    otherMask_[w].assign(maskWords_, 0);
  }
  byBank_ = sched_->picksByBank();
  qview_.banks = views_.data();
  qview_.numBanks = uint32_t(views_.size());
  for (unsigned w = 0; w < 2; ++w) {
    qview_.hitBanks[w] = hitMask_[w].data();
    qview_.otherBanks[w] = otherMask_[w].data();
  }
  qview_.maskWords = maskWords_;
  entries_.resize(cfg.queueEntries);
  for (uint32_t s = cfg.queueEntries; s-- > 0;)
    freeSlots_.push_back(s);
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

bool DramChannel::canAccept() const { return count_ < cfg_.queueEntries; }

void DramChannel::push(const MemRequest &r, Cycle now) {
  stateChanged();
  assert(canAccept() && "DramChannel::push without canAccept()");
  catchUpIdle(now);
  const uint32_t slot = freeSlots_.back();
  freeSlots_.pop_back();
  Entry &e = entries_[slot];
  e.req = r;
  e.da = decode(r.addr);
  e.arrival = now;
  e.seq = nextSeq_++;
  e.write = r.write;
  e.didAct = e.didPre = false;
  assert(uint64_t(e.da.column) + std::max<uint32_t>(r.bytes, 1) <= cfg_.rowBytes &&
         "DRAM request straddles a row");
  e.ageNext = kNil;
  e.agePrev = ageTail_;
  (ageTail_ == kNil ? ageHead_ : entries_[ageTail_].ageNext) = slot;
  ageTail_ = slot;
  const uint32_t bi = e.da.bank;
  Bank &b = banks_[bi];
  e.bankNext = kNil;
  e.bankPrev = b.tail;
  (b.tail == kNil ? b.head : entries_[b.tail].bankNext) = slot;
  b.tail = slot;
  ++b.count;
  ++count_;
  writes_ += e.write;
  // (the youngest request represents its kind only if none of that kind is queued)
  uint32_t &rep = b.open && b.row == e.da.row ? b.hit[e.write] : b.other[e.write];
  if (rep == kNil) {
    rep = slot;
    setView(bi);
  }
}

MemRequest DramChannel::popResponse() {
  assert(!ready_.empty() && "DramChannel::popResponse without hasResponse()");
  return ready_.pop();
}

DramChannel::Cmd DramChannel::nextCmd(const Entry &e) const {
  const Bank &b = banks_[e.da.bank];
  if (!b.open)
    return Cmd::Act;
  return b.row == e.da.row ? Cmd::Col : Cmd::Pre;
}

Cycle DramChannel::earliest(const Entry &e, Cmd c) const {
  const Bank &b = banks_[e.da.bank];
  switch (c) {
  case Cmd::Act:
    return std::max(b.actReady, nextAct_);
  case Cmd::Pre:
    return b.preReady;
  case Cmd::Col:
    return std::max({b.colReady, nextCol_, e.write ? nextWrite_ : nextRead_});
  }
  return kNever;
}

void DramChannel::fillQueueView() {
  DramQueueView &q = qview_;
  q.writes = writes_;
  q.reads = count_ - writes_;
  q.colAt[0] = std::max(nextCol_, nextRead_);
  q.colAt[1] = std::max(nextCol_, nextWrite_);
  q.actAt = nextAct_;
}

Cycle DramChannel::firstCommand() const {
  // The least earliest() over the queue: one value per bank and kind present, as
  // DramQueueView's hitEarliest / otherEarliest give them. Each is a max of a bank's time and
  // a bus time shared by the banks (max is monotone), so the least of them is the shared time
  // against the least bank time: the loop only takes minima of the banks' times.
  Cycle hitMin[2] = {kNever, kNever};
  Cycle openMin = kNever, closedMin = kNever; // (other requests: a PRE on an open bank, an ACT)
  for (uint32_t k = 0; k < maskWords_; ++k) {
    const DramBankView *vk = views_.data() + size_t(k) * 64;
    for (unsigned w = 0; w < 2; ++w)
      for (uint64_t m = hitMask_[w][k]; m; m &= m - 1)
        hitMin[w] = std::min(hitMin[w], vk[__builtin_ctzll(m)].colReady);
    for (uint64_t m = otherMask_[0][k] | otherMask_[1][k]; m; m &= m - 1) {
      const DramBankView &v = vk[__builtin_ctzll(m)];
      const Cycle r = v.otherReady;
      openMin = std::min(openMin, v.open ? r : kNever);
      closedMin = std::min(closedMin, v.open ? kNever : r);
    }
  }
  Cycle t = openMin;
  if (hitMin[0] != kNever)
    t = std::min(t, std::max({hitMin[0], nextCol_, nextRead_}));
  if (hitMin[1] != kNever)
    t = std::min(t, std::max({hitMin[1], nextCol_, nextWrite_}));
  if (closedMin != kNever)
    t = std::min(t, std::max(closedMin, nextAct_));
  return t;
}

void DramChannel::setView(uint32_t bi) {
  const Bank &b = banks_[bi];
  DramBankView &v = views_[bi];
  const uint32_t k = bi / 64;
  const uint64_t bit = uint64_t(1) << (bi % 64);
  for (unsigned w = 0; w < 2; ++w) {
    v.hit[w] = b.hit[w] == kNil ? DramBankView::kNone : entries_[b.hit[w]].seq;
    v.other[w] = b.other[w] == kNil ? DramBankView::kNone : entries_[b.other[w]].seq;
    hitMask_[w][k] = b.hit[w] == kNil ? hitMask_[w][k] & ~bit : hitMask_[w][k] | bit;
    otherMask_[w][k] = b.other[w] == kNil ? otherMask_[w][k] & ~bit : otherMask_[w][k] | bit;
  }
}

void DramChannel::rescanBank(uint32_t bi) {
  Bank &b = banks_[bi];
  b.hit[0] = b.hit[1] = b.other[0] = b.other[1] = kNil;
  unsigned found = 0;
  for (uint32_t s = b.head; s != kNil && found < 4; s = entries_[s].bankNext) {
    const Entry &e = entries_[s];
    uint32_t &rep = b.open && b.row == e.da.row ? b.hit[e.write] : b.other[e.write];
    if (rep == kNil) {
      rep = s;
      ++found;
    }
  }
  setView(bi);
}

void DramChannel::issue(uint32_t slot, Cmd c, Cycle now) {
  stateChanged();
  Entry &e = entries_[slot];
  const uint32_t bi = e.da.bank;
  Bank &b = banks_[bi];
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
    syncBank(bi);
    rescanBank(bi);
    return;
  case Cmd::Pre:
    b.open = false;
    b.actReady = std::max(b.actReady, now + cfg_.tRP);
    e.didPre = true;
    ++stats_.precharges;
    syncBank(bi);
    rescanBank(bi);
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
  syncBank(bi);
  if (e.didPre)
    ++stats_.rowConflicts;
  else if (e.didAct)
    ++stats_.rowMisses;
  else
    ++stats_.rowHits;
  stats_.busBusyCycles += uint64_t(n) * burstCycles_;
  // reads also pay the controller/PHY return pipeline (-dram_latency); banks and bus are free
  uint32_t fs;
  if (inFlightFree_.empty()) {
    fs = uint32_t(inFlightPool_.size());
    inFlightPool_.push_back({e.req, e.arrival});
  } else {
    fs = inFlightFree_.back();
    inFlightFree_.pop_back();
    inFlightPool_[fs] = {e.req, e.arrival};
  }
  // (the place is found by the column data's end, `done`, against the others' completions,
  // which include a read's return pipeline: std::upper_bound's bisection over this order)
  auto pos = std::upper_bound(inFlight_.begin(), inFlight_.end(), done,
                              [](Cycle d, const InFlight &x) { return d < x.done; });
  inFlight_.insert(pos, {done + (e.req.write ? 0 : cfg_.extraLatency), fs});
  // Unlink the request from the queue's list and its bank's, and free its slot.
  (e.agePrev == kNil ? ageHead_ : entries_[e.agePrev].ageNext) = e.ageNext;
  (e.ageNext == kNil ? ageTail_ : entries_[e.ageNext].agePrev) = e.agePrev;
  (e.bankPrev == kNil ? b.head : entries_[e.bankPrev].bankNext) = e.bankNext;
  (e.bankNext == kNil ? b.tail : entries_[e.bankNext].bankPrev) = e.bankPrev;
  --b.count;
  --count_;
  writes_ -= e.write;
  freeSlots_.push_back(slot);
  if (b.hit[e.write] == slot) {
    // The oldest request of its direction on the open row left: the next is the first younger
    // one of its bank on that row and direction (none older is: it was the oldest); the other
    // representatives stay. (rescanBank's walk from the bank's oldest, up to four finds, went
    // through the whole bank where only hits of one direction wait: a stream's case.)
    uint32_t s = e.bankNext;
    while (s != kNil && (entries_[s].write != e.write || entries_[s].da.row != b.row))
      s = entries_[s].bankNext;
    b.hit[e.write] = s;
    setView(bi);
  } else if (b.other[e.write] == slot) {
    rescanBank(bi);
  }
}

void DramChannel::scheduleRequests(Cycle now) {
  // Bank and bus state change only when a command issues (a refresh only delays), so after a
  // scan that found nothing, nothing can issue before the earliest time that scan computed.
  if (now < sleepUntil_)
    return;
  if (!byBank_)
    return scheduleFromList(now);
  fillQueueView();
  Cycle soonest = kNever;
  DramChoice c;
  if (sched_->pickByBank(qview_, now, c, soonest)) {
    const Bank &b = banks_[c.bank];
    const uint32_t slot = c.hit ? b.hit[c.write] : b.other[c.write];
    assert(slot != kNil && "pickByBank chose a representative that does not exist");
    return issue(slot, c.hit ? Cmd::Col : b.open ? Cmd::Pre : Cmd::Act, now);
  }
  sleepUntil_ = soonest;
}

void DramChannel::scheduleFromList(Cycle now) {
  candidates_.resize(count_);
  candidateSlots_.resize(count_);
  Cycle first = kNever; // (every entry's earliest command: nextEventCycle's scan)
  size_t i = 0;
  for (uint32_t s = ageHead_; s != kNil; s = entries_[s].ageNext, ++i) {
    const Entry &e = entries_[s];
    Cmd c = nextCmd(e);
    DramCandidate &d = candidates_[i];
    d.bank = e.da.bank;
    d.cmd = c == Cmd::Col ? DramCmd::Col : c == Cmd::Pre ? DramCmd::Pre : DramCmd::Act;
    d.earliest = earliest(e, c);
    d.write = e.write;
    candidateSlots_[i] = s;
    first = std::min(first, d.earliest);
  }
  Cycle soonest = kNever;
  int pick = sched_->pick(candidates_, uint32_t(banks_.size()), now, soonest);
  if (pick >= 0) {
    const uint32_t slot = candidateSlots_[size_t(pick)];
    return issue(slot, nextCmd(entries_[slot]), now);
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
      syncBank(uint32_t(&b - banks_.data()));
      rescanBank(uint32_t(&b - banks_.data())); // (its requests no longer hit)
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
    for (uint32_t bi = 0; bi < banks_.size(); ++bi)
      syncBank(bi);
    stateChanged();
    ++stats_.refreshes;
    refreshPending_ = false;
  }
  return true;
}

void DramChannel::catchUpIdle(Cycle now) {
  // Only an idle channel can have been skipped past a refresh (nextEventCycle() reports the
  // next refresh otherwise); replay the skipped refresh cycles so skipping changes nothing.
  if (!refreshEnabled() || count_ || !inFlight_.empty())
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
    const uint32_t fs = inFlight_.front().slot;
    InFlightReq &f = inFlightPool_[fs];
    uint64_t latency = inFlight_.front().done - f.arrival;
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
    ready_.push(f.req);
    inFlightFree_.push_back(fs);
    inFlight_.pop_front();
  }
}

void DramChannel::tick(Cycle now) {
  catchUpIdle(now);
  retire(now);
  if (count_ >= cfg_.queueEntries)
    ++stats_.queueFullCycles;
  if (!refreshStep(now))
    scheduleRequests(now);
  nextTick_ = now + 1;
}

Cycle DramChannel::nextEventCycle(Cycle now) const {
  if (!count_ && inFlight_.empty())
    return kNever;
  Cycle t = inFlight_.empty() ? kNever : inFlight_.front().done;
  if (refreshEnabled())
    t = std::min(t, refreshPending_ ? now + 1 : refreshDue_);
  if (sleepUntil_ > now && count_ < cfg_.queueEntries) {
    // The last scan found nothing to issue before sleepUntil_, and nothing changed since (a
    // push, a command or a refresh step would have cleared it): a tick before then would only
    // retire (the next completion is in t), step a refresh (in t) or count a full queue (not
    // full; the queue grows only by a push, which the caller ticks), so the channel need not
    // be ticked before it, however early the queue's first command time (a request of the
    // direction a write drain does not serve, a PRE held by a pending hit) may be.
    t = std::min(t, sleepUntil_);
  } else if (queueFirstOk_) {
    t = std::min(t, queueFirst_);
  } else {
    queueFirst_ = firstCommand();
    queueFirstOk_ = true;
    t = std::min(t, queueFirst_);
  }
  return std::max(t, now + 1);
}

} // namespace ptxsim::timing
