#include "timing/mem/Cache.h"

#include "base/Stats.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ptxsim::timing {

const char *cacheOutcomeName(CacheOutcome o) {
  switch (o) {
  case CacheOutcome::Hit: return "hit";
  case CacheOutcome::HitPending: return "hit_pending";
  case CacheOutcome::Miss: return "miss";
  case CacheOutcome::ReservationFail: return "reservation_fail";
  }
  return "?";
}

static bool isPow2(uint64_t v) { return v && !(v & (v - 1)); }
static uint32_t log2u(uint64_t v) {
  uint32_t s = 0;
  while ((uint64_t(1) << s) < v)
    ++s;
  return s;
}

Cache::Cache(const CacheConfig &cfg, std::string name) : cfg_(cfg), name_(std::move(name)) {
  if (!isPow2(cfg_.lineBytes) || !isPow2(cfg_.sectorBytes) || cfg_.sectorBytes > cfg_.lineBytes ||
      cfg_.lineBytes / cfg_.sectorBytes > 32 || !cfg_.sets || !cfg_.ways || !cfg_.mshrEntries ||
      !cfg_.mshrMaxMerge) {
    std::fprintf(stderr,
                 "ptxsim: internal error: cache '%s': bad geometry (sets %u, ways %u, line %u, "
                 "sector %u, mshrs %u, merge %u)\n",
                 name_.c_str(), cfg_.sets, cfg_.ways, cfg_.lineBytes, cfg_.sectorBytes,
                 cfg_.mshrEntries, cfg_.mshrMaxMerge);
    std::abort();
  }
  lineShift_ = log2u(cfg_.lineBytes);
  sectorShift_ = log2u(cfg_.sectorBytes);
  uint32_t n = cfg_.lineBytes / cfg_.sectorBytes;
  fullMask_ = n == 32 ? ~0u : (1u << n) - 1;
  stride_ = std::max(cfg_.ways, cfg_.maxWays);
  setsPow2_ = isPow2(cfg_.sets);
  lines_.resize(size_t(cfg_.sets) * stride_);
  fps_.assign(lines_.size() + 16, 0);
  setUsed_.assign(cfg_.sets, 0);
  mshrs_.resize(cfg_.mshrEntries);
  waiters_.reset(new Waiter[size_t(cfg_.mshrEntries) * cfg_.mshrMaxMerge]); // (not initialised)
  freeMshrs_ = cfg_.mshrEntries;
  size_t cap = 2;
  while (cap < size_t(cfg_.mshrEntries) * 2)
    cap *= 2;
  mshrIndex_.assign(cap, MshrIndexEntry{0, -1});
  mshrFreeBits_.assign((cfg_.mshrEntries + 63) / 64, 0);
  for (uint32_t i = 0; i < cfg_.mshrEntries; ++i)
    mshrFreeBits_[i / 64] |= uint64_t(1) << (i % 64);
  policy_ = replacementRegistry().create(cfg_.replacement, cfg_.sets, cfg_.ways);
  if (!policy_) {
    std::fprintf(stderr, "ptxsim: internal error: cache '%s': unknown replacement policy '%s'\n",
                 name_.c_str(), cfg_.replacement.c_str());
    std::abort();
  }
}

Cache::~Cache() = default;
Cache::Cache(Cache &&) noexcept = default;

void Cache::touch(Line &l, bool fill) {
  size_t i = size_t(&l - lines_.data());
  policy_->touch(uint32_t(i / stride_), uint32_t(i % stride_), ++useClock_, fill);
}

uint32_t Cache::sectorsOf(uint64_t offset, uint32_t bytes) const {
  if (!bytes)
    return 0;
  offset &= cfg_.lineBytes - 1;
  uint64_t last = offset + bytes - 1;
  if (last >= cfg_.lineBytes)
    last = cfg_.lineBytes - 1;
  uint32_t first = uint32_t(offset >> sectorShift_), end = uint32_t(last >> sectorShift_);
  uint32_t m = 0;
  for (uint32_t s = first; s <= end; ++s)
    m |= 1u << s;
  return m;
}

/// Bit i: p[i] == b, for i < 16.
static inline uint32_t matchBytes16(const uint8_t *p, uint8_t b) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  return uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(char(b)))));
#else
  uint32_t m = 0;
  for (uint32_t i = 0; i < 16; ++i)
    m |= uint32_t(p[i] == b) << i;
  return m;
