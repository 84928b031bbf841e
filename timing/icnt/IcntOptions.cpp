// The interconnect's options: topology (any registered one), latency, flit size
// (timing/ConfigParts.h). Its clock is one of -gpgpu_clock_domains (timing/GpuOptions.cpp).
#include "timing/ConfigParts.h"

#include "timing/icnt/topology/ITopology.h"

namespace ptxsim::timing {
namespace {

void describeInterconnect(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  MemoryConfig &m = ctx.cfg.mem;
  opts.addCustom(
      "-network_mode", "1|2|crossbar|mesh",
      [&m](const std::string &v, std::string &err) {
        if (v == "1" || v == "2")
          m.topology = "crossbar"; // GPGPU-Sim's intersim and local crossbar
        else if (topologyRegistry().create(v, 2))
          m.topology = v; // any registered topology
        else {
          err = "expected 1 or 2 (GPGPU-Sim's intersim and local crossbar, both modelled as a "
                "crossbar) or a registered topology:";
          for (const std::string &n : topologyRegistry().names())
            err += " " + n;
          return false;
        }
        return true;
      },
      [&m] { return m.topology; }, "interconnect topology");
  opts.add("-ptxsim_icnt_latency", &m.icntLatency,
           "interconnect latency in interconnect cycles: per traversal (crossbar) or per hop "
           "(mesh)")
      .min(1);
  opts.add("-icnt_flit_size", &m.icntFlitBytes, "bytes per port per interconnect cycle").min(1);
  opts.add("-ptxsim_icnt_write_min_flits", &m.icntWriteMinFlits,
           "interconnect cycles a store's write request from an SM holds its ports at least, "
           "however few bytes it carries (1: its flits alone)")
      .min(1);
}

void checkInterconnect(const TimingConfig &cfg, const ConfigFail &fail) {
  const MemoryConfig &m = cfg.mem;
  if (!topologyRegistry().create(m.topology, 2))
    fail("-network_mode", "unknown topology '" + m.topology + "'");
  config::checkAtLeastOne(
      {{"-ptxsim_icnt_latency", m.icntLatency},
       {"-icnt_flit_size", m.icntFlitBytes},
       {"-ptxsim_icnt_write_min_flits", m.icntWriteMinFlits}},
      fail);
}

} // namespace

extern const ConfigPart kInterconnect = {describeInterconnect, checkInterconnect, nullptr};

} // namespace ptxsim::timing
