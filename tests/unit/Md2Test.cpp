// MD2 (runtime/driver/Md2.h), the hash under the integrity check NVIDIA's static runtime asks
// the driver for: RFC 1319's test vectors, and input fed in pieces hashes like input fed whole.
#include "runtime/driver/Md2.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {
std::string hex(const std::string &in) {
  ptxsim::driver::Md2 h;
  h.update(in.data(), in.size());
  uint8_t out[16];
  h.finish(out);
  std::string s;
  char buf[3];
  for (uint8_t b : out) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}
} // namespace

TEST(Md2, Rfc1319Vectors) {
  EXPECT_EQ(hex(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(hex("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(hex("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(hex("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(hex("abcdefghijklmnopqrstuvwxyz"), "4e8ddff3650292ab5a4108c3aa47940b");
  EXPECT_EQ(hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(Md2, PiecesAndMaskMatchWhole) {
  std::string msg = "The quick brown fox jumps over the lazy dog, twice over.";
  ptxsim::driver::Md2 a, b;
  a.update(msg.data(), msg.size());
  b.update(msg.data(), 7);
  b.update(msg.data() + 7, msg.size() - 7);
  uint8_t ha[16], hb[16];
  a.finish(ha);
  b.finish(hb);
  EXPECT_EQ(std::string(ha, ha + 16), std::string(hb, hb + 16));
  // update with a mask XORs every byte first (the HMAC key pads)
  std::string masked = msg;
  for (char &c : masked)
    c = char(c ^ 0x36);
  ptxsim::driver::Md2 c, d;
  c.update(msg.data(), msg.size(), 0x36);
  d.update(masked.data(), masked.size());
  uint8_t hc[16], hd[16];
  c.finish(hc);
  d.finish(hd);
  EXPECT_EQ(std::string(hc, hc + 16), std::string(hd, hd + 16));
}
