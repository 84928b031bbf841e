// The statistics catalog and snapshots (base/Stats.h): registered names with units, instance
// families, the abort on an unregistered name, distributions and their printers.

#include "base/Stats.h"

#include "base/Config.h"

#include <cstdio>
#include <limits>

#include <gtest/gtest.h>

using namespace ptxsim;

TEST(Stats, RegisteredNamesAndInstanceFamilies) {
  stats::Catalog c;
  c.add("t.hits", stats::Unit::Count, "hits");
  c.add("t[].misses", stats::Unit::Count, "misses of one instance");
  ASSERT_NE(c.find("t.hits"), nullptr);
  EXPECT_EQ(c.find("t.hits")->unit, stats::Unit::Count);
  ASSERT_NE(c.find("t[7].misses"), nullptr); // an instance matches its family
  EXPECT_EQ(c.find("t.misses"), nullptr);
  EXPECT_EQ(c.find("t.nope"), nullptr);
  EXPECT_NE(c.markdown().find("| `t[].misses` | count | misses of one instance |"), std::string::npos);
}

TEST(Stats, SnapshotOrderTextAndJson) {
  stats::Catalog::global().add("stats_test.a", stats::Unit::Count, "a");
  stats::Catalog::global().add("stats_test.b", stats::Unit::Seconds, "b");
  stats::Catalog::global().add("stats_test[].c", stats::Unit::Count, "c");
  stats::Snapshot s;
  s.set("stats_test.b", 0.5);
  s.set("stats_test.a", 3);
  s.add("stats_test.a", 2);
  s.set("stats_test[1].c", 9);
  EXPECT_EQ(s.get("stats_test.a"), 5);
  EXPECT_EQ(s.values()[0].first, "stats_test.b"); // order of first set
  EXPECT_EQ(s.text(), "  stats_test.b = 0.5\n  stats_test.a = 5\n"); // instances left out
  EXPECT_EQ(s.jsonMembers(), "\"stats_test.b\": 0.5, \"stats_test.a\": 5, \"stats_test[1].c\": 9");
  stats::Catalog::global().add("stats_test.quiet", stats::Unit::Count, "registered, no value");
  EXPECT_EQ(s.get("stats_test.quiet"), 0);
}

// A kernel's snapshot has thousands of entries (per SM, per partition): large snapshots look
// names up in an index. It must agree with the order and values of a plain list through
// growth (new buffers), copies, moves, edits in place and clear().
TEST(Stats, LargeSnapshotIndexAgreesWithTheList) {
  stats::Catalog::global().add("stats_big[].v", stats::Unit::Count, "v");
  auto name = [](int i) { return "stats_big[" + std::to_string(i) + "].v"; };
  stats::Snapshot s;
  const int n = 3000;
  for (int i = 0; i < n; ++i)
    s.set(name(i), i);
  for (int i = 0; i < n; i += 7)
    s.add(name(i), 0.5); // found, not appended
  s.add(name(n), 1);     // new: appended
  ASSERT_EQ(s.values().size(), size_t(n + 1));
  for (int i = 0; i <= n; ++i) {
    ASSERT_EQ(s.values()[i].first, name(i));
    ASSERT_EQ(s.get(name(i)), i == n ? 1 : i + (i % 7 == 0 ? 0.5 : 0)) << i;
  }
  double v = 0;
  EXPECT_FALSE(s.find("stats_big[99999].v", v));
  stats::Snapshot copy = s; // its own index
  stats::Snapshot moved = std::move(copy);
  for (auto &kv : s.values()) // edits in place (sampling scales every value)
    kv.second *= 2;
  s.set(name(5), -1);
  EXPECT_EQ(s.get(name(5)), -1);
  EXPECT_EQ(s.get(name(6)), 12);
  EXPECT_EQ(moved.get(name(6)), 6);
  moved.set(name(6), 60);
  EXPECT_EQ(moved.get(name(6)), 60);
  EXPECT_EQ(moved.values().size(), size_t(n + 1));
  s.clear();
  EXPECT_FALSE(s.find(name(5), v));
  for (int i = 0; i < 100; ++i)
    s.add(name(99 - i), 1);
  EXPECT_EQ(s.values()[0].first, name(99));
  EXPECT_EQ(s.get(name(0)), 1);
  EXPECT_EQ(s.values().size(), 100u);
}

