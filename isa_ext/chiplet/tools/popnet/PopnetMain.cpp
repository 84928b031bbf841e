// `popnet`: replays chiplet traces through the network model with popnet's command line, so
// start scripts written for popnet (`./popnet -A 9 -c 2 -V 3 -B 12 -O 12 -F 4 -L 1000 -T 20000
// -r 1 -I ./random_trace/bench -R 0`) run unchanged. Extra options: -D router delay (cycles),
// -G network clock (GHz), --json (machine-readable result on stdout).

#include "isa_ext/chiplet/noc/Network.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

using namespace ptxsim::chiplet::noc;

namespace {

void usage() {
  std::cerr << "usage: popnet -A radix -c dims [-V vcs] [-B inbuf] [-O outbuf] [-F flit64words]\n"
               "              [-L link_um] [-T cycles] [-r seed] -I trace_prefix [-R 0|1]\n"
               "              [-D router_delay] [-G clock_ghz] [--json]\n"
               "  traces: <prefix>.<x>.<y> with lines 'T sx sy dx dy n' (n = payload bytes)\n"
               "  -R 0 mesh, 1 torus; -T 0 runs until every packet arrives\n";
}

bool toNumber(const std::string &opt, const char *s, double &v) {
  char *end = nullptr;
  v = std::strtod(s, &end);
  if (!s[0] || *end) {
    std::cerr << "popnet: error: " << opt << " expects a number, got '" << s << "'\n";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  NetworkConfig cfg;
  std::string prefix;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json") {
      json = true;
      continue;
    }
    if (a == "-h" || a == "--help") {
      usage();
      return 0;
    }
    if (a.size() != 2 || a[0] != '-' || i + 1 >= argc) {
      std::cerr << "popnet: error: unknown or incomplete option '" << a << "'\n";
      usage();
      return 2;
    }
    const char *val = argv[++i];
    if (a == "-I") {
      prefix = val;
      continue;
    }
    double v;
    if (!toNumber(a, val, v))
      return 2;
    switch (a[1]) {
    case 'A': cfg.radix = (unsigned)v; break;
    case 'c': cfg.dims = (unsigned)v; break;
    case 'V': cfg.vcs = (unsigned)v; break;
    case 'B': cfg.inBufFlits = (unsigned)v; break;
    case 'O': cfg.outBufFlits = (unsigned)v; break;
    case 'F': cfg.flitWords = (unsigned)v; break;
    case 'L': cfg.linkLengthUm = v; break;
    case 'T': cfg.maxCycles = (uint64_t)v; break;
    case 'r': cfg.seed = (uint64_t)v; break;
    case 'D': cfg.routerDelay = (unsigned)v; break;
    case 'G': cfg.clockGhz = v; break;
    case 'R':
      if (v != 0 && v != 1) {
        std::cerr << "popnet: error: -R selects 0 (mesh) or 1 (torus), got " << val << "\n";
        return 2;
      }
      cfg.topology = v == 0 ? Topology::Mesh : Topology::Torus;
      break;
    default:
      std::cerr << "popnet: error: unknown option '" << a << "'\n";
      usage();
      return 2;
    }
  }
  if (prefix.empty()) {
    std::cerr << "popnet: error: -I trace prefix is required\n";
    usage();
    return 2;
  }
  if (std::string e = cfg.validate(); !e.empty()) {
    std::cerr << "popnet: error: " << e << "\n";
    return 2;
  }
  std::vector<Packet> packets;
  std::string err;
  if (!readTraces(cfg, prefix, packets, err)) {
    std::cerr << "popnet: " << err << "\n";
    return 1;
  }
  NetworkResult r = simulate(cfg, packets);
  if (r.deadlocked)
    std::cerr << "popnet: warning: the network made no progress for 100000 cycles; "
              << (r.injected - r.finished) << " packets did not arrive\n";
  if (json) {
    std::printf("{\"injected\": %llu, \"finished\": %llu, \"avg_delay\": %.6f, \"max_delay\": %llu, "
                "\"cycles\": %llu, \"energy_pj\": {\"buffer\": %.6f, \"crossbar\": %.6f, "
                "\"arbiter\": %.6f, \"link\": %.6f, \"total\": %.6f}, \"power_w\": %.9g}\n",
                (unsigned long long)r.injected, (unsigned long long)r.finished, r.avgDelay,
                (unsigned long long)r.maxDelay, (unsigned long long)r.cycles, r.energy.bufferPj,
                r.energy.crossbarPj, r.energy.arbiterPj, r.energy.linkPj, r.energy.totalPj(),
                r.powerW(cfg.clockGhz));
  } else {
    std::cout << formatReport(cfg, r);
  }
  return 0;
}
