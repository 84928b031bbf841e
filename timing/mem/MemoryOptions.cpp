// The memory system's options: the caches (GPGPU-Sim's cache specs), the memory partitions and
// their address interleaving, and the atomic units (timing/ConfigParts.h). The interconnect's
// are in timing/icnt/IcntOptions.cpp, the DRAM's in timing/dram/DramOptions.cpp.
#include "timing/ConfigParts.h"

#include "timing/mem/replacement/IReplacementPolicy.h"

namespace ptxsim::timing {
namespace {

using config::split;
using config::toU32;
using config::trim;

// --- GPGPU-Sim cache spec -----------------------------------------------------------------------
//   [N|S:]<sets>:<line_bytes>:<assoc>,<repl>:<write>:<alloc>:<write_alloc>[:<set_index_fn>],
//   <mshr_type>:<mshr_entries>:<mshr_max_merge>[,<miss_queue>[:<result_fifo>]][,<data_port_width>]
// or `none` (cache disabled). Used: N/S (S: 32-byte sectors), sets, line size, assoc, write policy
// (B: write-back; T, E, R, L: write-through -- L is GPGPU-Sim's local-WB/global-WT L1), write
// allocation (N: none; W, F, L: allocate), MSHR entries and merge, replacement (any registered
// policy: L = LRU, F = FIFO), set index function (L linear, X XOR-fold, M mixed hash; GPGPU-Sim's
// H and P are taken as linear). Checked but unused: allocation point (m, f, s), MSHR type (A, S, F, T),
// miss queue, result FIFO, data port width.
bool parseCacheSpec(const std::string &value, CacheConfig &c, std::string &err) {
  std::string v = trim(value);
  if (v == "none") {
    c.enabled = false;
    return true;
  }
  std::vector<std::string> groups = split(v, ",");
  if (groups.size() < 3 || groups.size() > 5) {
    err = "expected a cache spec like N:64:128:6,L:L:m:N:H,A:128:8,8 or 'none'";
    return false;
  }
  CacheConfig n = c;
  std::vector<std::string> geo = split(groups[0], ":");
  bool sectored = false;
  if (geo.size() == 4) {
    std::string t = trim(geo[0]);
    if (t != "N" && t != "S") {
      err = "cache type '" + t + "' is not N (normal) or S (sectored)";
      return false;
    }
    sectored = t == "S";
    geo.erase(geo.begin());
  }
  if (geo.size() != 3 || !toU32(geo[0], n.sets) || !toU32(geo[1], n.lineBytes) ||
      !toU32(geo[2], n.ways)) {
    err = "expected [N|S:]<sets>:<line_bytes>:<assoc> before the first comma";
    return false;
  }
  std::vector<std::string> pol = split(groups[1], ":");
  if (pol.size() < 4 || pol.size() > 5) {
    err = "expected <replacement>:<write>:<alloc>:<write_alloc>[:<set_index>] after the first "
          "comma";
    return false;
  }
  for (auto &p : pol)
    p = trim(p);
  auto oneOf = [&](const std::string &s, const char *allowed, const char *what) {
    if (s.size() != 1 || std::string(allowed).find(s[0]) == std::string::npos) {
      err = std::string(what) + " '" + s + "' is not one of " + allowed;
      return false;
    }
    return true;
  };
  if (!replacementRegistry().create(pol[0], 1, 1)) {
    err = "replacement policy '" + pol[0] + "' is not registered (known:";
    for (const std::string &r : replacementRegistry().names())
      err += " " + r;
    err += ")";
    return false;
  }
  n.replacement = pol[0];
  if (!oneOf(pol[1], "RBTEL", "write policy") ||
      !oneOf(pol[2], "mfs", "allocation policy") || !oneOf(pol[3], "NWFL", "write-allocate policy"))
    return false;
  n.setIndex = 'L';
  if (pol.size() == 5) {
    if (!oneOf(pol[4], "LHPXM", "set index function"))
      return false;
    n.setIndex = pol[4] == "X" || pol[4] == "M" ? pol[4][0] : 'L';
  }
  n.writeBack = pol[1] == "B";
  n.localWriteBack = pol[1] == "L";
  n.writeAllocate = pol[3] != "N";
  std::vector<std::string> mshr = split(groups[2], ":");
  if (mshr.size() != 3 || !oneOf(trim(mshr[0]), "ASFT", "MSHR type") ||
      !toU32(mshr[1], n.mshrEntries) || !toU32(mshr[2], n.mshrMaxMerge)) {
    if (err.empty())
      err = "expected <mshr_type>:<entries>:<max_merge> after the second comma";
    return false;
  }
  for (size_t g = 3; g < groups.size(); ++g) {
    for (const std::string &part : split(groups[g], ":")) {
      uint32_t ignored;
      if (!toU32(part, ignored)) {
        err = "expected numbers (miss queue, result FIFO, data port width) after the MSHR part";
        return false;
      }
    }
  }
  n.sectorBytes = sectored ? 32 : n.lineBytes;
  n.enabled = true;
  c = n;
  return true;
}

std::string printCacheSpec(const CacheConfig &c) {
  if (!c.enabled)
    return "none";
  bool sectored = c.sectorBytes < c.lineBytes;
  return std::string(sectored ? "S" : "N") + ":" + std::to_string(c.sets) + ":" +
         std::to_string(c.lineBytes) + ":" + std::to_string(c.ways) +
         "," + c.replacement + ":" + (c.writeBack ? "B" : c.localWriteBack ? "L" : "T") + ":m:" +
         (c.writeAllocate ? "W" : "N") + ":" + std::string(1, c.setIndex) + "," +
         (sectored ? "S" : "A") + ":" + std::to_string(c.mshrEntries) + ":" +
         std::to_string(c.mshrMaxMerge);
}


void addCache(OptionSet &opts, const std::string &name, CacheConfig &c,
              const std::string &latencyName, const std::string &what) {
  opts.addCustom(
      name, "cache spec",
      [&c](const std::string &v, std::string &err) { return parseCacheSpec(v, c, err); },
      [&c] { return printCacheSpec(c); },
      what + ": [N|S:]sets:line_bytes:assoc,repl:write:alloc:write_alloc[:index],"
             "mshr_type:entries:max_merge[,...] or none (docs/config.md, cache specs)");
  opts.add(latencyName, &c.hitLatency, "hit latency (tag and data) of " + name + ", in cycles")
      .min(1);
}

/// L1D, L1I, constant cache and L2 slice specs with their latencies.
void describeCaches(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  MemoryConfig &m = ctx.cfg.mem;
  // --- caches
  addCache(opts, "-gpgpu_cache:dl1", m.l1d, "-ptxsim_l1d_hit_latency", "L1 data cache per SM");
  opts.add("-gpgpu_l1_latency", &m.l1Latency,
           "L1D hit latency seen by the warp (pipeline, tag and data) in cycles")
      .min(1);
  opts.add("-ptxsim_l1_tag_lines", &m.l1TagLines,
           "cache lines of one global/local instruction the L1D's tag stage resolves per cycle "
           "(a divergent access of N lines takes N / this many cycles; 1: one per cycle)")
      .range(1, 32);
  addCache(opts, "-gpgpu_cache:il1", m.l1i, "-ptxsim_l1i_hit_latency",
           "L1 instruction cache per SM");
  addCache(opts, "-gpgpu_const_cache:l1", m.constCache, "-ptxsim_const_hit_latency",
           "constant cache per SM");
  addCache(opts, "-gpgpu_cache:dl2", m.l2, "-ptxsim_l2_hit_latency",
           "L2 slice per memory sub-partition (GPGPU-Sim's unit)");
  opts.add("-gpgpu_l2_rop_latency", &m.l2Latency,
           "round trip SM -> L2 hit -> SM in core cycles, interconnect included")
      .min(1);
  opts.add("-ptxsim_l2_far_latency", &m.l2FarLatency,
           "two L2 partitions, each near half of the SMs (the first half of the memory "
           "partitions near the first half of the SMs): a read hitting a line homed in the far "
           "partition, with no copy on the reader's side yet, waits this many core cycles more "
           "and leaves a copy there; a write keeps only the writer's side (0: one L2)");
  opts.add("-gpgpu_perf_sim_memcpy", &m.copiesFillL2,
           "host-to-device copies and memsets leave the data they write in the L2 (their last "
           "bytes, up to the L2's size; dirty), as the copy engine writes through it");
}

void checkCaches(const TimingConfig &cfg, const ConfigFail &fail) {
  const MemoryConfig &m = cfg.mem;
  auto cache = [&](const char *opt, const CacheConfig &k) {
    if (!k.enabled)
      return;
    if (!config::isPow2(k.sets))
      fail(opt, "number of sets " + std::to_string(k.sets) + " is not a power of two");
    if (k.ways == 0)
      fail(opt, "associativity must be at least 1");
    if (!config::isPow2(k.lineBytes) || k.lineBytes < 4)
      fail(opt, "line size " + std::to_string(k.lineBytes) + " is not a power of two >= 4");
    if (!config::isPow2(k.sectorBytes) || k.sectorBytes > k.lineBytes)
      fail(opt, "sector size " + std::to_string(k.sectorBytes) +
                    " is not a power of two dividing the line size");
    if (k.mshrEntries == 0 || k.mshrMaxMerge == 0)
      fail(opt, "MSHR entries and max merge must be at least 1");
    if (k.hitLatency == 0)
      fail(opt, "hit latency must be at least 1");
  };
  cache("-gpgpu_cache:dl1", m.l1d);
  cache("-gpgpu_cache:il1", m.l1i);
  cache("-gpgpu_const_cache:l1", m.constCache);
  cache("-gpgpu_cache:dl2", m.l2);
  config::checkAtLeastOne(
      {{"-gpgpu_l1_latency", m.l1Latency}, {"-gpgpu_l2_rop_latency", m.l2Latency}}, fail);
}

/// Memory partitions and address interleaving.
void describePartitions(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  MemoryConfig &m = ctx.cfg.mem;
  // --- memory partitions
  opts.add("-gpgpu_n_mem", &m.numPartitions,
           "memory partitions (an L2 slice and a DRAM channel each)")
      .range(1, 1024);
  opts.add("-gpgpu_n_sub_partition_per_mchannel", &ctx.folds.subPartitions,
           "L2 sub-partitions per memory partition: the partition's L2 slice is this many "
           "-gpgpu_cache:dl2 slices")
      .range(1, 16);
  opts.addCustom(
      "-gpgpu_mem_addr_mapping", "dramid@N;...",
      [&m](const std::string &v, std::string &err) {
        size_t at = v.find("dramid@");
        if (at == std::string::npos)
          return true; // GPGPU-Sim's default mapping: the interleave is left as it is
        uint32_t bit;
        size_t end = v.find_first_of(";", at);
        if (!toU32(v.substr(at + 7, end == std::string::npos ? end : end - at - 7), bit) ||
            bit > 30) {
          err = "expected dramid@<bit> (partition interleave 2^bit bytes)";
          return false;
        }
        m.partitionInterleaveBytes = 1u << bit;
        return true;
      },
      [&m] {
        uint32_t b = 0;
        while ((1u << b) < m.partitionInterleaveBytes && b < 31)
          ++b;
        return "dramid@" + std::to_string(b);
      },
      "GPGPU-Sim address mapping: dramid@N sets -ptxsim_partition_interleave_bytes to 2^N, the "
      "bit pattern after ';' is unused");
  // GPGPU-Sim numbers its schemes 0 consecutive, 1 XOR permutation, 2 IPOLY, 3 PAE, 4 random,
  // 5 custom; its configs set 2-5 too, so they load here and select the one hash the model has
  opts.add("-gpgpu_memory_partition_indexing", &m.partitionIndexing,
           "partition index: 0 linear; 1-5 (GPGPU-Sim's hashing schemes) each row of partitions "
           "rotated by a hash of the row")
      .range(0, 5);
  opts.add("-ptxsim_partition_interleave_bytes", &m.partitionInterleaveBytes,
           "consecutive bytes mapped to one memory partition")
      .min(1);
}

void checkPartitions(const TimingConfig &cfg, const ConfigFail &fail) {
  const MemoryConfig &m = cfg.mem;
  if (!config::isPow2(m.partitionInterleaveBytes) ||
      (m.l2.enabled && m.partitionInterleaveBytes < m.l2.lineBytes))
    fail("-ptxsim_partition_interleave_bytes",
         std::to_string(m.partitionInterleaveBytes) +
             " is not a power of two at least the L2 line size");
  config::checkAtLeastOne({{"-gpgpu_n_mem", m.numPartitions}}, fail);
}

/// A partition's L2 slice is -gpgpu_n_sub_partition_per_mchannel GPGPU-Sim slices.
void foldSubPartitions(OptionContext &ctx) {
  MemoryConfig &m = ctx.cfg.mem;
  m.l2.sets *= ctx.folds.subPartitions;
  m.l2.mshrEntries *= ctx.folds.subPartitions;
}

/// Atomic units at L2 and in shared memory.
void describeAtomics(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  TimingConfig &cfg = ctx.cfg;
  // --- atomics
  opts.add("-ptxsim_l2_atomic_same_addr_cycles", &cfg.mem.l2AtomicSameAddrCycles,
           "L2 cycles the atomic unit of a slice spends per lane on the request's busiest address "
           "(same-address atomics serialize)")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_cas_same_addr_cycles", &cfg.mem.l2AtomicCasSameAddrCycles,
           "like -ptxsim_l2_atomic_same_addr_cycles for compare-and-swap (atom.cas); 0: the "
           "same as other atomics")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_cas_lane_cycles", &cfg.mem.l2AtomicCasLaneCycles,
           "L2 cycles per compare-and-swap lane on the request's busiest address after the first "
           "(at most one of them swaps, the others only compare); 0: the same as the first")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_cas_lane_latency", &cfg.mem.l2AtomicCasLaneLatency,
           "L2 cycles a compare-and-swap response waits per lane on the request's busiest address "
           "after the first, without holding the atomic unit (the lanes' compares resolve one "
           "after another while the unit takes the next request)")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_float_same_addr_cycles", &cfg.mem.l2AtomicFloatSameAddrCycles,
           "like -ptxsim_l2_atomic_same_addr_cycles for floating-point add, min and max; 0: the "
           "same as other atomics")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_lane_cycles", &cfg.mem.l2AtomicLaneCycles,
           "L2 cycles the atomic unit spends per other lane of an atomic request")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_first_lane_cycles", &cfg.mem.l2AtomicFirstLaneCycles,
           "L2 cycles of the first lane on the busiest address of an atomic request other than "
           "compare-and-swap (only further same-address lanes serialize); 0: the same as the "
           "others")
      .range(0, 1e4);
  opts.add("-ptxsim_l2_atomic_units", &cfg.mem.l2AtomicUnits,
           "atomic units of the L2, shared by consecutive slices (slice p uses unit p x units / "
           "-gpgpu_n_mem); 0: one per slice");
  opts.add("-ptxsim_atomic_same_addr_issue_cycles", &cfg.mem.atomicSameAddrIssueCycles,
           "LD/ST unit cycles per lane on the busiest address of a global atomic request (the "
           "SM sends same-address lanes one at a time); 0: one cycle per request")
      .range(0, 1e3);
  opts.add("-ptxsim_atomic_lane_issue_cycles", &cfg.mem.atomicLaneIssueCycles,
           "LD/ST unit cycles per lane of a global atomic request not on its busiest address "
           "(the SM sends distinct-address lanes a few per cycle); 0: none")
      .range(0, 1e3);
  opts.add("-ptxsim_shared_atomic_same_addr_cycles", &cfg.mem.sharedAtomicSameAddrCycles,
           "extra cycles per additional lane of a shared-memory atomic on one address");

  opts.add("-ptxsim_shared_float_atomic_cycles", &cfg.mem.sharedFloatAtomicCycles,
           "extra cycles of a shared-memory f32/f64 atomic add/min/max (a compare-and-swap loop "
           "in SASS) over an integer one");
  opts.add("-ptxsim_shared_float_atomic_lane_cycles", &cfg.mem.sharedFloatAtomicLaneCycles,
           "cycles per additional lane of a shared-memory float atomic on one address (one more "
           "compare-and-swap round each)");
}

void checkAtomics(const TimingConfig &cfg, const ConfigFail &fail) {
  if (cfg.mem.l2AtomicUnits > cfg.mem.numPartitions)
    fail("-ptxsim_l2_atomic_units", std::to_string(cfg.mem.l2AtomicUnits) +
                                        " is more than the L2 slices (-gpgpu_n_mem " +
                                        std::to_string(cfg.mem.numPartitions) + ")");
}

} // namespace

extern const ConfigPart kCaches = {describeCaches, checkCaches, nullptr};
extern const ConfigPart kPartitions = {describePartitions, checkPartitions, foldSubPartitions};
extern const ConfigPart kAtomics = {describeAtomics, checkAtomics, nullptr};

} // namespace ptxsim::timing