// The JSON writes each value as printf's "%.17g" does (integers by a faster path, the rest by
// to_chars): the same text for every kind of double, names quoted as jsonQuote() does.
TEST(Stats, JsonValuesAsPrintfWritesThem) {
  stats::Catalog::global().add("stats_json[].v", stats::Unit::Count, "v");
  const double values[] = {0.0, -0.0, 1.0, -1.0, 42.0, -42.0, 0.5, 1.0 / 3, 2.0 / 3, 123.456,
                           999999999999999.0, 1e15, 1e15 + 1, 1e16, 99999999999999999.0, 1e17,
                           9007199254740993.0, 1e300, -1e300, 1e-5, 1e-300, 5e-324, 0.1, 1e21,
                           std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), 4503599627370495.5,
                           -123456789012345.0, 3.0e-7, 1234567.0000001};
  stats::Snapshot s;
  std::string want;
  int i = 0;
  for (double v : values) {
    std::string name = "stats_json[" + std::to_string(i++) + "].v";
    s.set(name, v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    want += (want.empty() ? "" : ", ") + jsonQuote(name) + ": " + buf;
  }
  EXPECT_EQ(s.jsonMembers(), want);
  // a name that needs escapes (an extension's, by name) is quoted as jsonQuote does
  stats::Catalog::global().add("stats_json.\"odd\"", stats::Unit::Count, "quoted");
  stats::Snapshot q;
  q.set("stats_json.\"odd\"", 7);
  EXPECT_EQ(q.jsonMembers(), jsonQuote("stats_json.\"odd\"") + ": 7");
}

// setInstances() is set() name by name: appended at once into a snapshot without instances,
// one by one (found ones overwritten in place) into one that has some.
TEST(Stats, SetInstancesAsSetOneByOne) {
  stats::Catalog::global().add("stats_inst.total", stats::Unit::Count, "t");
  stats::Catalog::global().add("stats_inst[].v", stats::Unit::Count, "v");
  std::vector<std::string> names;
  std::vector<double> vals;
  for (int i = 0; i < 100; ++i) {
    names.push_back("stats_inst[" + std::to_string(i) + "].v");
    vals.push_back(i * 1.5);
  }
  for (bool withInstance : {false, true}) {
    stats::Snapshot a, b;
    for (stats::Snapshot *s : {&a, &b}) {
      for (int i = 0; i < 40; ++i) // (large enough for the name index)
        s->set("stats_inst.total", i);
      if (withInstance)
        s->set(names[7], -3);
    }
    std::vector<stats::StatName> interned;
    for (const std::string &n : names)
      interned.push_back(stats::StatName::of(n));
    a.setInstances(interned, vals);
    for (size_t i = 0; i < names.size(); ++i)
      b.set(names[i], vals[i]);
    EXPECT_EQ(a.values(), b.values()) << withInstance;
    EXPECT_EQ(a.get(names[99]), 99 * 1.5);
    EXPECT_EQ(a.get(names[7]), 7 * 1.5);
    a.add(names[3], 1); // the index finds the appended entries
    EXPECT_EQ(a.get(names[3]), 3 * 1.5 + 1);
    EXPECT_EQ(a.values().size(), b.values().size());
  }
}

TEST(Stats, NamesAreInternedOncePerProcess) {
  stats::Counter c("stats_intern.c", stats::Unit::Count, "c");
  stats::Catalog::global().add("stats_intern[].v", stats::Unit::Count, "v");
  const stats::StatName a = stats::StatName::of("stats_intern[2].v");
  const stats::StatName b = stats::StatName::of(std::string("stats_intern[") + "2].v");
  EXPECT_EQ(&a.str(), &b.str()); // one copy of a name, whoever asks
  EXPECT_EQ(a, b);
  EXPECT_NE(a, stats::StatName::of("stats_intern[3].v"));
  EXPECT_EQ(a, "stats_intern[2].v");
  EXPECT_EQ(stats::StatName().str(), "");
  EXPECT_EQ(&c.internedName().str(), &stats::StatName::of("stats_intern.c").str());
  // a snapshot's entries hold the interned names, whether set by handle, by name or by copy
  stats::Snapshot s;
  s.set(c, 1);
  s.set("stats_intern[2].v", 2);
  s.add(stats::StatName::of("stats_intern[4].v"), 4);
  stats::Snapshot copy = s;
  ASSERT_EQ(copy.values().size(), 3u);
  EXPECT_EQ(&copy.values()[0].first.str(), &c.internedName().str());
  EXPECT_EQ(&copy.values()[1].first.str(), &a.str());
  EXPECT_EQ(copy.values()[2].first, "stats_intern[4].v");
  EXPECT_EQ(copy.get("stats_intern[4].v"), 4);
  EXPECT_EQ(copy.jsonMembers(),
            "\"stats_intern.c\": 1, \"stats_intern[2].v\": 2, \"stats_intern[4].v\": 4");
}

