#include "isa_ext/chiplet/noc/Network.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

namespace ptxsim::chiplet::noc {

unsigned NetworkConfig::linkDelay() const {
  return std::max(1u, (unsigned)std::ceil(linkLengthUm / linkUmPerCycle));
}

unsigned NetworkConfig::numNodes() const {
  unsigned n = 1;
  for (unsigned d = 0; d < dims; ++d)
    n *= radix;
  return n;
}

std::string NetworkConfig::validate() const {
  if (dims != 2 && dims != 3)
    return "-c: the network has 2 or 3 dimensions, not " + std::to_string(dims);
  if (radix < 1 || radix > 64)
    return "-A: nodes per dimension must be 1..64, not " + std::to_string(radix);
  if (vcs < 1)
    return "-V: at least one virtual channel";
  if (topology == Topology::Torus && vcs < 2)
    return "-V: a torus needs at least 2 virtual channels (dateline classes avoid deadlock)";
  if (inBufFlits < 1 || outBufFlits < 1)
    return "-B/-O: buffers hold at least one flit";
  if (flitWords < 1)
    return "-F: a flit is at least one 64-bit word";
  if (!(linkLengthUm > 0))
    return "-L: the link length must be positive";
  if (routerDelay < 1)
    return "router delay must be at least one cycle";
  return {};
}

unsigned packetFlits(const NetworkConfig &cfg, uint32_t bytes) {
  unsigned fb = cfg.flitBytes();
  return std::max(1u, (unsigned)((bytes + fb - 1) / fb));
}

namespace {

/// Port 0 is the local (injection/ejection) port; dimension d has ports 1+2d (minus) and 2+2d (plus).
constexpr int kLocal = 0;
int minusPort(unsigned d) { return 1 + 2 * (int)d; }
int plusPort(unsigned d) { return 2 + 2 * (int)d; }

/// Direction to take in dimension d: +1, -1 or 0 when already there.
int direction(const NetworkConfig &cfg, unsigned cur, unsigned dst) {
  if (cur == dst)
    return 0;
  if (cfg.topology == Topology::Mesh)
    return dst > cur ? 1 : -1;
  unsigned k = cfg.radix;
  unsigned fwd = (dst + k - cur) % k;
  return fwd <= k - fwd ? 1 : -1;
}

unsigned distance(const NetworkConfig &cfg, unsigned a, unsigned b) {
  unsigned lin = a > b ? a - b : b - a;
  if (cfg.topology == Topology::Mesh)
    return lin;
  return std::min(lin, cfg.radix - lin);
}

} // namespace

unsigned routeHops(const NetworkConfig &cfg, const unsigned src[3], const unsigned dst[3]) {
  unsigned h = 0;
  for (unsigned d = 0; d < cfg.dims; ++d)
    h += distance(cfg, src[d], dst[d]);
  return h;
}

uint64_t zeroLoadDelay(const NetworkConfig &cfg, const Packet &p) {
  uint64_t d = routeHops(cfg, p.src, p.dst);
  return (d + 1) * cfg.routerDelay + d * cfg.linkDelay() + packetFlits(cfg, p.bytes) - 1;
}

double NetworkResult::powerW(double clockGhz) const {
  if (cycles == 0)
    return 0;
  double seconds = (double)cycles / (clockGhz * 1e9);
  return energy.totalPj() * 1e-12 / seconds;
}

namespace {

struct Flit {
  uint32_t pkt;
  bool head, tail;
  uint64_t ready; ///< first cycle the flit may leave the buffer it is in
};

struct InVc {
  std::deque<Flit> q;
  int outPort = -1; ///< route of the packet at the front, once computed
  int outVc = -1;   ///< downstream VC it holds
};

struct OutEntry {
  Flit f;
  int vc;
};

struct LinkFlit {
  uint64_t arrive;
  Flit f;
  int vc;
};

struct OutPort {
  std::vector<std::deque<OutEntry>> buf; ///< per downstream VC (one FIFO for all VCs deadlocks)
  std::vector<int> credits;    ///< free slots in each downstream VC
  std::vector<int64_t> owner;  ///< packet holding each downstream VC, -1 when free
  std::deque<LinkFlit> link;   ///< flits on the wire
  unsigned rr = 0;             ///< round-robin pointer of the switch arbiter
  unsigned linkRr = 0;         ///< round-robin pointer over VCs for the link
};

struct Router {
  std::vector<InVc> in; ///< port * vcs + vc
  std::vector<OutPort> out;
  std::deque<uint32_t> srcQueue; ///< packets waiting to enter the network
  int injVc = -1;                ///< local input VC the current packet is entering
  unsigned injLeft = 0;
  std::vector<bool> localBusy;   ///< local input VCs a packet is still entering
};

struct PktState {
  unsigned flits;
  int dim = -1; ///< dimension of the last link taken
  int cls = 0;  ///< torus dateline class in that dimension
};

class Sim {
public:
  Sim(const NetworkConfig &cfg, const std::vector<Packet> &pk) : cfg_(cfg), pk_(pk) {
    ports_ = 1 + 2 * cfg.dims;
    unsigned n = cfg.numNodes();
    routers_.resize(n);
    for (Router &r : routers_) {
      r.in.resize(ports_ * cfg.vcs);
      r.out.resize(ports_);
      for (int p = 0; p < ports_; ++p)
        r.out[p].buf.resize(p == kLocal ? 1 : cfg.vcs);
      for (int p = 1; p < ports_; ++p) {
        r.out[p].credits.assign(cfg.vcs, (int)cfg.inBufFlits);
        r.out[p].owner.assign(cfg.vcs, -1);
      }
      r.localBusy.assign(cfg.vcs, false);
    }
    st_.resize(pk.size());
    for (size_t i = 0; i < pk.size(); ++i)
      st_[i].flits = packetFlits(cfg, pk[i].bytes);
    order_.resize(pk.size());
    for (size_t i = 0; i < pk.size(); ++i)
      order_[i] = (uint32_t)i;
    std::stable_sort(order_.begin(), order_.end(),
                     [&](uint32_t a, uint32_t b) { return pk[a].time < pk[b].time; });
    rng_.seed(cfg.seed);
    bitsPerFlit_ = cfg.flitBytes() * 8.0;
  }

