#include "power/PowerModel.h"

#include "power/Xml.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ptxsim::power {

using KernelTimingStats = stats::Snapshot;

namespace {

/// Reads the attributes of one element against the list it allows; errors name the element.
class ElementReader {
public:
  ElementReader(const XmlElement &e, const std::string &file, DiagEngine &diags)
      : e_(e), file_(file), diags_(diags) {}

  /// A number in [lo, hi]; `required` reports a missing attribute.
  bool num(const char *name, double &out, bool required, double lo, double hi) {
    allowed_.push_back(name);
    const XmlAttribute *a = e_.attribute(name);
    if (!a) {
      if (required)
        diags_.error(file_, e_.loc,
                     "<" + e_.name + ">: missing attribute '" + std::string(name) + "'");
      return !required;
    }
    const char *b = a->value.c_str();
    char *end = nullptr;
    double v = std::strtod(b, &end);
    while (end && *end == ' ')
      ++end;
    if (a->value.empty() || end == b || *end != '\0' || !std::isfinite(v)) {
      diags_.error(file_, a->loc,
                   "<" + e_.name + ">: attribute '" + name + "' is not a number: '" + a->value + "'");
      return false;
    }
    if (v < lo || v > hi) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "out of range [%g, %g]", lo, hi);
      diags_.error(file_, a->loc,
                   "<" + e_.name + ">: attribute '" + name + "' = " + a->value + " is " + buf);
      return false;
    }
    out = v;
    return true;
  }
  bool str(const char *name, std::string &out, bool required) {
    allowed_.push_back(name);
    const XmlAttribute *a = e_.attribute(name);
    if (!a) {
      if (required)
        diags_.error(file_, e_.loc,
                     "<" + e_.name + ">: missing attribute '" + std::string(name) + "'");
      return !required;
    }
    if (a->value.empty()) {
      diags_.error(file_, a->loc, "<" + e_.name + ">: attribute '" + name + "' is empty");
      return false;
    }
    out = a->value;
    return true;
  }
  /// Reports attributes the element does not take.
  bool finish() {
    bool ok = true;
    for (auto &a : e_.attributes)
      if (std::find(allowed_.begin(), allowed_.end(), a.name) == allowed_.end()) {
        diags_.error(file_, a.loc, "<" + e_.name + ">: unknown attribute '" + a.name + "'");
        ok = false;
      }
    return ok;
  }

private:
  const XmlElement &e_;
  const std::string &file_;
  DiagEngine &diags_;
  std::vector<std::string> allowed_;
};

/// Gate-equivalent counts of the logic blocks (switched per operation). Defaults in docs/power.md.
struct LogicParams {
  double decodeGates = 150000;      ///< fetch + decode + issue per warp instruction, fixed part
  double decodeGatesPerWarp = 2000; ///< scoreboard / scheduler arbitration per resident warp
  double spGates = 30000;           ///< one FP32/INT lane operation incl. pipeline latches
  double dpGates = 150000;          ///< one FP64 lane operation ((53/24)^2 x the FP32 multiplier)
  double sfuGates = 60000;          ///< one SFU lane operation (table lookup + quadratic interp.)
  double tensorFmaGates = 8000;     ///< one FP16 fused multiply-add inside a tensor core
  double tensorFmasPerInst = 2048;  ///< FMAs per warp MMA instruction (m16n8k16)
  double ldstGatesPerLane = 2000;   ///< address generation per lane
  double coalescerGates = 20000;    ///< coalescer + bank-conflict check per LD/ST instruction
  double clockGates = 400000;       ///< clock tree + pipeline latches per SM per active cycle
  double smAreaFraction = 0.6;      ///< share of the die the SMs occupy (for SM wire lengths)
  double dieSms = 0;                ///< SMs the die area is for (0: this configuration's)
};

constexpr double kTagBitsBase = 40; ///< physical address bits a tag is cut from (+2 state bits)

double tagBits(const timing::CacheConfig &c) {
  double idx = std::log2(std::max(1.0, double(c.sets) * c.lineBytes));
  return std::max(8.0, kTagBitsBase - idx) + 2;
}

} // namespace

