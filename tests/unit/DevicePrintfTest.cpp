// Device printf formatting against a fake device memory: every conversion compared with the host
// printf given the same values as real C varargs, hand-checked argument layouts, %s and the
// error paths (unreadable format, argument buffer or string).

#include "ptx/exec/DevicePrintf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace ptxsim::test {
namespace {

using ptx::exec::formatDevicePrintf;

/// Allocations in a sparse device address space with unmapped gaps between them. A read
/// succeeds only when the whole range lies inside one allocation.
struct FakeDevice {
  struct Region {
    uint64_t base;
    std::vector<uint8_t> bytes;
  };
  std::vector<Region> regions;
  uint64_t next = 0x10000;
  size_t reads = 0;

  uint64_t alloc(const void *data, size_t n) {
    uint64_t at = next;
    Region r{at, std::vector<uint8_t>(n)};
    if (n)
      std::memcpy(r.bytes.data(), data, n);
    regions.push_back(std::move(r));
    next = (at + n + 255) / 256 * 256 + 0x1000; // leave an unmapped gap
    return at;
  }
  /// A NUL-terminated string.
  uint64_t str(const std::string &s) { return alloc(s.c_str(), s.size() + 1); }
  /// Bytes that end exactly at the end of their allocation, 13 bytes into a 64-byte block, so
  /// reading them in whole blocks would fail.
  uint64_t tight(const std::string &s, bool withNul = true) {
    size_t n = s.size() + withNul;
    next = next + (n + 255) / 256 * 256 + 13 - n;
    return alloc(s.c_str(), n);
  }

  static bool read(void *ctx, uint64_t addr, void *out, size_t n) {
    auto *d = static_cast<FakeDevice *>(ctx);
    ++d->reads;
    for (const Region &r : d->regions)
      if (addr >= r.base && n <= r.bytes.size() && addr - r.base <= r.bytes.size() - n) {
        std::memcpy(out, r.bytes.data() + (addr - r.base), n);
        return true;
      }
    return false;
  }
};

/// Builds an argument buffer the way the CUDA compiler lays it out: each value at the next offset
/// aligned to its size.
struct ArgBuf {
  std::vector<uint8_t> bytes;
  template <typename T> ArgBuf &add(T v) {
    size_t off = (bytes.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    bytes.resize(off + sizeof(T));
    std::memcpy(bytes.data() + off, &v, sizeof(T));
    return *this;
  }
};

struct Result {
  int ret;
  std::string text;
};

Result run(FakeDevice &dev, const std::string &fmt, const ArgBuf &args) {
  uint64_t f = dev.str(fmt);
  uint64_t a = args.bytes.empty() ? 0 : dev.alloc(args.bytes.data(), args.bytes.size());
  Result r{0, ""};
  r.ret = formatDevicePrintf(r.text, f, a, FakeDevice::read, &dev);
  return r;
}

/// A %s argument: device copy for the formatter, host pointer for the reference printf.
struct Str {
  const char *host;
};

/// Promotes each value as C varargs do and stores it on the device (strings are copied).
void pushArg(FakeDevice &, ArgBuf &b, int v) { b.add<int32_t>(v); }
void pushArg(FakeDevice &, ArgBuf &b, unsigned v) { b.add<uint32_t>(v); }
void pushArg(FakeDevice &, ArgBuf &b, long v) { b.add<int64_t>(v); }
void pushArg(FakeDevice &, ArgBuf &b, unsigned long v) { b.add<uint64_t>(v); }
void pushArg(FakeDevice &, ArgBuf &b, long long v) { b.add<int64_t>(v); }
void pushArg(FakeDevice &, ArgBuf &b, unsigned long long v) { b.add<uint64_t>(v); }
void pushArg(FakeDevice &, ArgBuf &b, double v) { b.add<double>(v); }
void pushArg(FakeDevice &, ArgBuf &b, void *v) { b.add<uint64_t>(reinterpret_cast<uintptr_t>(v)); }
void pushArg(FakeDevice &d, ArgBuf &b, Str s) { b.add<uint64_t>(s.host ? d.str(s.host) : 0); }

template <typename T> T hostArg(T v) { return v; }
const char *hostArg(Str s) { return s.host; }

std::string hostPrintf(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap);
  std::string s(static_cast<size_t>(n), '\0');
  std::vsnprintf(&s[0], static_cast<size_t>(n) + 1, fmt, ap2);
  va_end(ap2);
  va_end(ap);
  return s;
}

/// Formats on the fake device and with the host printf; both must agree.
template <typename... Ts> void expectLikeHost(const char *fmt, Ts... vs) {
  FakeDevice dev;
  ArgBuf args;
  (pushArg(dev, args, vs), ...);
  Result r = run(dev, fmt, args);
  std::string want = hostPrintf(fmt, hostArg(vs)...);
  EXPECT_EQ(r.text, want) << "format: " << fmt;
  EXPECT_EQ(r.ret, static_cast<int>(want.size())) << "format: " << fmt;
}

TEST(DevicePrintf, PlainTextAndPercent) {
  FakeDevice dev;
  Result r = run(dev, "hello, world\n", {});
  EXPECT_EQ(r.text, "hello, world\n");
  EXPECT_EQ(r.ret, 13);
  r = run(dev, "100%% sure %%d", {});
  EXPECT_EQ(r.text, "100% sure %d");
  EXPECT_EQ(r.ret, 12);
  r = run(dev, "", {});
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.ret, 0);
}

