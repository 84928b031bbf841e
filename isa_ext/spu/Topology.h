#pragma once
// SPU topology: the R x C grid of SMs, the Interface Units (IUs) on its four borders, the
// Communication Buffers (CBs) between neighbours, and how a grid of thread blocks is cut into
// passes (docs/spu.md has the pictures).
//
// Contract: plain data and pure functions, no simulator state. Positions are hardware
// coordinates (r, c) with SMs at 0 <= r < R, 0 <= c < C and IUs at r == -1 (north), c == C
// (east), c == -1 (west) and r == R (south). Every unit reads the CB on its north and west side
// and writes the CB on its south and east side, so data flows from north-west to south-east.
// A pass is one tile of the block grid, at most R x C blocks, one block per SM; passes are
// numbered column-major over the tiles (pass 1 is south of pass 0), which is the order the
// report's figure 5 uses. Units on a border of the pass that faces another pass are virtual IUs
// (VIUs) run by the simulator; units on a border of the whole block grid are IUs running the
// kernel; when a pass is narrower or shorter than the hardware, the SMs just past its last column
// or row act as its east or south IUs.

#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::spu {

/// IU direction, in the report's order (NORTH, EAST, WEST, SOUTH); also the value of %spu_dir.
enum class Dir : uint8_t { North = 0, East = 1, West = 2, South = 3 };
/// What a unit is during a pass; the value of %spu_role.
enum class Role : uint8_t { Sm = 0, Iu = 1, Viu = 2 };

const char *dirName(Dir d);

struct Shape {
  uint32_t rows = 4, cols = 4;
  uint32_t numSms() const { return rows * cols; }
  uint32_t numIus() const { return 2 * (rows + cols); }
};

/// Figure 6's number of the IU on side `d` at position `idx` (column for north/south, row for
/// east/west): SMs are 0 .. R*C-1 row-major, then the north IUs west to east, the east IUs north
/// to south, the west IUs north to south and the south IUs west to east.
uint32_t iuNumber(const Shape &s, Dir d, uint32_t idx);

/// CB identifiers: vertical CBs sit below row r (r = -1 .. R-1) in column c; horizontal CBs sit
/// right of column c (c = -1 .. C-1) in row r. kNoCb when a side has no CB.
constexpr int32_t kNoCb = -1;
int32_t verticalCb(const Shape &s, int32_t r, int32_t c);
int32_t horizontalCb(const Shape &s, int32_t r, int32_t c);
uint32_t numCbs(const Shape &s);

/// One unit that runs during a pass (a thread block on an SM, an IU or a VIU).
struct Unit {
  Role role = Role::Sm;
  Dir dir = Dir::North; ///< IUs and VIUs
  uint32_t id = 0;      ///< IUs/VIUs: global column (north/south) or row (east/west) it serves
  int32_t r = 0, c = 0; ///< hardware position
  uint32_t hwIndex = 0; ///< figure 6 number of the hardware unit it runs on
  uint32_t blockX = 0, blockY = 0; ///< SMs: the block (ctaid.x = column, ctaid.y = row)
  uint32_t i = 0, j = 0;           ///< SMs: row and column inside the pass (figure 5)
  int32_t cbNorth = kNoCb, cbWest = kNoCb, cbSouth = kNoCb, cbEast = kNoCb;
};

/// Where spilled CB contents live between passes: the line of CBs (a row boundary for vertical
/// CBs, a column boundary for horizontal ones, in block coordinates) and the position on it.
struct SpillKey {
  bool vertical = true;
  uint32_t line = 0; ///< global block row (vertical) / column (horizontal) of the consumer
  uint32_t id = 0;   ///< global block column (vertical) / row (horizontal)
  bool operator<(const SpillKey &o) const {
    return vertical != o.vertical ? vertical < o.vertical
           : line != o.line       ? line < o.line
                                  : id < o.id;
  }
  bool operator==(const SpillKey &o) const {
    return vertical == o.vertical && line == o.line && id == o.id;
  }
};

struct Pass {
  uint32_t k = 0;          ///< pass number
  uint32_t pr = 0, pc = 0; ///< tile row and column of the pass in the block grid
  uint32_t nr = 0, nc = 0; ///< blocks in the pass: rows and columns
  std::vector<Unit> units; ///< SMs first (row-major), then IUs and VIUs
  uint32_t numSms = 0;     ///< units[0 .. numSms) are SMs
};

/// The pass plan of a 2D grid of gridX x gridY blocks (gridX columns) on the SM grid `s`. With
/// `oneD` the blocks form a chain (a 1D grid, section 5): block b reads from b-1 through its
/// west CB and writes to b+1 through its east CB; a pass is R*C consecutive blocks, fed by one
/// west IU or VIU and drained by one east IU or VIU. With `blocksPerSm` m > 1 (section 5,
/// figure 10) a pass is R x (C*m) blocks: each SM runs m side-by-side blocks, and the CBs between
/// them are virtual ones in that SM's memory; unit positions and CB numbers are then those of
/// the logical R x (C*m) grid (logicalShape), hwIndex the physical unit.
std::vector<Pass> planPasses(const Shape &s, uint32_t gridX, uint32_t gridY, bool oneD = false,
                             uint32_t blocksPerSm = 1);
/// The grid the pass plan's positions and CB numbers refer to.
Shape logicalShape(const Shape &s, bool oneD, uint32_t blocksPerSm);

/// The spill store key of a VIU (its CB boundary), for the pass it belongs to; `s` is the
/// logical shape.
SpillKey spillKey(const Pass &p, const Shape &s, const Unit &viu, bool oneD);

/// Human-readable description, for messages: "SM (1,2) block (2,5,3)", "IU north id 5".
std::string describe(const Unit &u, uint32_t pass);

} // namespace ptxsim::spu
