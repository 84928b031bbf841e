// PowerModel::load: the XML configuration, the registry's components and the corrections to them
// (reduced cores, `<energy>` and `<leakage>` overrides), in named steps (PowerModelBuilder).
#include "power/PowerModel.h"

#include "power/Xml.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ptxsim::power {

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
                   "<" + e_.name + ">: attribute '" + name + "' is not a number: '" + a->value +
                       "'");
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

/// `<chip>` attributes the model needs beyond the die area and constant power.
struct ChipParams {
  double smAreaFraction = 0.6; ///< share of the die the SMs occupy (for SM wire lengths)
  double dieSms = 0;           ///< SMs the die area is for (0: this configuration's)
};

} // namespace

/// Builds a PowerModel from a parsed XML document, one step per concern. Errors are reported to
/// `diags` as they are found; build() fails when any step reported one.
class PowerModelBuilder {
public:
  PowerModelBuilder(const std::string &file, const timing::TimingConfig &cfg, DiagEngine &diags,
                    const stats::Catalog &catalog)
      : file_(file), cfg_(cfg), diags_(diags), catalog_(catalog), dramType_(cfg.dram.type) {}

  bool build(const XmlElement &root, PowerModel &out);

private:
  void readElements(const XmlElement &root);
  bool readElement(const XmlElement &e, ElementReader &r);
  void readDram(const XmlElement &root);
  void scaleDie();
  void buildComponents();
  void reduceCores(const XmlElement &root);
  void reduce(const ReducedCores &rc, const XmlElement &root);
  void overrideEnergies();
  void overrideLeakages();
  void checkStatistics(const XmlElement &root);
  void finishUncore();
  IPowerComponent *component(const std::string &name) const;

  const std::string &file_;
  const timing::TimingConfig &cfg_;
  DiagEngine &diags_;
  const stats::Catalog &catalog_;
  PowerModel m_;
  LogicParams logic_;
  ChipParams chip_;
  bool haveTech_ = false, haveChip_ = false;
  std::string dramType_;
  const XmlElement *dramElem_ = nullptr;
  std::vector<const XmlElement *> energyOverrides_, leakageOverrides_;
  std::vector<double> perSmAreaMm2_; ///< per component: one SM's instance (0: not per-SM)
  double removedAreaMm2_ = 0;        ///< die area reduced cores do not have
  uint32_t reducedTotal_ = 0;
};

bool PowerModelBuilder::build(const XmlElement &root, PowerModel &out) {
  size_t errorsBefore = diags_.errorCount();
  if (root.name != "ptxsim_power") {
    diags_.error(file_, root.loc, "<" + root.name + ">: expected the root element <ptxsim_power>");
    return false;
  }
  {
    ElementReader r(root, file_, diags_);
    r.str("name", m_.name_, false);
    r.finish();
  }
  if (m_.name_.empty())
    m_.name_ = cfg_.name;
  readElements(root);
  readDram(root);
  if (diags_.errorCount() != errorsBefore)
    return false;
  scaleDie();
  buildComponents();
  reduceCores(root);
  overrideEnergies();
  overrideLeakages();
  checkStatistics(root);
  if (diags_.errorCount() != errorsBefore)
    return false;
  finishUncore();
  out = std::move(m_);
  return true;
}

void PowerModelBuilder::readElements(const XmlElement &root) {
  for (auto &cp : root.children) {
    const XmlElement &e = *cp;
    ElementReader r(e, file_, diags_);
    if (e.name == "dram") {
      dramElem_ = &e; // read after the type is known
    } else if (e.name == "energy") {
      energyOverrides_.push_back(&e);
    } else if (e.name == "leakage") {
      leakageOverrides_.push_back(&e);
    } else if (readElement(e, r)) {
      r.finish();
    } else {
      diags_.error(file_, e.loc, "<" + e.name + ">: unknown element in <ptxsim_power>");
    }
  }
  if (!haveTech_)
    diags_.error(file_, root.loc, "<ptxsim_power>: missing element <technology>");
  if (!haveChip_)
    diags_.error(file_, root.loc, "<ptxsim_power>: missing element <chip>");
}