TEST(DevicePrintf, AppendsAndCountsOnlyNewText) {
  FakeDevice dev;
  uint64_t f = dev.str("x=%d");
  ArgBuf a;
  a.add<int32_t>(-12);
  uint64_t args = dev.alloc(a.bytes.data(), a.bytes.size());
  std::string out = "previous;";
  EXPECT_EQ(formatDevicePrintf(out, f, args, FakeDevice::read, &dev), 5);
  EXPECT_EQ(out, "previous;x=-12");
}

TEST(DevicePrintf, Integers) {
  FakeDevice dev;
  ArgBuf a;
  a.add<int32_t>(42).add<int32_t>(-7).add<uint32_t>(3000000000u).add<uint32_t>(8);
  a.add<uint32_t>(255).add<uint32_t>(0xBEEF);
  EXPECT_EQ(run(dev, "%d %i %u %o %x %X", a).text, "42 -7 3000000000 10 ff BEEF");

  expectLikeHost("%d %i %u %o %x %X", 42, -7, 3000000000u, 8u, 255u, 255u);
  expectLikeHost("[%+d] [% d] [%-5d] [%05d] [%#o] [%#x] [%#X]", 5, 5, 5, -5, 8u, 255u, 255u);
  expectLikeHost("[%.3d] [%8.3x] [%-+8.4i] [%.0d] [%+.0d]", 7, 0xabu, 12, 0, 0);
  expectLikeHost("[%d] [%u] [%x]", -2147483647 - 1, 4294967295u, 0u);
}

TEST(DevicePrintf, LengthModifiers) {
  FakeDevice dev;
  // hh and h still read a promoted 4-byte int, then narrow it as C printf does.
  ArgBuf a;
  a.add<int32_t>(300).add<int32_t>(70000).add<int32_t>(-1).add<int32_t>(-1);
  EXPECT_EQ(run(dev, "%hhd %hd %hhu %hu", a).text, "44 4464 255 65535");

  expectLikeHost("%hhd %hd %hhu %hu %hhx %hX", 300, 70000, -1, -1, 0x1ff, 0x1ffff);
  expectLikeHost("%ld %lld %lu %llu %lx %llX", -5L, -1234567890123LL, 1UL << 40,
                 18446744073709551615ULL, 0xdeadbeefcafeUL, 0xabcdefULL);
  expectLikeHost("%zu %zd %td %jd %ju %zx", 1UL << 33, -3L, -4L, -(1LL << 50), 7ULL, 255UL);
  expectLikeHost("%lld|%.20lld|%#llo", -9223372036854775807LL - 1, 5LL, 8ULL);
}

