#pragma once
// Cache arrays as the built-in components size them: data array plus a tag array of every way.

#include "power/Technology.h"
#include "timing/TimingConfig.h"

namespace ptxsim::power {

/// Bits of the data array (0 for a disabled cache).
double cacheDataBits(const timing::CacheConfig &c);
/// Bits of the tag array (tag + 2 state bits per line).
double cacheTagBits(const timing::CacheConfig &c);
/// One access of `accessBytes` to the data array plus a read of every way's tag.
double cacheAccessJ(const Technology &t, const timing::CacheConfig &c, double accessBytes);
/// Writing `bytes` into the data array (a line or sector fill).
double cacheFillJ(const Technology &t, const timing::CacheConfig &c, double bytes);
/// Reading `bytes` out of the data array (a writeback).
double cacheWritebackJ(const Technology &t, const timing::CacheConfig &c, double bytes);
/// Area of the data and tag arrays.
double cacheAreaMm2(const Technology &t, const timing::CacheConfig &c);

} // namespace ptxsim::power
