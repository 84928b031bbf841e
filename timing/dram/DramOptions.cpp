// The DRAM's options: technology, organisation, GPGPU-Sim's timing string, the request
// scheduler (any registered one) and the read latency beyond the bank timing
// (timing/ConfigParts.h). Its clock is one of -gpgpu_clock_domains (timing/GpuOptions.cpp).
#include "timing/ConfigParts.h"

#include "timing/dram/scheduler/IDramScheduler.h"

#include <algorithm>

namespace ptxsim::timing {
namespace {

using config::split;
using config::toU32;
using config::trim;

const char *const kDramTypes[] = {"GDDR3", "GDDR5", "GDDR5X", "GDDR6", "GDDR6X",
                                  "HBM",   "HBM2",  "HBM2e",  "HBM3",  "HBM3e",
                                  "DDR4",  "DDR5",  "LPDDR4", "LPDDR5"};

// --- -gpgpu_dram_timing_opt ---------------------------------------------------------------------
// GPGPU-Sim's named form `nbk=16:CCD=2:...` (separators `:` `;` and spaces) or its positional form
// `nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR[:nbkgrp:CCDL:RTPL]`. Keys not given keep their values.
// ptxsim adds WTR, RTW, BURST, REFI, RFC; WL and CDLR feed the derived tRTW/tWTR; nbkgrp, CCDL and
// RTPL (bank groups) are accepted and unused.
bool parseDramTiming(const std::string &value, DramConfig &d, ConfigFolds &x, std::string &err) {
  struct Key {
    const char *name;
    uint32_t *field;
  };
  uint32_t wl = 0, cdlr = 0, unused = 0;
  bool wlSet = false, cdlrSet = false;
  DramConfig n = d;
  Key keys[] = {{"nbk", &n.banks},    {"CCD", &n.tCCD},   {"RRD", &n.tRRD}, {"RCD", &n.tRCD},
                {"RAS", &n.tRAS},     {"RP", &n.tRP},     {"RC", &n.tRC},   {"CL", &n.tCL},
                {"WL", &wl},          {"CDLR", &cdlr},    {"WR", &n.tWR},   {"nbkgrp", &unused},
                {"CCDL", &unused},    {"RTPL", &unused},  {"WTR", &n.tWTR}, {"RTW", &n.tRTW},
                {"BURST", &n.tBurst}, {"REFI", &n.tREFI}, {"RFC", &n.tRFC}};
  std::vector<std::string> given;
  if (value.find('=') == std::string::npos) {
    std::vector<std::string> parts = split(value, ":");
    if (parts.size() != 11 && parts.size() != 14) {
      err = "expected nbk=..:CCD=..:... or the 11 or 14 positional values "
            "nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR[:nbkgrp:CCDL:RTPL]";
      return false;
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!toU32(parts[i], *keys[i].field)) {
        err = std::string("expected a number for ") + keys[i].name + ", found '" + trim(parts[i]) +
              "'";
        return false;
      }
      given.push_back(keys[i].name);
    }
  } else {
    for (const std::string &raw : split(value, ":; \t\n")) {
      std::string item = trim(raw);
      if (item.empty())
        continue;
      size_t eq = item.find('=');
      if (eq == std::string::npos) {
        err = "expected key=value, found '" + item + "'";
        return false;
      }
      std::string key = item.substr(0, eq);
      auto it = std::find_if(std::begin(keys), std::end(keys),
                             [&](const Key &k) { return key == k.name; });
      if (it == std::end(keys)) {
        err = "unknown DRAM timing '" + key + "' (known:";
        for (const Key &k : keys)
          err += std::string(" ") + k.name;
        err += ")";
        return false;
      }
      if (!toU32(item.substr(eq + 1), *it->field)) {
        err = "expected a number for " + key + ", found '" + item.substr(eq + 1) + "'";
        return false;
      }
      given.push_back(key);
    }
  }
  auto has = [&](const char *k) { return std::find(given.begin(), given.end(), k) != given.end(); };
  wlSet = has("WL");
  cdlrSet = has("CDLR");
  d = n;
  if (wlSet)
    x.wl = wl;
  if (cdlrSet)
    x.cdlr = cdlr;
  x.rtwGiven |= has("RTW");
  x.wtrGiven |= has("WTR");
  x.burstGiven |= has("BURST");
  return true;
}

std::string printDramTiming(const DramConfig &d) {
  auto kv = [](const char *k, uint32_t v) { return std::string(k) + "=" + std::to_string(v); };
  return kv("nbk", d.banks) + ":" + kv("CCD", d.tCCD) + ":" + kv("RRD", d.tRRD) + ":" +
         kv("RCD", d.tRCD) + ":" + kv("RAS", d.tRAS) + ":" + kv("RP", d.tRP) + ":" +
         kv("RC", d.tRC) + ":" + kv("CL", d.tCL) + ":" + kv("WR", d.tWR) + ":" + kv("WTR", d.tWTR) +
         ":" + kv("RTW", d.tRTW) + ":" + kv("BURST", d.tBurst) + ":" + kv("REFI", d.tREFI) + ":" +
         kv("RFC", d.tRFC);
}

// A comma-separated GPGPU-Sim latency list (`-ptx_opcode_latency_fp 4,13,4,5,39`): entry `index`

/// DRAM technology, organisation, timing and scheduling.
void describeDram(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  DramConfig &d = ctx.cfg.dram;
  // --- DRAM
  opts.add("-ptxsim_dram_type", &d.type, "DRAM technology")
      .choices(std::vector<std::string>(std::begin(kDramTypes), std::end(kDramTypes)));
  opts.add("-ptxsim_dram_channels_per_partition", &d.channelsPerPartition,
           "DRAM channels behind each memory partition")
      .range(1, 64);
  opts.add("-gpgpu_dram_buswidth", &d.busWidthBytes,
           "DRAM data bus width per chip in bytes (the channel is -gpgpu_n_mem_per_ctrlr chips "
           "wide)")
      .min(1);
  opts.add("-gpgpu_n_mem_per_ctrlr", &ctx.folds.chipsPerChannel, "DRAM chips per memory channel")
      .range(1, 64);
  opts.add("-gpgpu_dram_burst_length", &d.burstLength, "DRAM burst length in transfers").min(1);
  opts.add("-dram_data_command_freq_ratio", &d.dataRate,
           "data transfers per DRAM command clock (2: DDR/HBM, 4: GDDR5 QDR)")
      .range(1, 16);
  opts.add("-ptxsim_dram_row_bytes", &d.rowBytes, "DRAM row (page) size in bytes per bank").min(1);
  opts.add("-gpgpu_frfcfs_dram_sched_queue_size", &d.queueEntries,
           "DRAM scheduler queue entries per channel")
      .min(1);
  opts.addCustom(
      "-gpgpu_dram_scheduler", "0|1|fcfs|frfcfs",
      [&d](const std::string &v, std::string &err) {
        if (v == "0")
          d.scheduler = "fcfs"; // GPGPU-Sim's numbering
        else if (v == "1")
          d.scheduler = "frfcfs";
        else if (dramSchedulerRegistry().create(v))
          d.scheduler = v; // any registered policy
        else {
          err = "expected 0 (fcfs), 1 (frfcfs) or a registered policy:";
          for (const std::string &n : dramSchedulerRegistry().names())
            err += " " + n;
          return false;
        }
        return true;
      },
      [&d] { return d.scheduler; }, "DRAM request scheduler: first-come first-served or FR-FCFS");
  opts.addCustom(
      "-gpgpu_dram_timing_opt", "nbk=16:CCD=2:...",
      [&d, &x = ctx.folds](const std::string &v, std::string &err) {
        return parseDramTiming(v, d, x, err);
      },
      [&d] { return printDramTiming(d); },
      "banks and timings in DRAM command cycles: nbk (banks), CCD, RRD, RCD, RAS, RP, RC, CL, "
      "WL, CDLR, WR, nbkgrp/CCDL/RTPL (unused), and ptxsim's WTR, RTW, BURST, REFI, RFC "
      "(docs/config.md, DRAM timing)");
}

/// The read pipeline after CL (an option added after the copies' options, kept in its place).
void describeExtraLatency(OptionContext &ctx) {
  ctx.opts.add("-dram_latency", &ctx.cfg.dram.extraLatency,
               "DRAM read latency beyond the bank timing (controller and PHY pipeline, return "
               "path), in DRAM command cycles");
}

void checkDram(const TimingConfig &cfg, const ConfigFail &fail) {
  const DramConfig &d = cfg.dram;
  if (std::find(std::begin(kDramTypes), std::end(kDramTypes), d.type) == std::end(kDramTypes))
    fail("-ptxsim_dram_type", "unknown DRAM type '" + d.type + "'");
  if (!dramSchedulerRegistry().create(d.scheduler))
    fail("-gpgpu_dram_scheduler", "unknown DRAM scheduler '" + d.scheduler + "'");
  if (!config::isPow2(d.banks))
    fail("-gpgpu_dram_timing_opt",
         "nbk (banks) " + std::to_string(d.banks) + " is not a power of two");
  if (!config::isPow2(d.rowBytes))
    fail("-ptxsim_dram_row_bytes", std::to_string(d.rowBytes) + " is not a power of two");
  if (d.tRC < d.tRAS)
    fail("-gpgpu_dram_timing_opt",
         "RC (" + std::to_string(d.tRC) + ") is shorter than RAS (" + std::to_string(d.tRAS) + ")");
  if (d.tCL == 0 || d.tRCD == 0 || d.tRP == 0 || d.tRAS == 0 || d.tCCD == 0 || d.tBurst == 0)
    fail("-gpgpu_dram_timing_opt", "CL, RCD, RP, RAS, CCD and BURST must be at least 1");
  if (d.tREFI && d.tRFC >= d.tREFI)
    fail("-gpgpu_dram_timing_opt", "RFC must be shorter than REFI");
  config::checkAtLeastOne({{"-ptxsim_dram_channels_per_partition", d.channelsPerPartition},
                           {"-gpgpu_dram_buswidth", d.busWidthBytes},
                           {"-gpgpu_dram_burst_length", d.burstLength},
                           {"-gpgpu_frfcfs_dram_sched_queue_size", d.queueEntries},
                           {"-dram_data_command_freq_ratio", d.dataRate}},
                          fail);
}

/// A channel is -gpgpu_n_mem_per_ctrlr chips wide; GPGPU-Sim derives the burst time, tRTW and
/// tWTR from the burst length, CL, WL and CDLR unless BURST, RTW or WTR are given.
void foldDram(OptionContext &ctx) {
  DramConfig &d = ctx.cfg.dram;
  const ConfigFolds &x = ctx.folds;
  d.busWidthBytes *= x.chipsPerChannel;
  if (!x.burstGiven && (ctx.opts.wasSet("-gpgpu_dram_burst_length") ||
                        ctx.opts.wasSet("-dram_data_command_freq_ratio")))
    d.tBurst = std::max(1u, d.burstLength / d.dataRate);
  // GPGPU-Sim: tRTW = CL + BL/ratio + 2 - WL, tWTR = WL + BL/ratio + CDLR.
  if (x.wl && !x.rtwGiven)
    d.tRTW = uint32_t(std::max<int64_t>(1, int64_t(d.tCL) + d.tBurst + 2 - int64_t(*x.wl)));
  if (x.cdlr && !x.wtrGiven)
    d.tWTR = x.wl.value_or(0) + d.tBurst + *x.cdlr;
}

} // namespace

extern const ConfigPart kDram = {describeDram, checkDram, foldDram};
extern const ConfigPart kDramExtraLatency = {describeExtraLatency, nullptr, nullptr};

} // namespace ptxsim::timing