TEST(DevicePrintf, MixedSizesFollowNaturalAlignment) {
  // int @0, long long @8, int @16, double @24, char(int) @32, unsigned long @40, short(int) @48,
  // pointer @56: 64 bytes.
  ArgBuf a;
  a.add<int32_t>(1).add<int64_t>(2).add<int32_t>(3).add<double>(4.5).add<int32_t>('z');
  a.add<uint64_t>(6).add<int32_t>(7).add<uint64_t>(0x88);
  ASSERT_EQ(a.bytes.size(), 64u);
  int64_t at8;
  std::memcpy(&at8, a.bytes.data() + 8, 8);
  ASSERT_EQ(at8, 2);
  FakeDevice dev;
  Result r = run(dev, "%d %lld %d %.1f %c %lu %hd %p", a);
  EXPECT_EQ(r.text, "1 2 3 4.5 z 6 7 0x88");
  EXPECT_EQ(r.ret, static_cast<int>(r.text.size()));

  // Two ints share one 8-byte slot before a double; an int after a double starts at 16.
  ArgBuf b;
  b.add<int32_t>(10).add<int32_t>(20).add<double>(0.25).add<int32_t>(30);
  ASSERT_EQ(b.bytes.size(), 20u);
  EXPECT_EQ(run(dev, "%d,%d,%g,%d", b).text, "10,20,0.25,30");

  expectLikeHost("%c%lld%c%f%hhd%ld", 'a', 1LL << 40, 'b', 2.5, 3, -4L);
}

TEST(DevicePrintf, Floats) {
  FakeDevice dev;
  ArgBuf a;
  a.add<double>(3.14159).add<double>(-2.5).add<double>(1e10).add<double>(0.0001);
  EXPECT_EQ(run(dev, "%.2f %f %e %g", a).text, "3.14 -2.500000 1.000000e+10 0.0001");

  // float arguments arrive promoted to double.
  float f = 1.5f;
  expectLikeHost("%f %F %e %E %g %G %a %A", double(f), 2.25, 12345.678, 1e-7, 1e20, 1e-20, 1.0,
                 -0.1);
  expectLikeHost("[%10.3f] [%-10.2e] [%+g] [% G] [%#.0f] [%08.2f] [%.0e]", 3.14159, 31415.9, 2.0,
                 3.0, 3.0, -1.5, 12345.0);
  expectLikeHost("%f %F %e %g %a", INFINITY, -INFINITY, NAN, -0.0, 0.0);
  expectLikeHost("%.15g %.17g %.3a", 0.1, 1.0 / 3.0, 1.0 / 3.0);
  // %Lf: long double is double in device code, so it reads 8 bytes.
  ArgBuf l;
  l.add<double>(0.5).add<int32_t>(9);
  EXPECT_EQ(run(dev, "%Lf %d", l).text, "0.500000 9");
}

TEST(DevicePrintf, Chars) {
  expectLikeHost("%c%c%c", 'a', 'B', '0');
  expectLikeHost("[%3c] [%-3c] [%c]", 'x', 'y', 0x141); // %c prints (unsigned char)0x141 = 'A'
  FakeDevice dev;
  ArgBuf a;
  a.add<int32_t>(0x141);
  EXPECT_EQ(run(dev, "%c", a).text, "A");
}

TEST(DevicePrintf, Strings) {
  expectLikeHost("%s", Str{"device string"});
  expectLikeHost("[%10s] [%-10s] [%.3s] [%5.2s] [%s]", Str{"abc"}, Str{"left"}, Str{"truncate"},
                 Str{"xyz"}, Str{""});
  expectLikeHost("%s and %s and %d", Str{"one"}, Str{"two"}, 3);

  FakeDevice dev;
  ArgBuf a;
  a.add<uint64_t>(0);
  EXPECT_EQ(run(dev, "[%s]", a).text, "[(null)]");

  // A string that ends exactly at the end of its allocation, crossing a 64-byte block.
  std::string longStr(100, 'q');
  ArgBuf b;
  b.add<uint64_t>(dev.tight(longStr));
  Result r = run(dev, "%s!", b);
  EXPECT_EQ(r.text, longStr + "!");
  EXPECT_EQ(r.ret, 101);

  // With a precision the bytes need no NUL: only `precision` bytes are read.
  ArgBuf c;
  c.add<uint64_t>(dev.tight("abcdef", /*withNul=*/false));
  EXPECT_EQ(run(dev, "%.6s|%.2s", ArgBuf(c).add<uint64_t>(dev.tight("zz", false))).text,
            "abcdef|zz");
}

