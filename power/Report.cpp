// Text and JSON printers of a kernel's power (both walk KernelPower::components in order).
#include "power/PowerModel.h"

#include "base/Config.h"

#include <cstdio>
#include <sstream>

namespace ptxsim::power {

namespace {
std::string jsonString(const std::string &s) { return jsonQuote(s); }
std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}
} // namespace

std::string formatKernelPower(const KernelPower &p) {
  std::ostringstream os;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "power %s: %.6g s, energy %.6g J, average %.2f W, peak %.2f W\n",
                p.kernel.c_str(), p.seconds, p.energyJ, p.avgW, p.peakW);
  os << buf;
  std::snprintf(buf, sizeof buf, "  %-20s %12s %12s %10s %7s\n", "component", "dynamic mJ",
                "static mJ", "avg W", "share");
  os << buf;
  for (auto &c : p.components) {
    double e = c.dynamicJ + c.staticJ;
    std::snprintf(buf, sizeof buf, "  %-20s %12.4f %12.4f %10.3f %6.1f%%\n", c.name.c_str(),
                  c.dynamicJ * 1e3, c.staticJ * 1e3, p.seconds > 0 ? e / p.seconds : 0.0,
                  p.energyJ > 0 ? 100.0 * e / p.energyJ : 0.0);
    os << buf;
  }
  return os.str();
}

std::string kernelPowerJson(const KernelPower &p) {
  std::ostringstream os;
  os << "{\"kernel\": " << jsonString(p.kernel) << ", \"seconds\": " << num(p.seconds)
     << ", \"energy_j\": " << num(p.energyJ) << ", \"avg_w\": " << num(p.avgW)
     << ", \"peak_w\": " << num(p.peakW) << ", \"components\": [";
  for (size_t i = 0; i < p.components.size(); ++i) {
    auto &c = p.components[i];
    os << (i ? ", " : "") << "{\"name\": " << jsonString(c.name)
       << ", \"dynamic_j\": " << num(c.dynamicJ) << ", \"static_j\": " << num(c.staticJ) << "}";
  }
  os << "], \"trace\": [";
  for (size_t i = 0; i < p.trace.size(); ++i)
    os << (i ? ", " : "") << "[" << num(p.trace[i].first) << ", " << num(p.trace[i].second) << "]";
  os << "]}";
  return os.str();
}

} // namespace ptxsim::power