#endif
}

Cache::Line *Cache::findLine(uint64_t line) {
  // the first valid way holding `line`, among the ways whose fingerprint matches, below the
  // set's used ways (setUsed_: every way from there on is invalid; a streaming kernel's L1D
  // sets use a few of their 64)
  const uint32_t si = setOf(line), used = setUsed_[si];
  const size_t base = size_t(si) * stride_;
  const uint8_t want = fingerprint(line);
  for (uint32_t w0 = 0; w0 < used; w0 += 16) {
    uint32_t m = matchBytes16(&fps_[base + w0], want);
    if (used - w0 < 16)
      m &= (1u << (used - w0)) - 1;
    for (; m; m &= m - 1) {
      Line &l = lines_[base + w0 + uint32_t(__builtin_ctz(m))];
      if (l.tag == line && l.valid)
        return &l;
    }
  }
  return nullptr;
}

const Cache::Line *Cache::findLine(uint64_t line) const {
  return const_cast<Cache *>(this)->findLine(line);
}

Cache::Line &Cache::allocate(uint64_t line, uint32_t owner, CacheEviction &ev) {
  uint32_t si = setOf(line);
  Line *set = &lines_[size_t(si) * stride_];
  Line *victim = nullptr;
  for (uint32_t w = 0; w < cfg_.ways && !victim; ++w)
    if (!set[w].valid)
      victim = &set[w]; // an invalid way first
  if (!victim)
    victim = &set[policy_->victim(si)];
  if (victim->valid) {
    ev.valid = true;
    ev.lineAddr = victim->tag;
    ev.dirty = victim->dirty != 0;
    ev.dirtyMask = victim->dirty;
    ev.owner = victim->owner;
    ++stats_.evictions;
    if (ev.dirty)
      ++stats_.writebacks;
  }
  if (const uint32_t used = uint32_t(victim - set) + 1; used > setUsed_[si]) {
    if (!setUsed_[si])
      touchedSets_.push_back(si);
    setUsed_[si] = used;
  }
  victim->tag = line;
  fps_[size_t(victim - lines_.data())] = fingerprint(line);
  victim->valid = 0;
  victim->dirty = 0;
  victim->owner = owner;
  victim->farCopy = false;
  touch(*victim, true);
  lastLine_ = victim;
  return *victim;
}

int Cache::findMshr(uint64_t line) const {
  if (freeMshrs_ == mshrs_.size())
    return -1;
  // (a busy MSHR's line is in the table exactly once: a miss takes a new MSHR only when none
  // has its line)
  const size_t mask = mshrIndex_.size() - 1;
  for (size_t i = mshrSlot(line);; i = (i + 1) & mask) {
    const MshrIndexEntry &e = mshrIndex_[i];
    if (e.mshr < 0)
      return -1;
    if (e.line == line)
      return e.mshr;
  }
}

void Cache::indexMshr(uint64_t line, uint32_t mshr) {
  const size_t mask = mshrIndex_.size() - 1;
  size_t i = mshrSlot(line);
  while (mshrIndex_[i].mshr >= 0)
    i = (i + 1) & mask;
  mshrIndex_[i] = {line, int32_t(mshr)};
}

void Cache::unindexMshr(uint64_t line) {
  const size_t mask = mshrIndex_.size() - 1;
  size_t i = mshrSlot(line);
  while (mshrIndex_[i].line != line || mshrIndex_[i].mshr < 0)
    i = (i + 1) & mask;
  // backward-shift deletion: later entries of the probe run move up into the hole when their
  // home slot does not lie (cyclically) between the hole and them
  for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
    if (mshrIndex_[j].mshr < 0)
      break;
    const size_t home = mshrSlot(mshrIndex_[j].line);
    if (((j - home) & mask) >= ((j - i) & mask)) {
      mshrIndex_[i] = mshrIndex_[j];
      i = j;
    }
  }
  mshrIndex_[i].mshr = -1;
}

