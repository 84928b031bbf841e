// The JIT's own loader for cached object files (ObjectLoader.h).

#include "ptx/jit/ObjectLoader.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace ptxsim::ptx::jit::loader {

namespace {

constexpr uint64_t kPage = 4096;

uint64_t alignUp(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/// The object's bytes with checked access to its tables.
struct Image {
  const std::string &bytes;
  const Elf64_Ehdr *eh = nullptr;
  const Elf64_Shdr *sh = nullptr;
  template <class T> const T *at(uint64_t off, uint64_t count = 1) const {
    if (off > bytes.size() || count > (bytes.size() - off) / sizeof(T))
      return nullptr;
    return reinterpret_cast<const T *>(bytes.data() + off);
  }
  /// The NUL-terminated string at `off`, at most `max` bytes and never past the object.
  std::string str(uint64_t off, uint64_t max) const {
    if (off >= bytes.size())
      return "?";
    const char *p = bytes.data() + off;
    return std::string(p, strnlen(p, std::min<uint64_t>(max, bytes.size() - off)));
  }
  std::string sectionName(unsigned i) const {
    if (eh->e_shstrndx >= eh->e_shnum || sh[i].sh_name >= sh[eh->e_shstrndx].sh_size)
      return "#" + std::to_string(i);
    const Elf64_Shdr &names = sh[eh->e_shstrndx];
    return str(names.sh_offset + sh[i].sh_name, names.sh_size - sh[i].sh_name);
  }
};

/// Whether section `s` is part of the code (the unwind tables are not: no handler the code
/// calls throws, so nothing unwinds through it).
bool loaded(const Elf64_Shdr &s) {
  return (s.sh_flags & SHF_ALLOC) && s.sh_type != SHT_X86_64_UNWIND && s.sh_size > 0;
}

/// Reads the header and section table; false with `err` when `img` is not a relocatable
/// x86-64 ELF object of this layout.
bool parse(Image &img, std::string &err) {
  img.eh = img.at<Elf64_Ehdr>(0);
  const Elf64_Ehdr *eh = img.eh;
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB) {
    err = "not a 64-bit little-endian ELF object";
    return false;
  }
  if (eh->e_type != ET_REL || eh->e_machine != EM_X86_64) {
    err = "not a relocatable x86-64 object (type " + std::to_string(eh->e_type) + ", machine " +
          std::to_string(eh->e_machine) + ")";
    return false;
  }
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || !(img.sh = img.at<Elf64_Shdr>(eh->e_shoff, eh->e_shnum))) {
    err = "its section table lies outside the object";
    return false;
  }
  for (unsigned i = 1; i < eh->e_shnum; ++i) {
    const Elf64_Shdr &s = img.sh[i];
    if (s.sh_type != SHT_NOBITS && s.sh_size && !img.at<char>(s.sh_offset, s.sh_size)) {
      err = "section " + std::to_string(i) + " lies outside the object";
      return false;
    }
    if (loaded(s) && s.sh_size > (uint64_t(1) << 30)) { // (a NOBITS section's size is not bounded by the file)
      err = "section " + img.sectionName(i) + " has a size of " + std::to_string(s.sh_size) + " bytes";
      return false;
    }
    if (s.sh_addralign > kPage || (s.sh_addralign & (s.sh_addralign - 1))) {
      err = "section " + img.sectionName(i) + " asks for an alignment of " + std::to_string(s.sh_addralign);
      return false;
    }
  }
  return true;
}

/// Applies one relocation at `p` (run-time address `pAddr`) with the symbol's value `s` and
/// addend `a`; false with `err` for a type it does not know or a value that does not fit.
bool relocate(uint32_t type, uint8_t *p, uint64_t pAddr, uint64_t s, int64_t a, std::string &err) {
  const uint64_t v = s + uint64_t(a);
  auto put32 = [&](int64_t x, bool fits) {
    if (!fits) {
      err = "a " + std::to_string(type) + "-type relocation's value does not fit in 32 bits";
      return false;
    }
    const uint32_t w = uint32_t(x);
    std::memcpy(p, &w, 4);
    return true;
  };
  switch (type) {
  case R_X86_64_NONE:
    return true;
  case R_X86_64_64:
    std::memcpy(p, &v, 8);
    return true;
  case R_X86_64_PC64: {
    const uint64_t d = v - pAddr;
    std::memcpy(p, &d, 8);
    return true;
  }
  case R_X86_64_PC32:
  case R_X86_64_PLT32: {
    const int64_t d = int64_t(v - pAddr);
    return put32(d, d == int64_t(int32_t(d)));
  }
  case R_X86_64_32:
    return put32(int64_t(v), v == uint64_t(uint32_t(v)));
  case R_X86_64_32S:
    return put32(int64_t(v), int64_t(v) == int64_t(int32_t(v)));
  default:
    err = "relocation type " + std::to_string(type) + " is not one the loader applies";
    return false;
  }
}

