#pragma once
// Technology parameters and the energy / area formulas every built-in component is built from.
//
// Contract: all energies are C * V^2 with a capacitance that comes from a structure's size and the
// technology node, never from a per-GPU constant:
//   capScale  = (node_nm / 40)^capacitance_exponent     (gate and cell capacitance)
//   areaScale = (node_nm / 40)^area_exponent            (cell and gate area)
//   SRAM access  E = capScale * Vdd^2 * accessBits * (kBitline * sqrt(capacityBits) + kPeriph)
//                    * (1 + 0.3 * (ports - 1))          (CACTI-like: bitline/wordline length grows
//                                                        with the side of a square array)
//   logic op     E = capScale * Vdd^2 * gates * kGate   (gate-equivalents switched per operation)
//   wire         E = Vdd^2 * bits * mm * kWire * activity  (wire capacitance per mm does not scale)
//   SRAM area    A = bits * cellArea40 * areaScale * overhead * (1 + 0.5 * (ports - 1))
//   logic area   A = gates * gateArea40 * areaScale
//   leakage      P = area * leakage_w_per_mm2            (the node's density at its Vdd and a hot die)
// The 40 nm reference constants are documented in docs/power.md with their sources.

#include <cstdint>
#include <string>

namespace ptxsim::power {

/// The 40 nm, 1.0 V reference constants (docs/power.md: sources and calibration).
namespace ref {
constexpr double kBitlineF = 0.55e-15;  ///< per accessed bit per sqrt(bit) of array capacity
constexpr double kPeriphF = 80e-15;     ///< per accessed bit: sense amps, drivers, decode share
constexpr double kWriteFactor = 1.1;    ///< a write drives full-swing bitlines
constexpr double kGateF = 2.5e-15;      ///< switched capacitance per gate-equivalent, local wire included
constexpr double kWireFPerMm = 0.2e-12; ///< global wire capacitance per mm (repeated)
constexpr double kWireActivity = 0.5;   ///< fraction of wire bits toggling per transfer
constexpr double kCellUm2 = 0.242;      ///< 6T SRAM cell at 40 nm
constexpr double kSramOverhead = 2.0;   ///< array periphery and redundancy over the bare cells
constexpr double kGateUm2 = 1.0;        ///< NAND2-equivalent at 40 nm including placement utilisation
constexpr double kRefNodeNm = 40.0;
} // namespace ref

struct Technology {
  double nodeNm = 40;
  double vdd = 1.0;
  double leakageWPerMm2 = 0.075;
  double capacitanceExponent = 1.0;
  double areaExponent = 1.1;

  double capScale() const;
  double areaScale() const;
  /// Energy of one access of `accessBits` to an SRAM array of `capacityBits` with `ports` ports.
  double sramReadJ(double capacityBits, double accessBits, unsigned ports = 1) const;
  double sramWriteJ(double capacityBits, double accessBits, unsigned ports = 1) const;
  /// Energy of one operation of a logic block of `gates` switched gate-equivalents.
  double logicJ(double gates) const;
  /// Energy of moving `bits` over `mm` of global wire.
  double wireJ(double bits, double mm) const;
  double sramAreaMm2(double bits, unsigned ports = 1) const;
  double logicAreaMm2(double gates) const;
  double leakageW(double areaMm2) const { return areaMm2 * leakageWPerMm2; }
};

/// DRAM device energy parameters (the DRAM has its own process and voltages). Energies:
///   activate  = rowBits * rowCapF * vdd^2      precharge = 0.4 * activate
///   read/write per bit = coreCapF * vdd^2 + ioCapF * vddq^2
///   refresh   = refreshRows * banks * activate
///   background power = backgroundWPerByte * bus width in bytes, per channel
struct DramTechnology {
  std::string type;
  double vdd = 1.5, vddq = 1.5;
  double rowCapF = 25e-15;   ///< per bit of the opened row (bitline + sense amplifier)
  double coreCapF = 1.8e-12; ///< per bit read or written: column path, global I/O lines, serialiser
  double ioCapF = 3.5e-12;   ///< per bit on the channel: pad, driver and termination equivalent
  double backgroundWPerByte = 0.075;
  double refreshRows = 8;
};

/// Defaults for a DRAM type name (GDDR5, GDDR6, HBM, HBM2, HBM3, DDR4...); false when unknown.
bool dramTechnologyDefaults(const std::string &type, DramTechnology &out);

} // namespace ptxsim::power
