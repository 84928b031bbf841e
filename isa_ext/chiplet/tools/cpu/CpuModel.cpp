#include "isa_ext/chiplet/tools/cpu/CpuModel.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace ptxsim::chiplet::cpu {
namespace {

// The presets' text: the same options as configs/<name>.cpu.config (a unit test checks that the
// files parse to these), so a build finds its presets without the source tree.
const char *kGainestown = R"(
-cpu_name Gainestown
-cpu_freq_ghz 2.66
-cpu_l1i 32768:4:64
-cpu_l1d 32768:8:64
-cpu_llc 8388608:16:64
-cpu_cpi_other 0.25
-cpu_cpi_load 0.35
-cpu_cpi_store 0.3
-cpu_cpi_branch 0.3
-cpu_l1_miss_penalty 12
-cpu_llc_miss_penalty 100
-cpu_mispredict_penalty 14
-cpu_energy_other_pj 350
-cpu_energy_load_pj 400
-cpu_energy_store_pj 400
-cpu_energy_branch_pj 350
-cpu_energy_l1_access_pj 40
-cpu_energy_llc_access_pj 500
-cpu_energy_dram_access_pj 15000
-cpu_energy_mispredict_pj 2000
-cpu_leakage_w 6
)";

const char *kModern = R"(
-cpu_name Modern
-cpu_freq_ghz 4.0
-cpu_l1i 32768:8:64
-cpu_l1d 32768:8:64
-cpu_llc 33554432:16:64
-cpu_cpi_other 0.167
-cpu_cpi_load 0.25
-cpu_cpi_store 0.25
-cpu_cpi_branch 0.25
-cpu_l1_miss_penalty 20
-cpu_llc_miss_penalty 110
-cpu_mispredict_penalty 16
-cpu_energy_other_pj 60
-cpu_energy_load_pj 80
-cpu_energy_store_pj 80
-cpu_energy_branch_pj 60
-cpu_energy_l1_access_pj 10
-cpu_energy_llc_access_pj 150
-cpu_energy_dram_access_pj 8000
-cpu_energy_mispredict_pj 600
-cpu_leakage_w 1.0
)";

/// A non-negative decimal with at most three digits after the point, in thousandths.
bool parseMilli(const std::string &s, uint64_t &out) {
  uint64_t whole = 0, frac = 0;
  size_t i = 0, digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits)
    whole = whole * 10 + (uint64_t)(s[i] - '0');
  if (i < s.size() && s[i] == '.') {
    ++i;
    unsigned n = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++n, ++digits) {
      if (n >= 3)
        return false;
      frac = frac * 10 + (uint64_t)(s[i] - '0');
    }
    for (; n < 3; ++n)
      frac *= 10;
  } else
    frac = 0;
  if (i != s.size() || digits == 0 || whole > 1000000000)
    return false;
  out = whole * 1000 + frac;
  return true;
}

bool parseDouble(const std::string &s, double &out) {
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == 0 && out >= 0;
}

bool powerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

bool parseCache(const std::string &s, CacheGeometry &c) {
  unsigned long long size = 0;
  unsigned assoc = 0, line = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%llu:%u:%u%c", &size, &assoc, &line, &tail) != 3 || !assoc ||
      !powerOfTwo(line) || line < 16 || size % ((uint64_t)assoc * line) != 0 ||
      !powerOfTwo(size / ((uint64_t)assoc * line)))
    return false;
  c = {size, assoc, line};
  return true;
}

} // namespace

CpuCounts &CpuCounts::operator+=(const CpuCounts &o) {
  ir += o.ir, dr += o.dr, dw += o.dw, i1mr += o.i1mr, d1mr += o.d1mr, d1mw += o.d1mw;
  ilmr += o.ilmr, dlmr += o.dlmr, dlmw += o.dlmw, bc += o.bc, bcm += o.bcm, bi += o.bi,
      bim += o.bim;
  return *this;
}

