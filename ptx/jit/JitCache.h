#pragma once
// The JIT's disk cache (docs/executor.md, "The JIT engine"): the object file LLVM made for one
// ir::Function, keyed by a hash of the function's IR, ptxsim's build and the cache format, so
// that a second run of a program links the code instead of compiling it.
//
// Files are written to a temporary name and renamed into place, so processes sharing the
// directory (sweeps, chiplets) never read a torn file; a file that fails its checks (magic,
// sizes, key, checksum) is reported once and recompiled, never trusted. The directory is
// trimmed to a size bound, least recently used files first.

#include "ptx/ir/Ir.h"
#include "ptx/jit/JitOps.h"

#include <cstdint>
#include <string>

namespace ptxsim::ptx::jit::cache {

/// The directory: $PTXSIM_JIT_CACHE, else $XDG_CACHE_HOME/ptxsim/jit, else
/// $HOME/.cache/ptxsim/jit; empty when caching is off (PTXSIM_JIT_CACHE=off or no home).
std::string directory();
/// The size bound in bytes: $PTXSIM_JIT_CACHE_MB (MiB), else 256 MiB.
uint64_t maxBytes();

/// The key of `fn`: 32 hex digits over every field of its IR the code generator may read
/// (handlers as offsets from `anchor`, a function of the same build), `build` (ptxsim's build)
/// and the cache format.
std::string key(const ir::Function &fn, const void *anchor, const std::string &build);
/// ptxsim's build as a string: the GNU build id of the object holding `addr`, else its path,
/// size and modification time.
std::string buildOf(const void *addr);

/// One cache file's contents.
struct Entry {
  std::string identity; ///< Backend::identity() of the process that compiled it
  std::string loaderIdentity; ///< loader::identity() there (empty: only LLVM may link it)
  uint32_t nativeInsts = 0, calledInsts = 0, branches = 0;
  std::vector<uint8_t> entry; ///< FunctionCode::entry
  std::string object;         ///< the relocatable object file
};

enum class Load : uint8_t {
  Hit,     ///< `out` holds the file
  Miss,    ///< no file, or one made by another identity (recompiled without a warning)
  Corrupt, ///< a file that fails its checks: `why` names the file and the check
};
/// Reads the file for `key` in `dir`. It is a Hit when it was made by `identity` (this process's
/// Backend::identity(); empty before LLVM is loaded) or, when `loaderIdentity` is not empty, by a
/// process of that loader::identity() (its object then needs no LLVM).
Load load(const std::string &dir, const std::string &key, const std::string &identity, Entry &out,
          std::string &why, const std::string &loaderIdentity = {});
/// Whether a file for `key` exists (a cheap test before loading LLVM).
bool exists(const std::string &dir, const std::string &key);
/// Writes the file for `key` atomically (temporary + rename), creating `dir`, then trims `dir`
/// to maxBytes(). False with `err` set when it cannot (the run goes on without the cache).
bool store(const std::string &dir, const std::string &key, const Entry &e, std::string &err);
/// Removes the least recently used cache files of `dir` until it holds at most `bound` bytes.
void trim(const std::string &dir, uint64_t bound);

/// What earlier runs saw of a kernel under --jit auto (docs/executor.md, "Hotness record"): one
/// small text file `<key>.jithot` beside the kernel's code, `key` being the kernel function's.
struct Hotness {
  uint64_t runs = 0;       ///< runs that recorded it
  uint64_t lastInsts = 0;  ///< thread instructions the kernel ran in the last of them
  uint64_t totalInsts = 0; ///< over all of them (saturating)
};
/// Reads the record of `key` in `dir`: Hit, Miss (none) or Corrupt (`why` names the file and
/// the check; the caller ignores it and the run's record replaces it).
Load loadHotness(const std::string &dir, const std::string &key, Hotness &out, std::string &why);
/// Writes the record of `key` atomically (temporary + rename); false with `err` set when it
/// cannot (the run goes on).
bool storeHotness(const std::string &dir, const std::string &key, const Hotness &h, std::string &err);

/// The bytes of a cache file for `key` (what store() writes; for tests).
std::string encode(const std::string &key, const Entry &e);

} // namespace ptxsim::ptx::jit::cache
