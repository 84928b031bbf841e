#include "isa_ext/spu/Machine.h"

#include <algorithm>
#include <cstring>

namespace ptxsim::spu {

namespace {
Shape cbShape(const Options &o) { return logicalShape(o.shape, o.oneD, o.blocksPerSm); }
} // namespace

Machine::Machine(const Options &o, uint32_t gridX, uint32_t gridY)
    : opt_(o), passes_(planPasses(o.shape, gridX, gridY, o.oneD, o.blocksPerSm)) {
  uint32_t n = numCbs(cbShape(o));
  cbData_.assign((size_t)n * 2 * o.cbBytes, 0);
  numHalves_ = (size_t)n * 2;
  cbWrittenAt_.reset(new std::atomic<int64_t>[numHalves_]);
  cbExtent_.reset(new std::atomic<uint32_t>[numHalves_]);
  for (size_t i = 0; i < numHalves_; ++i) {
    cbWrittenAt_[i].store(-1, std::memory_order_relaxed);
    cbExtent_[i].store(0, std::memory_order_relaxed);
  }
  stats_.resize(passes_.size());
}

void Machine::beginPass(uint32_t k) {
  pass_ = k;
  step_ = 0;
  const Pass &p = passes_[k];
  unitState_.assign(p.units.size(), UnitState{});
  liveUnits_ = arrivedUnits_ = 0;
  liveSms_ = p.numSms;
  viusLive_ = false;
  for (size_t u = 0; u < p.units.size(); ++u) {
    if (p.units[u].role == Role::Viu) {
      unitState_[u].live = false; // VIUs are the simulator's, not units that run the kernel
      viusLive_ = true;
    } else {
      ++liveUnits_;
    }
  }
  last_ = false;
  dataStarted_ = false;
  wroteThisStep_.store(false, std::memory_order_relaxed);
  // a new pass sees empty CBs: nothing of the previous pass leaks into it except through VIUs
  std::fill(cbData_.begin(), cbData_.end(), 0);
  for (size_t i = 0; i < numHalves_; ++i) {
    cbWrittenAt_[i].store(-1, std::memory_order_relaxed);
    cbExtent_[i].store(0, std::memory_order_relaxed);
  }
  lastViuBytes_ = lastViuMax_ = 0;
  lastDummy_ = false;
}

bool Machine::arrive(uint32_t u) {
  UnitState &s = unitState_[u];
  if (s.arrived || !s.live)
    return false;
  s.arrived = true;
  if (++arrivedUnits_ < liveUnits_)
    return false;
  release();
  return true;
}

bool Machine::exited(uint32_t u) {
  UnitState &s = unitState_[u];
  if (!s.live)
    return false;
  s.live = false;
  if (s.arrived) { // cannot happen for a well-formed caller; keep the counts consistent
    s.arrived = false;
    --arrivedUnits_;
  }
  --liveUnits_;
  if (passes_[pass_].units[u].role == Role::Sm)
    --liveSms_;
  if (liveUnits_ && arrivedUnits_ == liveUnits_) {
    release();
    return true;
  }
  return false;
}

void Machine::viuWork(bool spillOnly) {
  const Pass &p = passes_[pass_];
  const uint32_t half = step_ & 1, cb = opt_.cbBytes;
  PassStats &st = stats_[pass_];
  for (const Unit &u : p.units) {
    if (u.role != Role::Viu)
      continue;
    SpillKey key = spillKey(p, cbShape(opt_), u, opt_.oneD);
    bool spill = u.dir == Dir::South || u.dir == Dir::East;
    if (spill) {
      int32_t c = u.dir == Dir::South ? u.cbNorth : u.cbWest;
      auto &slots = spill_[key];
      if (slots.size() <= step_)
        slots.resize(step_ + 1);
      size_t idx = (size_t)c * 2 + half;
      if (opt_.regstart && cbWrittenAt_[idx].load(std::memory_order_relaxed) != (int64_t)step_) {
        ++st.skippedSpills; // nothing was written there this step: nothing to save
        slots[step_].clear();
        continue;
      }
      // with regstart a VIU moves only the part of the CB written this step (its extent from
      // offset 0); Algorithm 1 as the report states it moves the whole CB
      uint32_t n = opt_.regstart ? cbExtent_[idx].load(std::memory_order_relaxed) : cb;
      const uint8_t *src = cbData_.data() + idx * cb;
      slots[step_].assign(src, src + n);
      st.spillBytes += n;
      noteViu(n);
      ++st.spills;
    } else if (!spillOnly) {
      int32_t c = u.dir == Dir::North ? u.cbSouth : u.cbEast;
      size_t idx = (size_t)c * 2 + half;
      auto it = spill_.find(key);
      const std::vector<uint8_t> *slot =
          it != spill_.end() && step_ < it->second.size() && !it->second[step_].empty()
              ? &it->second[step_]
              : nullptr;
      if (!slot && opt_.regstart) {
        ++st.skippedRestores;
        continue;
      }
      uint8_t *dst = cbData_.data() + idx * cb;
      if (slot)
        std::memcpy(dst, slot->data(), slot->size());
      else
        std::memset(dst, 0, cb); // Algorithm 1 restores every step, from memory never spilled
      if (slot) {
        cbWrittenAt_[idx].store(step_, std::memory_order_relaxed);
        cbExtent_[idx].store((uint32_t)slot->size(), std::memory_order_relaxed);
        wroteThisStep_.store(true, std::memory_order_relaxed);
      }
      uint32_t n = slot ? (uint32_t)slot->size() : cb;
      st.restoreBytes += n;
      noteViu(n);
      ++st.restores;
    }
  }
}

void Machine::release() {
  lastViuBytes_ = lastViuMax_ = 0;
  if (viusLive_)
    viuWork(false);
  PassStats &st = stats_[pass_];
  bool wrote = wroteThisStep_.load(std::memory_order_relaxed);
  lastDummy_ = !wrote;
  if (lastDummy_)
    ++st.dummySyncs;
  if (wrote)
    dataStarted_ = true;
  wroteThisStep_.store(false, std::memory_order_relaxed);
  ++st.steps;
  ++step_;
  for (UnitState &s : unitState_)
    s.arrived = false;
  arrivedUnits_ = 0;
  last_ = liveSms_ == 0;
  if (last_)
    viusLive_ = false; // Algorithm 1: the VIUs stop once LAST is set
}

void Machine::endPass() {
  lastViuBytes_ = lastViuMax_ = 0;
  if (viusLive_) {
    // The VIUs' own last synchronization (only they are left) and the spill after it.
    viuWork(true);
    ++stats_[pass_].steps;
    ++step_;
    viusLive_ = false;
  }
  last_ = true;
}

const uint8_t *Machine::cbRead(int32_t cb, uint64_t off, uint32_t bytes) {
  if (cb < 0 || off + bytes > opt_.cbBytes)
    return nullptr;
  size_t idx = (size_t)cb * 2 + ((step_ + 1) & 1);
  return cbData_.data() + idx * opt_.cbBytes + off;
}

bool Machine::cbReadFresh(int32_t cb, uint64_t off, uint32_t bytes) const {
  size_t idx = (size_t)cb * 2 + ((step_ + 1) & 1);
  return step_ > 0 &&
         cbWrittenAt_[idx].load(std::memory_order_relaxed) == (int64_t)step_ - 1 &&
         off + bytes <= cbExtent_[idx].load(std::memory_order_relaxed);
}

uint8_t *Machine::cbWrite(int32_t cb, uint64_t off, uint32_t bytes) {
  if (cb < 0 || off + bytes > opt_.cbBytes)
    return nullptr;
  size_t idx = (size_t)cb * 2 + (step_ & 1);
  if (cbWrittenAt_[idx].load(std::memory_order_relaxed) != (int64_t)step_) {
    cbWrittenAt_[idx].store(step_, std::memory_order_relaxed);
    cbExtent_[idx].store(0, std::memory_order_relaxed);
  }
  noteWriteExtent(cb, off + bytes);
  if (!wroteThisStep_.load(std::memory_order_relaxed))
    wroteThisStep_.store(true, std::memory_order_relaxed);
  return cbData_.data() + idx * opt_.cbBytes + off;
}

void Machine::noteWriteExtent(int32_t cb, uint64_t end) {
  std::atomic<uint32_t> &e = cbExtent_[(size_t)cb * 2 + (step_ & 1)];
  uint32_t cur = e.load(std::memory_order_relaxed);
  while (cur < end && !e.compare_exchange_weak(cur, (uint32_t)end, std::memory_order_relaxed)) {
  }
}

void Machine::noteViu(uint64_t bytes) {
  lastViuBytes_ += bytes;
  lastViuMax_ = std::max(lastViuMax_, bytes);
}

PassStats Machine::totals() const {
  PassStats t;
  for (const PassStats &s : stats_) {
    t.steps += s.steps;
    t.dummySyncs += s.dummySyncs;
    t.cbReads += s.cbReads;
    t.cbWrites += s.cbWrites;
    t.cbReadBytes += s.cbReadBytes;
    t.cbWriteBytes += s.cbWriteBytes;
    t.spillBytes += s.spillBytes;
    t.restoreBytes += s.restoreBytes;
    t.spills += s.spills;
    t.restores += s.restores;
    t.skippedSpills += s.skippedSpills;
    t.skippedRestores += s.skippedRestores;
  }
  return t;
}

const std::vector<std::vector<uint8_t>> *Machine::spillSlots(const SpillKey &k) const {
  auto it = spill_.find(k);
  return it == spill_.end() ? nullptr : &it->second;
}

} // namespace ptxsim::spu
