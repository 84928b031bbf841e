//===- DevicePrintf.h - CUDA device printf formatting -----------*- C++ -*-===//
//
// Contract: CUDA device code lowers printf(fmt, ...) to vprintf(fmtPtr, argsPtr), where argsPtr
// points to a buffer in device memory that holds the promoted arguments one after another, each
// at an offset (from argsPtr) aligned to its size: int, unsigned, char and short (promoted) and
// the int of a `*` width take 4 bytes; long, long long, size_t, ptrdiff_t, intmax_t, pointers
// and double (float is promoted; long double is double in device code) take 8 bytes. A `%s`
// argument is a device pointer to a NUL-terminated string. formatDevicePrintf reads the format
// and the arguments through a caller-supplied reader and formats each conversion with the host
// snprintf, which is what the CUDA driver does when it flushes the printf buffer.
//
// Behaviour beyond C printf, following the CUDA programming guide:
//   - Width may be `*` (CUDA lists `*` for width only); `.*` precision is accepted as well.
//   - At most 32 arguments are consumed; later conversions are copied to the output as written.
//   - Length modifiers only choose the argument size: hh, h and none read 4 bytes (the value is
//     then narrowed as C printf does); l, ll, z, t and j read 8 bytes; L reads a double.
//   - %s and the format string are read at most 64 KiB far; longer strings are cut there.
//     A NULL %s argument prints as "(null)"; %p prints as the host's %p ("(nil)" for 0 on glibc).
//   - %n stores nothing (device memory is read-only here) but consumes its pointer argument.
//   - %lc and %ls are printed as %c and %s of the low byte of each character.
//   - A conversion with an unknown specifier character is copied to the output as written.
//   - Width and precision are clamped to 65536.
//
//===----------------------------------------------------------------------===//

#ifndef PTXSIM_PTX_EXEC_DEVICEPRINTF_H
#define PTXSIM_PTX_EXEC_DEVICEPRINTF_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptxsim::ptx::exec {

/// Reads `n` bytes of device memory at `addr` into `out`; returns false if the range is invalid.
using DeviceReadFn = bool (*)(void *ctx, uint64_t addr, void *out, size_t n);

/// Largest number of arguments one device printf consumes (CUDA's documented limit).
constexpr unsigned kDevicePrintfMaxArgs = 32;

/// Longest format string or %s string read, in bytes.
constexpr size_t kDevicePrintfMaxString = 64 * 1024;

/// Formats one device printf call whose format string is at `fmtAddr` and whose argument buffer
/// is at `argsAddr` (0 when there are no arguments), appending the text to `out`. Returns the
/// number of characters appended (like printf's return), or -1 when the format string or an
/// argument cannot be read; then the text formatted so far is kept and a short marker of the form
/// "<printf: ...>" saying what failed is appended.
int formatDevicePrintf(std::string &out, uint64_t fmtAddr, uint64_t argsAddr, DeviceReadFn read,
                       void *ctx);

} // namespace ptxsim::ptx::exec

#endif // PTXSIM_PTX_EXEC_DEVICEPRINTF_H
