#include "isa_ext/spu/Topology.h"

#include <algorithm>

namespace ptxsim::spu {

const char *dirName(Dir d) {
  switch (d) {
  case Dir::North:
    return "north";
  case Dir::East:
    return "east";
  case Dir::West:
    return "west";
  case Dir::South:
    return "south";
  }
  return "?";
}

uint32_t iuNumber(const Shape &s, Dir d, uint32_t idx) {
  uint32_t base = s.numSms();
  switch (d) {
  case Dir::North:
    return base + idx;
  case Dir::East:
    return base + s.cols + idx;
  case Dir::West:
    return base + s.cols + s.rows + idx;
  case Dir::South:
    return base + s.cols + 2 * s.rows + idx;
  }
  return base;
}

int32_t verticalCb(const Shape &s, int32_t r, int32_t c) {
  if (r < -1 || r >= (int32_t)s.rows || c < 0 || c >= (int32_t)s.cols)
    return kNoCb;
  return (r + 1) * (int32_t)s.cols + c;
}

int32_t horizontalCb(const Shape &s, int32_t r, int32_t c) {
  if (r < 0 || r >= (int32_t)s.rows || c < -1 || c >= (int32_t)s.cols)
    return kNoCb;
  return (int32_t)((s.rows + 1) * s.cols) + r * (int32_t)(s.cols + 1) + (c + 1);
}

uint32_t numCbs(const Shape &s) { return (s.rows + 1) * s.cols + s.rows * (s.cols + 1); }

namespace {

/// Physical SM of position b of the 1D chain: the chain snakes through the rows, so consecutive
/// blocks are always hardware neighbours.
uint32_t snakeSm(const Shape &phys, uint32_t b) {
  uint32_t row = b / phys.cols, col = b % phys.cols;
  if (row & 1)
    col = phys.cols - 1 - col;
  return row * phys.cols + col;
}

/// `phys` is the SM grid; with m blocks per SM the pass is R x (C*m) blocks, block column c on
/// SM column c / m (section 5's virtual CBs: neighbours on one SM talk through its memory).
std::vector<Pass> plan2D(const Shape &phys, uint32_t m, uint32_t gridX, uint32_t gridY) {
  const Shape s{phys.rows, phys.cols * m};
  uint32_t passRows = (gridY + s.rows - 1) / s.rows, passCols = (gridX + s.cols - 1) / s.cols;
  std::vector<Pass> passes;
  for (uint32_t pc = 0; pc < passCols; ++pc)
    for (uint32_t pr = 0; pr < passRows; ++pr) {
      Pass p;
      p.k = (uint32_t)passes.size();
      p.pr = pr;
      p.pc = pc;
      p.nr = std::min(s.rows, gridY - pr * s.rows);
      p.nc = std::min(s.cols, gridX - pc * s.cols);
      for (uint32_t r = 0; r < p.nr; ++r)
        for (uint32_t c = 0; c < p.nc; ++c) {
          Unit u;
          u.role = Role::Sm;
          u.r = (int32_t)r;
          u.c = (int32_t)c;
          u.hwIndex = r * phys.cols + c / m;
          u.i = r;
          u.j = c;
          u.blockX = pc * s.cols + c;
          u.blockY = pr * s.rows + r;
          u.cbNorth = verticalCb(s, (int32_t)r - 1, (int32_t)c);
          u.cbWest = horizontalCb(s, (int32_t)r, (int32_t)c - 1);
          u.cbSouth = verticalCb(s, (int32_t)r, (int32_t)c);
          u.cbEast = horizontalCb(s, (int32_t)r, (int32_t)c);
          p.units.push_back(u);
        }
      p.numSms = (uint32_t)p.units.size();
      auto border = [&](Dir d, uint32_t idx, bool real) {
        Unit u;
        u.role = real ? Role::Iu : Role::Viu;
        u.dir = d;
        switch (d) {
        case Dir::North:
          u.r = -1, u.c = (int32_t)idx, u.id = pc * s.cols + idx;
          u.hwIndex = iuNumber(phys, d, idx / m);
          u.cbSouth = verticalCb(s, -1, u.c);
          break;
        case Dir::West:
          u.r = (int32_t)idx, u.c = -1, u.id = pr * s.rows + idx;
          u.hwIndex = iuNumber(phys, d, idx);
          u.cbEast = horizontalCb(s, u.r, -1);
          break;
        case Dir::South:
          u.r = (int32_t)p.nr, u.c = (int32_t)idx, u.id = pc * s.cols + idx;
          // a pass shorter than the hardware: the SM below its last row acts as the IU
          u.hwIndex = p.nr == s.rows ? iuNumber(phys, d, idx / m) : p.nr * phys.cols + idx / m;
          u.cbNorth = verticalCb(s, (int32_t)p.nr - 1, u.c);
          break;
        case Dir::East:
          u.r = (int32_t)idx, u.c = (int32_t)p.nc, u.id = pr * s.rows + idx;
          u.hwIndex = p.nc == s.cols ? iuNumber(phys, d, idx) : idx * phys.cols + p.nc / m;
          u.cbWest = horizontalCb(s, u.r, (int32_t)p.nc - 1);
          break;
        }
        p.units.push_back(u);
      };
      for (uint32_t c = 0; c < p.nc; ++c)
        border(Dir::North, c, pr == 0);
      for (uint32_t r = 0; r < p.nr; ++r)
        border(Dir::East, r, pc == passCols - 1);
      for (uint32_t r = 0; r < p.nr; ++r)
        border(Dir::West, r, pc == 0);
      for (uint32_t c = 0; c < p.nc; ++c)
        border(Dir::South, c, pr == passRows - 1);
      passes.push_back(std::move(p));
    }
  return passes;
}

std::vector<Pass> plan1D(const Shape &phys, uint32_t blocks) {
  // the chain is a logical 1 x (R*C) grid: CB numbers come from that shape
  Shape s{1, phys.numSms()};
  uint32_t per = s.cols, numPasses = (blocks + per - 1) / per;
  std::vector<Pass> passes;
  for (uint32_t k = 0; k < numPasses; ++k) {
    Pass p;
    p.k = k;
    p.pc = k;
    p.nr = 1;
    p.nc = std::min(per, blocks - k * per);
    for (uint32_t c = 0; c < p.nc; ++c) {
      Unit u;
      u.r = 0;
      u.c = (int32_t)c;
      u.hwIndex = snakeSm(phys, c);
      u.j = c;
      u.blockX = k * per + c;
      u.cbWest = horizontalCb(s, 0, (int32_t)c - 1);
      u.cbEast = horizontalCb(s, 0, (int32_t)c);
      p.units.push_back(u);
    }
    p.numSms = p.nc;
    Unit w;
    w.role = k == 0 ? Role::Iu : Role::Viu;
    w.dir = Dir::West;
    w.r = 0, w.c = -1;
    w.hwIndex = iuNumber(phys, Dir::West, 0);
    w.cbEast = horizontalCb(s, 0, -1);
    p.units.push_back(w);
    Unit e;
    e.role = k + 1 == numPasses ? Role::Iu : Role::Viu;
    e.dir = Dir::East;
    e.r = 0, e.c = (int32_t)p.nc;
    // the end of the snake: an SM acting as IU when the pass is short, else the IU beside it
    uint32_t lastRow = phys.rows - 1;
    e.hwIndex = p.nc < per ? snakeSm(phys, p.nc)
                           : iuNumber(phys, (lastRow & 1) ? Dir::West : Dir::East, lastRow);
    e.cbWest = horizontalCb(s, 0, (int32_t)p.nc - 1);
    p.units.push_back(e);
    passes.push_back(std::move(p));
  }
  return passes;
}

} // namespace

std::vector<Pass> planPasses(const Shape &s, uint32_t gridX, uint32_t gridY, bool oneD,
                             uint32_t blocksPerSm) {
  if (!gridX || !gridY || !s.rows || !s.cols || !blocksPerSm)
    return {};
  if (oneD)
    return plan1D(s, gridX * gridY);
  return plan2D(s, blocksPerSm, gridX, gridY);
}

Shape logicalShape(const Shape &s, bool oneD, uint32_t blocksPerSm) {
  return oneD ? Shape{1, s.numSms()} : Shape{s.rows, s.cols * blocksPerSm};
}

SpillKey spillKey(const Pass &p, const Shape &s, const Unit &v, bool oneD) {
  SpillKey k;
  if (oneD) {
    uint32_t per = s.numSms();
    k.vertical = false;
    k.line = v.dir == Dir::East ? (p.k + 1) * per : p.k * per;
    k.id = 0;
    return k;
  }
  k.id = v.id;
  switch (v.dir) {
  case Dir::North:
    k.vertical = true, k.line = p.pr * s.rows;
    break;
  case Dir::South:
    k.vertical = true, k.line = (p.pr + 1) * s.rows;
    break;
  case Dir::West:
    k.vertical = false, k.line = p.pc * s.cols;
    break;
  case Dir::East:
    k.vertical = false, k.line = (p.pc + 1) * s.cols;
    break;
  }
  return k;
}

std::string describe(const Unit &u, uint32_t pass) {
  if (u.role == Role::Sm)
    return "SM " + std::to_string(u.hwIndex) + " running block (i,j,k)=(" + std::to_string(u.i) +
           "," + std::to_string(u.j) + "," + std::to_string(pass) + ")";
  return std::string(u.role == Role::Iu ? "IU " : "VIU ") + dirName(u.dir) + " id " +
         std::to_string(u.id) + " (unit " + std::to_string(u.hwIndex) + ", pass " +
         std::to_string(pass) + ")";
}

} // namespace ptxsim::spu
