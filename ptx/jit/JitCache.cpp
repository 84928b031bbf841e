// The JIT's disk cache: keys, the file format, atomic writes and the size bound (JitCache.h).

#include "ptx/jit/JitCache.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>
#include <vector>

namespace ptxsim::ptx::jit::cache {

namespace {

/// Raised whenever the file layout or the key's contents change.
constexpr uint32_t kFormat = 2;
constexpr char kMagic[8] = {'P', 'T', 'X', 'J', 'I', 'T', 'C', '\n'};
constexpr const char *kSuffix = ".jitobj";
constexpr const char *kHotSuffix = ".jithot";
constexpr const char *kHotHeader = "ptxsim-jit-hotness 1";

// A field added to these structures may change the code: hash it in key() and update the size.
static_assert(sizeof(ir::Inst) == 232, "ir::Inst changed: hash the new field in cache::key");
static_assert(sizeof(ir::Opnd) == 16, "ir::Opnd changed: hash the new field in cache::key");

/// Two independent 64-bit hashes (FNV-1a and a multiply-rotate one): 128 bits of key.
struct Hasher {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x9e3779b97f4a7c15ull;
  void bytes(const void *p, size_t n) {
    const auto *c = static_cast<const uint8_t *>(p);
    for (size_t i = 0; i < n; ++i) {
      a = (a ^ c[i]) * 0x100000001b3ull;
      b = ((b ^ c[i]) * 0xff51afd7ed558ccdull);
      b ^= b >> 29;
    }
  }
  template <class T> void pod(const T &v) { bytes(&v, sizeof v); }
  void str(const std::string &s) {
    pod(uint64_t(s.size()));
    bytes(s.data(), s.size());
  }
  template <class T> void vec(const std::vector<T> &v) {
    pod(uint64_t(v.size()));
    for (const T &x : v)
      pod(x);
  }
  std::string hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
    return buf;
  }
};

uint64_t fnv(const char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ uint8_t(p[i])) * 0x100000001b3ull;
  return h;
}

void hashOpnd(Hasher &h, const ir::Opnd &o) {
  h.pod(o.reg);
  h.pod(uint8_t(o.cst != nullptr));
  if (o.cst)
    h.bytes(o.cst, sizeof(uint64_t) * ir::kWarpSize);
}

void hashInst(Hasher &h, const ir::Inst &in, uintptr_t anchor) {
  // the handler (or poll step) as its offset in ptxsim's binary; none as 0
  h.pod(uint8_t(in.fn != nullptr));
  if (in.fn)
    h.pod(uint64_t(reinterpret_cast<uintptr_t>(in.fn) - anchor));
  h.pod(in.ctl), h.pod(in.cls), h.pod(in.space), h.pod(in.abase);
  h.pod(in.ndst), h.pod(in.nsrc), h.pod(in.width), h.pod(in.vec), h.pod(in.addr32), h.pod(in.flags);
  h.pod(in.guard), h.pod(in.guardXor), h.pod(in.dst);
  for (const ir::Opnd &o : in.src)
    hashOpnd(h, o);
  h.pod(in.psrc), h.pod(in.psrcXor), h.pod(in.off), h.pod(in.target), h.pod(in.aux), h.pod(in.aux2);
  h.pod(in.memberSrc), h.pod(in.rd), h.pod(in.rs), h.pod(in.nrd), h.pod(in.nrs);
  h.pod(in.line), h.pod(in.col), h.pod(in.debugLoc), h.pod(in.opcode), h.pod(in.hints);
  h.pod(in.sassRole), h.pod(in.mergedLoads);
}

struct BuildIdSearch {
  uintptr_t addr = 0;
  std::string id;
};

