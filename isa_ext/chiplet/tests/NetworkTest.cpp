// The network model: exact zero-load latency, contention, determinism, traces, and the causal
// path model the synchronized simulation uses.

#include "isa_ext/chiplet/noc/Network.h"
#include "isa_ext/chiplet/noc/PathModel.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

using namespace ptxsim::chiplet::noc;

namespace {

Packet pkt(uint64_t t, unsigned sx, unsigned sy, unsigned dx, unsigned dy, uint32_t bytes) {
  Packet p;
  p.time = t;
  p.src[0] = sx;
  p.src[1] = sy;
  p.dst[0] = dx;
  p.dst[1] = dy;
  p.bytes = bytes;
  return p;
}

/// Uniform random traffic: each node injects a packet with probability `rate` per cycle.
std::vector<Packet> uniformTraffic(const NetworkConfig &cfg, double rate, uint64_t cycles,
                                   uint32_t bytes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Packet> out;
  for (uint64_t t = 0; t < cycles; ++t)
    for (unsigned y = 0; y < cfg.radix; ++y)
      for (unsigned x = 0; x < cfg.radix; ++x)
        if (u(rng) < rate) {
          unsigned dx, dy;
          do {
            dx = rng() % cfg.radix;
            dy = rng() % cfg.radix;
          } while (dx == x && dy == y);
          out.push_back(pkt(t, x, y, dx, dy, bytes));
        }
  return out;
}

} // namespace

TEST(ChipletNetwork, ZeroLoadLatencyIsHopsTimesRouterDelayPlusSerialization) {
  for (Topology topo : {Topology::Mesh, Topology::Torus})
    for (unsigned rd : {1u, 3u, 5u})
      for (uint32_t bytes : {4u, 32u, 100u, 1000u}) {
        NetworkConfig cfg;
        cfg.radix = 4;
        cfg.topology = topo;
        cfg.routerDelay = rd;
        cfg.linkLengthUm = 2500; // 3 cycles per link
        for (unsigned dx = 0; dx < 4; ++dx)
          for (unsigned dy = 0; dy < 4; ++dy) {
            Packet p = pkt(100, 1, 2, dx, dy, bytes);
            NetworkResult r = simulate(cfg, {p});
            ASSERT_EQ(r.finished, 1u);
            unsigned hops = routeHops(cfg, p.src, p.dst);
            uint64_t flits = (bytes + 31) / 32;
            uint64_t want = (hops + 1) * rd + hops * 3 + (flits - 1);
            EXPECT_EQ(r.delays[0], want) << "to " << dx << "," << dy << " bytes " << bytes;
            EXPECT_EQ(zeroLoadDelay(cfg, p), want);
            PathModel pm(cfg);
            EXPECT_EQ(pm.add(p) - p.time, want);
          }
      }
}

TEST(ChipletNetwork, TorusTakesTheShortWayRound) {
  NetworkConfig cfg;
  cfg.radix = 5;
  cfg.topology = Topology::Torus;
  Packet p = pkt(0, 0, 0, 4, 0, 4);
  EXPECT_EQ(routeHops(cfg, p.src, p.dst), 1u);
  cfg.topology = Topology::Mesh;
  EXPECT_EQ(routeHops(cfg, p.src, p.dst), 4u);
}

TEST(ChipletNetwork, DelayGrowsWithInjectionRate) {
  NetworkConfig cfg;
  cfg.radix = 4;
  cfg.vcs = 2;
  cfg.inBufFlits = 4;
  cfg.outBufFlits = 4;
  double prev = 0;
  for (double rate : {0.002, 0.04, 0.1, 0.12}) {
    auto traffic = uniformTraffic(cfg, rate, 3000, 128); // 4 flits per packet
    NetworkResult r = simulate(cfg, traffic);
    ASSERT_EQ(r.finished, traffic.size());
    EXPECT_GT(r.avgDelay, prev) << "rate " << rate;
    std::printf("rate %.3f: average delay %.2f\n", rate, r.avgDelay);
    prev = r.avgDelay;
  }
  // the busiest rate is well above zero-load
  NetworkConfig c2 = cfg;
  auto low = simulate(c2, uniformTraffic(c2, 0.002, 3000, 128));
  EXPECT_GT(prev, low.avgDelay * 1.5);
}

