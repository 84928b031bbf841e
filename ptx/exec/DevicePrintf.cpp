//===- DevicePrintf.cpp - CUDA device printf formatting -------------------===//

#include "ptx/exec/DevicePrintf.h"

#include <climits>
#include <cstdio>
#include <cstring>

namespace ptxsim::ptx::exec {
namespace {

constexpr int kMaxWidth = 65536;

std::string hexAddr(uint64_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(a));
  return buf;
}

/// Reads a byte stream from device memory. Each read stays within one 64-byte-aligned block, so
/// a string never makes us touch more than 63 bytes past its NUL; when a block read fails (the
/// allocation ends inside it) the reader falls back to single bytes, so a string that ends just
/// before an invalid range is still read in full.
class ByteReader {
public:
  ByteReader(DeviceReadFn read, void *ctx, uint64_t addr) : read_(read), ctx_(ctx), addr_(addr) {}

  /// Next byte, or false if it cannot be read.
  bool next(char &c) {
    if (pos_ == len_ && !refill())
      return false;
    c = static_cast<char>(buf_[pos_++]);
    return true;
  }

  /// Address of the byte next() returns next.
  uint64_t address() const { return addr_ - (len_ - pos_); }

private:
  bool refill() {
    size_t n = kBlock - static_cast<size_t>(addr_ % kBlock);
    if (!read_(ctx_, addr_, buf_, n)) {
      n = 1;
      if (!read_(ctx_, addr_, buf_, 1))
        return false;
    }
    addr_ += n;
    len_ = n;
    pos_ = 0;
    return true;
  }

  static constexpr size_t kBlock = 64;
  DeviceReadFn read_;
  void *ctx_;
  uint64_t addr_; // address of buf_[len_]
  uint8_t buf_[kBlock];
  size_t len_ = 0, pos_ = 0;
};

/// Reads the packed argument buffer: each argument at the next offset aligned to its size.
class ArgReader {
public:
  ArgReader(DeviceReadFn read, void *ctx, uint64_t base) : read_(read), ctx_(ctx), base_(base) {}

  bool get(size_t size, void *out) {
    offset_ = (offset_ + size - 1) / size * size;
    if (!read_(ctx_, base_ + offset_, out, size))
      return false;
    offset_ += size;
    ++count_;
    return true;
  }
  int32_t count() const { return count_; }
  uint64_t nextAddress(size_t size) const { return base_ + (offset_ + size - 1) / size * size; }

private:
  DeviceReadFn read_;
  void *ctx_;
  uint64_t base_;
  uint64_t offset_ = 0;
  int32_t count_ = 0;
};

/// Appends snprintf(spec, value) to out.
template <typename T> void appendFormatted(std::string &out, const std::string &spec, T value) {
  char small[128];
  int n = std::snprintf(small, sizeof small, spec.c_str(), value);
  if (n < 0)
    return;
  if (static_cast<size_t>(n) < sizeof small) {
    out.append(small, static_cast<size_t>(n));
    return;
  }
  size_t at = out.size();
  out.resize(at + static_cast<size_t>(n) + 1);
  std::snprintf(&out[at], static_cast<size_t>(n) + 1, spec.c_str(), value);
  out.resize(at + static_cast<size_t>(n));
}

enum class Length { None, HH, H, L, LL, Z, T, J, BigL };

bool isWide(Length l) {
  return l == Length::L || l == Length::LL || l == Length::Z || l == Length::T || l == Length::J;
}

} // namespace