bool PowerModel::load(const std::string &xmlPath, const timing::TimingConfig &cfg, PowerModel &out,
                      DiagEngine &diags) {
  std::ifstream in(xmlPath, std::ios::binary);
  if (!in) {
    diags.error(xmlPath, {}, "cannot open power configuration file");
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return loadText(xmlPath, ss.str(), cfg, out, diags);
}

bool PowerModel::loadText(const std::string &file, const std::string &xml,
                          const timing::TimingConfig &cfg, PowerModel &out, DiagEngine &diags) {
  return loadText(file, xml, cfg, out, diags, stats::Catalog::global());
}

bool PowerModel::loadText(const std::string &file, const std::string &xml,
                          const timing::TimingConfig &cfg, PowerModel &out, DiagEngine &diags,
                          const stats::Catalog &catalog) {
  XmlElement root;
  if (!parseXml(file, xml, root, diags))
    return false;
  size_t errorsBefore = diags.errorCount();
  PowerModel m;
  if (root.name != "ptxsim_power") {
    diags.error(file, root.loc, "<" + root.name + ">: expected the root element <ptxsim_power>");
    return false;
  }
  {
    ElementReader r(root, file, diags);
    r.str("name", m.name_, false);
    r.finish();
  }
  if (m.name_.empty())
    m.name_ = cfg.name;

  LogicParams lp;
  bool haveTech = false, haveChip = false;
  std::string dramType = cfg.dram.type;
  const XmlElement *dramElem = nullptr;
  std::vector<const XmlElement *> energyOverrides, leakageOverrides;
  for (auto &cp : root.children) {
    const XmlElement &e = *cp;
    ElementReader r(e, file, diags);
    if (e.name == "technology") {
      if (haveTech)
        diags.error(file, e.loc, "<technology>: given twice");
      haveTech = true;
      r.num("node_nm", m.tech_.nodeNm, true, 1, 500);
      r.num("vdd", m.tech_.vdd, true, 0.3, 2.5);
      r.num("leakage_w_per_mm2", m.tech_.leakageWPerMm2, true, 0, 10);
      r.num("capacitance_exponent", m.tech_.capacitanceExponent, false, 0, 3);
      r.num("area_exponent", m.tech_.areaExponent, false, 0, 3);
    } else if (e.name == "chip") {
      if (haveChip)
        diags.error(file, e.loc, "<chip>: given twice");
      haveChip = true;
      r.num("die_area_mm2", m.dieAreaMm2_, true, 1, 10000);
      r.num("constant_w", m.constantW_, true, 0, 10000);
      r.num("sm_area_fraction", lp.smAreaFraction, false, 0.05, 1);
      r.num("die_sms", lp.dieSms, false, 0, 100000);
    } else if (e.name == "dram") {
      dramElem = &e;
      continue; // read after the type is known
    } else if (e.name == "logic") {
      r.num("decode_gates", lp.decodeGates, false, 0, 1e9);
      r.num("decode_gates_per_warp", lp.decodeGatesPerWarp, false, 0, 1e9);
      r.num("sp_gates", lp.spGates, false, 0, 1e9);
      r.num("dp_gates", lp.dpGates, false, 0, 1e9);
      r.num("sfu_gates", lp.sfuGates, false, 0, 1e9);
      r.num("tensor_fma_gates", lp.tensorFmaGates, false, 0, 1e9);
      r.num("tensor_fmas_per_inst", lp.tensorFmasPerInst, false, 0, 1e9);
      r.num("ldst_gates_per_lane", lp.ldstGatesPerLane, false, 0, 1e9);
      r.num("coalescer_gates", lp.coalescerGates, false, 0, 1e9);
      r.num("clock_gates", lp.clockGates, false, 0, 1e10);
    } else if (e.name == "idle") {
      r.num("vdd", m.idleVdd_, true, 0.1, 2.5);
      r.num("clock_mhz", m.idleClockMHz_, false, 0, 1e5);
    } else if (e.name == "trace") {
      double iv = double(m.traceInterval_);
      if (r.num("interval_cycles", iv, true, 1, 1e12))
        m.traceInterval_ = uint64_t(iv);
    } else if (e.name == "energy") {
      energyOverrides.push_back(&e);
      continue;
    } else if (e.name == "leakage") {
      leakageOverrides.push_back(&e);
      continue;
    } else {
      diags.error(file, e.loc, "<" + e.name + ">: unknown element in <ptxsim_power>");
      continue;
    }
    r.finish();
  }
  if (!haveTech)
    diags.error(file, root.loc, "<ptxsim_power>: missing element <technology>");
  if (!haveChip)
    diags.error(file, root.loc, "<ptxsim_power>: missing element <chip>");
  if (dramElem) {
    ElementReader r(*dramElem, file, diags);
    r.str("type", dramType, false);
    bool known = dramTechnologyDefaults(dramType, m.dram_);
    bool full = dramElem->attribute("vdd") && dramElem->attribute("vddq") &&
                dramElem->attribute("row_cap_ff") && dramElem->attribute("core_cap_pf") &&
                dramElem->attribute("io_cap_pf") && dramElem->attribute("background_w_per_byte");
    if (!known && !full)
      diags.error(file, dramElem->loc,
                  "<dram>: unknown DRAM type '" + dramType +
                      "' (give vdd, vddq, row_cap_ff, core_cap_pf, io_cap_pf, "
                      "background_w_per_byte)");
    m.dram_.type = dramType;
    double rowFf = m.dram_.rowCapF * 1e15, corePf = m.dram_.coreCapF * 1e12,
           ioPf = m.dram_.ioCapF * 1e12;
    r.num("vdd", m.dram_.vdd, false, 0.2, 3);
    r.num("vddq", m.dram_.vddq, false, 0.1, 3);
    r.num("row_cap_ff", rowFf, false, 0, 1e4);
    r.num("core_cap_pf", corePf, false, 0, 1e3);
    r.num("io_cap_pf", ioPf, false, 0, 1e3);
    r.num("background_w_per_byte", m.dram_.backgroundWPerByte, false, 0, 100);
    r.num("refresh_rows", m.dram_.refreshRows, false, 0, 1e6);
    m.dram_.rowCapF = rowFf * 1e-15;
    m.dram_.coreCapF = corePf * 1e-12;
    m.dram_.ioCapF = ioPf * 1e-12;
    r.finish();
  } else if (!dramTechnologyDefaults(dramType, m.dram_)) {
    diags.error(file, root.loc,
                "<ptxsim_power>: the timing configuration's DRAM type '" + dramType +
                    "' has no defaults; add a <dram> element with its parameters");
  }
  if (diags.errorCount() != errorsBefore)
    return false;

  // --- derived sizes -------------------------------------------------------------------------
  if (lp.dieSms > 0 && cfg.numSms() > 0) {
    // die_area_mm2 is a die with die_sms SMs: one with another number of cores (an SPU's SMs
    // and IUs) is that many SM areas larger or smaller, and its SMs take their share of it
    double smArea = m.dieAreaMm2_ * lp.smAreaFraction / lp.dieSms;
    double rest = m.dieAreaMm2_ * (1 - lp.smAreaFraction);
    m.dieAreaMm2_ = rest + smArea * cfg.numSms();
    lp.smAreaFraction = smArea * cfg.numSms() / m.dieAreaMm2_;
  }
  const Technology &t = m.tech_;
  const auto &core = cfg.core;
  const auto &mem = cfg.mem;
  const double numSms = cfg.numSms();
  const double warp = core.warpSize;
  const double warpBits = warp * 32;
  const double maxWarps = double(core.maxThreadsPerSm) / std::max(1u, core.warpSize);
  const double smSideMm = std::sqrt(m.dieAreaMm2_ * lp.smAreaFraction / std::max(1.0, numSms));
  const double dieSideMm = std::sqrt(m.dieAreaMm2_);

  auto addEvent = [&](const std::string &key, double j, const std::string &help) {
    m.events_.push_back({key, j, help});
  };
  auto counter = [&m](const std::string &name) -> CountFn {
    m.needed_.push_back(name);
    return [name](const KernelTimingStats &s) { return s.get(name); };
  };
  auto sum = [&m](std::vector<std::string> names) -> CountFn {
    for (auto &n : names)
      m.needed_.push_back(n);
    return [names](const KernelTimingStats &s) {
      double v = 0;
      for (auto &n : names)
        v += s.get(n);
      return v;
    };
  };
  // lane operations of a pipe: warp instructions issued x active lanes per instruction
  m.needed_.push_back("gpu.warp_insts");
  m.needed_.push_back("sm.active_lane_insts");
  m.needed_.push_back("gpu.sim_seconds");
  auto laneOps = [warp, &m](const std::string &issued) -> CountFn {
    m.needed_.push_back(issued);
    return [issued, warp](const KernelTimingStats &s) {
      double wi = s.get("gpu.warp_insts");
      double lanes = s.get("sm.active_lane_insts");
      double frac = (wi > 0 && lanes > 0) ? std::min(1.0, lanes / (wi * warp)) : 1.0;
      return s.get(issued) * frac * warp;
    };
  };
  auto cacheBits = [](const timing::CacheConfig &c) {
    return c.enabled ? double(c.capacity()) * 8 : 0.0;
  };
  auto tagArrayBits = [](const timing::CacheConfig &c) {
    return c.enabled ? double(c.sets) * c.ways * tagBits(c) : 0.0;
  };
  auto cacheAccessJ = [&](const timing::CacheConfig &c, double accessBytes) {
    return t.sramReadJ(cacheBits(c), accessBytes * 8) +
           t.sramReadJ(tagArrayBits(c), c.ways * tagBits(c));
  };
  auto cacheArea = [&](const timing::CacheConfig &c) {
    return t.sramAreaMm2(cacheBits(c) + tagArrayBits(c));
  };
  auto addBuiltin = [&](const std::string &name, std::vector<Term> terms, double areaMm2) {
    Builtin b;
    b.name = name;
    b.terms = std::move(terms);
    b.areaMm2 = areaMm2;
    b.leakW = t.leakageW(areaMm2);
    m.builtins_.push_back(std::move(b));
  };

  // fetch / decode / issue
  double decodeGates = lp.decodeGates + lp.decodeGatesPerWarp * maxWarps;
  addEvent("fetch_decode.warp_inst", t.logicJ(decodeGates),
           "decode, scoreboard and scheduler per warp instruction");
  double ibufBits = maxWarps * core.ibufferEntries * 64;
  addBuiltin("fetch_decode", {{"fetch_decode.warp_inst", counter("gpu.warp_insts")}},
             numSms * (t.logicAreaMm2(decodeGates) + t.sramAreaMm2(ibufBits)));

  // instruction cache: a fetch reads one line
  const auto &l1i = mem.l1i;
  addEvent("icache.access", cacheAccessJ(l1i, l1i.lineBytes), "L1I line read incl. tags");
  addEvent("icache.fill", t.sramWriteJ(cacheBits(l1i), l1i.lineBytes * 8.0), "L1I line fill");
  addBuiltin("icache",
             {{"icache.access", sum({"l1i.hits", "l1i.misses"})},
              {"icache.fill", counter("l1i.misses")}},
             numSms * cacheArea(l1i));

  // register file: a warp operand is 32 lanes x 32 bits from one bank
  double rfBits = double(core.registersPerSm) * 32;
  double rfBankBits = rfBits / std::max(1u, core.regBanks);
  addEvent("regfile.read", t.sramReadJ(rfBankBits, warpBits), "warp operand read from one bank");
  addEvent("regfile.write", t.sramWriteJ(rfBankBits, warpBits), "warp result write to one bank");
  addBuiltin("regfile",
             {{"regfile.read", counter("sm.regfile_reads")},
              {"regfile.write", counter("sm.regfile_writes")}},
             numSms * t.sramAreaMm2(rfBits));

  // operand collectors: bank -> collector crossbar and distribution to the lanes (half an SM)
  double ocXbarGates = warpBits * 2 * std::log2(std::max(2.0, double(core.regBanks)));
  addEvent("operand_collector.read",
           t.wireJ(warpBits, 0.5 * smSideMm) + t.logicJ(ocXbarGates),
           "crossbar + operand wires per warp operand");
  addBuiltin("operand_collector", {{"operand_collector.read", counter("sm.regfile_reads")}},
             numSms * t.logicAreaMm2(core.operandCollectors * 3 * warpBits * 8 + ocXbarGates));

  // execution units (per active lane operation)
  double spLanes = core.spUnits * 16.0, dpLanes = core.dpUnits * 8.0,
         sfuLanes = core.sfuUnits * 4.0;
  addEvent("sp.lane_op", t.logicJ(lp.spGates), "FP32/INT lane operation");
  addBuiltin("sp", {{"sp.lane_op", laneOps("sm.issued.sp")}},
             numSms * spLanes * t.logicAreaMm2(lp.spGates));
  addEvent("dp.lane_op", t.logicJ(lp.dpGates), "FP64 lane operation");
  addBuiltin("dp", {{"dp.lane_op", laneOps("sm.issued.dp")}},
             numSms * dpLanes * t.logicAreaMm2(lp.dpGates));
  addEvent("sfu.lane_op", t.logicJ(lp.sfuGates), "SFU lane operation");
  addBuiltin("sfu", {{"sfu.lane_op", laneOps("sm.issued.sfu")}},
             numSms * sfuLanes * t.logicAreaMm2(lp.sfuGates));
  addEvent("tensor.warp_mma", t.logicJ(lp.tensorFmaGates * lp.tensorFmasPerInst),
           "warp MMA instruction (all its FMAs)");
  addBuiltin("tensor", {{"tensor.warp_mma", counter("sm.issued.tensor")}},
             numSms * core.tensorUnits * 64 * t.logicAreaMm2(lp.tensorFmaGates));

  // LD/ST unit: address generation per lane + coalescer
  double ldstGates = lp.ldstGatesPerLane * warp + lp.coalescerGates;
  addEvent("ldst.inst", t.logicJ(ldstGates), "address generation and coalescing per instruction");
  addBuiltin("ldst", {{"ldst.inst", counter("sm.issued.ldst")}},
             numSms * t.logicAreaMm2(ldstGates) * core.ldstUnits);

  // shared memory: one access = one word per bank (a conflict replays the access)
  double shBits = double(core.sharedBytesPerSm) * 8;
  double shBanks = std::max(1u, core.sharedBanks);
  double shXbarGates = shBanks * 32 * std::log2(std::max(2.0, shBanks)) * 4;
  addEvent("shared.access", t.sramReadJ(shBits / shBanks, shBanks * 32) + t.logicJ(shXbarGates),
           "all banks, one word each, and the lane crossbar");
  addBuiltin("shared",
             {{"shared.access", sum({"ldst.shared_insts", "ldst.shared_bank_conflict_cycles"})}},
             numSms * (t.sramAreaMm2(shBits) + t.logicAreaMm2(shXbarGates)));

  // L1 data cache: sectored caches move a sector, others a line
  const auto &l1d = mem.l1d;
  addEvent("l1d.access", cacheAccessJ(l1d, l1d.sectorBytes), "L1D read/write incl. tags");
  addEvent("l1d.fill", t.sramWriteJ(cacheBits(l1d), l1d.sectorBytes * 8.0), "L1D fill");
  addEvent("l1d.writeback", t.sramReadJ(cacheBits(l1d), l1d.sectorBytes * 8.0), "L1D writeback");
  addBuiltin("l1d",
             {{"l1d.access", counter("l1d.accesses")},
              {"l1d.fill", counter("l1d.fills")},
              {"l1d.writeback", counter("l1d.writebacks")}},
             numSms * cacheArea(l1d));

  // constant cache: a warp reads one broadcast word per access
  const auto &cc = mem.constCache;
  addEvent("const_cache.access", cacheAccessJ(cc, 4), "constant word read incl. tags");
  addEvent("const_cache.fill", t.sramWriteJ(cacheBits(cc), cc.lineBytes * 8.0), "line fill");
  addBuiltin("const_cache",
             {{"const_cache.access", counter("const.accesses")},
              {"const_cache.fill", counter("const.fills")}},
             numSms * cacheArea(cc));

  // L2: per-partition slices
  const auto &l2 = mem.l2;
  addEvent("l2.access", cacheAccessJ(l2, l2.sectorBytes), "L2 slice read/write incl. tags");
  addEvent("l2.fill", t.sramWriteJ(cacheBits(l2), l2.sectorBytes * 8.0), "L2 fill from DRAM");
  addEvent("l2.writeback", t.sramReadJ(cacheBits(l2), l2.sectorBytes * 8.0), "L2 writeback");
  addBuiltin("l2",
             {{"l2.access", counter("l2.accesses")},
              {"l2.fill", counter("l2.fills")},
              {"l2.writeback", counter("l2.writebacks")}},
             mem.numPartitions * cacheArea(l2));

  // interconnect: flit bits over the distance an average flit travels, plus switch logic
  double flitBits = double(mem.icntFlitBytes) * 8;
  double nodes = numSms + mem.numPartitions;
  double hops = 1, mmPerHop = 0.5 * dieSideMm, routerGates;
  if (mem.topology == "mesh") {
    double k = std::ceil(std::sqrt(nodes));
    hops = std::max(1.0, 2.0 * k / 3.0);
    mmPerHop = dieSideMm / k;
    routerGates = flitBits * 30;
  } else {
    routerGates = flitBits * 4 * std::log2(std::max(2.0, nodes));
  }
  addEvent("icnt.flit", hops * (t.wireJ(flitBits, mmPerHop) + t.logicJ(routerGates)),
           "one flit over the average path (wires + switches)");
  addBuiltin("icnt", {{"icnt.flit", counter("icnt.flits")}},
             nodes * t.logicAreaMm2(routerGates * (mem.topology == "mesh" ? 5 : 1)));

  // DRAM: its own process and voltages
  const DramTechnology &d = m.dram_;
  double rowBits = double(cfg.dram.rowBytes) * 8;
  double actJ = rowBits * d.rowCapF * d.vdd * d.vdd;
  addEvent("dram.activate", actJ, "open a row");
  addEvent("dram.precharge", 0.4 * actJ, "close a row");
  addEvent("dram.read_byte", 8 * d.coreCapF * d.vdd * d.vdd, "array/column path per byte read");
  addEvent("dram.write_byte", 8 * d.coreCapF * d.vdd * d.vdd, "array/column path per byte written");
  addEvent("dram.io_byte", 8 * d.ioCapF * d.vddq * d.vddq, "channel I/O per byte moved");
  addEvent("dram.refresh", d.refreshRows * cfg.dram.banks * actJ, "refresh command (all banks)");
  addBuiltin("dram",
             {{"dram.activate", counter("dram.activates")},
              {"dram.precharge", counter("dram.precharges")},
              {"dram.read_byte", counter("dram.read_bytes")},
              {"dram.write_byte", counter("dram.write_bytes")},
              {"dram.io_byte", sum({"dram.read_bytes", "dram.write_bytes"})},
              {"dram.refresh", counter("dram.refreshes")}},
             0);
  double channels = double(mem.numPartitions) * cfg.dram.channelsPerPartition;
  m.builtins_.back().leakW = channels * cfg.dram.busWidthBytes * d.backgroundWPerByte;

  // clock tree and pipeline latches of every SM that has work
  addEvent("sm_clock.active_cycle", t.logicJ(lp.clockGates), "one SM clocked for one cycle");
  addBuiltin("sm_clock", {{"sm_clock.active_cycle", counter("sm.active_cycles")}}, 0);

  // --- heterogeneous cores (registerCoreAccounting) ------------------------------------------
  // The per-SM built-ins (every one sized numSms x one SM's instance above).
  static const char *const kPerSm[] = {"fetch_decode", "icache", "regfile", "operand_collector",
                                       "sp", "dp", "sfu", "tensor", "ldst", "shared", "l1d",
                                       "const_cache", "sm_clock"};
  for (auto &b : m.builtins_)
    for (const char *n : kPerSm)
      if (b.name == n)
        b.perSmAreaMm2 = numSms > 0 ? b.areaMm2 / numSms : 0;
  double removedAreaMm2 = 0;
  uint32_t reducedTotal = 0;
  for (CoreAccountingFn f : coreAccountingFns()) {
    CoreAccounting acc = f(cfg);
    if (!acc.note.empty())
      m.notes_.push_back(acc.note);
    for (const ReducedCores &rc : acc.reduced) {
      reducedTotal += rc.count;
      if (reducedTotal > cfg.numSms()) {
        diags.error(file, root.loc,
                    "power model: " + std::to_string(reducedTotal) +
                        " reduced cores (kind '" + rc.kind + "') but the GPU has only " +
                        std::to_string(cfg.numSms()));
        continue;
      }
      std::string lacks;
      for (const std::string &name : rc.absent) {
        auto it = std::find_if(m.builtins_.begin(), m.builtins_.end(),
                               [&](const Builtin &b) { return b.name == name; });
        bool perSm = std::find_if(std::begin(kPerSm), std::end(kPerSm), [&](const char *n) {
                       return name == n;
                     }) != std::end(kPerSm);
        if (it == m.builtins_.end() || !perSm) {
          diags.error(file, root.loc,
                      "power model: reduced cores of kind '" + rc.kind + "' lack '" + name +
                          "', which is not a per-SM component");
          continue;
        }
        double cut = rc.count * it->perSmAreaMm2;
        it->areaMm2 = std::max(0.0, it->areaMm2 - cut);
        it->leakW = t.leakageW(it->areaMm2);
        removedAreaMm2 += cut;
        lacks += (lacks.empty() ? "" : ", ") + name;
      }
      if (rc.wholeCore) {
        // not SMs at all: the rest of an SM's share of the die (its control and wiring, which
        // the uncore's leakage covers) goes with them
        double modeledPerSm = 0;
        for (auto &b : m.builtins_)
          for (const char *n : kPerSm)
            if (b.name == n)
              modeledPerSm += b.perSmAreaMm2;
        double smArea = numSms > 0 ? m.dieAreaMm2_ * lp.smAreaFraction / numSms : 0;
        removedAreaMm2 += rc.count * std::max(0.0, smArea - modeledPerSm);
        lacks += std::string(lacks.empty() ? "" : ", ") + "the rest of an SM";
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f", removedAreaMm2);
      m.reductionLines_.push_back(std::to_string(rc.count) + " " + rc.kind +
                                  " cores without " + lacks + " (" + buf + " mm^2 less die)");
    }
  }

  // --- overrides ---------------------------------------------------------------------------
  for (const XmlElement *e : energyOverrides) {
    ElementReader r(*e, file, diags);
    std::string key;
    double pj = 0;
    bool ok = r.str("event", key, true);
    ok = r.num("pj", pj, true, 0, 1e12) && ok;
    r.finish();
    if (!ok)
      continue;
    auto it = std::find_if(m.events_.begin(), m.events_.end(),
                           [&](const EventEnergy &ev) { return ev.key == key; });
    if (it == m.events_.end())
      diags.error(file, e->attribute("event")->loc, "<energy>: unknown event '" + key + "'");
    else
      it->joules = pj * 1e-12;
  }
  for (const XmlElement *e : leakageOverrides) {
    ElementReader r(*e, file, diags);
    std::string comp;
    double w = 0;
    bool ok = r.str("component", comp, true);
    ok = r.num("w", w, true, 0, 1e5) && ok;
    r.finish();
    if (!ok)
      continue;
    auto it = std::find_if(m.builtins_.begin(), m.builtins_.end(),
                           [&](const Builtin &b) { return b.name == comp; });
    if (it == m.builtins_.end())
      diags.error(file, e->attribute("component")->loc,
                  "<leakage>: unknown component '" + comp + "'");
    else {
      it->leakW = w;
    }
  }
  // extension components (registerPowerComponent) after the built-ins, in registration order
  for (PowerComponentFactory f : powerComponentFactories())
    if (std::shared_ptr<IPowerComponent> c = f(cfg, t))
      m.extensions_.push_back(std::move(c));
  for (auto &c : m.extensions_)
    for (const std::string &n : c->counters())
      m.needed_.push_back(n);
  // Every counter the model reads must be one a component registers: a renamed counter would
  // otherwise read as zero and silently drop a component's energy.
  for (const std::string &n : m.needed_)
    if (!catalog.find(n))
      diags.error(file, root.loc,
                  "power model needs the statistic '" + n +
                      "', which no timing component or extension registers (was it renamed?)");
  if (diags.errorCount() != errorsBefore)
    return false;

  // uncore: die area no built-in claims leaks at the same density (the area reduced cores do
  // not have left the die with them, so it is not handed to the uncore)
  double modeled = removedAreaMm2;
  for (auto &b : m.builtins_)
    modeled += b.areaMm2;
  m.uncoreLeakW_ = t.leakageW(std::max(0.0, m.dieAreaMm2_ - modeled));
  out = std::move(m);
  return true;
}

double PowerModel::eventJ(const std::string &key) const {
  for (auto &e : events_)
    if (e.key == key)
      return e.joules;
  return 0;
}

double PowerModel::leakageW(const std::string &component) const {
  for (auto &b : builtins_)
    if (b.name == component)
      return b.leakW;
  for (auto &c : extensions_)
    if (c->name() == component)
      return c->leakageW();
  if (component == "uncore")
    return uncoreLeakW_ + constantW_;
  return 0;
}

void PowerModel::addComponent(std::shared_ptr<IPowerComponent> c) {
  if (c)
    extensions_.push_back(std::move(c));
}

namespace {
std::vector<PowerComponentFactory> &factories() {
  static auto *v = new std::vector<PowerComponentFactory>();
  return *v;
}
} // namespace

void registerPowerComponent(PowerComponentFactory f) { factories().push_back(f); }
const std::vector<PowerComponentFactory> &powerComponentFactories() { return factories(); }

namespace {
std::vector<CoreAccountingFn> &accountingFns() {
  static auto *v = new std::vector<CoreAccountingFn>();
  return *v;
}
} // namespace

void registerCoreAccounting(CoreAccountingFn f) { accountingFns().push_back(f); }
const std::vector<CoreAccountingFn> &coreAccountingFns() { return accountingFns(); }

double PowerModel::builtinDynamicJ(const Builtin &b, const KernelTimingStats &s) const {
  double j = 0;
  for (auto &term : b.terms)
    j += std::max(0.0, term.count(s)) * eventJ(term.event);
  return j;
}

std::vector<std::string> PowerModel::componentNames() const {
  std::vector<std::string> n;
  for (auto &b : builtins_)
    n.push_back(b.name);
  for (auto &c : extensions_)
    n.push_back(c->name());
  n.push_back("uncore");
  return n;
}

std::vector<double> PowerModel::dynamicJ(const KernelTimingStats &s) const {
  std::vector<double> v;
  for (auto &b : builtins_)
    v.push_back(builtinDynamicJ(b, s));
  for (auto &c : extensions_)
    v.push_back(std::max(0.0, c->dynamicJ(s)));
  v.push_back(0); // uncore: static only
  return v;
}

std::vector<double> PowerModel::leakagesW() const {
  std::vector<double> v;
  for (auto &b : builtins_)
    v.push_back(b.leakW);
  for (auto &c : extensions_)
    v.push_back(std::max(0.0, c->leakageW()));
  v.push_back(uncoreLeakW_ + constantW_);
  return v;
}

double PowerModel::idleW() const {
  if (idleVdd_ <= 0 || tech_.vdd <= 0)
    return staticW();
  double scale = idleVdd_ / tech_.vdd, dramW = leakageW("dram");
  return dramW + (staticW() - dramW) * scale * scale * scale;
}

double PowerModel::staticW() const {
  double w = 0;
  for (double x : leakagesW())
    w += x;
  return w;
}

namespace {
double secondsOf(const KernelTimingStats &s) { return s.get("gpu.sim_seconds"); }
double total(const std::vector<double> &v) {
  double t = 0;
  for (double x : v)
    t += x;
  return t;
}
} // namespace

KernelPower PowerModel::kernel(const std::string &kernelName, const KernelTimingStats &s,
                               const std::vector<KernelTimingStats> &samples) const {
  KernelPower p;
  p.kernel = kernelName;
  p.seconds = secondsOf(s);
  std::vector<std::string> names = componentNames();
  std::vector<double> dyn = dynamicJ(s), leak = leakagesW();
  for (size_t i = 0; i < names.size(); ++i) {
    ComponentEnergy c;
    c.name = names[i];
    c.dynamicJ = dyn[i];
    c.staticJ = leak[i] * p.seconds;
    p.energyJ += c.dynamicJ + c.staticJ;
    p.components.push_back(std::move(c));
  }
  double staticPower = total(leak);
  p.avgW = p.seconds > 0 ? p.energyJ / p.seconds : staticPower;

  // trace: intervals between consecutive cumulative snapshots, ending with the final statistics
  double prevT = 0, prevE = 0;
  auto point = [&](double t, double e) {
    if (t <= prevT)
      return;
    p.trace.push_back({t, std::max(0.0, e - prevE) / (t - prevT) + staticPower});
    prevT = t;
    prevE = e;
  };
  for (auto &snap : samples) {
    double t = secondsOf(snap);
    if (t < p.seconds)
      point(t, total(dynamicJ(snap)));
  }
  point(p.seconds, total(dyn));
  if (p.trace.empty())
    p.trace.push_back({p.seconds, p.avgW});
  p.peakW = p.avgW;
  for (auto &pt : p.trace)
    p.peakW = std::max(p.peakW, pt.second);
  p.notes = notes_;
  return p;
}

std::string PowerModel::describe() const {
  std::ostringstream os;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "power model %s: %g nm, Vdd %.3g V, leakage %.3g W/mm^2, die %.4g mm^2, "
                "constant %.4g W, DRAM %s\n",
                name_.c_str(), tech_.nodeNm, tech_.vdd, tech_.leakageWPerMm2, dieAreaMm2_,
                constantW_, dram_.type.c_str());
  os << buf;
  os << "  per-event energies:\n";
  for (auto &e : events_) {
    std::snprintf(buf, sizeof buf, "    %-28s %12.4f pJ  %s\n", e.key.c_str(), e.joules * 1e12,
                  e.help.c_str());
    os << buf;
  }
  for (auto &l : reductionLines_)
    os << "  heterogeneous cores: " << l << "\n";
  for (auto &n : notes_)
    os << "  note: " << n << "\n";
  os << "  leakage / static power:\n";
  std::vector<std::string> names = componentNames();
  std::vector<double> leak = leakagesW();
  for (size_t i = 0; i < names.size(); ++i) {
    double area = i < builtins_.size() ? builtins_[i].areaMm2 : 0;
    std::snprintf(buf, sizeof buf, "    %-28s %10.4f W   (%.3f mm^2 modelled)\n", names[i].c_str(),
                  leak[i], area);
    os << buf;
  }
  if (hasIdle()) {
    std::snprintf(buf, sizeof buf, "  idle (no kernel running): %.4g W at %.3g V, %.4g MHz\n",
                  idleW(), idleVdd_, idleClockMHz_);
    os << buf;
  }
  return os.str();
}

} // namespace ptxsim::power
