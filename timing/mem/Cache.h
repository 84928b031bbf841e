#pragma once
// A set-associative, optionally sectored cache with a pluggable replacement policy
// (replacement/IReplacementPolicy.h; LRU by default) and MSHRs: the tag and
// miss-tracking model shared by the L1D, the constant cache and the L2 slices. It moves no data
// and keeps no time of its own; the owner decides when accesses and fills happen.
//
// Contract:
//  - Addresses are byte addresses; the set is (addr / lineBytes) % sets. Callers that interleave
//    lines over several caches (L2 slices) pass addresses with the interleave bits removed.
//  - Sector masks are in this cache's sectors (bit i = bytes [i*sectorBytes, (i+1)*sectorBytes)
//    of the line); an unsectored cache has one sector per line.
//  - Reads: Hit when every requested sector is valid; otherwise the missing sectors are tracked
//    by the line's MSHR. HitPending: merged into an existing MSHR whose outstanding sectors cover
//    what is missing (nothing to send). Miss: `fetchMask` sectors must be requested from below
//    and later delivered with fill(); this happens for a new MSHR and for a merge that needs
//    sectors the MSHR has not requested yet. ReservationFail: no free MSHR or the entry's merge
//    limit is reached; nothing changed, retry later.
//  - Lines are allocated when the fill arrives (allocate-on-fill), so a fill may evict; the
//    victim (invalid ways first, then the replacement policy's choice) is reported with its dirty state and the `owner` that
//    brought it in (CCWS's lost-locality detector needs it).
//  - Writes never use MSHRs. Write-back caches mark written sectors dirty; write-through caches
//    set `sendWrite` (the write must be forwarded below). A write that misses allocates the line
//    (write-validate: only the written sectors become valid, nothing is fetched) when
//    writeAllocate is set, and otherwise leaves the cache unchanged; a write hit always updates
//    the line. Write allocation can evict (reported in the result).
//  - fill() appends the tokens of merged reads whose sectors are now all valid, in arrival order.

#include "base/HugeAlloc.h"
#include "base/Stats.h"
#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/mem/replacement/IReplacementPolicy.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

