#include "isa_ext/chiplet/noc/PathModel.h"

#include <algorithm>

namespace ptxsim::chiplet::noc {

PathModel::PathModel(const NetworkConfig &cfg) : cfg_(cfg), ports_(1 + 2 * cfg.dims) {
  portFree_.assign((size_t)cfg.numNodes() * ports_, 0);
}

uint64_t PathModel::minDelay() const {
  return 2ull * cfg_.routerDelay + cfg_.linkDelay(); // one link, one flit
}

uint64_t PathModel::add(const Packet &p) {
  unsigned cur[3] = {p.src[0], p.src[1], p.src[2]};
  uint64_t flits = packetFlits(cfg_, p.bytes);
  uint64_t t = p.time; // head flit enters the current router
  auto nodeId = [&] {
    unsigned id = 0, mul = 1;
    for (unsigned d = 0; d < cfg_.dims; ++d) {
      id += cur[d] * mul;
      mul *= cfg_.radix;
    }
    return id;
  };
  for (;;) {
    int port = 0;
    unsigned dim = 0;
    int dir = 0;
    for (unsigned d = 0; d < cfg_.dims && port == 0; ++d) {
      if (cur[d] == p.dst[d])
        continue;
      unsigned k = cfg_.radix;
      if (cfg_.topology == Topology::Mesh)
        dir = p.dst[d] > cur[d] ? 1 : -1;
      else {
        unsigned fwd = (p.dst[d] + k - cur[d]) % k;
        dir = fwd <= k - fwd ? 1 : -1;
      }
      dim = d;
      port = dir > 0 ? 2 + 2 * (int)d : 1 + 2 * (int)d;
    }
    uint64_t &free = portFree_[(size_t)nodeId() * ports_ + port];
    uint64_t s = std::max(t + cfg_.routerDelay - 1, free); // crossbar cycle of the head flit
    free = s + flits;
    if (port == 0)
      return s + 1 + flits - 1;
    t = s + 1 + cfg_.linkDelay();
    unsigned k = cfg_.radix;
    cur[dim] = dir > 0 ? (cur[dim] + 1) % k : (cur[dim] + k - 1) % k;
  }
}

} // namespace ptxsim::chiplet::noc
