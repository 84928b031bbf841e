#include "power/Technology.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ptxsim::power {

double Technology::capScale() const {
  return std::pow(nodeNm / ref::kRefNodeNm, capacitanceExponent);
}

double Technology::areaScale() const { return std::pow(nodeNm / ref::kRefNodeNm, areaExponent); }

double Technology::sramReadJ(double capacityBits, double accessBits, unsigned ports) const {
  if (capacityBits <= 0 || accessBits <= 0)
    return 0;
  double perBit = ref::kBitlineF * std::sqrt(capacityBits) + ref::kPeriphF;
  double portFactor = 1.0 + 0.3 * (std::max(ports, 1u) - 1);
  return capScale() * vdd * vdd * accessBits * perBit * portFactor;
}

double Technology::sramWriteJ(double capacityBits, double accessBits, unsigned ports) const {
  return ref::kWriteFactor * sramReadJ(capacityBits, accessBits, ports);
}

double Technology::logicJ(double gates) const {
  return capScale() * vdd * vdd * gates * ref::kGateF;
}

double Technology::wireJ(double bits, double mm) const {
  return vdd * vdd * bits * mm * ref::kWireFPerMm * ref::kWireActivity;
}

double Technology::sramAreaMm2(double bits, unsigned ports) const {
  double portFactor = 1.0 + 0.5 * (std::max(ports, 1u) - 1);
  return bits * ref::kCellUm2 * areaScale() * ref::kSramOverhead * portFactor * 1e-6;
}

double Technology::logicAreaMm2(double gates) const {
  return gates * ref::kGateUm2 * areaScale() * 1e-6;
}

bool dramTechnologyDefaults(const std::string &typeIn, DramTechnology &d) {
  std::string t;
  for (char c : typeIn)
    t += (char)std::toupper((unsigned char)c);
  d = DramTechnology{};
  d.type = t;
  // Voltages from the JEDEC standards; capacitances chosen so that the energy per bit matches
  // the published per-bit figures (GDDR5 ~14 pJ/bit, HBM2 ~3.9 pJ/bit: O'Connor et al. 2017).
  if (t == "GDDR5" || t == "GDDR5X") {
    d.vdd = d.vddq = 1.5;
    d.rowCapF = 25e-15;
    d.coreCapF = 1.8e-12;
    d.ioCapF = 3.5e-12;
    d.backgroundWPerByte = 0.075;
  } else if (t == "GDDR6" || t == "GDDR6X") {
    d.vdd = d.vddq = 1.35;
    d.rowCapF = 22e-15;
    d.coreCapF = 1.5e-12;
    d.ioCapF = 3.0e-12;
    d.backgroundWPerByte = 0.07;
  } else if (t == "HBM" || t == "HBM2" || t == "HBM2E") {
    d.vdd = d.vddq = 1.2;
    d.rowCapF = 20e-15;
    d.coreCapF = 1.2e-12;
    d.ioCapF = 0.6e-12;
    d.backgroundWPerByte = 0.03;
  } else if (t == "HBM3" || t == "HBM3E") {
    d.vdd = 1.1;
    d.vddq = 0.4;
    d.rowCapF = 18e-15;
    d.coreCapF = 1.1e-12;
    d.ioCapF = 2.0e-12;
    d.backgroundWPerByte = 0.025;
  } else if (t == "DDR3" || t == "DDR4" || t == "LPDDR4" || t == "LPDDR5") {
    d.vdd = d.vddq = (t == "DDR3") ? 1.5 : (t == "DDR4" ? 1.2 : 1.1);
    d.rowCapF = 25e-15;
    d.coreCapF = 2.0e-12;
    d.ioCapF = 4.0e-12;
    d.backgroundWPerByte = 0.05;
  } else {
    return false;
  }
  return true;
}

} // namespace ptxsim::power
