#pragma once
// Reader for the fat binaries nvcc embeds in host executables.
//
// Contract: parseFatbin() walks one or more consecutive fatbin containers (header magic
// 0xBA55ED50, version 1, 16-byte header, then entries of a 64- or 80-byte header followed by a
// padded payload) and returns every entry with its payload decompressed. Entry flag 0x8000 marks
// a zstd frame and 0x2000 an LZ4 block (what `nvcc --compress-mode` and `-Xfatbin -compress-all`
// produce); the decompressed size must equal the size the header records. Malformed input
// (bad magic, sizes past the end, a payload that does not decompress) is an error message,
// never a crash. readElfFatbins() finds the fatbin sections of an ELF64 executable or library.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxsim::fatbin {

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };

struct Entry {
  EntryKind kind;
  uint32_t arch = 0;           ///< SM number (75 for sm_75 / compute_75)
  uint16_t versionMajor = 0;   ///< PTX ISA version of a PTX entry
  uint16_t versionMinor = 0;
  uint64_t flags = 0;
  std::string compression;     ///< "none", "zstd" or "lz4"
  std::string data;            ///< decompressed payload (PTX text without trailing NULs)
};

/// Parses `size` bytes of consecutive containers, appending entries to `out`. Returns an empty
/// string on success, else what is wrong and at which byte offset.
std::string parseFatbin(const uint8_t *data, size_t size, std::vector<Entry> &out);

/// Reads the `.nv_fatbin` and `__nv_relfatbin` sections of an ELF64 file and parses them.
/// Returns an empty string on success (possibly with no entries), else an error message.
std::string readElfFatbins(const std::string &path, std::vector<Entry> &out);

/// How an executable gets the CUDA runtime, from its ELF dynamic section and symbols.
enum class CudaRuntimeLink : uint8_t {
  None,       ///< no sign of CUDA (a script, a plain program): nothing to say
  Shared13,   ///< needs libcudart.so.13: runs against ptxsim's runtime
  SharedOther,///< needs another libcudart.so.N (`library` names it)
  Static,     ///< carries NVIDIA's static runtime (nvcc's default `-cudart static`), which
              ///< runs on ptxsim's libcuda.so.1
  DriverApi,  ///< needs libcuda.so.1 and no runtime: the driver API
};
struct CudaRuntimeInfo {
  CudaRuntimeLink link = CudaRuntimeLink::None;
  std::string library; ///< the libcudart (or libcuda) DT_NEEDED name, when there is one
};

/// Classifies the ELF64 file at `path`. The static runtime is recognised by its defined
/// `__cudaRegisterFatBinary` symbol or, in a stripped binary, by a fatbin section together with
/// the name of the driver library the static runtime opens ("libcuda.so.1") and no libcudart in
/// DT_NEEDED. Returns an empty string on success (`None` for a file that is not ELF64), else
/// why the file could not be read.
std::string inspectCudaRuntime(const std::string &path, CudaRuntimeInfo &out);

/// Registers per thread of each function of a cubin (an Elf entry's payload), by name.
/// Returns an empty string on success, else what is malformed.
std::string cubinRegisterCounts(const std::string &cubin, std::map<std::string, uint32_t> &out,
                                std::map<std::string, uint32_t> *frameBytes = nullptr);

} // namespace ptxsim::fatbin