int findBuildId(dl_phdr_info *info, size_t, void *data) {
  auto *s = static_cast<BuildIdSearch *>(data);
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum && !holds; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    holds = ph.p_type == PT_LOAD && s->addr >= lo && s->addr < lo + ph.p_memsz;
  }
  if (!holds)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE)
      continue;
    const char *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
    const char *end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
      const char *name = p + sizeof(ElfW(Nhdr));
      const char *desc = name + ((n->n_namesz + 3) & ~3u);
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 &&
          desc + n->n_descsz <= end) {
        for (uint32_t j = 0; j < n->n_descsz; ++j) {
          char b[3];
          std::snprintf(b, sizeof b, "%02x", uint8_t(desc[j]));
          s->id += b;
        }
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

std::string pathOf(const std::string &dir, const std::string &key) {
  return dir + "/" + key + kSuffix;
}

bool mkdirs(const std::string &dir) {
  for (size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') {
      std::string part = dir.substr(0, i);
      if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
        return false;
    }
  return true;
}

/// Reads the fields of a cache file in order; fails on any overrun.
struct Reader {
  const std::string &s;
  size_t at = 0;
  bool ok = true;
  template <class T> T pod() {
    T v{};
    if (at + sizeof v > s.size()) {
      ok = false;
      return v;
    }
    std::memcpy(&v, s.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string str() {
    uint64_t n = pod<uint64_t>();
    if (!ok || n > s.size() - at) {
      ok = false;
      return {};
    }
    at += n;
    return s.substr(at - n, n);
  }
};

template <class T> void put(std::string &out, const T &v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof v);
}
void putStr(std::string &out, const std::string &s) {
  put(out, uint64_t(s.size()));
  out += s;
}

} // namespace

std::string directory() {
  const char *v = std::getenv("PTXSIM_JIT_CACHE");
  if (v && *v)
    return std::strcmp(v, "off") == 0 ? std::string() : std::string(v);
  if ((v = std::getenv("XDG_CACHE_HOME")) && *v == '/')
    return std::string(v) + "/ptxsim/jit";
  if ((v = std::getenv("HOME")) && *v == '/')
    return std::string(v) + "/.cache/ptxsim/jit";
  return {};
}

uint64_t maxBytes() {
  const char *v = std::getenv("PTXSIM_JIT_CACHE_MB");
  if (v && *v) {
    char *end = nullptr;
    unsigned long long mb = std::strtoull(v, &end, 10);
    if (!*end && mb > 0)
      return uint64_t(mb) << 20;
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      std::fprintf(stderr,
                   "ptxsim: PTXSIM_JIT_CACHE_MB must be a positive number of MiB, not "
                   "'%s'; the JIT cache keeps 256 MiB\n",
                   v);
  }
  return uint64_t(256) << 20;
}

std::string buildOf(const void *addr) {
  BuildIdSearch s;
  s.addr = reinterpret_cast<uintptr_t>(addr);
  dl_iterate_phdr(findBuildId, &s);
  if (!s.id.empty())
    return "build-id " + s.id;
  Dl_info info{};
  struct stat st {};
  if (dladdr(addr, &info) && info.dli_fname && ::stat(info.dli_fname, &st) == 0)
    return std::string(info.dli_fname) + " " + std::to_string(st.st_size) + " " +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  return "unknown build";
}

std::string key(const ir::Function &fn, const void *anchor, const std::string &build) {
  Hasher h;
  h.pod(kFormat);
  h.str(build);
  const uintptr_t base = reinterpret_cast<uintptr_t>(anchor);
  h.pod(uint64_t(fn.code.size()));
  for (const ir::Inst &in : fn.code)
    hashInst(h, in, base);
  h.pod(fn.isEntry), h.pod(fn.builtin), h.pod(fn.numRegs), h.pod(fn.numPreds), h.pod(fn.frameSize);
  h.pod(fn.dynamicStack), h.pod(fn.makesCalls), h.pod(fn.kparamBytes), h.pod(fn.staticShared);
  h.pod(fn.maxThreads), h.pod(fn.smVersion);
  h.vec(fn.regBytes), h.vec(fn.paramOffsets), h.vec(fn.retOffsets), h.vec(fn.paramSizes);
  h.vec(fn.retSizes), h.vec(fn.reconv), h.vec(fn.kparamOffsets), h.vec(fn.kparamSizes);
  h.pod(uint64_t(fn.jumpTables.size()));
  for (const auto &t : fn.jumpTables)
    h.vec(t);
  h.pod(uint64_t(fn.calls.size()));
  for (const ir::CallSite &c : fn.calls) {
    h.pod(c.callee), h.pod(c.indirectReg), h.pod(c.builtin);
    for (const auto *v : {&c.args, &c.rets}) {
      h.pod(uint64_t(v->size()));
      for (const ir::ArgCopy &a : *v) {
        h.pod(a.callerOff), h.pod(a.calleeOff), h.pod(a.size), h.pod(a.fromReg);
        h.pod(uint8_t(a.cst != nullptr));
        if (a.cst)
          h.bytes(a.cst, sizeof(uint64_t) * ir::kWarpSize);
      }
    }
  }
  return h.hex();
}

std::string encode(const std::string &key, const Entry &e) {
  std::string out(kMagic, sizeof kMagic);
  put(out, kFormat);
  putStr(out, key);
  putStr(out, e.identity);
  putStr(out, e.loaderIdentity);
  put(out, e.nativeInsts), put(out, e.calledInsts), put(out, e.branches);
  putStr(out, std::string(e.entry.begin(), e.entry.end()));
  putStr(out, e.object);
  put(out, fnv(out.data(), out.size()));
  return out;
}

bool exists(const std::string &dir, const std::string &key) {
  return !dir.empty() && ::access(pathOf(dir, key).c_str(), R_OK) == 0;
}

Load load(const std::string &dir, const std::string &key, const std::string &identity, Entry &out,
          std::string &why, const std::string &loaderIdentity) {
  const std::string path = pathOf(dir, key);
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Load::Miss;
  std::string s;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    s.append(buf, n);
  const bool readErr = std::ferror(f);
  std::fclose(f);
  auto bad = [&](const char *what) {
    why = "the JIT cache file " + path + " " + what + "; it is compiled again";
    return Load::Corrupt;
  };
  if (readErr)
    return bad("cannot be read");
  if (s.size() < sizeof kMagic + 8 || std::memcmp(s.data(), kMagic, sizeof kMagic) != 0)
    return bad("is not a ptxsim JIT cache file");
  uint64_t sum;
  std::memcpy(&sum, s.data() + s.size() - 8, 8);
  if (sum != fnv(s.data(), s.size() - 8))
    return bad("is damaged (its checksum does not match)");
  Reader r{s};
  r.at = sizeof kMagic;
  if (r.pod<uint32_t>() != kFormat)
    return Load::Miss; // another version of the format: rewritten
  if (r.str() != key)
    return bad("holds another function's code (its key differs from its name)");
  Entry e;
  e.identity = r.str();
  e.loaderIdentity = r.str();
  if (r.ok && (identity.empty() || e.identity != identity) &&
      (loaderIdentity.empty() || e.loaderIdentity != loaderIdentity))
    return Load::Miss; // another CPU, LLVM or module build: rewritten
  e.nativeInsts = r.pod<uint32_t>(), e.calledInsts = r.pod<uint32_t>(),
  e.branches = r.pod<uint32_t>();
  std::string entry = r.str();
  e.entry.assign(entry.begin(), entry.end());
  e.object = r.str();
  if (!r.ok || r.at != s.size() - 8 || e.object.empty())
    return bad("is truncated or malformed");
  ::utime(path.c_str(), nullptr); // least recently used goes first when the cache is trimmed
  out = std::move(e);
  return Load::Hit;
}

namespace {
/// Writes `bytes` to `path` in `dir` through a temporary file renamed into place.
bool writeAtomically(const std::string &dir, const std::string &key, const std::string &path,
                     const std::string &bytes, std::string &err) {
  if (dir.empty() || !mkdirs(dir)) {
    err = "cannot create the JIT cache directory '" + dir + "': " + std::strerror(errno);
    return false;
  }
  static std::atomic<uint64_t> serial{0};
  const std::string tmp =
      dir + "/." + key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    err = "cannot write '" + tmp + "': " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = "cannot write '" + path + "': " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}
} // namespace

bool store(const std::string &dir, const std::string &key, const Entry &e, std::string &err) {
  if (!writeAtomically(dir, key, pathOf(dir, key), encode(key, e), err))
    return false;
  trim(dir, maxBytes());
  return true;
}

Load loadHotness(const std::string &dir, const std::string &key, Hotness &out, std::string &why) {
  const std::string path = dir + "/" + key + kHotSuffix;
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Load::Miss;
  char buf[256];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  const bool readErr = std::ferror(f) || !std::feof(f);
  std::fclose(f);
  buf[n] = 0;
  auto bad = [&](const char *what) {
    why = "the JIT hotness record " + path + " " + what + "; it is ignored";
    return Load::Corrupt;
  };
  if (readErr)
    return bad("cannot be read (or is too long)");
  const size_t hl = std::strlen(kHotHeader);
  if (n < hl + 1 || std::memcmp(buf, kHotHeader, hl) != 0 || buf[hl] != '\n')
    return bad("is not a ptxsim JIT hotness record");
  unsigned long long runs = 0, last = 0, total = 0;
  int used = 0;
  if (std::sscanf(buf + hl + 1, "runs %llu last %llu total %llu\n%n", &runs, &last, &total, &used) != 3 ||
      size_t(hl + 1 + used) != n || runs == 0 || last > total)
    return bad("is malformed (expected 'runs R last L total T', L <= T, R > 0)");
  out.runs = runs, out.lastInsts = last, out.totalInsts = total;
  ::utime(path.c_str(), nullptr); // (trimmed least recently used first, like the code)
  return Load::Hit;
}

bool storeHotness(const std::string &dir, const std::string &key, const Hotness &h, std::string &err) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s\nruns %llu last %llu total %llu\n", kHotHeader,
                (unsigned long long)h.runs, (unsigned long long)h.lastInsts,
                (unsigned long long)h.totalInsts);
  return writeAtomically(dir, key, dir + "/" + key + kHotSuffix, buf, err);
}

