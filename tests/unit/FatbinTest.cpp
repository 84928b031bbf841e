// The fatbin reader: containers built here byte by byte (uncompressed, zstd, LZ4), and malformed
// ones, which must be errors naming the offset, never crashes.

#include "runtime/fatbin/Fatbin.h"

#include <gtest/gtest.h>

#include <cstring>
#include <lz4.h>
#include <zstd.h>

namespace ptxsim::test {
namespace {

using fatbin::Entry;
using fatbin::EntryKind;

template <typename T> void put(std::string &s, size_t at, T v) {
  if (s.size() < at + sizeof v)
    s.resize(at + sizeof v, '\0');
  std::memcpy(&s[at], &v, sizeof v);
}

/// One entry: 80-byte header for PTX, 64 for ELF, payload padded to 8 bytes.
std::string entry(uint16_t kind, uint32_t arch, const std::string &text, const std::string &mode) {
  std::string payload = text;
  uint64_t flags = 0x11, uncompressed = 0;
  uint32_t compressed = 0;
  if (mode == "zstd") {
    payload.resize(ZSTD_compressBound(text.size()));
    payload.resize(ZSTD_compress(payload.data(), payload.size(), text.data(), text.size(), 3));
    flags |= 0x8000;
  } else if (mode == "lz4") {
    payload.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(text.size()))));
    payload.resize(static_cast<size_t>(LZ4_compress_default(text.data(), payload.data(),
                                                            static_cast<int>(text.size()),
                                                            static_cast<int>(payload.size()))));
    flags |= 0x2000;
  }
  if (mode != "none") {
    compressed = static_cast<uint32_t>(payload.size());
    uncompressed = text.size();
  }
  uint32_t header = kind == 1 ? 80 : 64;
  size_t padded = (payload.size() + 7) / 8 * 8;
  std::string h(header, '\0');
  put<uint16_t>(h, 0, kind);
  put<uint16_t>(h, 2, 0x0101);
  put<uint32_t>(h, 4, header);
  put<uint64_t>(h, 8, padded);
  put<uint32_t>(h, 16, compressed);
  put<uint16_t>(h, 24, 0);  // minor
  put<uint16_t>(h, 26, 9);  // major
  put<uint32_t>(h, 28, arch);
  put<uint64_t>(h, 40, flags);
  put<uint64_t>(h, 56, uncompressed);
  payload.resize(padded, '\0');
  return h + payload;
}

std::string container(const std::string &entries) {
  std::string h(16, '\0');
  put<uint32_t>(h, 0, 0xBA55ED50u);
  put<uint16_t>(h, 4, 1);
  put<uint16_t>(h, 6, 16);
  put<uint64_t>(h, 8, entries.size());
  return h + entries;
}

std::string parse(const std::string &bytes, std::vector<Entry> &out) {
  return fatbin::parseFatbin(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), out);
}

const std::string kPtx = ".version 9.0\n.target sm_80\n.address_size 64\n// " + std::string(300, 'x');

TEST(Fatbin, EveryCompressionDecodesToTheSameText) {
  for (const char *mode : {"none", "zstd", "lz4"}) {
    std::vector<Entry> out;
    std::string bin = container(entry(2, 80, "\x7f" "ELF....", "none") + entry(1, 80, kPtx, mode)) +
                      container(entry(1, 90, kPtx + "\n", mode));
    ASSERT_EQ(parse(bin, out), "") << mode;
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].kind, EntryKind::Elf);
    EXPECT_EQ(out[1].kind, EntryKind::Ptx);
    EXPECT_EQ(out[1].data, kPtx) << mode;
    EXPECT_EQ(out[1].arch, 80u);
    EXPECT_EQ(out[1].versionMajor, 9);
    EXPECT_EQ(out[1].compression, mode);
    EXPECT_EQ(out[2].arch, 90u);
    EXPECT_EQ(out[2].data, kPtx + "\n");
  }
}

TEST(Fatbin, MalformedInputIsAnErrorWithTheOffset) {
  std::vector<Entry> out;
  std::string good = container(entry(1, 80, kPtx, "zstd"));
  std::string bad = good;
  put<uint32_t>(bad, 0, 0x12345678u);
  EXPECT_EQ(parse(bad, out), "bad fatbin magic 0x12345678 at offset 0x0 (expected 0xba55ed50)");
  bad = good;
  put<uint64_t>(bad, 8, 1u << 30);
  EXPECT_EQ(parse(bad, out), "fatbin container at offset 0x0 runs past the end of its section");
  bad = good;
  put<uint64_t>(bad, 16 + 8, 1u << 30);
  EXPECT_EQ(parse(bad, out), "fatbin entry at offset 0x10 runs past the end of its container");
  bad = good;
  bad[16 + 80 + 5] ^= 0x55; // corrupt the zstd frame
  EXPECT_NE(parse(bad, out).find("does not decompress"), std::string::npos);
  bad = good;
  put<uint16_t>(bad, 16, 7);
  EXPECT_EQ(parse(bad, out), "unknown fatbin entry kind 7 at offset 0x10");
  EXPECT_EQ(parse(good.substr(0, 10), out), "truncated fatbin header at offset 0x0");
}

TEST(Fatbin, TruncationsAndBitFlipsNeverCrash) {
  std::string good = container(entry(1, 80, kPtx, "lz4") + entry(1, 75, kPtx, "zstd"));
  std::vector<Entry> out;
  for (size_t n = 0; n <= good.size(); ++n)
    parse(good.substr(0, n), out);
  for (size_t i = 0; i < good.size(); ++i) {
    std::string b = good;
    b[i] = static_cast<char>(b[i] ^ 0xff);
    parse(b, out);
  }
}

TEST(Fatbin, NonElfFilesAreRejected) {
  std::vector<Entry> out;
  EXPECT_EQ(fatbin::readElfFatbins(PTXSIM_TEST_DIR "/unit/FatbinTest.cpp", out),
            "'" PTXSIM_TEST_DIR "/unit/FatbinTest.cpp' is not an ELF file");
  EXPECT_EQ(fatbin::readElfFatbins("/nonexistent", out), "cannot open '/nonexistent'");
}

} // namespace
} // namespace ptxsim::test