bool parseCpuConfig(const std::string &text, const std::string &where, CpuConfig &cfg,
                    std::string &err) {
  struct Opt {
    enum Kind { Name, Double, Milli, Cache } kind;
    void *dst;
  };
  std::map<std::string, Opt> opts = {
      {"-cpu_name", {Opt::Name, &cfg.name}},
      {"-cpu_freq_ghz", {Opt::Double, &cfg.freqGhz}},
      {"-cpu_l1i", {Opt::Cache, &cfg.l1i}},
      {"-cpu_l1d", {Opt::Cache, &cfg.l1d}},
      {"-cpu_llc", {Opt::Cache, &cfg.llc}},
      {"-cpu_cpi_other", {Opt::Milli, &cfg.cpiOtherM}},
      {"-cpu_cpi_load", {Opt::Milli, &cfg.cpiLoadM}},
      {"-cpu_cpi_store", {Opt::Milli, &cfg.cpiStoreM}},
      {"-cpu_cpi_branch", {Opt::Milli, &cfg.cpiBranchM}},
      {"-cpu_l1_miss_penalty", {Opt::Milli, &cfg.l1MissPenaltyM}},
      {"-cpu_llc_miss_penalty", {Opt::Milli, &cfg.llcMissPenaltyM}},
      {"-cpu_mispredict_penalty", {Opt::Milli, &cfg.mispredictPenaltyM}},
      {"-cpu_energy_other_pj", {Opt::Double, &cfg.eOtherPj}},
      {"-cpu_energy_load_pj", {Opt::Double, &cfg.eLoadPj}},
      {"-cpu_energy_store_pj", {Opt::Double, &cfg.eStorePj}},
      {"-cpu_energy_branch_pj", {Opt::Double, &cfg.eBranchPj}},
      {"-cpu_energy_l1_access_pj", {Opt::Double, &cfg.eL1AccessPj}},
      {"-cpu_energy_llc_access_pj", {Opt::Double, &cfg.eLlcAccessPj}},
      {"-cpu_energy_dram_access_pj", {Opt::Double, &cfg.eDramAccessPj}},
      {"-cpu_energy_mispredict_pj", {Opt::Double, &cfg.eMispredictPj}},
      {"-cpu_leakage_w", {Opt::Double, &cfg.leakageW}},
  };
  std::map<std::string, bool> seen;
  std::istringstream in(text);
  std::string line;
  for (unsigned ln = 1; std::getline(in, line); ++ln) {
    if (size_t h = line.find('#'); h != std::string::npos)
      line.resize(h);
    std::istringstream ls(line);
    std::string key, val, extra;
    if (!(ls >> key))
      continue;
    std::string at = where + ":" + std::to_string(ln) + ": ";
    auto it = opts.find(key);
    if (it == opts.end()) {
      err = at + "unknown CPU option '" + key + "'";
      return false;
    }
    if (!(ls >> val) || (ls >> extra)) {
      err = at + key + " takes one value";
      return false;
    }
    if (seen[key]) {
      err = at + key + " is given twice";
      return false;
    }
    seen[key] = true;
    bool ok = true;
    switch (it->second.kind) {
    case Opt::Name:
      *(std::string *)it->second.dst = val;
      break;
    case Opt::Double:
      ok = parseDouble(val, *(double *)it->second.dst);
      break;
    case Opt::Milli:
      ok = parseMilli(val, *(uint64_t *)it->second.dst);
      break;
    case Opt::Cache:
      ok = parseCache(val, *(CacheGeometry *)it->second.dst);
      break;
    }
    if (!ok) {
      const char *want = it->second.kind == Opt::Milli    ? "a number >= 0 with at most 3 decimals"
                         : it->second.kind == Opt::Cache  ? "SIZE:ASSOC:LINE with a power-of-two "
                                                            "line and number of sets"
                                                          : "a number >= 0";
      err = at + key + " needs " + want + ", not '" + val + "'";
      return false;
    }
  }
  for (auto &o : opts)
    if (!seen[o.first]) {
      err = where + ": missing CPU option " + o.first;
      return false;
    }
  if (cfg.freqGhz <= 0) {
    err = where + ": -cpu_freq_ghz must be > 0";
    return false;
  }
  return true;
}

