#include "power/components/Sram.h"

#include <algorithm>
#include <cmath>

namespace ptxsim::power {

namespace {
constexpr double kTagBitsBase = 40; ///< physical address bits a tag is cut from (+2 state bits)

double tagBits(const timing::CacheConfig &c) {
  double idx = std::log2(std::max(1.0, double(c.sets) * c.lineBytes));
  return std::max(8.0, kTagBitsBase - idx) + 2;
}
} // namespace

double cacheDataBits(const timing::CacheConfig &c) {
  return c.enabled ? double(c.capacity()) * 8 : 0.0;
}

double cacheTagBits(const timing::CacheConfig &c) {
  return c.enabled ? double(c.sets) * c.ways * tagBits(c) : 0.0;
}

double cacheAccessJ(const Technology &t, const timing::CacheConfig &c, double accessBytes) {
  return t.sramReadJ(cacheDataBits(c), accessBytes * 8) +
         t.sramReadJ(cacheTagBits(c), c.ways * tagBits(c));
}

double cacheFillJ(const Technology &t, const timing::CacheConfig &c, double bytes) {
  return t.sramWriteJ(cacheDataBits(c), bytes * 8.0);
}

double cacheWritebackJ(const Technology &t, const timing::CacheConfig &c, double bytes) {
  return t.sramReadJ(cacheDataBits(c), bytes * 8.0);
}

double cacheAreaMm2(const Technology &t, const timing::CacheConfig &c) {
  return t.sramAreaMm2(cacheDataBits(c) + cacheTagBits(c));
}

} // namespace ptxsim::power