CacheAccessResult Cache::access(uint64_t addr, uint32_t sectorMask, bool write, uint32_t owner,
                                uint64_t token, Cycle, bool localWrite) {
  CacheAccessResult r;
  sectorMask &= fullMask_;
  uint64_t line = lineAddr(addr);
  Line *l = findLine(line);
  lastLine_ = l;
  ++stats_.accesses;
  if (write) {
    ++stats_.writes;
    // write policy L (GPGPU-Sim's L1): local memory is write-back and allocating, so spilled
    // values and stack frames stay in the L1; global stores write through
    const bool wb = cfg_.writeBack || (localWrite && cfg_.localWriteBack);
    r.sendWrite = !wb;
    if (l) {
      ++stats_.hits;
      r.outcome = CacheOutcome::Hit;
      touch(*l, false);
      l->valid |= sectorMask;
      if (wb)
        l->dirty |= sectorMask;
      return r;
    }
    ++stats_.misses;
    r.outcome = CacheOutcome::Miss;
    if (cfg_.writeAllocate || (localWrite && cfg_.localWriteBack)) {
      Line &n = allocate(line, owner, r.evicted);
      n.valid = sectorMask;
      if (wb)
        n.dirty = sectorMask;
    } else if (cfg_.writeBack) {
      r.sendWrite = true; // write-back without allocation: the write goes below anyway
    }
    return r;
  }

  ++stats_.reads;
  uint32_t missing = l ? sectorMask & ~l->valid : sectorMask;
  if (!missing) {
    ++stats_.hits;
    r.outcome = CacheOutcome::Hit;
    touch(*l, false);
    return r;
  }
  int mi = findMshr(line);
  if (mi >= 0) {
    Mshr &m = mshrs_[size_t(mi)];
    if (m.waiters >= cfg_.mshrMaxMerge) {
      ++stats_.reservationFails;
      r.outcome = CacheOutcome::ReservationFail;
      return r;
    }
    waiters_[size_t(mi) * cfg_.mshrMaxMerge + m.waiters++] = {token, missing};
    uint32_t extra = missing & ~m.requested;
    m.requested |= extra;
    if (!extra) {
      ++stats_.hitPending;
      r.outcome = CacheOutcome::HitPending;
    } else {
      ++stats_.misses;
      if (l)
        ++stats_.sectorMisses;
      r.outcome = CacheOutcome::Miss;
      r.fetchMask = extra;
    }
    return r;
  }
  if (!freeMshrs_) {
    ++stats_.reservationFails;
    r.outcome = CacheOutcome::ReservationFail;
    return r;
  }
  // the lowest free MSHR
  size_t word = 0;
  while (!mshrFreeBits_[word])
    ++word;
  const size_t i = word * 64 + size_t(__builtin_ctzll(mshrFreeBits_[word]));
  mshrFreeBits_[word] &= mshrFreeBits_[word] - 1;
  Mshr &m = mshrs_[i];
  m.busy = true;
  m.line = line;
  m.requested = missing;
  m.owner = owner;
  m.waiters = 1;
  waiters_[i * cfg_.mshrMaxMerge] = {token, missing};
  --freeMshrs_;
  indexMshr(line, uint32_t(i));
  ++stats_.misses;
  if (l)
    ++stats_.sectorMisses;
  r.outcome = CacheOutcome::Miss;
  r.fetchMask = missing;
  return r;
}

CacheFillResult Cache::fill(uint64_t addr, uint32_t sectorMask, Cycle,
                            std::vector<uint64_t> &released) {
  CacheFillResult r;
  sectorMask &= fullMask_;
  uint64_t line = lineAddr(addr);
  int mi = findMshr(line);
  ++stats_.fills;
  Line *l = findLine(line);
  lastLine_ = l;
  if (!l)
    l = &allocate(line, mi >= 0 ? mshrs_[size_t(mi)].owner : 0, r.evicted);
  l->valid |= sectorMask;
  touch(*l, false);
  if (mi < 0)
    return r;
  Mshr &m = mshrs_[size_t(mi)];
  m.requested &= ~sectorMask;
  Waiter *w = &waiters_[size_t(mi) * cfg_.mshrMaxMerge];
  uint32_t kept = 0;
  for (uint32_t i = 0; i < m.waiters; ++i) {
    if ((w[i].need & ~l->valid) == 0) {
      released.push_back(w[i].token);
      ++r.released;
    } else {
      w[kept++] = w[i];
    }
  }
  m.waiters = kept;
  if (!m.requested) {
    // Waiters still unsatisfied here had their sectors evicted by a racing fill; they are
    // released anyway (their data did arrive).
    for (uint32_t i = 0; i < kept; ++i) {
      released.push_back(w[i].token);
      ++r.released;
    }
    m.busy = false;
    m.waiters = 0;
    ++freeMshrs_;
    unindexMshr(line);
    mshrFreeBits_[size_t(mi) / 64] |= uint64_t(1) << (size_t(mi) % 64);
    r.mshrFreed = true;
  }
  return r;
}