  NetworkResult run() {
    NetworkResult res;
    res.injected = pk_.size();
    res.delays.assign(pk_.size(), std::numeric_limits<uint64_t>::max());
    size_t next = 0;
    uint64_t now = 0, sumDelay = 0, lastMoves = 0, lastProgress = 0;
    while (res.finished < pk_.size()) {
      if (cfg_.maxCycles && now >= cfg_.maxCycles)
        break;
      if (inNetwork_ == 0 && next < order_.size() && pk_[order_[next]].time > now)
        lastProgress = now = pk_[order_[next]].time; // nothing moves until then: skip idle cycles
      if (cfg_.maxCycles && now >= cfg_.maxCycles)
        break;
      while (next < order_.size() && pk_[order_[next]].time <= now) {
        uint32_t id = order_[next++];
        routers_[nodeOf(pk_[id].src)].srcQueue.push_back(id);
        ++inNetwork_;
      }
      linkArrivals(now);
      inject(now);
      for (unsigned r = 0; r < routers_.size(); ++r)
        allocateVcs(r);
      for (unsigned r = 0; r < routers_.size(); ++r)
        switchTraversal(r, now);
      for (unsigned r = 0; r < routers_.size(); ++r)
        drainOutputs(r, now, res, sumDelay);
      if (moves_ != lastMoves) {
        lastMoves = moves_;
        lastProgress = now;
      } else if (inNetwork_ > 0 && now - lastProgress > 100000) {
        res.deadlocked = true; // a model bug: say so rather than spin forever
        break;
      }
      ++now;
    }
    res.cycles = now;
    res.avgDelay = res.finished ? (double)sumDelay / (double)res.finished : 0.0;
    res.flitHops = flitHops_;
    res.energy = energy_;
    return res;
  }

private:
  unsigned nodeOf(const unsigned c[3]) const {
    unsigned id = 0, mul = 1;
    for (unsigned d = 0; d < cfg_.dims; ++d) {
      id += c[d] * mul;
      mul *= cfg_.radix;
    }
    return id;
  }
  unsigned coord(unsigned node, unsigned d) const {
    for (unsigned i = 0; i < d; ++i)
      node /= cfg_.radix;
    return node % cfg_.radix;
  }
  unsigned neighbour(unsigned node, int port) const {
    unsigned d = (unsigned)(port - 1) / 2;
    bool plus = port == plusPort(d);
    unsigned c = coord(node, d), k = cfg_.radix;
    unsigned nc = plus ? (c + 1) % k : (c + k - 1) % k;
    unsigned mul = 1;
    for (unsigned i = 0; i < d; ++i)
      mul *= k;
    return node - c * mul + nc * mul;
  }
  static int opposite(int port) { return port % 2 == 1 ? port + 1 : port - 1; }