void trim(const std::string &dir, uint64_t bound) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return;
  struct File {
    std::string path;
    uint64_t size;
    int64_t used;
  };
  std::vector<File> files;
  uint64_t total = 0;
  auto endsWith = [](const std::string &name, const char *suffix) {
    const size_t sl = std::strlen(suffix);
    return name.size() > sl && name.compare(name.size() - sl, sl, suffix) == 0;
  };
  const time_t now = ::time(nullptr);
  while (dirent *de = ::readdir(d)) {
    std::string name = de->d_name;
    struct stat st {};
    std::string path = dir + "/" + name;
    if (name.size() > 1 && name[0] == '.' && name.find(".tmp.") != std::string::npos) {
      // a process killed while writing left it: removed once it is an hour old
      if (::stat(path.c_str(), &st) == 0 && st.st_mtime + 3600 < now)
        std::remove(path.c_str());
      continue;
    }
    if (!endsWith(name, kSuffix) && !endsWith(name, kHotSuffix)) // code and hotness records
      continue;
    if (::stat(path.c_str(), &st) != 0)
      continue;
    files.push_back({path, uint64_t(st.st_size), int64_t(st.st_mtime)});
    total += uint64_t(st.st_size);
  }
  ::closedir(d);
  if (total <= bound)
    return;
  std::sort(files.begin(), files.end(), [](const File &x, const File &y) {
    return x.used != y.used ? x.used < y.used : x.path < y.path;
  });
  for (const File &f : files) {
    if (total <= bound)
      break;
    if (std::remove(f.path.c_str()) == 0) // another process may have removed it already
      total -= f.size;
  }
}

} // namespace ptxsim::ptx::jit::cache