bool Cache::probe(uint64_t addr, uint32_t sectorMask) const {
  const Line *l = findLine(lineAddr(addr));
  return l && (sectorMask & fullMask_ & ~l->valid) == 0;
}

bool Cache::markDirty(uint64_t addr, uint32_t sectorMask) {
  Line *l = findLine(lineAddr(addr));
  if (!l)
    return false;
  l->dirty |= sectorMask & l->valid;
  return true;
}

bool Cache::farCopy(uint64_t addr) {
  Line *l = lineOf(lineAddr(addr));
  if (!l || l->farCopy)
    return false;
  l->farCopy = true;
  return true;
}

void Cache::setFarCopy(uint64_t addr, bool v) {
  if (Line *l = lineOf(lineAddr(addr)))
    l->farCopy = v;
}

void Cache::install(uint64_t addr, uint32_t sectorMask, bool dirty) {
  sectorMask &= fullMask_;
  uint64_t line = lineAddr(addr);
  Line *l = findLine(line);
  if (!l) {
    CacheEviction ev;
    CacheStats keep = stats_;
    l = &allocate(line, 0, ev);
    stats_ = keep;
  } else {
    touch(*l, true);
  }
  l->valid |= sectorMask;
  if (dirty)
    l->dirty |= sectorMask;
  l->farCopy = false;
}

void Cache::invalidateAll() {
  if (touchedSets_.empty())
    return;
  // (fps_ stays: a fingerprint only selects ways whose Line is then checked, valid included)
  // (a small kernel touches a few lines of each L1: only the ways allocated in each set are
  // cleared; a 64-way L1D whole was 49 KiB to write per SM and launch, 1.4 % of a program of
  // small launches)
  for (uint32_t si : touchedSets_) {
    std::fill_n(lines_.begin() + std::ptrdiff_t(size_t(si) * stride_), setUsed_[si], Line{});
    setUsed_[si] = 0;
  }
  touchedSets_.clear();
}

void Cache::setWays(uint32_t ways) {
  if (ways == cfg_.ways || ways == 0 || ways > stride_)
    return;
  invalidateAll();
  cfg_.ways = ways;
  policy_ = replacementRegistry().create(cfg_.replacement, cfg_.sets, cfg_.ways);
}

namespace {
using stats::Unit;
/// CacheStats' counters, declared once; each cache reports them under its prefix.
constexpr stats::FieldStat<CacheStats> kCacheFields[] = {
    {"accesses", Unit::Count, "tag lookups (reads and writes)", &CacheStats::accesses},
    {"reads", Unit::Count, "read lookups", &CacheStats::reads},
    {"writes", Unit::Count, "write lookups", &CacheStats::writes},
    {"hits", Unit::Count, "lookups that found their sectors present", &CacheStats::hits},
    {"hit_pending", Unit::Count, "lookups merged into a miss in flight (MSHR)", &CacheStats::hitPending},
    {"misses", Unit::Count, "lookups that missed the line", &CacheStats::misses},
    {"sector_misses", Unit::Count, "lookups that found the line without the sector", &CacheStats::sectorMisses},
    {"reservation_fails", Unit::Count, "lookups refused for lack of an MSHR or line", &CacheStats::reservationFails},
    {"fills", Unit::Count, "lines (or sectors) filled from below", &CacheStats::fills},
    {"evictions", Unit::Count, "valid lines replaced", &CacheStats::evictions},
    {"writebacks", Unit::Count, "dirty lines written back", &CacheStats::writebacks},
};
} // namespace

stats::FieldStats<CacheStats> describeCacheStats(const std::string &p, const std::string &what) {
  return stats::FieldStats<CacheStats>(kCacheFields, p, what);
}

void appendCacheStats(const CacheStats &s, const std::string &p,
                      std::vector<std::pair<std::string, uint64_t>> &out) {
  for (const stats::FieldStat<CacheStats> &f : kCacheFields)
    out.emplace_back(p + f.name, s.*f.field);
}

} // namespace ptxsim::timing