bool builtinPreset(const std::string &name, CpuConfig &cfg) {
  std::string err;
  if (name == "gainestown")
    return parseCpuConfig(kGainestown, "builtin gainestown", cfg, err);
  if (name == "modern")
    return parseCpuConfig(kModern, "builtin modern", cfg, err);
  return false;
}

bool loadCpuConfig(const std::string &nameOrPath, CpuConfig &cfg, std::string &err) {
  if (builtinPreset(nameOrPath, cfg))
    return true;
  std::ifstream f(nameOrPath);
  if (!f) {
    err = "CPU model '" + nameOrPath + "' is neither a preset (gainestown, modern) nor a readable "
          "file";
    return false;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return parseCpuConfig(ss.str(), nameOrPath, cfg, err);
}

std::vector<std::string> valgrindCacheArgs(const CpuConfig &cfg) {
  auto one = [](const char *opt, const CacheGeometry &c) {
    return std::string(opt) + std::to_string(c.size) + "," + std::to_string(c.assoc) + "," +
           std::to_string(c.line);
  };
  return {one("--I1=", cfg.l1i), one("--D1=", cfg.l1d), one("--LL=", cfg.llc)};
}

bool parseCallgrindTotals(const std::string &text, CpuCounts &c, std::string &err) {
  std::vector<std::string> events;
  std::vector<uint64_t> values;
  bool haveTotals = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("events:", 0) == 0) {
      std::istringstream ls(line.substr(7));
      events.clear();
      for (std::string e; ls >> e;)
        events.push_back(e);
    } else if (line.rfind("totals:", 0) == 0) {
      std::istringstream ls(line.substr(7));
      values.clear();
      for (uint64_t v; ls >> v;)
        values.push_back(v);
      haveTotals = true;
    }
  }
  if (events.empty() || !haveTotals) {
    err = "not a callgrind dump (no events:/totals: lines)";
    return false;
  }
  c = CpuCounts();
  std::map<std::string, uint64_t *> dst = {
      {"Ir", &c.ir},     {"Dr", &c.dr},     {"Dw", &c.dw},     {"I1mr", &c.i1mr}, {"D1mr", &c.d1mr},
      {"D1mw", &c.d1mw}, {"ILmr", &c.ilmr}, {"DLmr", &c.dlmr}, {"DLmw", &c.dlmw}, {"Bc", &c.bc},
      {"Bcm", &c.bcm},   {"Bi", &c.bi},     {"Bim", &c.bim}};
  for (const char *need : {"Ir", "Dr", "D1mr", "DLmr", "Bc", "Bcm"}) {
    bool found = false;
    for (auto &e : events)
      found |= e == need;
    if (!found) {
      err = std::string("callgrind dump lacks event ") + need +
            " (run with --cache-sim=yes --branch-sim=yes)";
      return false;
    }
  }
  // callgrind leaves trailing zero columns out
  for (size_t i = 0; i < events.size() && i < values.size(); ++i)
    if (auto it = dst.find(events[i]); it != dst.end())
      *it->second = values[i];
  return true;
}

CpuCycles CpuCoreModel::intervalCycles(const CpuCounts &c) const {
  uint64_t branches = c.bc + c.bi;
  uint64_t classified = c.dr + c.dw + branches;
  uint64_t other = c.ir > classified ? c.ir - classified : 0;
  CpuCycles y;
  y.baseM = other * cfg_.cpiOtherM + c.dr * cfg_.cpiLoadM + c.dw * cfg_.cpiStoreM +
            branches * cfg_.cpiBranchM;
  uint64_t l1Misses = c.i1mr + c.d1mr + c.d1mw, llcMisses = c.ilmr + c.dlmr + c.dlmw;
  // an L1 miss that also misses the LLC pays the LLC miss penalty only
  y.l1MissM = (l1Misses > llcMisses ? l1Misses - llcMisses : 0) * cfg_.l1MissPenaltyM;
  y.llcMissM = llcMisses * cfg_.llcMissPenaltyM;
  y.mispredictM = (c.bcm + c.bim) * cfg_.mispredictPenaltyM;
  return y;
}