/// The set bits of a sector mask: inline bit arithmetic, where __builtin_popcount is a call into
/// libgcc without -mpopcnt (the memory path counts the sectors of every request it builds).
inline uint32_t sectorCount(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

enum class CacheOutcome : uint8_t { Hit, HitPending, Miss, ReservationFail };
const char *cacheOutcomeName(CacheOutcome o);

struct CacheEviction {
  bool valid = false;     ///< a line was evicted
  uint64_t lineAddr = 0;  ///< its line-aligned address
  bool dirty = false;     ///< it had dirty sectors (a write-back cache must write them back)
  uint32_t dirtyMask = 0; ///< those sectors
  uint32_t owner = 0;     ///< the owner passed with the access that allocated it
};

struct CacheAccessResult {
  CacheOutcome outcome = CacheOutcome::Hit;
  uint32_t fetchMask = 0; ///< Miss: sectors to request from below (may be 0 for a write miss)
  bool sendWrite = false; ///< write-through: forward the write below
  CacheEviction evicted;  ///< write allocation evicted a line
};

struct CacheFillResult {
  uint32_t released = 0;  ///< tokens appended to the caller's vector
  bool mshrFreed = false; ///< the fill completed its MSHR
  CacheEviction evicted;
};

struct CacheStats {
  uint64_t accesses = 0, reads = 0, writes = 0;
  uint64_t hits = 0;         ///< reads with all sectors valid, and write hits
  uint64_t hitPending = 0;   ///< reads merged into an MSHR without a new request
  uint64_t misses = 0;       ///< reads that sent a request below, and write misses
  uint64_t sectorMisses = 0; ///< misses whose line was present (some sectors missing)
  uint64_t reservationFails = 0;
  uint64_t fills = 0, evictions = 0, writebacks = 0; ///< writebacks: dirty evictions
};

class Cache : public base::HugeAllocated {
public:
  /// `name` is used in assertion messages only. Requires power-of-two lineBytes, sectorBytes
  /// dividing lineBytes, at most 32 sectors per line, and non-zero sets/ways/MSHRs.
  Cache(const CacheConfig &cfg, std::string name);
  ~Cache();
  Cache(Cache &&) noexcept;

  /// `localWrite`: a store to local memory, which a write policy L cache (localWriteBack)
  /// keeps write-back and allocating while global stores write through.
  CacheAccessResult access(uint64_t addr, uint32_t sectorMask, bool write, uint32_t owner,
                           uint64_t token, Cycle now, bool localWrite = false);
  /// Delivers `sectorMask` of the line holding `addr`; tokens released are appended to
  /// `released` (cleared by the caller, whose capacity is reused).
  CacheFillResult fill(uint64_t addr, uint32_t sectorMask, Cycle now,
                       std::vector<uint64_t> &released);

  /// True when every sector in `sectorMask` of the line is valid (no state change).
  bool probe(uint64_t addr, uint32_t sectorMask) const;
  /// Marks sectors of a present line dirty (atomics in a write-back cache); false if absent.
  bool markDirty(uint64_t addr, uint32_t sectorMask);
  /// The far-partition copy flag of a present line (MemorySystem, -ptxsim_l2_far_latency):
  /// farCopy() sets it and returns whether it was clear (false for an absent line);
  /// setFarCopy() sets or clears it.
  bool farCopy(uint64_t addr);
  void setFarCopy(uint64_t addr, bool v);
  /// Puts sectors of a line in the cache without an access (data written from outside the
  /// model, e.g. a host-to-device copy): allocated if absent (a dirty victim is dropped), marked
  /// dirty when `dirty`. No statistics.
  void install(uint64_t addr, uint32_t sectorMask, bool dirty);
  /// Drops every line (dirty data is discarded; call between kernels for L1s). MSHRs stay.
  void invalidateAll();
  /// Resizes to `ways` ways per set (1 .. maxWays(); the adaptive L1/shared carve-out), dropping
  /// every line when the size changes. The replacement policy starts afresh.
  void setWays(uint32_t ways);
  uint32_t maxWays() const { return stride_; }
  /// True when an MSHR is free (an access that needs a new one would not fail).
  bool mshrAvailable() const { return freeMshrs_ != 0; }
  uint32_t mshrsInUse() const { return uint32_t(mshrs_.size()) - freeMshrs_; }

  uint64_t lineAddr(uint64_t addr) const { return addr & ~uint64_t(cfg_.lineBytes - 1); }
  /// Sectors touched by bytes [offset, offset + bytes) of a line (offset taken modulo lineBytes).
  uint32_t sectorsOf(uint64_t offset, uint32_t bytes) const;
  uint32_t fullMask() const { return fullMask_; }
  const CacheConfig &config() const { return cfg_; }
  const CacheStats &stats() const { return stats_; }
  void resetStats() { stats_ = CacheStats{}; }

private:
  struct Line {
    uint64_t tag = 0; ///< line address
    uint32_t valid = 0, dirty = 0;
    uint32_t owner = 0;
    bool farCopy = false; ///< MemorySystem's far-partition copy (see farCopy())
  };
  struct Mshr {
    uint64_t line = 0;
    uint32_t requested = 0; ///< sectors requested below, not yet arrived
    uint32_t owner = 0;
    uint32_t waiters = 0;
    bool busy = false;
  };
  struct Waiter {
    uint64_t token;
    uint32_t need;
  };

  uint32_t setOf(uint64_t line) const {
    uint64_t x = line >> lineShift_;
    switch (cfg_.setIndex) {
    case 'X': { // the upper line-address bits XOR-folded onto the index bits
      uint64_t f = x;
      for (uint64_t r = cfg_.sets > 1 ? x / cfg_.sets : 0; r; r /= cfg_.sets)
        f ^= r;
      x = f;
      break;
    }
    case 'M': // all bits mixed (splitmix64's finaliser)
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      x ^= x >> 31;
      break;
    default: break;
    }
    return uint32_t(setsPow2_ ? x & (cfg_.sets - 1) : x % cfg_.sets);
  }
  Line *findLine(uint64_t line);
  const Line *findLine(uint64_t line) const;
  Line &allocate(uint64_t line, uint32_t owner, CacheEviction &ev);
  /// Tells the replacement policy that `l` was used (fill: a new line was placed in it).
  void touch(Line &l, bool fill);
  int findMshr(uint64_t line) const;
  /// The MSHR index table (line -> MSHR, open addressing, backward-shift deletion): the lookup
  /// of every miss and fill, instead of a pass over every MSHR.
  size_t mshrSlot(uint64_t line) const {
    return size_t(((line >> lineShift_) * 0x9E3779B97F4A7C15ull) >> 32) & (mshrIndex_.size() - 1);
  }
  void indexMshr(uint64_t line, uint32_t mshr);
  void unindexMshr(uint64_t line);

  CacheConfig cfg_;
  std::string name_;
  uint32_t lineShift_ = 0, sectorShift_ = 0, fullMask_ = 0;
  uint32_t stride_ = 0;     ///< ways allocated per set (cfg_.maxWays, at least cfg_.ways)
  bool setsPow2_ = false;   ///< cfg_.sets is a power of two (setOf masks, no division)
  base::HugeVector<Line> lines_; ///< sets x stride_ (the first cfg_.ways of each set in use)
  /// A byte hashed from lines_[i].tag (fingerprint()), packed, and 16 bytes of padding:
  /// findLine compares 16 ways at a time and reads the Line only where the byte matches (a
  /// 64-way L1D set is one host cache line, not 24). Set where allocate() tags a line; an
  /// invalidated line keeps its byte (its Line says it is invalid).
  base::HugeVector<uint8_t> fps_;
  uint8_t fingerprint(uint64_t line) const {
    return uint8_t(((line >> lineShift_) * 0x9E3779B97F4A7C15ull) >> 56);
  }
  /// The sets in which a line was allocated since the last invalidateAll(), and per set the
  /// ways allocated there: one more than the highest (every other line is invalid: allocate()
  /// is the only way a line gets a tag, and it takes the lowest invalid way first, so flushing
  /// an untouched cache, an idle SM's L1 at each launch, costs nothing, a small kernel's
  /// L1 flush clears only the ways it used, and findLine looks at those ways only).
  std::vector<uint32_t> touchedSets_;
  base::HugeVector<uint32_t> setUsed_;
  base::HugeVector<Mshr> mshrs_;
  struct MshrIndexEntry {
    uint64_t line;
    int32_t mshr; ///< -1: empty
  };
  base::HugeVector<MshrIndexEntry> mshrIndex_; ///< a power of two, at least twice the MSHRs
  std::vector<uint64_t> mshrFreeBits_;    ///< bit i: MSHR i is free (the lowest is taken first)
  /// mshrMaxMerge per MSHR, not initialised: an MSHR's are written as requests wait on it, and
  /// only those are read (an H100 L2 slice has 8,192 slots, 80 slices 10 MiB, most never used
  /// by a kernel; growing the vector per MSHR first used value-initialised each block by a call).
  std::unique_ptr<Waiter[]> waiters_;
  /// The line the last access() or fill() found or placed (nullptr: none yet): the far-copy
  /// calls that follow one for the same line (the L2's) take it without a lookup. Checked by
  /// its tag and valid bits (a line is in one way at most; lines_ never moves).
  Line *lastLine_ = nullptr;
  Line *lineOf(uint64_t line) {
    if (lastLine_ && lastLine_->tag == line && lastLine_->valid)
      return lastLine_;
    return findLine(line);
  }
  uint32_t freeMshrs_ = 0;
  uint64_t useClock_ = 0;
  std::unique_ptr<IReplacementPolicy> policy_;
  CacheStats stats_;
};

/// Declares the counters of a cache reported under `prefix` ("l1d.", "l2[]."); `what` names
/// the cache in their descriptions. The handles report a CacheStats in appendCacheStats' order.
stats::FieldStats<CacheStats> describeCacheStats(const std::string &prefix, const std::string &what);
/// The (name, value) pairs of `s`, each name prefixed with `prefix` (e.g. "l1d.").
void appendCacheStats(const CacheStats &s, const std::string &prefix,
                      std::vector<std::pair<std::string, uint64_t>> &out);

} // namespace ptxsim::timing