  int route(unsigned node, uint32_t pkt) const {
    for (unsigned d = 0; d < cfg_.dims; ++d) {
      int dir = direction(cfg_, coord(node, d), pk_[pkt].dst[d]);
      if (dir > 0)
        return plusPort(d);
      if (dir < 0)
        return minusPort(d);
    }
    return kLocal;
  }

  void linkArrivals(uint64_t now) {
    for (unsigned r = 0; r < routers_.size(); ++r)
      for (int p = 1; p < ports_; ++p) {
        OutPort &op = routers_[r].out[p];
        while (!op.link.empty() && op.link.front().arrive <= now) {
          LinkFlit lf = op.link.front();
          op.link.pop_front();
          Router &down = routers_[neighbour(r, p)];
          lf.f.ready = now + cfg_.routerDelay - 1;
          down.in[opposite(p) * cfg_.vcs + lf.vc].q.push_back(lf.f);
          energy_.bufferPj += bitsPerFlit_ * cfg_.bufferPjPerBit;
        }
      }
  }

  void inject(uint64_t now) {
    for (Router &r : routers_) {
      if (r.injVc < 0 && !r.srcQueue.empty()) {
        for (unsigned v = 0; v < cfg_.vcs; ++v)
          if (!r.localBusy[v]) {
            r.injVc = (int)v;
            r.localBusy[v] = true;
            r.injLeft = st_[r.srcQueue.front()].flits;
            break;
          }
      }
      if (r.injVc < 0)
        continue;
      InVc &vc = r.in[kLocal * cfg_.vcs + r.injVc];
      if (vc.q.size() >= cfg_.inBufFlits)
        continue;
      uint32_t id = r.srcQueue.front();
      Flit f{id, r.injLeft == st_[id].flits, r.injLeft == 1, now + cfg_.routerDelay - 1};
      vc.q.push_back(f);
      energy_.bufferPj += bitsPerFlit_ * cfg_.bufferPjPerBit;
      if (--r.injLeft == 0) {
        r.localBusy[r.injVc] = false;
        r.injVc = -1;
        r.srcQueue.pop_front();
      }
    }
  }

  void allocateVcs(unsigned node) {
    Router &r = routers_[node];
    for (int ip = 0; ip < ports_; ++ip)
      for (unsigned v = 0; v < cfg_.vcs; ++v) {
        InVc &vc = r.in[ip * cfg_.vcs + v];
        if (vc.q.empty() || !vc.q.front().head || vc.outVc >= 0)
          continue;
        uint32_t pkt = vc.q.front().pkt;
        int port = route(node, pkt);
        vc.outPort = port;
        if (port == kLocal) {
          vc.outVc = 0;
          continue;
        }
        // Torus: a packet uses the upper VC class after crossing the dateline (the wrap link)
        // of the dimension it travels in, which breaks the cyclic channel dependency.
        unsigned d = (unsigned)(port - 1) / 2;
        int cls = 0;
        if (cfg_.topology == Topology::Torus) {
          unsigned c = coord(node, d);
          bool wraps = port == plusPort(d) ? c == cfg_.radix - 1 : c == 0;
          cls = wraps || (st_[pkt].dim == (int)d && st_[pkt].cls == 1) ? 1 : 0;
        }
        unsigned lo = 0, hi = cfg_.vcs;
        if (cfg_.topology == Topology::Torus) {
          unsigned half = cfg_.vcs / 2;
          lo = cls ? half : 0;
          hi = cls ? cfg_.vcs : half;
        }
        OutPort &op = r.out[port];
        unsigned freeVcs[64], nFree = 0;
        for (unsigned c = lo; c < hi && nFree < 64; ++c)
          if (op.owner[c] < 0)
            freeVcs[nFree++] = c;
        energy_.arbiterPj += cfg_.arbiterPj;
        if (nFree == 0)
          continue;
        unsigned pick = freeVcs[nFree == 1 ? 0 : rng_() % nFree];
        op.owner[pick] = pkt;
        vc.outVc = (int)pick;
        st_[pkt].dim = (int)d;
        st_[pkt].cls = cls;
      }
  }