/// The GNU build id of the ELF file at `path` as hex, else "" (read from its section table).
std::string fileBuildId(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  std::string id;
  Elf64_Ehdr eh{};
  std::vector<Elf64_Shdr> sh;
  if (::pread(fd, &eh, sizeof eh, 0) == ssize_t(sizeof eh) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum < 4096) {
    sh.resize(eh.e_shnum);
    if (::pread(fd, sh.data(), sh.size() * sizeof(Elf64_Shdr), off_t(eh.e_shoff)) != ssize_t(sh.size() * sizeof(Elf64_Shdr)))
      sh.clear();
  }
  for (const Elf64_Shdr &s : sh) {
    if (s.sh_type != SHT_NOTE || s.sh_size > 4096 || !id.empty())
      continue;
    std::vector<char> buf(s.sh_size);
    if (::pread(fd, buf.data(), buf.size(), off_t(s.sh_offset)) != ssize_t(buf.size()))
      continue;
    for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= buf.size();) {
      Elf64_Nhdr n;
      std::memcpy(&n, buf.data() + at, sizeof n);
      const size_t name = at + sizeof n, desc = name + ((n.n_namesz + 3) & ~size_t(3));
      if (desc + n.n_descsz > buf.size())
        break;
      if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && std::memcmp(buf.data() + name, "GNU", 4) == 0) {
        for (uint32_t j = 0; j < n.n_descsz; ++j) {
          char b[3];
          std::snprintf(b, sizeof b, "%02x", uint8_t(buf[desc + j]));
          id += b;
        }
        break;
      }
      at = desc + ((n.n_descsz + 3) & ~size_t(3));
    }
  }
  ::close(fd);
  return id;
}

/// The CPUID words LLVM derives the host CPU and its features from: vendor, signature,
/// features of leaves 1, 7 and 0x80000001, and the OS-enabled register state (XCR0).
std::string cpuSignature() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  std::string out;
  auto word = [&](unsigned w) {
    char buf[12];
    std::snprintf(buf, sizeof buf, "%08x.", w);
    out += buf;
  };
  if (!__get_cpuid(0, &a, &b, &c, &d))
    return {};
  const unsigned maxLeaf = a;
  word(b), word(d), word(c);
  __get_cpuid(1, &a, &b, &c, &d);
  word(a), word(c), word(d); // (not b: it holds the calling core's APIC id)
  const bool osxsave = c & (1u << 27);
  if (maxLeaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    word(b), word(c), word(d);
    __cpuid_count(7, 1, a, b, c, d);
    word(a);
  }
  if (__get_cpuid(0x80000001, &a, &b, &c, &d))
    word(c), word(d);
  if (osxsave) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    word(lo), word(hi);
  }
  return out;
#else
  return {};
#endif
}

} // namespace

std::string identity(const std::string &moduleFile) {
  const std::string cpu = cpuSignature();
  struct stat st {};
  if (cpu.empty() || moduleFile.empty() || ::stat(moduleFile.c_str(), &st) != 0)
    return {};
  std::string module = fileBuildId(moduleFile);
  if (module.empty())
    module = moduleFile + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) +
             "." + std::to_string(st.st_mtim.tv_nsec);
  return "loader 1; module " + module + "; cpu " + cpu;
}

