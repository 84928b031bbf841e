#include "timing/TimingConfig.h"

#include "base/Config.h"

// The effective configuration as JSON (timingConfigJson): every field, dumped at start-up and
// into the stats file. The options that set the fields are described by the components
// (timing/ConfigParts.h) and loaded by timing/ConfigLoad.cpp.

namespace ptxsim::timing {

namespace {
// --- JSON of the fields ------------------------------------------------------------------------
class JsonWriter {
public:
  void open(const char *key) {
    item(key);
    out_ += "{";
    first_.push_back(true);
  }
  void close() {
    first_.pop_back();
    out_ += "\n" + std::string(first_.size() * 2, ' ') + "}";
  }
  void num(const char *key, uint64_t v) {
    item(key);
    out_ += std::to_string(v);
  }
  void dbl(const char *key, double v) {
    item(key);
    out_ += formatDouble(v);
  }
  void boolean(const char *key, bool v) {
    item(key);
    out_ += v ? "true" : "false";
  }
  void str(const char *key, const std::string &v) {
    item(key);
    out_ += jsonQuote(v);
  }
  void raw(const char *key, const std::string &v) {
    item(key);
    out_ += v;
  }
  std::string take() { return std::move(out_); }

private:
  void item(const char *key) {
    if (!first_.empty()) {
      out_ += first_.back() ? "\n" : ",\n";
      first_.back() = false;
      out_ += std::string(first_.size() * 2, ' ');
    }
    if (key)
      out_ += jsonQuote(key) + ": ";
  }
  std::string out_;
  std::vector<bool> first_;
};

void cacheJson(JsonWriter &j, const char *key, const CacheConfig &c) {
  j.open(key);
  j.boolean("enabled", c.enabled);
  j.num("sets", c.sets);
  j.num("ways", c.ways);
  j.num("lineBytes", c.lineBytes);
  j.num("sectorBytes", c.sectorBytes);
  j.num("capacityBytes", c.capacity());
  j.num("hitLatency", c.hitLatency);
  j.num("mshrEntries", c.mshrEntries);
  j.num("mshrMaxMerge", c.mshrMaxMerge);
  j.boolean("writeBack", c.writeBack);
  j.boolean("writeAllocate", c.writeAllocate);
  j.boolean("localWriteBack", c.localWriteBack);
  j.str("setIndex", std::string(1, c.setIndex));
  j.close();
}
void coreJson(JsonWriter &j, const CoreConfig &c) {
  j.open("core");
  j.num("numClusters", c.numClusters);
  j.num("smsPerCluster", c.smsPerCluster);
  j.num("warpSize", c.warpSize);
  j.num("maxThreadsPerSm", c.maxThreadsPerSm);
  j.num("maxCtasPerSm", c.maxCtasPerSm);
  j.num("registersPerSm", c.registersPerSm);
  j.num("sharedBytesPerSm", c.sharedBytesPerSm);
  j.boolean("adaptiveL1", c.adaptiveL1);
  j.num("unifiedL1Kib", c.unifiedL1Kib);
  j.num("reservedSharedPerCta", c.reservedSharedPerCta);
  j.boolean("oneCtaPerSm", c.oneCtaPerSm);
  j.boolean("scheduleLoads", c.scheduleLoads);
  j.boolean("fusePairs", c.fusePairs);
  j.boolean("mergeSharedLoads", c.mergeSharedLoads);
  j.boolean("foldConstOperands", c.foldConstOperands);
  j.boolean("callParamsInRegisters", c.callParamsInRegisters);
  j.num("ifConvertMax", c.ifConvertMax);
  j.boolean("itsLeaveCalls", c.itsLeaveCalls);
  j.num("schedulersPerSm", c.schedulersPerSm);
  j.str("scheduler", c.scheduler);
  j.num("issueWidth", c.issueWidth);
  j.num("ibufferEntries", c.ibufferEntries);
  j.num("fetchLatency", c.fetchLatency);
  j.num("spUnits", c.spUnits);
  j.num("spLatency", c.spLatency);
  j.num("spInterval", c.spInterval);
  j.num("intLatency", c.intLatency);
  j.num("iaddLatency", c.iaddLatency);
  j.num("dpUnits", c.dpUnits);
  j.num("dpLatency", c.dpLatency);
  j.num("dpInterval", c.dpInterval);
  j.num("sfuUnits", c.sfuUnits);
  j.num("sfuLatency", c.sfuLatency);
  j.num("sfuInterval", c.sfuInterval);
  j.num("tensorUnits", c.tensorUnits);
  j.num("tensorLatency", c.tensorLatency);
  j.num("tensorInterval", c.tensorInterval);
  j.num("warpUnits", c.warpUnits);
  j.num("warpLatency", c.warpLatency);
  j.num("warpInterval", c.warpInterval);
  j.num("ldstUnits", c.ldstUnits);
  j.num("ldstInterval", c.ldstInterval);
  j.num("mulLatency", c.mulLatency);
  j.num("branchLatency", c.branchLatency);
  j.num("regBanks", c.regBanks);
  j.num("operandCollectors", c.operandCollectors);
  j.num("sharedBanks", c.sharedBanks);
  j.num("sharedLatency", c.sharedLatency);
  j.num("sharedQueueEntries", c.sharedQueueEntries);
  j.num("sharedConflictLatency", c.sharedConflictLatency);
  j.num("twoLevelActiveWarps", c.twoLevelActiveWarps);
  j.num("ccwsBaseScore", c.ccwsBaseScore);
  j.num("ccwsKThrottle", c.ccwsKThrottle);
  j.num("ccwsVtaEntries", c.ccwsVtaEntries);
  j.dbl("clockMHz", c.clockMHz);
  j.close();
}

void memoryJson(JsonWriter &j, const MemoryConfig &m) {
  j.open("mem");
  cacheJson(j, "l1d", m.l1d);
  cacheJson(j, "l1i", m.l1i);
  cacheJson(j, "constCache", m.constCache);
  cacheJson(j, "l2", m.l2);
  j.num("l2TotalBytes", m.l2.enabled ? m.l2.capacity() * m.numPartitions : 0);
  j.num("l1Latency", m.l1Latency);
  j.num("l2Latency", m.l2Latency);
  j.num("numPartitions", m.numPartitions);
  j.num("partitionInterleaveBytes", m.partitionInterleaveBytes);
  j.num("partitionIndexing", m.partitionIndexing);
  j.str("topology", m.topology);
  j.num("icntLatency", m.icntLatency);
  j.num("icntFlitBytes", m.icntFlitBytes);
  j.num("icntWriteMinFlits", m.icntWriteMinFlits);
  j.dbl("icntClockMHz", m.icntClockMHz);
  j.dbl("l2ClockMHz", m.l2ClockMHz);
  j.close();
}

void dramJson(JsonWriter &j, const DramConfig &d, const MemoryConfig &m) {
  j.open("dram");
  j.str("type", d.type);
  j.num("channelsPerPartition", d.channelsPerPartition);
  j.num("banks", d.banks);
  j.num("rowBytes", d.rowBytes);
  j.num("busWidthBytes", d.busWidthBytes);
  j.num("burstLength", d.burstLength);
  j.num("queueEntries", d.queueEntries);
  j.str("scheduler", d.scheduler);
  j.num("tCL", d.tCL);
  j.num("tRCD", d.tRCD);
  j.num("tRP", d.tRP);
  j.num("tRAS", d.tRAS);
  j.num("tRC", d.tRC);
  j.num("tCCD", d.tCCD);
  j.num("tWR", d.tWR);
  j.num("tRRD", d.tRRD);
  j.num("tWTR", d.tWTR);
  j.num("tRTW", d.tRTW);
  j.num("tBurst", d.tBurst);
  j.num("tREFI", d.tREFI);
  j.num("tRFC", d.tRFC);
  j.dbl("clockMHz", d.clockMHz);
  j.num("dataRate", d.dataRate);
  // peak bandwidth of all channels, GB/s
  j.dbl("peakGBps", double(d.busWidthBytes) * d.dataRate * d.clockMHz * 1e6 *
                        d.channelsPerPartition * m.numPartitions / 1e9);
  j.close();
}
} // namespace

std::string timingConfigJson(const TimingConfig &cfg) {
  JsonWriter j;
  j.open(nullptr);
  j.str("name", cfg.name);
  j.num("numSms", cfg.numSms());
  coreJson(j, cfg.core);
  memoryJson(j, cfg.mem);
  dramJson(j, cfg.dram, cfg.mem);
  j.dbl("pcieGBps", cfg.pcieGBps);
  j.dbl("pcieLatencyUs", cfg.pcieLatencyUs);
  j.num("sfuTrigExtraLatency", cfg.core.sfuTrigExtraLatency);
  j.num("l1iPrefetchLines", cfg.core.l1iPrefetchLines);
  j.num("l1iStreamPrefetch", cfg.core.l1iStreamPrefetch ? 1 : 0);
  j.num("l1iColdMissLatency", cfg.core.l1iColdMissLatency);
  j.num("instBytes", cfg.core.instBytes);
  j.num("l1iFetchAtLaunch", cfg.core.l1iFetchAtLaunch ? 1 : 0);
  j.num("vprintfCycles", cfg.core.vprintfCycles);
  j.num("heapCallCycles", cfg.core.heapCallCycles);
  j.num("heapLaneCycles", cfg.core.heapLaneCycles);
  j.num("callFrameCycles", cfg.core.callFrameCycles);
  j.num("fenceCtaCycles", cfg.core.fenceCtaCycles);
  j.num("fenceGpuCycles", cfg.core.fenceGpuCycles);
  j.num("fenceSysCycles", cfg.core.fenceSysCycles);
  j.num("divF32Latency", cfg.core.divF32Latency);
  j.num("divFullF32Latency", cfg.core.divFullF32Latency);
  j.num("sqrtF32Latency", cfg.core.sqrtF32Latency);
  j.num("divF64Latency", cfg.core.divF64Latency);
  j.num("sqrtF64Latency", cfg.core.sqrtF64Latency);
  j.num("divS32Latency", cfg.core.divS32Latency);
  j.num("divU32Latency", cfg.core.divU32Latency);
  j.num("divS64Latency", cfg.core.divS64Latency);
  j.num("divU64Latency", cfg.core.divU64Latency);
  j.num("barArriveCycles", cfg.core.barArriveCycles);
  j.num("barReleaseCycles", cfg.core.barReleaseCycles);
  j.num("dramExtraLatency", cfg.dram.extraLatency);
  j.dbl("l2AtomicSameAddrCycles", cfg.mem.l2AtomicSameAddrCycles);
  j.dbl("l2AtomicCasSameAddrCycles", cfg.mem.l2AtomicCasSameAddrCycles);
  j.dbl("l2AtomicCasLaneCycles", cfg.mem.l2AtomicCasLaneCycles);
  j.dbl("l2AtomicCasLaneLatency", cfg.mem.l2AtomicCasLaneLatency);
  j.dbl("l2AtomicFloatSameAddrCycles", cfg.mem.l2AtomicFloatSameAddrCycles);
  j.dbl("l2AtomicLaneCycles", cfg.mem.l2AtomicLaneCycles);
  j.dbl("l2AtomicFirstLaneCycles", cfg.mem.l2AtomicFirstLaneCycles);
  j.num("l2AtomicUnits", cfg.mem.l2AtomicUnits);
  j.dbl("atomicSameAddrIssueCycles", cfg.mem.atomicSameAddrIssueCycles);
  j.dbl("atomicLaneIssueCycles", cfg.mem.atomicLaneIssueCycles);
  j.num("l1TagLines", cfg.mem.l1TagLines);
  j.num("sharedAtomicSameAddrCycles", cfg.mem.sharedAtomicSameAddrCycles);
  j.num("sharedFloatAtomicCycles", cfg.mem.sharedFloatAtomicCycles);
  j.num("sharedFloatAtomicLaneCycles", cfg.mem.sharedFloatAtomicLaneCycles);
  j.num("kernelLaunchLatency", cfg.launch.kernelLaunchLatency);
  j.num("ctaDispatchInterval", cfg.launch.ctaDispatchInterval);
  j.num("kernelDrainLatency", cfg.launch.kernelDrainLatency);
  j.num("kernelGapCycles", cfg.launch.kernelGapCycles);
  j.num("flushL1", cfg.launch.flushL1 ? 1 : 0);
  j.num("flushL2", cfg.launch.flushL2 ? 1 : 0);
  std::string sources = "[";
  for (size_t i = 0; i < cfg.sources.size(); ++i)
    sources += (i ? ", " : "") + jsonQuote(cfg.sources[i]);
  j.raw("sources", sources + "]");
  j.close();
  return j.take();
}

} // namespace ptxsim::timing