  void switchTraversal(unsigned node, uint64_t now) {
    Router &r = routers_[node];
    unsigned nIn = ports_ * cfg_.vcs;
    uint64_t inputUsed = 0; // one flit per input port per cycle
    for (int p = 0; p < ports_; ++p) {
      OutPort &op = r.out[p];
      for (unsigned k = 0; k < nIn; ++k) {
        unsigned idx = (op.rr + k) % nIn;
        unsigned ip = idx / cfg_.vcs;
        if (inputUsed & (1ull << ip))
          continue;
        InVc &vc = r.in[idx];
        if (vc.q.empty() || vc.outPort != p || vc.outVc < 0 || vc.q.front().ready > now ||
            op.buf[vc.outVc].size() >= cfg_.outBufFlits)
          continue;
        Flit f = vc.q.front();
        vc.q.pop_front();
        int outVc = vc.outVc;
        if (f.tail) {
          vc.outPort = -1;
          vc.outVc = -1;
        }
        if (ip != kLocal) // a credit back to the upstream router's output port
          routers_[neighbour(node, (int)ip)].out[opposite((int)ip)].credits[idx % cfg_.vcs]++;
        f.ready = now + 1;
        op.buf[outVc].push_back({f, outVc});
        inputUsed |= 1ull << ip;
        op.rr = (idx + 1) % nIn;
        energy_.crossbarPj += bitsPerFlit_ * cfg_.crossbarPjPerBit;
        ++moves_;
        energy_.arbiterPj += cfg_.arbiterPj;
        energy_.bufferPj += bitsPerFlit_ * cfg_.bufferPjPerBit; // output buffer write
        break;
      }
    }
  }

  void drainOutputs(unsigned node, uint64_t now, NetworkResult &res, uint64_t &sumDelay) {
    Router &r = routers_[node];
    std::deque<OutEntry> &loc = r.out[kLocal].buf[0];
    if (!loc.empty() && loc.front().f.ready <= now) {
      Flit f = loc.front().f;
      loc.pop_front();
      if (f.tail) {
        uint64_t delay = now - pk_[f.pkt].time;
        res.delays[f.pkt] = delay;
        res.maxDelay = std::max(res.maxDelay, delay);
        sumDelay += delay;
        ++res.finished;
        --inNetwork_;
      }
    }
    double mm = cfg_.linkLengthUm / 1000.0;
    for (int p = 1; p < ports_; ++p) {
      OutPort &op = r.out[p];
      int pick = -1;
      for (unsigned k = 0; k < cfg_.vcs; ++k) {
        unsigned v = (op.linkRr + k) % cfg_.vcs;
        if (!op.buf[v].empty() && op.buf[v].front().f.ready <= now && op.credits[v] > 0) {
          pick = (int)v;
          break;
        }
      }
      if (pick < 0)
        continue;
      op.linkRr = (unsigned)(pick + 1) % cfg_.vcs;
      OutEntry e = op.buf[pick].front();
      op.buf[pick].pop_front();
      op.credits[e.vc]--;
      op.link.push_back({now + cfg_.linkDelay(), e.f, e.vc});
      if (e.f.tail)
        op.owner[e.vc] = -1;
      energy_.linkPj += bitsPerFlit_ * mm * cfg_.linkPjPerBitMm;
      ++flitHops_;
    }
  }

