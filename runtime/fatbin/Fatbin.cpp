#include "runtime/fatbin/Fatbin.h"

#include <cerrno>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <fstream>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <iterator>
#include <lz4.h>
#include <zstd.h>

namespace ptxsim::fatbin {
namespace {

constexpr uint32_t kMagic = 0xBA55ED50u;
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;
constexpr uint64_t kMaxEntryBytes = 1ull << 31; // a sanity bound on one decompressed payload

template <typename T> T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace

std::string parseFatbin(const uint8_t *data, size_t size, std::vector<Entry> &out) {
  size_t off = 0;
  while (off < size) {
    // Sections may be padded with zeros after the last container.
    if (size - off < 16) {
      for (size_t i = off; i < size; ++i)
        if (data[i])
          return "truncated fatbin header at offset " + hex(off);
      break;
    }
    uint32_t magic = load<uint32_t>(data + off);
    if (magic == 0) {
      off += 8;
      continue;
    }
    if (magic != kMagic)
      return "bad fatbin magic " + hex(magic) + " at offset " + hex(off) + " (expected " +
             hex(kMagic) + ")";
    uint16_t version = load<uint16_t>(data + off + 4);
    uint16_t headerSize = load<uint16_t>(data + off + 6);
    uint64_t bodySize = load<uint64_t>(data + off + 8);
    if (version != 1)
      return "unsupported fatbin version " + std::to_string(version) + " at offset " + hex(off);
    if (headerSize < 16 || headerSize > size - off || bodySize > size - off - headerSize)
      return "fatbin container at offset " + hex(off) + " runs past the end of its section";
    size_t e = off + headerSize, end = off + headerSize + bodySize;
    while (e < end) {
      if (end - e < 64)
        return "truncated fatbin entry header at offset " + hex(e);
      Entry entry;
      uint16_t kind = load<uint16_t>(data + e);
      uint32_t entryHeader = load<uint32_t>(data + e + 4);
      uint64_t payload = load<uint64_t>(data + e + 8);
      uint32_t compressed = load<uint32_t>(data + e + 16);
      entry.versionMinor = load<uint16_t>(data + e + 24);
      entry.versionMajor = load<uint16_t>(data + e + 26);
      entry.arch = load<uint32_t>(data + e + 28);
      entry.flags = load<uint64_t>(data + e + 40);
      uint64_t uncompressed = load<uint64_t>(data + e + 56);
      if (kind != 1 && kind != 2)
        return "unknown fatbin entry kind " + std::to_string(kind) + " at offset " + hex(e);
      entry.kind = static_cast<EntryKind>(kind);
      if (entryHeader < 64 || entryHeader > end - e || payload > end - e - entryHeader)
        return "fatbin entry at offset " + hex(e) + " runs past the end of its container";
      const uint8_t *p = data + e + entryHeader;
      bool zstd = entry.flags & kFlagZstd, lz4 = entry.flags & kFlagLz4;
      if (zstd && lz4)
        return "fatbin entry at offset " + hex(e) + " claims both zstd and LZ4 compression";
      if (zstd || lz4) {
        if (compressed > payload || uncompressed > kMaxEntryBytes)
          return "fatbin entry at offset " + hex(e) + " has inconsistent compressed sizes";
        // the header's size is checked against what the payload can hold before it is allocated
        // (LZ4 expands at most 255:1; a zstd frame records its content size)
        if (lz4 && uncompressed > uint64_t(compressed) * 255 + 16)
          return "LZ4 payload of fatbin entry at offset " + hex(e) + " cannot hold " +
                 std::to_string(uncompressed) + " bytes";
        if (zstd) {
          unsigned long long frame = ZSTD_getFrameContentSize(p, compressed);
          if (frame != ZSTD_CONTENTSIZE_UNKNOWN && frame != uncompressed)
            return "zstd payload of fatbin entry at offset " + hex(e) +
                   " does not decompress to the " + std::to_string(uncompressed) +
                   " bytes its header records (its frame holds " + std::to_string(frame) + ")";
          // a frame that does not record its size expands at most 32,768:1 (an RLE block: 4
          // bytes for 128 KiB): a larger size in the header is corrupt, not allocated
          if (frame == ZSTD_CONTENTSIZE_UNKNOWN && uncompressed > uint64_t(compressed) * 32768 + 64)
            return "zstd payload of fatbin entry at offset " + hex(e) + " cannot hold " +
                   std::to_string(uncompressed) + " bytes";
        }
        entry.data.resize(uncompressed);
        if (zstd) {
          entry.compression = "zstd";
          size_t n = ZSTD_decompress(entry.data.data(), entry.data.size(), p, compressed);
          if (ZSTD_isError(n) || n != uncompressed)
            return "zstd payload of fatbin entry at offset " + hex(e) + " does not decompress" +
                   (ZSTD_isError(n) ? std::string(": ") + ZSTD_getErrorName(n) : std::string());
        } else {
          entry.compression = "lz4";
          int n = LZ4_decompress_safe(reinterpret_cast<const char *>(p), entry.data.data(),
                                      static_cast<int>(compressed),
                                      static_cast<int>(entry.data.size()));
          if (n < 0 || static_cast<uint64_t>(n) != uncompressed)
            return "LZ4 payload of fatbin entry at offset " + hex(e) + " does not decompress";
        }
      } else {
        entry.compression = "none";
        entry.data.assign(reinterpret_cast<const char *>(p), payload);
      }
      if (entry.kind == EntryKind::Ptx)
        while (!entry.data.empty() && entry.data.back() == '\0')
          entry.data.pop_back();
      out.push_back(std::move(entry));
      e += entryHeader + payload;
    }
    off = end;
  }
  return "";
}

namespace {
/// Calls fn(name, header) for each section of the ELF64 little-endian image `d` of `size`
/// bytes. Returns an empty string, or what is malformed (`what` names the image).
template <class Fn>
std::string forEachSection(const uint8_t *d, size_t size, const std::string &what, Fn fn) {
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(d, ELFMAG, SELFMAG) != 0)
    return what + " is not an ELF file";
  Elf64_Ehdr eh = load<Elf64_Ehdr>(d);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return what + " is not a little-endian 64-bit ELF file";
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      static_cast<uint64_t>(eh.e_shnum) * sizeof(Elf64_Shdr) > size - eh.e_shoff ||
      eh.e_shstrndx >= eh.e_shnum)
    return what + " has a malformed section header table";
  auto section = [&](unsigned i) { return load<Elf64_Shdr>(d + eh.e_shoff + i * sizeof(Elf64_Shdr)); };
  Elf64_Shdr names = section(eh.e_shstrndx);
  if (names.sh_offset > size || names.sh_size > size - names.sh_offset)
    return what + " has a malformed section name table";
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh = section(i);
    if (sh.sh_name >= names.sh_size)
      continue;
    const char *nm = reinterpret_cast<const char *>(d + names.sh_offset + sh.sh_name);
    std::string name(nm, strnlen(nm, names.sh_size - sh.sh_name));
    std::string err = fn(name, sh);
    if (!err.empty())
      return err;
  }
  return "";
}
} // namespace

