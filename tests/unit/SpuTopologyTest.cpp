// Topology and pass planning against the report's figures 5 and 6.

#include "isa_ext/spu/Topology.h"

#include <gtest/gtest.h>

namespace ptxsim::spu {
namespace {

const Unit *findIu(const Pass &p, uint32_t hw) {
  for (const Unit &u : p.units)
    if (u.role != Role::Sm && u.hwIndex == hw)
      return &u;
  return nullptr;
}

TEST(SpuTopology, Figure6Numbering) {
  Shape s{4, 4};
  EXPECT_EQ(iuNumber(s, Dir::North, 0), 16u);
  EXPECT_EQ(iuNumber(s, Dir::East, 2), 22u);
  EXPECT_EQ(iuNumber(s, Dir::West, 0), 24u);
  EXPECT_EQ(iuNumber(s, Dir::South, 1), 29u);
  EXPECT_EQ(iuNumber(s, Dir::South, 3), 31u);
  EXPECT_EQ(numCbs(s), 5u * 4 + 4 * 5);
}

TEST(SpuTopology, Figure5PassesOf8x8On4x4) {
  Shape s{4, 4};
  auto passes = planPasses(s, 8, 8);
  ASSERT_EQ(passes.size(), 4u);
  // column-major: pass 1 is below pass 0, pass 2 right of it
  EXPECT_EQ(passes[1].pr, 1u);
  EXPECT_EQ(passes[1].pc, 0u);
  EXPECT_EQ(passes[2].pr, 0u);
  EXPECT_EQ(passes[2].pc, 1u);
  for (const Pass &p : passes) {
    EXPECT_EQ(p.numSms, 16u);
    EXPECT_EQ(p.units.size(), 32u);
  }
  // pass 0: IUs 20..23 (east) and 28..31 (south) are VIUs, the others are IUs
  for (uint32_t hw = 16; hw < 32; ++hw) {
    const Unit *u = findIu(passes[0], hw);
    ASSERT_NE(u, nullptr) << hw;
    bool viu = (hw >= 20 && hw <= 23) || hw >= 28;
    EXPECT_EQ(u->role, viu ? Role::Viu : Role::Iu) << hw;
  }
  // the report: IU 22 has id 2 at pass 0; IU 29 has id 5 at pass 3 and 1 at pass 1
  EXPECT_EQ(findIu(passes[0], 22)->id, 2u);
  EXPECT_EQ(findIu(passes[3], 29)->id, 5u);
  EXPECT_EQ(findIu(passes[1], 29)->id, 1u);
  EXPECT_EQ(findIu(passes[1], 29)->role, Role::Iu);
  // block B = (3,0,1): row 3, column 0 of pass 1 -> block row 7, column 0
  const Unit &b = passes[1].units[3 * 4 + 0];
  EXPECT_EQ(b.i, 3u);
  EXPECT_EQ(b.j, 0u);
  EXPECT_EQ(b.blockY, 7u);
  EXPECT_EQ(b.blockX, 0u);
}

TEST(SpuTopology, NeighboursShareCbs) {
  Shape s{3, 5};
  auto passes = planPasses(s, 5, 3);
  ASSERT_EQ(passes.size(), 1u);
  const Pass &p = passes[0];
  auto sm = [&](int r, int c) -> const Unit & { return p.units[r * 5 + c]; };
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) {
      if (r + 1 < 3) {
        EXPECT_EQ(sm(r, c).cbSouth, sm(r + 1, c).cbNorth);
      }
      if (c + 1 < 5) {
        EXPECT_EQ(sm(r, c).cbEast, sm(r, c + 1).cbWest);
      }
    }
  for (const Unit &u : p.units) {
    if (u.role == Role::Sm)
      continue;
    EXPECT_EQ(u.role, Role::Iu);
    int32_t expect = u.dir == Dir::North   ? sm(0, u.c).cbNorth
                     : u.dir == Dir::South ? sm(2, u.c).cbSouth
                     : u.dir == Dir::West  ? sm(u.r, 0).cbWest
                                           : sm(u.r, 4).cbEast;
    int32_t got = u.dir == Dir::North   ? u.cbSouth
                  : u.dir == Dir::South ? u.cbNorth
                  : u.dir == Dir::West  ? u.cbEast
                                        : u.cbWest;
    EXPECT_EQ(got, expect);
  }
}

TEST(SpuTopology, ShortPassLetsSmsActAsIus) {
  Shape s{4, 4};
  auto passes = planPasses(s, 6, 6); // 2 x 2 passes, the last row and column only 2 wide
  ASSERT_EQ(passes.size(), 4u);
  const Pass &p = passes[1]; // rows 4..5, columns 0..3
  EXPECT_EQ(p.nr, 2u);
  EXPECT_EQ(p.nc, 4u);
  for (const Unit &u : p.units) {
    if (u.role != Role::Sm && u.dir == Dir::South) {
      EXPECT_EQ(u.role, Role::Iu);
      EXPECT_EQ(u.hwIndex, 2u * 4 + (uint32_t)u.c); // the SM under the pass's last row
    }
  }
  const Pass &q = passes[3]; // rows 4..5, columns 4..5
  for (const Unit &u : q.units) {
    if (u.role != Role::Sm && u.dir == Dir::East) {
      EXPECT_EQ(u.hwIndex, (uint32_t)u.r * 4 + 2);
    }
  }
}

TEST(SpuTopology, SpillKeysPairAcrossPasses) {
  Shape s{2, 2};
  auto passes = planPasses(s, 4, 4);
  ASSERT_EQ(passes.size(), 4u);
  // every spill VIU has exactly one restore VIU in a later pass with the same key
  for (const Pass &p : passes)
    for (const Unit &u : p.units) {
      if (u.role != Role::Viu || (u.dir != Dir::South && u.dir != Dir::East))
        continue;
      SpillKey k = spillKey(p, s, u, false);
      int found = 0;
      for (const Pass &q : passes)
        for (const Unit &v : q.units)
          if (v.role == Role::Viu && (v.dir == Dir::North || v.dir == Dir::West) &&
              spillKey(q, s, v, false) == k) {
            EXPECT_GT(q.k, p.k);
            ++found;
          }
      EXPECT_EQ(found, 1);
    }
}

TEST(SpuTopology, OneDimensionalChain) {
  Shape s{2, 2};
  auto passes = planPasses(s, 10, 1, true);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[2].nc, 2u);
  // the chain snakes: 0 1 / 3 2
  EXPECT_EQ(passes[0].units[2].hwIndex, 3u);
  EXPECT_EQ(passes[0].units[3].hwIndex, 2u);
  EXPECT_EQ(passes[0].units[3].cbEast, passes[0].units[5].cbWest); // into the east VIU
  EXPECT_EQ(passes[0].units[5].role, Role::Viu);
  EXPECT_EQ(passes[2].units[passes[2].units.size() - 1].role, Role::Iu);
  EXPECT_EQ(spillKey(passes[0], s, passes[0].units[5], true),
            spillKey(passes[1], s, passes[1].units[4], true));
}

