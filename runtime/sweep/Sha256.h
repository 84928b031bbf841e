#pragma once
// SHA-256 (FIPS 180-4), for the sweep's point keys: the content of binaries and configuration
// files decides whether a finished point is still valid.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ptxsim::sweep {

class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  /// Lowercase hex of the digest; the object must not be updated afterwards.
  std::string hex();

private:
  void block(const uint8_t *p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t total_ = 0;
};

/// SHA-256 of a file's bytes as hex; false with `error` when it cannot be read.
bool sha256File(const std::string &path, std::string &hex, std::string &error);

} // namespace ptxsim::sweep