int formatDevicePrintf(std::string &out, uint64_t fmtAddr, uint64_t argsAddr, DeviceReadFn read,
                       void *ctx) {
  const size_t start = out.size();
  auto fail = [&](const std::string &what) {
    out += "<printf: " + what + ">";
    return -1;
  };

  ByteReader fmt(read, ctx, fmtAddr);
  ArgReader args(read, ctx, argsAddr);
  size_t fmtLen = 0;
  // Next format byte; false (after appending the marker) when it cannot be read.
  auto nextFmt = [&](char &c) {
    if (fmtLen++ >= kDevicePrintfMaxString) {
      c = 0; // cut an overlong format string here
      return true;
    }
    return fmt.next(c);
  };
  auto fmtError = [&] { return fail("unreadable format string at " + hexAddr(fmt.address())); };

  char c;
  for (;;) {
    if (!nextFmt(c))
      return fmtError();
    if (c == 0)
      break;
    if (c != '%') {
      out += c;
      continue;
    }

    // %[flags][width][.precision][length]conversion; `raw` keeps the text as written.
    std::string raw = "%", flags;
    bool widthStar = false, precStar = false;
    int width = -1, prec = -1;
    if (!nextFmt(c))
      return fmtError();
    while (c && std::strchr("-+ #0", c)) {
      raw += c;
      if (flags.find(c) == std::string::npos)
        flags += c;
      if (!nextFmt(c))
        return fmtError();
    }
    auto digits = [&](int &v) {
      v = 0;
      while (c >= '0' && c <= '9') {
        raw += c;
        v = v > kMaxWidth ? v : v * 10 + (c - '0');
        if (!nextFmt(c))
          return false;
      }
      if (v > kMaxWidth)
        v = kMaxWidth;
      return true;
    };
    if (c == '*') {
      raw += c;
      widthStar = true;
      if (!nextFmt(c))
        return fmtError();
    } else if (c >= '0' && c <= '9' && !digits(width)) {
      return fmtError();
    }
    if (c == '.') {
      raw += c;
      if (!nextFmt(c))
        return fmtError();
      if (c == '*') {
        raw += c;
        precStar = true;
        if (!nextFmt(c))
          return fmtError();
      } else if (!digits(prec)) {
        return fmtError();
      }
    }
    Length len = Length::None;
    auto take = [&](Length l) {
      raw += c;
      len = l;
      return nextFmt(c);
    };
    bool ok = true;
    switch (c) {
    case 'h':
      ok = take(Length::H) && (c != 'h' || take(Length::HH));
      break;
    case 'l':
      ok = take(Length::L) && (c != 'l' || take(Length::LL));
      break;
    case 'z':
      ok = take(Length::Z);
      break;
    case 't':
      ok = take(Length::T);
      break;
    case 'j':
      ok = take(Length::J);
      break;
    case 'L':
      ok = take(Length::BigL);
      break;
    default:
      break;
    }
    if (!ok)
      return fmtError();

    const char conv = c;
    if (conv == 0) { // the format ends inside a conversion: print it as written
      out += raw;
      break;
    }
    raw += conv;
    if (conv == '%') {
      out += '%';
      continue;
    }
    if (!std::strchr("diuoxXcsfFeEgGaApn", conv)) {
      out += raw;
      continue;
    }
    int32_t needed = 1 + widthStar + precStar;
    if (args.count() + needed > static_cast<int32_t>(kDevicePrintfMaxArgs)) {
      out += raw;
      continue;
    }

    auto argError = [&](size_t size) {
      return fail("unreadable argument " + std::to_string(args.count() + 1) + " at " +
                  hexAddr(args.nextAddress(size)));
    };
    if (widthStar) {
      int32_t w;
      if (!args.get(4, &w))
        return argError(4);
      int64_t w64 = w;
      if (w64 < 0) {
        if (flags.find('-') == std::string::npos)
          flags += '-';
        w64 = -w64;
      }
      width = static_cast<int>(w64 > kMaxWidth ? kMaxWidth : w64);
    }
    if (precStar) {
      int32_t p;
      if (!args.get(4, &p))
        return argError(4);
      prec = p < 0 ? -1 : (p > kMaxWidth ? kMaxWidth : p);
    }

    // The spec handed to snprintf: same flags, numeric width and precision, and a length
    // modifier matching the host value we pass.
    std::string spec = "%" + flags;
    if (width >= 0)
      spec += std::to_string(width);
    if (prec >= 0)
      spec += "." + std::to_string(prec);

    switch (conv) {
    case 'd':
    case 'i':
      if (isWide(len)) {
        long long v;
        if (!args.get(8, &v))
          return argError(8);
        appendFormatted(out, spec + "ll" + conv, v);
      } else {
        int32_t v;
        if (!args.get(4, &v))
          return argError(4);
        int n = len == Length::HH  ? static_cast<signed char>(v)
                : len == Length::H ? static_cast<short>(v)
                                   : v;
        appendFormatted(out, spec + conv, n);
      }
      break;
    case 'u':
    case 'o':
    case 'x':
    case 'X':
      if (isWide(len)) {
        unsigned long long v;
        if (!args.get(8, &v))
          return argError(8);
        appendFormatted(out, spec + "ll" + conv, v);
      } else {
        uint32_t v;
        if (!args.get(4, &v))
          return argError(4);
        unsigned n = len == Length::HH  ? static_cast<unsigned char>(v)
                     : len == Length::H ? static_cast<unsigned short>(v)
                                        : v;
        appendFormatted(out, spec + conv, n);
      }
      break;
    case 'c': {
      int32_t v;
      if (!args.get(4, &v))
        return argError(4);
      appendFormatted(out, spec + 'c', static_cast<int>(static_cast<unsigned char>(v)));
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      double v;
      if (!args.get(8, &v))
        return argError(8);
      appendFormatted(out, spec + conv, v);
      break;
    }
    case 'p': {
      uint64_t v;
      if (!args.get(8, &v))
        return argError(8);
      appendFormatted(out, spec + 'p', reinterpret_cast<void *>(static_cast<uintptr_t>(v)));
      break;
    }
    case 'n': {
      uint64_t v;
      if (!args.get(8, &v))
        return argError(8);
      break;
    }
    case 's': {
      uint64_t p;
      if (!args.get(8, &p))
        return argError(8);
      std::string str;
      if (p == 0) {
        str = "(null)";
      } else {
        size_t limit = prec >= 0 ? static_cast<size_t>(prec) : kDevicePrintfMaxString;
        if (limit > kDevicePrintfMaxString)
          limit = kDevicePrintfMaxString;
        const size_t unit = len == Length::L ? 4 : 1; // %ls: wchar_t is 4 bytes
        ByteReader sr(read, ctx, p);
        while (str.size() < limit) {
          char bytes[4] = {0, 0, 0, 0};
          for (size_t k = 0; k < unit; ++k)
            if (!sr.next(bytes[k]))
              return fail("unreadable %s string at " + hexAddr(sr.address()));
          if (bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] == 0)
            break;
          str += bytes[0] ? bytes[0] : '?'; // a wide character with a zero low byte
        }
      }
      appendFormatted(out, spec + 's', str.c_str());
      break;
    }
    default:
      break;
    }
  }

  size_t n = out.size() - start;
  return n > static_cast<size_t>(INT_MAX) ? INT_MAX : static_cast<int>(n);
}

} // namespace ptxsim::ptx::exec