/// The elements read in place; false: not one of them.
bool PowerModelBuilder::readElement(const XmlElement &e, ElementReader &r) {
  PowerModel &m = m_;
  if (e.name == "technology") {
    if (haveTech_)
      diags_.error(file_, e.loc, "<technology>: given twice");
    haveTech_ = true;
    r.num("node_nm", m.tech_.nodeNm, true, 1, 500);
    r.num("vdd", m.tech_.vdd, true, 0.3, 2.5);
    r.num("leakage_w_per_mm2", m.tech_.leakageWPerMm2, true, 0, 10);
    r.num("capacitance_exponent", m.tech_.capacitanceExponent, false, 0, 3);
    r.num("area_exponent", m.tech_.areaExponent, false, 0, 3);
  } else if (e.name == "chip") {
    if (haveChip_)
      diags_.error(file_, e.loc, "<chip>: given twice");
    haveChip_ = true;
    r.num("die_area_mm2", m.dieAreaMm2_, true, 1, 10000);
    r.num("constant_w", m.constantW_, true, 0, 10000);
    r.num("sm_area_fraction", chip_.smAreaFraction, false, 0.05, 1);
    r.num("die_sms", chip_.dieSms, false, 0, 100000);
  } else if (e.name == "logic") {
    LogicParams &lp = logic_;
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
  } else {
    return false;
  }
  return true;
}

void PowerModelBuilder::readDram(const XmlElement &root) {
  DramTechnology &d = m_.dram_;
  if (!dramElem_) {
    if (!dramTechnologyDefaults(dramType_, d))
      diags_.error(file_, root.loc,
                   "<ptxsim_power>: the timing configuration's DRAM type '" + dramType_ +
                       "' has no defaults; add a <dram> element with its parameters");
    return;
  }
  const XmlElement &e = *dramElem_;
  ElementReader r(e, file_, diags_);
  r.str("type", dramType_, false);
  bool known = dramTechnologyDefaults(dramType_, d);
  bool full = e.attribute("vdd") && e.attribute("vddq") && e.attribute("row_cap_ff") &&
              e.attribute("core_cap_pf") && e.attribute("io_cap_pf") &&
              e.attribute("background_w_per_byte");
  if (!known && !full)
    diags_.error(file_, e.loc,
                 "<dram>: unknown DRAM type '" + dramType_ +
                     "' (give vdd, vddq, row_cap_ff, core_cap_pf, io_cap_pf, "
                     "background_w_per_byte)");
  d.type = dramType_;
  double rowFf = d.rowCapF * 1e15, corePf = d.coreCapF * 1e12, ioPf = d.ioCapF * 1e12;
  r.num("vdd", d.vdd, false, 0.2, 3);
  r.num("vddq", d.vddq, false, 0.1, 3);
  r.num("row_cap_ff", rowFf, false, 0, 1e4);
  r.num("core_cap_pf", corePf, false, 0, 1e3);
  r.num("io_cap_pf", ioPf, false, 0, 1e3);
  r.num("background_w_per_byte", d.backgroundWPerByte, false, 0, 100);
  r.num("refresh_rows", d.refreshRows, false, 0, 1e6);
  d.rowCapF = rowFf * 1e-15;
  d.coreCapF = corePf * 1e-12;
  d.ioCapF = ioPf * 1e-12;
  r.finish();
}

/// die_area_mm2 is a die with die_sms SMs: one with another number of cores (an SPU's SMs and
/// IUs) is that many SM areas larger or smaller, and its SMs take their share of it.
void PowerModelBuilder::scaleDie() {
  if (chip_.dieSms <= 0 || cfg_.numSms() == 0)
    return;
  double smArea = m_.dieAreaMm2_ * chip_.smAreaFraction / chip_.dieSms;
  double rest = m_.dieAreaMm2_ * (1 - chip_.smAreaFraction);
  m_.dieAreaMm2_ = rest + smArea * cfg_.numSms();
  chip_.smAreaFraction = smArea * cfg_.numSms() / m_.dieAreaMm2_;
}

/// Every registered factory (the built-ins first), each component's statistics bound once.
void PowerModelBuilder::buildComponents() {
  PowerContext ctx{cfg_, m_.tech_, m_.dram_, logic_, m_.dieAreaMm2_, chip_.smAreaFraction};
  m_.stats_.checkAgainst(&catalog_); // (and gpu.sim_seconds, which the model reads itself)
  const double numSms = cfg_.numSms();
  for (PowerComponentFactory f : powerComponentFactories()) {
    std::shared_ptr<IPowerComponent> c = f(ctx);
    if (!c)
      continue;
    c->bind(m_.stats_);
    perSmAreaMm2_.push_back(c->perSm() && numSms > 0 ? c->areaMm2() / numSms : 0);
    m_.components_.push_back(std::move(c));
  }
  m_.stats_.checkAgainst(nullptr);
}

IPowerComponent *PowerModelBuilder::component(const std::string &name) const {
  for (auto &c : m_.components_)
    if (c->name() == name)
      return c.get();
  return nullptr;
}