TEST(StatsDeathTest, ReadingAnUnregisteredNameAborts) {
  stats::Snapshot s;
  EXPECT_DEATH(s.get("stats_test.never_registered"), "no component registers");
  EXPECT_DEATH(s.set("stats_test.never_registered", 1), "no component registers");
}

TEST(Stats, DistributionSummary) {
  stats::Distribution d;
  EXPECT_EQ(d.quantile(0.5), 0);
  for (uint64_t v : {20, 20, 20, 20, 20, 20, 20, 20, 300, 1000})
    d.sample(v);
  EXPECT_EQ(d.count, 10u);
  EXPECT_EQ(d.min, 20);
  EXPECT_EQ(d.max, 1000);
  EXPECT_DOUBLE_EQ(d.sum, 1460);
  EXPECT_EQ(d.quantile(0.5), 31);   // 20 lies in [16, 32)
  EXPECT_EQ(d.quantile(0.9), 511);  // 300 lies in [256, 512)
  EXPECT_EQ(d.quantile(1.0), 1000); // clamped to the largest sample
  stats::Distribution e;
  e.sample(5);
  e.merge(d);
  EXPECT_EQ(e.count, 11u);
  EXPECT_EQ(e.min, 5);
  stats::Catalog::global().addDistribution("stats_test.lat", stats::Unit::Cycles, "latency");
  stats::Snapshot s;
  s.setDistribution("stats_test.lat", d);
  EXPECT_EQ(s.get("stats_test.lat.count"), 10);
  EXPECT_DOUBLE_EQ(s.get("stats_test.lat.mean"), 146);
  EXPECT_EQ(s.get("stats_test.lat.p99"), 1000);
}

// Typed handles (base/Stats.h): declared once with name, unit and help; set and read through
// the handle; formulas and aliases computed from the snapshot; names resolved once.
TEST(Stats, HandlesDeclaredOnceSetAndReadWithoutNames) {
  stats::Counter insts("stats_h.insts", stats::Unit::Count, "instructions");
  stats::Counter cycles("stats_h.cycles", stats::Unit::Cycles, "cycles");
  stats::Counter perSm("stats_h[].insts", stats::Unit::Count, "instructions of one SM");
  stats::Formula ipc("stats_h.ipc", stats::Unit::Ratio, "instructions per cycle",
                     [&](const stats::Snapshot &s) { return stats::ratio(s.get(insts), s.get(cycles)); });
  stats::Alias cyclesAlias("STATS_H_CYCLES", cycles, "a study's name");
  stats::Counter again("stats_h.insts", stats::Unit::Count, "instructions");
  EXPECT_EQ(again, insts); // declaring a name twice gives the same statistic
  EXPECT_EQ(insts.name(), "stats_h.insts");
  EXPECT_EQ(perSm.instance(3), "stats_h[3].insts");
  EXPECT_EQ(insts.instance(3), "stats_h.insts");
  const stats::Desc &ad = stats::Catalog::global().desc(cyclesAlias.id());
  EXPECT_EQ(ad.kind, stats::StatKind::Alias);
  EXPECT_EQ(ad.of, cycles.id());
  EXPECT_EQ(ad.unit, stats::Unit::Cycles);
  EXPECT_EQ(ad.help, "alias of stats_h.cycles (a study's name)");
  EXPECT_EQ(stats::Catalog::global().desc(ipc.id()).kind, stats::StatKind::Formula);

  stats::Snapshot s;
  s.compute(ipc); // nothing set yet: 0, no division by zero
  EXPECT_EQ(s.get(ipc), 0);
  s.set(cycles, 8);
  s.add(insts, 10);
  s.add(insts, 6);
  s.set(perSm.instance(1), 4); // an instance, by name
  s.compute(ipc);
  s.copy(cyclesAlias);
  EXPECT_EQ(s.get(insts), 16);
  EXPECT_EQ(s.get(ipc), 2);
  EXPECT_EQ(s.get(cyclesAlias), 8);
  EXPECT_EQ(s.get("stats_h.insts"), 16); // the names agree with the handles
  EXPECT_EQ(s.jsonMembers(), "\"stats_h.ipc\": 2, \"stats_h.cycles\": 8, \"stats_h.insts\": 16, "
                             "\"stats_h[1].insts\": 4, \"STATS_H_CYCLES\": 8");
  // resolved once by name (the power model's way), then read through the handle
  stats::Stat r = stats::Catalog::global().resolve("stats_h.cycles");
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(s.get(r), 8);
  EXPECT_FALSE(stats::Catalog::global().resolve("stats_h.nope").valid());
  EXPECT_EQ(stats::Catalog::global().resolve("stats_h[7].insts"), perSm);
  // a statistic first set by name is found by its handle, and the other way round
  stats::Snapshot t;
  t.set("stats_h.cycles", 5);
  t.add(cycles, 1);
  EXPECT_EQ(t.get(cycles), 6);
  EXPECT_EQ(t.values().size(), 1u);
}