std::string readElfFatbins(const std::string &path, std::vector<Entry> &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "cannot open '" + path + "'";
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto *d = reinterpret_cast<const uint8_t *>(file.data());
  return forEachSection(d, file.size(), "'" + path + "'",
                        [&](const std::string &name, const Elf64_Shdr &sh) -> std::string {
    if (name != ".nv_fatbin" && name != "__nv_relfatbin")
      return "";
    if (sh.sh_type == SHT_NOBITS || sh.sh_offset > file.size() ||
        sh.sh_size > file.size() - sh.sh_offset)
      return "section " + name + " of '" + path + "' lies outside the file";
    std::string err = parseFatbin(d + sh.sh_offset, sh.sh_size, out);
    return err.empty() ? "" : path + ": section " + name + ": " + err;
  });
}

namespace {
/// A read-only mapping of a whole file (unmapped on destruction).
struct MappedFile {
  const uint8_t *data = nullptr;
  size_t size = 0;
  ~MappedFile() {
    if (data)
      munmap(const_cast<uint8_t *>(data), size);
  }
  std::string open(const std::string &path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return "cannot open '" + path + "': " + std::strerror(errno);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return "'" + path + "' is not a regular file";
    }
    size = size_t(st.st_size);
    if (size) {
      void *m = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        ::close(fd);
        return "cannot map '" + path + "': " + std::strerror(errno);
      }
      data = static_cast<const uint8_t *>(m);
    }
    ::close(fd);
    return "";
  }
};

