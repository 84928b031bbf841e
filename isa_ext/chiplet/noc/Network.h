#pragma once
// A popnet-like network model of the interconnect between chiplets: a k-ary n-cube (2D/3D mesh or
// torus) of virtual-channel routers with input and output buffers, dimension-order routing,
// credit flow control, and per-event energy. It replays traces of `T sx sy dx dy n` records and
// reports packets finished, average and maximum delay, and energy by part.
//
// Contract: the model is cycle driven and deterministic: the same configuration, seed and packets
// give the same delays. Packets are injected at their trace time into an unbounded source queue;
// a packet's delay is (cycle its tail flit leaves the destination router) - (its trace time).
// Zero-load latency of a packet crossing `d` links in `f` flits is exactly
//   (d + 1) * routerDelay + d * linkDelay + (f - 1)
// (every router on the path, source and destination included, costs routerDelay cycles; every
// link linkDelay; the tail follows the head one flit per cycle).

#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::chiplet::noc {

enum class Topology : uint8_t { Mesh = 0, Torus = 1 };

/// Everything that shapes the network. Field comments name the popnet option.
struct NetworkConfig {
  unsigned radix = 3;           ///< -A: nodes per dimension
  unsigned dims = 2;            ///< -c: 2 or 3 dimensions
  unsigned vcs = 3;             ///< -V: virtual channels per input port
  unsigned inBufFlits = 12;     ///< -B: input buffer depth per VC, in flits
  unsigned outBufFlits = 12;    ///< -O: output buffer depth per port, in flits
  unsigned flitWords = 4;       ///< -F: flit size in 64-bit words (popnet's unit)
  double linkLengthUm = 1000;   ///< -L: link length in micrometres
  uint64_t maxCycles = 0;       ///< -T: stop after this many cycles (0: until every packet is in)
  uint64_t seed = 1;            ///< -r: seed of the VC-selection RNG
  Topology topology = Topology::Mesh; ///< -R: 0 mesh, 1 torus
  unsigned routerDelay = 3;     ///< router pipeline (route, VC/switch allocation, crossbar), cycles
  double linkUmPerCycle = 1000; ///< how far a signal gets in one cycle; linkDelay = ceil(L / this)
  double clockGhz = 1.0;        ///< network clock, for power = energy / time
  // Energy per event, in picojoules per bit (per decision for the arbiter). Defaults are
  // 45 nm-class figures of the size Orion-style models give; override from the CLI with -E.
  double bufferPjPerBit = 0.012;  ///< one flit written and read in a buffer, per bit
  double crossbarPjPerBit = 0.018;
  double arbiterPj = 0.35;        ///< one allocation decision
  double linkPjPerBitMm = 0.15;   ///< one flit bit over one millimetre of link

  unsigned flitBytes() const { return flitWords * 8; }
  unsigned linkDelay() const;
  unsigned numNodes() const;
  /// Empty when usable, else what is wrong (names the option).
  std::string validate() const;
};

/// One message between two nodes. Coordinates have `dims` entries (z = 0 in 2D traces).
struct Packet {
  uint64_t time = 0;    ///< injection cycle
  unsigned src[3] = {0, 0, 0};
  unsigned dst[3] = {0, 0, 0};
  uint32_t bytes = 0;   ///< payload size (the trace's n)
};

/// Flits a packet of `bytes` needs (at least one).
unsigned packetFlits(const NetworkConfig &cfg, uint32_t bytes);
/// Links crossed by dimension-order routing from src to dst (shortest way round on a torus).
unsigned routeHops(const NetworkConfig &cfg, const unsigned src[3], const unsigned dst[3]);
/// The exact zero-load delay (see the contract above).
uint64_t zeroLoadDelay(const NetworkConfig &cfg, const Packet &p);

struct EnergyReport {
  double bufferPj = 0, crossbarPj = 0, arbiterPj = 0, linkPj = 0;
  double totalPj() const { return bufferPj + crossbarPj + arbiterPj + linkPj; }
};

struct NetworkResult {
  uint64_t injected = 0;
  uint64_t finished = 0;      ///< packets whose tail reached the destination
  double avgDelay = 0;        ///< cycles, over finished packets
  uint64_t maxDelay = 0;
  uint64_t cycles = 0;        ///< cycles simulated
  uint64_t flitHops = 0;      ///< flits times links crossed
  EnergyReport energy;
  bool deadlocked = false;    ///< no flit moved for 100000 cycles (reported, never expected)
  std::vector<uint64_t> delays; ///< per packet in input order (UINT64_MAX: not finished)
  /// Average power in watts over the simulated cycles (energy / time).
  double powerW(double clockGhz) const;
};

/// Simulates `packets` (any order; sorted internally by time, then input order).
NetworkResult simulate(const NetworkConfig &cfg, const std::vector<Packet> &packets);

/// Reads popnet trace files `<prefix>.<x>.<y>` (`<prefix>.<x>.<y>.<z>` in 3D) for every node;
/// missing files are nodes that sent nothing. Lines are `T sx sy dx dy n` (`T sx sy sz dx dy dz
/// n` in 3D). Returns false with `err` naming file:line for a malformed record or a coordinate
/// outside the network.
bool readTraces(const NetworkConfig &cfg, const std::string &prefix, std::vector<Packet> &out,
                std::string &err);

/// Parses one trace line; false if malformed.
bool parseTraceLine(const std::string &line, unsigned dims, Packet &p);

/// popnet-style report (total finished, average delay, power by part, total power).
std::string formatReport(const NetworkConfig &cfg, const NetworkResult &r);

} // namespace ptxsim::chiplet::noc