TEST(DevicePrintf, LongStringIsCut) {
  FakeDevice dev;
  std::string huge(70000, 'h');
  ArgBuf a;
  a.add<uint64_t>(dev.str(huge));
  Result r = run(dev, "%s", a);
  EXPECT_EQ(r.text.size(), ptx::exec::kDevicePrintfMaxString);
  EXPECT_EQ(r.ret, static_cast<int>(ptx::exec::kDevicePrintfMaxString));
}

TEST(DevicePrintf, WideStrings) {
  FakeDevice dev;
  const uint32_t wide[] = {'w', 'i', 'd', 'e', 0};
  ArgBuf a;
  a.add<uint64_t>(dev.alloc(wide, sizeof wide)).add<int32_t>('c');
  EXPECT_EQ(run(dev, "%ls %lc", a).text, "wide c");
}

TEST(DevicePrintf, Pointers) {
  expectLikeHost("%p %p", reinterpret_cast<void *>(0x1234), static_cast<void *>(nullptr));
  expectLikeHost("[%20p] [%-20p]", reinterpret_cast<void *>(0x7fff0000beefULL),
                 reinterpret_cast<void *>(0x10));
  FakeDevice dev;
  ArgBuf a;
  a.add<uint64_t>(0xdeadbeef000ULL);
  EXPECT_EQ(run(dev, "%p", a).text, "0xdeadbeef000");
}

TEST(DevicePrintf, StarWidthAndPrecision) {
  expectLikeHost("[%*d] [%-*d] [%.*f] [%*d] [%*.*s]", 5, 42, 4, 7, 2, 3.14159, -6, 9, 6, 2,
                 Str{"string"});
  expectLikeHost("[%.*d] [%.*f]", -1, 5, -3, 2.5); // negative precision: as if omitted
  FakeDevice dev;
  ArgBuf a;
  a.add<int32_t>(6).add<double>(1.25).add<int32_t>(-4).add<int32_t>(3);
  // The int width sits at 0, the double at 8 (not 4), then the next width at 16.
  EXPECT_EQ(run(dev, "[%*.2f] [%*d]", a).text, "[  1.25] [3   ]");
}

TEST(DevicePrintf, AllSpecifiersInOneCall) {
  expectLikeHost("%d|%i|%u|%o|%x|%X|%c|%s|%f|%F|%e|%E|%g|%G|%a|%A|%p|%%", -1, 2, 3u, 8u, 10u, 11u,
                 'k', Str{"str"}, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5,
                 reinterpret_cast<void *>(0xabc));
}

TEST(DevicePrintf, PercentN) {
  // %n stores nothing but consumes its pointer argument.
  FakeDevice dev;
  ArgBuf a;
  a.add<int32_t>(1).add<uint64_t>(0x12345).add<int32_t>(2);
  EXPECT_EQ(run(dev, "%d%n%d", a).text, "12");
}

TEST(DevicePrintf, AtMost32Arguments) {
  FakeDevice dev;
  ArgBuf a;
  std::string fmt, want;
  for (int i = 0; i < 34; ++i) {
    a.add<int32_t>(i);
    fmt += "%d,";
    want += i < 32 ? std::to_string(i) + "," : "%d,";
  }
  EXPECT_EQ(run(dev, fmt, a).text, want);
  // `*` counts as an argument: 31 plain ones leave room for one value but not for a width.
  ArgBuf b;
  std::string fmt2, want2;
  for (int i = 0; i < 31; ++i) {
    b.add<int32_t>(1);
    fmt2 += "%d";
    want2 += "1";
  }
  b.add<int32_t>(5).add<int32_t>(6);
  EXPECT_EQ(run(dev, fmt2 + "[%*d]", b).text, want2 + "[%*d]");
}