TEST(ChipletNetwork, TorusAndMesh3dDeliverEverything) {
  for (Topology topo : {Topology::Mesh, Topology::Torus}) {
    NetworkConfig cfg;
    cfg.radix = 3;
    cfg.dims = 3;
    cfg.topology = topo;
    std::mt19937 rng(3);
    std::vector<Packet> ps;
    for (int i = 0; i < 2000; ++i) {
      Packet p;
      p.time = i / 4;
      for (int d = 0; d < 3; ++d) {
        p.src[d] = rng() % 3;
        p.dst[d] = rng() % 3;
      }
      p.bytes = 4 + rng() % 200;
      ps.push_back(p);
    }
    NetworkResult r = simulate(cfg, ps);
    EXPECT_EQ(r.finished, ps.size());
    for (size_t i = 0; i < ps.size(); ++i)
      EXPECT_GE(r.delays[i], zeroLoadDelay(cfg, ps[i]));
  }
}

TEST(ChipletNetwork, SameSeedSameResultAndEnergyByPart) {
  NetworkConfig cfg;
  cfg.radix = 4;
  auto traffic = uniformTraffic(cfg, 0.05, 1000, 64);
  NetworkResult a = simulate(cfg, traffic), b = simulate(cfg, traffic);
  EXPECT_EQ(a.delays, b.delays);
  EXPECT_EQ(a.energy.totalPj(), b.energy.totalPj());
  EXPECT_GT(a.energy.bufferPj, 0);
  EXPECT_GT(a.energy.crossbarPj, 0);
  EXPECT_GT(a.energy.arbiterPj, 0);
  EXPECT_GT(a.energy.linkPj, 0);
  // longer links cost more link energy, the same buffer energy
  NetworkConfig longer = cfg;
  longer.linkLengthUm = 4000;
  longer.linkUmPerCycle = 4000;
  NetworkResult c = simulate(longer, traffic);
  EXPECT_NEAR(c.energy.linkPj, 4 * a.energy.linkPj, 1e-6 * c.energy.linkPj);
}

TEST(ChipletNetwork, PathModelContendsAndIsOrderCausal) {
  NetworkConfig cfg;
  cfg.radix = 3;
  PathModel pm(cfg);
  Packet a = pkt(10, 0, 0, 2, 0, 320); // 10 flits
  Packet b = pkt(10, 0, 0, 2, 0, 32);
  uint64_t ta = pm.add(a), tb = pm.add(b);
  EXPECT_EQ(ta - 10, zeroLoadDelay(cfg, a));
  EXPECT_GT(tb - 10, zeroLoadDelay(cfg, b)); // waits behind a's ten flits
  EXPECT_EQ(pm.minDelay(), 2u * cfg.routerDelay + cfg.linkDelay());
}

TEST(ChipletNetwork, ReadsPopnetTracesAndNamesBadLines) {
  NetworkConfig cfg;
  cfg.radix = 2;
  std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/bench.0.0") << "16788 0 0 1 1 4\n18812 0 0 1 0 4\n";
  std::ofstream(dir + "/bench.1.1") << "100 1 1 0 0 4\n";
  std::vector<Packet> ps;
  std::string err;
  ASSERT_TRUE(readTraces(cfg, dir + "/bench", ps, err)) << err;
  ASSERT_EQ(ps.size(), 3u);
  NetworkResult r = simulate(cfg, ps);
  EXPECT_EQ(r.finished, 3u);
  std::ofstream(dir + "/bench.1.0") << "5 1 0 7 0 4\n";
  ps.clear();
  EXPECT_FALSE(readTraces(cfg, dir + "/bench", ps, err));
  EXPECT_NE(err.find("bench.1.0:1: error: coordinate outside"), std::string::npos) << err;
  std::remove((dir + "/bench.1.0").c_str());
  std::remove((dir + "/bench.0.0").c_str());
  std::remove((dir + "/bench.1.1").c_str());
}

TEST(ChipletNetwork, MaxCyclesStopsEarly) {
  NetworkConfig cfg;
  cfg.maxCycles = 50;
  NetworkResult r = simulate(cfg, {pkt(10, 0, 0, 2, 2, 4), pkt(100, 0, 0, 2, 2, 4)});
  EXPECT_EQ(r.injected, 2u);
  EXPECT_EQ(r.finished, 1u);
}