/// The NUL-terminated string at `off` of the string table `strtab` (empty when out of range).
std::string_view stringAt(const uint8_t *d, size_t size, const Elf64_Shdr &strtab, uint64_t off) {
  if (strtab.sh_offset > size || strtab.sh_size > size - strtab.sh_offset || off >= strtab.sh_size)
    return {};
  const char *p = reinterpret_cast<const char *>(d + strtab.sh_offset + off);
  return {p, strnlen(p, strtab.sh_size - off)};
}
} // namespace

std::string inspectCudaRuntime(const std::string &path, CudaRuntimeInfo &out) {
  out = CudaRuntimeInfo();
  MappedFile f;
  if (std::string err = f.open(path); !err.empty())
    return err;
  const uint8_t *d = f.data;
  size_t size = f.size;
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(d, ELFMAG, SELFMAG) != 0 ||
      d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
    return ""; // not an ELF64 program (a script, say): nothing to tell
  Elf64_Ehdr eh = load<Elf64_Ehdr>(d);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      static_cast<uint64_t>(eh.e_shnum) * sizeof(Elf64_Shdr) > size - eh.e_shoff)
    return "'" + path + "' has a malformed section header table";
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (unsigned i = 0; i < eh.e_shnum; ++i)
    sh[i] = load<Elf64_Shdr>(d + eh.e_shoff + i * sizeof(Elf64_Shdr));
  auto inFile = [&](const Elf64_Shdr &s) {
    return s.sh_type != SHT_NOBITS && s.sh_offset <= size && s.sh_size <= size - s.sh_offset;
  };
  bool hasFatbin = false, definesRegister = false, needsDriver = false;
  std::string runtime, driver;
  for (unsigned i = 0; i < sh.size(); ++i) {
    const Elf64_Shdr &s = sh[i];
    if (eh.e_shstrndx < sh.size() &&
        stringAt(d, size, sh[eh.e_shstrndx], s.sh_name) == ".nv_fatbin")
      hasFatbin = true;
    if (!inFile(s) || s.sh_link >= sh.size())
      continue;
    const Elf64_Shdr &strtab = sh[s.sh_link];
    if (s.sh_type == SHT_DYNAMIC) {
      for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= s.sh_size; o += sizeof(Elf64_Dyn)) {
        Elf64_Dyn dyn = load<Elf64_Dyn>(d + s.sh_offset + o);
        if (dyn.d_tag == DT_NULL)
          break;
        if (dyn.d_tag != DT_NEEDED)
          continue;
        std::string_view lib = stringAt(d, size, strtab, dyn.d_un.d_val);
        if (lib.substr(0, 13) == "libcudart.so." && runtime != "libcudart.so.13")
          runtime = std::string(lib);
        else if (lib == "libcuda.so.1" || lib == "libcuda.so") {
          needsDriver = true;
          driver = std::string(lib);
        }
      }
    } else if (s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM) {
      for (uint64_t o = 0; o + sizeof(Elf64_Sym) <= s.sh_size; o += sizeof(Elf64_Sym)) {
        Elf64_Sym sym = load<Elf64_Sym>(d + s.sh_offset + o);
        if (sym.st_shndx != SHN_UNDEF &&
            stringAt(d, size, strtab, sym.st_name) == "__cudaRegisterFatBinary") {
          definesRegister = true;
          break;
        }
      }
    }
  }
  if (runtime == "libcudart.so.13") {
    out.link = CudaRuntimeLink::Shared13;
    out.library = runtime;
  } else if (!runtime.empty()) {
    out.link = CudaRuntimeLink::SharedOther;
    out.library = runtime;
  } else if (definesRegister) {
    out.link = CudaRuntimeLink::Static;
  } else if (hasFatbin && std::string_view(reinterpret_cast<const char *>(d), size).find(
                              std::string_view("libcuda.so.1\0", 13)) != std::string_view::npos) {
    // stripped: the static runtime's dlopen of the driver is the tell
    out.link = CudaRuntimeLink::Static;
  } else if (needsDriver) {
    out.link = CudaRuntimeLink::DriverApi;
    out.library = driver;
  }
  return "";
}