// Positions by handle must follow copies, moves, edits in place and clear(), like the names.
TEST(Stats, HandlePositionsFollowCopiesEditsAndClear) {
  stats::Counter a("stats_p.a", stats::Unit::Count, "a");
  stats::Counter b("stats_p.b", stats::Unit::Cycles, "b");
  stats::Snapshot s;
  s.set(b, 2);
  s.set(a, 1);
  stats::Snapshot c = s;
  c.set(a, 10);
  EXPECT_EQ(s.get(a), 1);
  EXPECT_EQ(c.get(a), 10);
  stats::Snapshot m = std::move(c);
  EXPECT_EQ(m.get(a), 10);
  EXPECT_EQ(m.get(b), 2);
  for (auto &kv : s.values()) // edits in place, order swapped: positions rebuilt
    kv.second *= 3;
  std::swap(s.values()[0], s.values()[1]);
  EXPECT_EQ(s.get(a), 3);
  EXPECT_EQ(s.get(b), 6);
  s.add(a, 1);
  EXPECT_EQ(s.values()[0].first, "stats_p.a");
  EXPECT_EQ(s.values()[0].second, 4);
  s.clear();
  EXPECT_EQ(s.get(a), 0);
  s.set(a, 7);
  EXPECT_EQ(s.values().size(), 1u);
  EXPECT_EQ(s.get(a), 7);
}

TEST(Stats, DistributionHandleWritesTheSameSummaryAsTheName) {
  stats::DistributionStat lat("stats_d.lat", stats::Unit::Cycles, "latency");
  stats::Distribution d;
  for (uint64_t v : {3, 9, 100})
    d.sample(v);
  stats::Snapshot byHandle, byName;
  byHandle.setDistribution(lat, d);
  byName.setDistribution("stats_d.lat", d);
  EXPECT_EQ(byHandle.jsonMembers(), byName.jsonMembers());
  EXPECT_EQ(byHandle.get(lat.part(0)), 3);
  EXPECT_EQ(stats::Catalog::global().find("stats_d.lat.count")->unit, stats::Unit::Count);
  EXPECT_EQ(stats::Catalog::global().find("stats_d.lat.p90")->unit, stats::Unit::Cycles);
}

TEST(StatsDeathTest, AnEmptyHandleAborts) {
  stats::Snapshot s;
  stats::Counter family("stats_f[].x", stats::Unit::Count, "x of one instance");
  EXPECT_DEATH(s.set(family, 1), "is a family");
  EXPECT_DEATH(s.get(stats::Stat()), "names no statistic");
  EXPECT_DEATH(s.set(stats::Catalog::global().resolve("stats_test.never_registered"), 1),
               "names no statistic");
}