TEST(SpuTopology, TwoBlocksPerSmShareTheirSmAndIus) {
  Shape s{2, 2};
  auto passes = planPasses(s, 8, 2, false, 2); // 2 x 4 blocks per pass on 2 x 2 SMs
  ASSERT_EQ(passes.size(), 2u);
  const Pass &p = passes[0];
  EXPECT_EQ(p.nc, 4u);
  EXPECT_EQ(p.units[0 * 4 + 3].hwIndex, 1u); // row 0, block column 3: SM column 1
  EXPECT_EQ(p.units[1 * 4 + 2].hwIndex, 3u);
  EXPECT_EQ(p.units[0].cbEast, p.units[1].cbWest); // a virtual CB inside SM 0
  for (const Unit &u : p.units) {
    if (u.role != Role::Sm && u.dir == Dir::North) {
      EXPECT_EQ(u.hwIndex, iuNumber(s, Dir::North, (uint32_t)u.c / 2));
    }
  }
  Shape l = logicalShape(s, false, 2);
  EXPECT_EQ(l.cols, 4u);
  // the east VIU of pass 0 feeds the west VIU of pass 1
  const Unit *east = nullptr, *west = nullptr;
  for (const Unit &u : passes[0].units)
    if (u.role == Role::Viu && u.dir == Dir::East && u.r == 1)
      east = &u;
  for (const Unit &u : passes[1].units)
    if (u.role == Role::Viu && u.dir == Dir::West && u.r == 1)
      west = &u;
  ASSERT_TRUE(east && west);
  EXPECT_EQ(spillKey(passes[0], l, *east, false), spillKey(passes[1], l, *west, false));
}

} // namespace
} // namespace ptxsim::spu