void *load(const std::string &object, const char *symbol, std::string &err) {
  Image img{object};
  if (!parse(img, err))
    return nullptr;
  const unsigned n = img.eh->e_shnum;
  // layout: executable sections, then read-only ones, then writable ones, each group on pages
  // of its own so that each gets its protection
  std::vector<uint64_t> offset(n, UINT64_MAX);
  uint64_t groupStart[4] = {};
  uint64_t size = 0;
  for (int group = 0; group < 3; ++group) {
    size = alignUp(size, kPage);
    groupStart[group] = size;
    for (unsigned i = 1; i < n; ++i) {
      const Elf64_Shdr &s = img.sh[i];
      const int g = (s.sh_flags & SHF_EXECINSTR) ? 0 : (s.sh_flags & SHF_WRITE) ? 2 : 1;
      if (!loaded(s) || g != group)
        continue;
      size = alignUp(size, s.sh_addralign);
      offset[i] = size;
      size += s.sh_size;
    }
  }
  size = alignUp(size, kPage);
  groupStart[3] = size;
  if (size == 0) {
    err = "the object holds no code";
    return nullptr;
  }
  void *mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    err = std::string("cannot map ") + std::to_string(size) + " bytes: " + std::strerror(errno);
    return nullptr;
  }
  auto *base = static_cast<uint8_t *>(mem);
  auto fail = [&](const std::string &why) -> void * {
    ::munmap(mem, size);
    err = why;
    return nullptr;
  };
  for (unsigned i = 1; i < n; ++i)
    if (offset[i] != UINT64_MAX && img.sh[i].sh_type != SHT_NOBITS)
      std::memcpy(base + offset[i], object.data() + img.sh[i].sh_offset, img.sh[i].sh_size);

  // the symbol table (one, as the backend's objects have)
  const Elf64_Shdr *symtab = nullptr;
  for (unsigned i = 1; i < n; ++i)
    if (img.sh[i].sh_type == SHT_SYMTAB)
      symtab = &img.sh[i];
  if (!symtab || symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_link >= n)
    return fail("the object has no symbol table");
  const uint64_t nsyms = symtab->sh_size / sizeof(Elf64_Sym);
  const Elf64_Sym *syms = img.at<Elf64_Sym>(symtab->sh_offset, nsyms);
  const Elf64_Shdr &strtab = img.sh[symtab->sh_link];
  auto symName = [&](const Elf64_Sym &s) {
    return s.st_name < strtab.sh_size ? img.str(strtab.sh_offset + s.st_name, strtab.sh_size - s.st_name)
                                      : std::string("?");
  };
  // a symbol's run-time address; false for one the loader does not resolve
  auto symValue = [&](const Elf64_Sym &s, uint64_t &v, std::string &why) {
    if (s.st_shndx == SHN_ABS) {
      v = s.st_value;
      return true;
    }
    if (s.st_shndx == SHN_UNDEF || s.st_shndx >= n || offset[s.st_shndx] == UINT64_MAX) {
      why = "it refers to symbol '" + symName(s) + "', which is not defined in a section it loads";
      return false;
    }
    v = reinterpret_cast<uint64_t>(base + offset[s.st_shndx]) + s.st_value;
    return true;
  };
  if (!syms)
    return fail("its symbol table lies outside the object");

  for (unsigned i = 1; i < n; ++i) {
    const Elf64_Shdr &rs = img.sh[i];
    if (rs.sh_type == SHT_REL)
      return fail("section " + img.sectionName(i) + " has relocations without addends");
    if (rs.sh_type != SHT_RELA)
      continue;
    if (rs.sh_info >= n || rs.sh_link != unsigned(symtab - img.sh) || rs.sh_entsize != sizeof(Elf64_Rela))
      return fail("relocation section " + img.sectionName(i) + " is malformed");
    const Elf64_Shdr &target = img.sh[rs.sh_info];
    if (offset[rs.sh_info] == UINT64_MAX)
      continue; // of a section it does not load (the unwind tables)
    const uint64_t count = rs.sh_size / sizeof(Elf64_Rela);
    const Elf64_Rela *rel = img.at<Elf64_Rela>(rs.sh_offset, count);
    if (!rel)
      return fail("relocation section " + img.sectionName(i) + " lies outside the object");
    for (uint64_t r = 0; r < count; ++r) {
      const uint32_t type = ELF64_R_TYPE(rel[r].r_info), si = ELF64_R_SYM(rel[r].r_info);
      const uint64_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
      if (si >= nsyms || rel[r].r_offset > target.sh_size || target.sh_size - rel[r].r_offset < width)
        return fail("a relocation of section " + img.sectionName(rs.sh_info) + " lies outside it");
      uint64_t s = 0;
      std::string why;
      if (!symValue(syms[si], s, why))
        return fail("a relocation of section " + img.sectionName(rs.sh_info) + ": " + why);
      uint8_t *p = base + offset[rs.sh_info] + rel[r].r_offset;
      if (!relocate(type, p, reinterpret_cast<uint64_t>(p), s, rel[r].r_addend, why))
        return fail("section " + img.sectionName(rs.sh_info) + ": " + why);
    }
  }

  void *entry = nullptr;
  for (uint64_t i = 0; i < nsyms && !entry; ++i) {
    const Elf64_Sym &s = syms[i];
    uint64_t v = 0;
    std::string why;
    if (ELF64_ST_BIND(s.st_info) == STB_GLOBAL && ELF64_ST_TYPE(s.st_info) == STT_FUNC &&
        symName(s) == symbol && symValue(s, v, why) && s.st_shndx != SHN_ABS &&
        (img.sh[s.st_shndx].sh_flags & SHF_EXECINSTR) && s.st_value < img.sh[s.st_shndx].sh_size)
      entry = reinterpret_cast<void *>(v);
  }
  if (!entry)
    return fail(std::string("the object defines no function '") + symbol + "'");
  if ((groupStart[1] > groupStart[0] && ::mprotect(base, groupStart[1] - groupStart[0], PROT_READ | PROT_EXEC) != 0) ||
      (groupStart[2] > groupStart[1] &&
       ::mprotect(base + groupStart[1], groupStart[2] - groupStart[1], PROT_READ) != 0))
    return fail(std::string("cannot protect the code: ") + std::strerror(errno));
  __builtin___clear_cache(reinterpret_cast<char *>(base), reinterpret_cast<char *>(base + groupStart[1]));
  return entry;
}

} // namespace ptxsim::ptx::jit::loader