/// Heterogeneous cores (registerCoreAccounting): the per-SM components reduced cores lack.
void PowerModelBuilder::reduceCores(const XmlElement &root) {
  for (CoreAccountingFn f : coreAccountingFns()) {
    CoreAccounting acc = f(cfg_);
    if (!acc.note.empty())
      m_.notes_.push_back(acc.note);
    for (const ReducedCores &rc : acc.reduced) {
      reducedTotal_ += rc.count;
      if (reducedTotal_ > cfg_.numSms()) {
        diags_.error(file_, root.loc,
                     "power model: " + std::to_string(reducedTotal_) + " reduced cores (kind '" +
                         rc.kind + "') but the GPU has only " + std::to_string(cfg_.numSms()));
        continue;
      }
      reduce(rc, root);
    }
  }
}

void PowerModelBuilder::reduce(const ReducedCores &rc, const XmlElement &root) {
  std::string lacks;
  for (const std::string &name : rc.absent) {
    auto &cs = m_.components_;
    auto it = std::find_if(cs.begin(), cs.end(), [&](auto &c) { return c->name() == name; });
    if (it == cs.end() || !(*it)->perSm()) {
      diags_.error(file_, root.loc,
                   "power model: reduced cores of kind '" + rc.kind + "' lack '" + name +
                       "', which is not a per-SM component");
      continue;
    }
    double cut = rc.count * perSmAreaMm2_[size_t(it - cs.begin())];
    (*it)->setAreaMm2(std::max(0.0, (*it)->areaMm2() - cut));
    removedAreaMm2_ += cut;
    lacks += (lacks.empty() ? "" : ", ") + name;
  }
  if (rc.wholeCore) {
    // not SMs at all: the rest of an SM's share of the die (its control and wiring, which the
    // uncore's leakage covers) goes with them
    double modeledPerSm = 0;
    for (double a : perSmAreaMm2_)
      modeledPerSm += a;
    const double numSms = cfg_.numSms();
    double smArea = numSms > 0 ? m_.dieAreaMm2_ * chip_.smAreaFraction / numSms : 0;
    removedAreaMm2_ += rc.count * std::max(0.0, smArea - modeledPerSm);
    lacks += std::string(lacks.empty() ? "" : ", ") + "the rest of an SM";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", removedAreaMm2_);
  m_.reductionLines_.push_back(std::to_string(rc.count) + " " + rc.kind + " cores without " +
                               lacks + " (" + buf + " mm^2 less die)");
}

void PowerModelBuilder::overrideEnergies() {
  for (const XmlElement *e : energyOverrides_) {
    ElementReader r(*e, file_, diags_);
    std::string key;
    double pj = 0;
    bool ok = r.str("event", key, true);
    ok = r.num("pj", pj, true, 0, 1e12) && ok;
    r.finish();
    if (!ok)
      continue;
    EventEnergy *ev = nullptr;
    for (auto &c : m_.components_)
      if (std::vector<EventEnergy> *evs = c->events())
        for (EventEnergy &x : *evs)
          if (!ev && x.key == key)
            ev = &x;
    if (!ev)
      diags_.error(file_, e->attribute("event")->loc, "<energy>: unknown event '" + key + "'");
    else
      ev->joules = pj * 1e-12;
  }
  for (auto &c : m_.components_)
    if (const std::vector<EventEnergy> *evs = c->events())
      m_.events_.insert(m_.events_.end(), evs->begin(), evs->end());
}

void PowerModelBuilder::overrideLeakages() {
  for (const XmlElement *e : leakageOverrides_) {
    ElementReader r(*e, file_, diags_);
    std::string name;
    double w = 0;
    bool ok = r.str("component", name, true);
    ok = r.num("w", w, true, 0, 1e5) && ok;
    r.finish();
    if (!ok)
      continue;
    IPowerComponent *c = component(name);
    if (!c || !c->setLeakageW(w))
      diags_.error(file_, e->attribute("component")->loc,
                   "<leakage>: unknown component '" + name + "'");
  }
}

/// Every statistic a component reads must be one a component registers: a renamed counter would
/// otherwise read as zero and silently drop a component's energy.
void PowerModelBuilder::checkStatistics(const XmlElement &root) {
  for (const std::string &n : m_.stats_.unregistered())
    diags_.error(file_, root.loc,
                 "power model needs the statistic '" + n +
                     "', which no timing component or extension registers (was it renamed?)");
}

/// The uncore leaks for the die area no component models (the area reduced cores do not have
/// left the die with them, so it is not handed to the uncore).
void PowerModelBuilder::finishUncore() {
  double modeled = removedAreaMm2_;
  for (auto &c : m_.components_)
    modeled += c->areaMm2();
  m_.uncoreLeakW_ = m_.tech_.leakageW(std::max(0.0, m_.dieAreaMm2_ - modeled));
}

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
  return PowerModelBuilder(file, cfg, diags, catalog).build(root, out);
}

} // namespace ptxsim::power