  const NetworkConfig &cfg_;
  const std::vector<Packet> &pk_;
  int ports_ = 0;
  std::vector<Router> routers_;
  std::vector<PktState> st_;
  std::vector<uint32_t> order_;
  std::mt19937_64 rng_;
  double bitsPerFlit_ = 0;
  uint64_t inNetwork_ = 0, flitHops_ = 0, moves_ = 0;
  EnergyReport energy_;
};

} // namespace

NetworkResult simulate(const NetworkConfig &cfg, const std::vector<Packet> &packets) {
  Sim sim(cfg, packets);
  return sim.run();
}

bool parseTraceLine(const std::string &line, unsigned dims, Packet &p) {
  std::istringstream in(line);
  long long t;
  if (!(in >> t) || t < 0)
    return false;
  p.time = (uint64_t)t;
  long long v;
  for (unsigned d = 0; d < dims; ++d) {
    if (!(in >> v) || v < 0)
      return false;
    p.src[d] = (unsigned)v;
  }
  for (unsigned d = 0; d < dims; ++d) {
    if (!(in >> v) || v < 0)
      return false;
    p.dst[d] = (unsigned)v;
  }
  if (!(in >> v) || v < 0)
    return false;
  p.bytes = (uint32_t)v;
  std::string extra;
  return !(in >> extra);
}

bool readTraces(const NetworkConfig &cfg, const std::string &prefix, std::vector<Packet> &out,
                std::string &err) {
  unsigned k = cfg.radix, zs = cfg.dims == 3 ? k : 1;
  for (unsigned z = 0; z < zs; ++z)
    for (unsigned y = 0; y < k; ++y)
      for (unsigned x = 0; x < k; ++x) {
        std::string name = prefix + "." + std::to_string(x) + "." + std::to_string(y);
        if (cfg.dims == 3)
          name += "." + std::to_string(z);
        std::ifstream in(name);
        if (!in)
          continue;
        std::string line;
        unsigned lineNo = 0;
        while (std::getline(in, line)) {
          ++lineNo;
          if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
          Packet p;
          if (!parseTraceLine(line, cfg.dims, p)) {
            err = name + ":" + std::to_string(lineNo) + ": error: expected 'T sx sy" +
                  (cfg.dims == 3 ? " sz dx dy dz" : " dx dy") + " n', got '" + line + "'";
            return false;
          }
          for (unsigned d = 0; d < cfg.dims; ++d)
            if (p.src[d] >= k || p.dst[d] >= k) {
              err = name + ":" + std::to_string(lineNo) + ": error: coordinate outside the " +
                    std::to_string(k) + "-ary network: '" + line + "'";
              return false;
            }
          out.push_back(p);
        }
      }
  return true;
}

std::string formatReport(const NetworkConfig &cfg, const NetworkResult &r) {
  char buf[1024];
  double cyc = (double)std::max<uint64_t>(r.cycles, 1);
  double sec = cyc / (cfg.clockGhz * 1e9);
  auto w = [&](double pj) { return pj * 1e-12 / sec; };
  std::snprintf(buf, sizeof buf,
                "total finished: %llu\n"
                "average Delay: %.4f\n"
                "maximum Delay: %llu\n"
                "simulated cycles: %llu\n"
                "total mem power (buffers): %.6g W (%.6g pJ)\n"
                "total crossbar power: %.6g W (%.6g pJ)\n"
                "total arbiter power: %.6g W (%.6g pJ)\n"
                "total link power: %.6g W (%.6g pJ)\n"
                "total power: %.6g W (%.6g pJ)\n",
                (unsigned long long)r.finished, r.avgDelay, (unsigned long long)r.maxDelay,
                (unsigned long long)r.cycles, w(r.energy.bufferPj), r.energy.bufferPj,
                w(r.energy.crossbarPj), r.energy.crossbarPj, w(r.energy.arbiterPj),
                r.energy.arbiterPj, w(r.energy.linkPj), r.energy.linkPj, w(r.energy.totalPj()),
                r.energy.totalPj());
  return buf;
}

} // namespace ptxsim::chiplet::noc