TEST(DevicePrintf, MalformedFormatIsCopied) {
  FakeDevice dev;
  ArgBuf a;
  a.add<int32_t>(5);
  EXPECT_EQ(run(dev, "%y %d", a).text, "%y 5");
  EXPECT_EQ(run(dev, "%d trailing %", a).text, "5 trailing %");
  EXPECT_EQ(run(dev, "%d %-08.3l", a).text, "5 %-08.3l");
}

TEST(DevicePrintf, UnreadableFormat) {
  FakeDevice dev;
  std::string out;
  EXPECT_EQ(formatDevicePrintf(out, 0x5000, 0, FakeDevice::read, &dev), -1);
  EXPECT_NE(out.find("<printf: unreadable format string at 0x5000>"), std::string::npos) << out;

  // A format string that runs into the end of its allocation without a NUL.
  uint64_t f = dev.tight("no terminator here, and it crosses a block boundary....", false);
  out.clear();
  EXPECT_EQ(formatDevicePrintf(out, f, 0, FakeDevice::read, &dev), -1);
  EXPECT_EQ(out.rfind("no terminator here", 0), 0u) << out; // text so far is kept
  EXPECT_NE(out.find("unreadable format string"), std::string::npos) << out;

  // A NUL-terminated format string that ends exactly at the end of its allocation is fine.
  std::string text(90, 'f');
  uint64_t g = dev.tight(text);
  out.clear();
  EXPECT_EQ(formatDevicePrintf(out, g, 0, FakeDevice::read, &dev), 90);
  EXPECT_EQ(out, text);
}

TEST(DevicePrintf, UnreadableArguments) {
  FakeDevice dev;
  uint64_t f = dev.str("a=%d b=%lld");
  std::string out;
  // No argument buffer at all.
  EXPECT_EQ(formatDevicePrintf(out, f, 0, FakeDevice::read, &dev), -1);
  EXPECT_EQ(out, "a=<printf: unreadable argument 1 at 0>");

  // The buffer holds the int but not the long long at offset 8.
  ArgBuf a;
  a.add<int32_t>(4);
  uint64_t args = dev.alloc(a.bytes.data(), a.bytes.size());
  out.clear();
  EXPECT_EQ(formatDevicePrintf(out, f, args, FakeDevice::read, &dev), -1);
  char want[96];
  std::snprintf(want, sizeof want, "a=4 b=<printf: unreadable argument 2 at %#llx>",
                static_cast<unsigned long long>(args + 8));
  EXPECT_EQ(out, want);
}

TEST(DevicePrintf, InvalidStringPointer) {
  FakeDevice dev;
  ArgBuf a;
  a.add<uint64_t>(0xdead0000ULL);
  Result r = run(dev, "s=%s", a);
  EXPECT_EQ(r.ret, -1);
  EXPECT_EQ(r.text, "s=<printf: unreadable %s string at 0xdead0000>");

  // A string that runs off the end of its allocation.
  ArgBuf b;
  b.add<uint64_t>(dev.tight("unterminated", false));
  r = run(dev, "%s", b);
  EXPECT_EQ(r.ret, -1);
  EXPECT_NE(r.text.find("unreadable %s string"), std::string::npos) << r.text;
}

TEST(DevicePrintf, ReadsFormatInSmallChunks) {
  // The formatter must not read the whole 64 KiB budget up front: a short format string in a
  // large allocation takes a handful of reads.
  FakeDevice dev;
  std::vector<char> big(1 << 20, 'x');
  std::memcpy(big.data(), "short\0", 6);
  uint64_t f = dev.alloc(big.data(), big.size());
  std::string out;
  EXPECT_EQ(formatDevicePrintf(out, f, 0, FakeDevice::read, &dev), 5);
  EXPECT_EQ(out, "short");
  EXPECT_LE(dev.reads, 2u);
}

} // namespace
} // namespace ptxsim::test