std::string cubinRegisterCounts(const std::string &cubin, std::map<std::string, uint32_t> &out,
                                std::map<std::string, uint32_t> *frameBytes) {
  // ptxas records the registers of each function in the top byte of sh_info of its code
  // section `.text.<name>` (what `cuobjdump -res-usage` reports) for sm_75/sm_80; CUDA 13's
  // sm_90 cubins leave that byte 0 and keep the count only as an EIATTR_REGCOUNT attribute
  // (format 4, attribute 0x2f: symbol index, registers) in the `.nv.info` section. With
  // `frameBytes`, also each function's local-memory frame per thread, EIATTR_FRAME_SIZE (format
  // 4, attribute 0x11: symbol index, bytes): what cudaFuncGetAttributes reports as
  // localSizeBytes (ptxas keeps some PTX .local arrays in registers, or adds spills).
  const auto *d = reinterpret_cast<const uint8_t *>(cubin.data());
  const size_t size = cubin.size();
  Elf64_Shdr symtab{}, info{};
  std::vector<Elf64_Shdr> all;
  std::string err = forEachSection(d, size, "the cubin",
                                   [&](const std::string &name, const Elf64_Shdr &sh) -> std::string {
    if (name.compare(0, 6, ".text.") == 0 && sh.sh_type == SHT_PROGBITS && (sh.sh_info >> 24))
      out[name.substr(6)] = uint32_t(sh.sh_info >> 24);
    else if (sh.sh_type == SHT_SYMTAB)
      symtab = sh;
    else if (name == ".nv.info")
      info = sh;
    return "";
  });
  if (!err.empty() || !symtab.sh_size || !info.sh_size)
    return err;
  auto inside = [&](const Elf64_Shdr &s) {
    return s.sh_offset <= size && s.sh_size <= size - s.sh_offset;
  };
  Elf64_Ehdr eh = load<Elf64_Ehdr>(d);
  if (!inside(symtab) || !inside(info) || symtab.sh_link >= eh.e_shnum)
    return "the cubin has a malformed symbol table or .nv.info section";
  Elf64_Shdr strtab = load<Elf64_Shdr>(d + eh.e_shoff + symtab.sh_link * sizeof(Elf64_Shdr));
  if (!inside(strtab))
    return "the cubin has a malformed string table";
  const uint64_t numSyms = symtab.sh_size / sizeof(Elf64_Sym);
  for (uint64_t o = 0; o + 4 <= info.sh_size;) {
    const uint8_t *a = d + info.sh_offset + o;
    uint8_t format = a[0], attr = a[1];
    uint16_t len = uint16_t(a[2] | a[3] << 8);
    uint64_t next = o + 4 + (format == 4 ? len : 0); // only format 4 carries a sized value
    if (next > info.sh_size)
      break;
    const bool isRegs = attr == 0x2f, isFrame = attr == 0x11 && frameBytes;
    if (format == 4 && (isRegs || isFrame) && len == 8) {
      uint32_t sym, value;
      std::memcpy(&sym, a + 4, 4);
      std::memcpy(&value, a + 8, 4);
      if (sym < numSyms && (value || isFrame)) {
        Elf64_Sym s = load<Elf64_Sym>(d + symtab.sh_offset + sym * sizeof(Elf64_Sym));
        if (s.st_name < strtab.sh_size) {
          const char *nm = reinterpret_cast<const char *>(d + strtab.sh_offset + s.st_name);
          (isRegs ? out : *frameBytes)
              .emplace(std::string(nm, strnlen(nm, strtab.sh_size - s.st_name)), value);
        }
      }
    }
    o = next;
  }
  return "";
}

} // namespace ptxsim::fatbin