uint64_t CpuCoreModel::addInterval(const CpuCounts &c) {
  CpuCycles y = intervalCycles(c);
  parts_.baseM += y.baseM, parts_.l1MissM += y.l1MissM, parts_.llcMissM += y.llcMissM,
      parts_.mispredictM += y.mispredictM;
  total_ += c;
  ++intervals_;
  uint64_t m = y.totalM() + carryM_;
  carryM_ = m % 1000;
  cycles_ += m / 1000;
  return m / 1000;
}

double CpuCoreModel::dynamicEnergyJ() const {
  const CpuCounts &c = total_;
  uint64_t branches = c.bc + c.bi, classified = c.dr + c.dw + branches;
  uint64_t other = c.ir > classified ? c.ir - classified : 0;
  double pj = (double)other * cfg_.eOtherPj + (double)c.dr * cfg_.eLoadPj +
              (double)c.dw * cfg_.eStorePj + (double)branches * cfg_.eBranchPj;
  // every instruction fetch and data access reads an L1; its misses access the LLC, whose
  // misses access DRAM
  pj += (double)(c.ir + c.dr + c.dw) * cfg_.eL1AccessPj;
  pj += (double)(c.i1mr + c.d1mr + c.d1mw) * cfg_.eLlcAccessPj;
  pj += (double)(c.ilmr + c.dlmr + c.dlmw) * cfg_.eDramAccessPj;
  pj += (double)(c.bcm + c.bim) * cfg_.eMispredictPj;
  return pj * 1e-12;
}

std::string CpuCoreModel::json() const {
  const CpuCounts &c = total_;
  uint64_t branches = c.bc + c.bi, classified = c.dr + c.dw + branches;
  uint64_t other = c.ir > classified ? c.ir - classified : 0;
  double dyn = dynamicEnergyJ(), leak = leakageEnergyJ(), s = seconds();
  char buf[1536];
  std::snprintf(
      buf, sizeof buf,
      "{\"cpu_model\": \"%s\", \"freq_ghz\": %g, \"intervals\": %llu, \"cycles\": %llu, "
      "\"cycles_base\": %.3f, \"cycles_l1_miss\": %.3f, \"cycles_llc_miss\": %.3f, "
      "\"cycles_mispredict\": %.3f, \"instructions\": %llu, \"loads\": %llu, \"stores\": %llu, "
      "\"branches\": %llu, \"other\": %llu, \"l1i_misses\": %llu, \"l1d_misses\": %llu, "
      "\"llc_misses\": %llu, \"mispredicts\": %llu, \"seconds\": %.9g, \"dynamic_energy_j\": "
      "%.9g, \"leakage_energy_j\": %.9g, \"energy_j\": %.9g, \"power_w\": %.9g, "
      "\"other_thread_instructions\": %llu}\n",
      cfg_.name.c_str(), cfg_.freqGhz, (unsigned long long)intervals_,
      (unsigned long long)cycles_, parts_.baseM / 1000.0, parts_.l1MissM / 1000.0,
      parts_.llcMissM / 1000.0, parts_.mispredictM / 1000.0, (unsigned long long)c.ir,
      (unsigned long long)c.dr, (unsigned long long)c.dw, (unsigned long long)branches,
      (unsigned long long)other, (unsigned long long)c.i1mr,
      (unsigned long long)(c.d1mr + c.d1mw), (unsigned long long)(c.ilmr + c.dlmr + c.dlmw),
      (unsigned long long)(c.bcm + c.bim), s, dyn, leak, dyn + leak, s > 0 ? (dyn + leak) / s : 0,
      (unsigned long long)otherThreadInstructions_);
  return buf;
}

} // namespace ptxsim::chiplet::cpu
