// The JIT's disk cache (ptx/jit/JitCache.h) and tiering (--jit auto): keys that change with the
// IR and the build, files that are written atomically and checked when read (a damaged or
// foreign file is reported and recompiled), the size bound, a second engine that links the
// first one's code instead of compiling it, and background compiles that switch engines at a
// launch boundary without changing a result.

#include "ptx/jit/JitCache.h"
#include "../unit/ExecHarness.h"
#include "ptx/jit/JitOps.h"
#include "ptx/jit/ObjectLoader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dlfcn.h>
#include <elf.h>
#include <sys/wait.h>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

namespace ptxsim::test {
namespace {

namespace cache = ptx::jit::cache;

/// A fresh directory under the test's temporary directory.
std::string tempDir(const std::string &name) {
  const char *t = std::getenv("TMPDIR");
  std::string dir = std::string(t && *t ? t : "/tmp") + "/ptxsim_jitcache_" + name + "_" +
                    std::to_string(::getpid());
  std::system(("rm -rf '" + dir + "'").c_str());
  return dir;
}

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
}

/// One kernel whose stores depend on `k` (a constant operand).
std::string kernelPtx(int k) {
  return ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  ld.global.u32 %r1, [%rd2];
  mad.lo.s32 %r2, %r0, )" +
         std::to_string(k) + R"(, %r1;
  add.s32 %r2, %r2, 1;
  st.global.u32 [%rd2], %r2;
  ret;
})";
}

const ptx::ir::Function &kernelFn(ExecHarness &h) {
  const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
  EXPECT_NE(k, nullptr);
  return *k->fn;
}

const void *anchor() { return reinterpret_cast<const void *>(&ptx::jit::describedOp); }

struct Counts {
  uint64_t functionsCompiled, functionsCached, backgroundCompiles, launchesJit, launchesInterpreted;
  uint64_t functionsLoaded, diffLaunches, diffMismatches;
};
Counts statsNow() {
  ptx::jit::Stats &s = ptx::jit::stats();
  std::lock_guard<std::mutex> lock(s.mu);
  Counts c;
  c.functionsCompiled = s.functionsCompiled;
  c.functionsCached = s.functionsCached;
  c.backgroundCompiles = s.backgroundCompiles;
  c.launchesJit = s.launchesJit;
  c.launchesInterpreted = s.launchesInterpreted;
  c.functionsLoaded = s.functionsLoaded;
  c.diffLaunches = s.diffLaunches;
  c.diffMismatches = s.diffMismatches;
  return c;
}

#define REQUIRE_JIT()                                                                              \
  do {                                                                                             \
    std::string why_;                                                                              \
    if (!ptx::jit::backend(why_))                                                                  \
      GTEST_SKIP() << why_;                                                                        \
  } while (0)

// The key is the same for the same IR in two engines, and changes with a constant operand, with
// the build and with the handler's identity (what the code generator reads).
TEST(JitCache, KeyFollowsTheIrAndTheBuild) {
  ExecHarness a, b, c;
  ASSERT_TRUE(a.load(kernelPtx(7))) << a.errors;
  ASSERT_TRUE(b.load(kernelPtx(7))) << b.errors;
  ASSERT_TRUE(c.load(kernelPtx(8))) << c.errors;
  const std::string ka = cache::key(kernelFn(a), anchor(), "build 1");
  EXPECT_EQ(ka.size(), 32u);
  EXPECT_EQ(ka, cache::key(kernelFn(b), anchor(), "build 1"));
  EXPECT_NE(ka, cache::key(kernelFn(c), anchor(), "build 1"));
  EXPECT_NE(ka, cache::key(kernelFn(a), anchor(), "build 2"));
  EXPECT_NE(ka, cache::key(kernelFn(a), reinterpret_cast<const char *>(anchor()) + 16, "build 1"));
  EXPECT_FALSE(cache::buildOf(anchor()).empty());
}

cache::Entry sampleEntry() {
  cache::Entry e;
  e.identity = "LLVM test; cpu";
  e.nativeInsts = 5, e.calledInsts = 2, e.branches = 1;
  e.entry = {1, 0, 1, 1};
  e.object = std::string("\x7f"
                         "ELF object bytes",
                         17);
  return e;
}

// A stored file loads back whole; another identity is a miss (recompiled silently); a damaged,
// truncated, foreign or misnamed file is reported with its path and never used.
TEST(JitCache, FilesAreCheckedWhenRead) {
  const std::string dir = tempDir("files");
  const std::string key(32, 'a');
  std::string err, why;
  ASSERT_TRUE(cache::store(dir, key, sampleEntry(), err)) << err;
  const std::string path = dir + "/" + key + ".jitobj";
  EXPECT_TRUE(cache::exists(dir, key));
  EXPECT_FALSE(cache::exists(dir, std::string(32, 'b')));
  cache::Entry got;
  ASSERT_EQ(cache::load(dir, key, "LLVM test; cpu", got, why), cache::Load::Hit) << why;
  EXPECT_EQ(got.object, sampleEntry().object);
  EXPECT_EQ(got.entry, sampleEntry().entry);
  EXPECT_EQ(got.nativeInsts, 5u);
  EXPECT_EQ(got.branches, 1u);
  EXPECT_EQ(cache::load(dir, key, "LLVM other; cpu", got, why), cache::Load::Miss);
  EXPECT_EQ(cache::load(dir, std::string(32, 'c'), "LLVM test; cpu", got, why), cache::Load::Miss);

  const std::string good = readFile(path);
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x40;
  writeFile(path, flipped);
  ASSERT_EQ(cache::load(dir, key, "LLVM test; cpu", got, why), cache::Load::Corrupt);
  EXPECT_NE(why.find(path), std::string::npos) << why;
  EXPECT_NE(why.find("checksum"), std::string::npos) << why;

  writeFile(path, good.substr(0, good.size() - 11));
  EXPECT_EQ(cache::load(dir, key, "LLVM test; cpu", got, why), cache::Load::Corrupt) << why;
  writeFile(path, "");
  EXPECT_EQ(cache::load(dir, key, "LLVM test; cpu", got, why), cache::Load::Corrupt) << why;
  writeFile(path, "#!/bin/sh\necho this is not a cache file, but long enough to be read\n");
  ASSERT_EQ(cache::load(dir, key, "LLVM test; cpu", got, why), cache::Load::Corrupt);
  EXPECT_NE(why.find("not a ptxsim JIT cache file"), std::string::npos) << why;

  // a valid file copied under another key's name
  const std::string other(32, 'd');
  writeFile(dir + "/" + other + ".jitobj", good);
  ASSERT_EQ(cache::load(dir, other, "LLVM test; cpu", got, why), cache::Load::Corrupt);
  EXPECT_NE(why.find("another function"), std::string::npos) << why;
  std::system(("rm -rf '" + dir + "'").c_str());
}

// The directory is trimmed to its bound, least recently used first; no temporary file is left.
TEST(JitCache, TrimRemovesLeastRecentlyUsed) {
  const std::string dir = tempDir("trim");
  std::string err;
  const char *keys[] = {"00000000000000000000000000000001", "00000000000000000000000000000002",
                        "00000000000000000000000000000003"};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(cache::store(dir, keys[i], sampleEntry(), err)) << err;
    struct utimbuf t {
      time_t(1000000 + 100 * i), time_t(1000000 + 100 * i)
    };
    ::utime((dir + "/" + keys[i] + ".jitobj").c_str(), &t);
  }
  const uint64_t one = readFile(dir + "/" + keys[0] + ".jitobj").size();
  cache::trim(dir, 2 * one);
  EXPECT_FALSE(cache::exists(dir, keys[0]));
  EXPECT_TRUE(cache::exists(dir, keys[1]));
  EXPECT_TRUE(cache::exists(dir, keys[2]));
  cache::trim(dir, 0);
  EXPECT_FALSE(cache::exists(dir, keys[2]));
  // no temporary files: only what store() renamed into place ever existed
  EXPECT_EQ(std::system(("test -z \"$(ls -A '" + dir + "')\"").c_str()), 0);
  std::system(("rm -rf '" + dir + "'").c_str());
}

/// Runs k(out) `launches` times on one CTA of 64 threads and returns out (each launch adds
/// tid*k+1).
std::vector<uint32_t> runKernel(ExecHarness &h, int launches) {
  uint64_t out = h.alloc(64 * 4);
  for (int i = 0; i < launches; ++i) {
    auto r = h.launch("k", {1}, {64}, {out});
    EXPECT_TRUE(r.ok()) << r.message;
  }
  return h.read<uint32_t>(out, 64);
}
std::vector<uint32_t> expected(int launches, uint32_t k = 7) {
  std::vector<uint32_t> v(64);
  for (uint32_t t = 0; t < 64; ++t)
    v[t] = uint32_t(launches) * (t * k + 1);
  return v;
}

/// An engine made with PTXSIM_JIT=`mode` and the cache in `dir` ("off": none).
struct ModeHarness : ExecHarness {
  static unsigned setMode(const char *mode, const std::string &dir, const char *hot) {
    setenv("PTXSIM_JIT", mode, 1);
    setenv("PTXSIM_JIT_CACHE", dir.c_str(), 1);
    if (hot)
      setenv("PTXSIM_JIT_HOT_INSTS", hot, 1);
    else
      unsetenv("PTXSIM_JIT_HOT_INSTS");
    return 2;
  }
  ModeHarness(const char *mode, const std::string &dir, const char *hot = nullptr)
      : ExecHarness(setMode(mode, dir, hot)) {}
};

// A second engine (as a second run of a program) links the code the first one compiled, with
// the same results; a damaged file is reported, recompiled and rewritten.
TEST(JitCache, SecondRunLinksFromTheCache) {
  REQUIRE_JIT();
  const std::string dir = tempDir("second");
  {
    ModeHarness h("on", dir);
    ASSERT_TRUE(h.load(kernelPtx(7))) << h.errors;
    const auto s0 = statsNow();
    EXPECT_EQ(runKernel(h, 3), expected(3));
    const auto s1 = statsNow();
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled + 1);
    EXPECT_EQ(s1.functionsCached, s0.functionsCached);
    EXPECT_EQ(s1.launchesJit, s0.launchesJit + 3);
  }
  std::string key;
  {
    ModeHarness h("on", dir);
    ASSERT_TRUE(h.load(kernelPtx(7))) << h.errors;
    key = cache::key(kernelFn(h), anchor(), cache::buildOf(anchor()));
    ASSERT_TRUE(cache::exists(dir, key));
    const auto s0 = statsNow();
    EXPECT_EQ(runKernel(h, 3), expected(3));
    const auto s1 = statsNow();
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled); // nothing compiled
    EXPECT_EQ(s1.functionsCached, s0.functionsCached + 1);
    EXPECT_EQ(s1.launchesJit, s0.launchesJit + 3);
  }
  {
    const std::string path = dir + "/" + key + ".jitobj";
    std::string bytes = readFile(path);
    bytes[bytes.size() - 20] ^= 1;
    writeFile(path, bytes);
    ModeHarness h("on", dir);
    ASSERT_TRUE(h.load(kernelPtx(7))) << h.errors;
    const auto s0 = statsNow();
    testing::internal::CaptureStderr();
    const auto v = runKernel(h, 2);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(v, expected(2));
    EXPECT_NE(err.find("warning: the JIT cache file " + path + " is damaged"), std::string::npos)
        << err;
    EXPECT_EQ(statsNow().functionsCompiled, s0.functionsCompiled + 1);
    std::string why;
    cache::Entry e;
    std::string id;
    ptx::jit::Backend *be = ptx::jit::backend(id);
    ASSERT_NE(be, nullptr);
    EXPECT_EQ(cache::load(dir, key, be->identity(), e, why), cache::Load::Hit) << why; // rewritten
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

// --jit auto: a kernel starts interpreted, becomes hot after PTXSIM_JIT_HOT_INSTS thread
// instructions, is compiled on the background thread and switched in at a launch boundary.
// Whenever the switch comes, every launch's result is the interpreter's (the launches go on
// until the switch, however long the compile takes).
TEST(JitCache, AutoSwitchesAtALaunchBoundaryWithTheSameResults) {
  REQUIRE_JIT();
  ModeHarness h("auto", "off", "1");
  ASSERT_TRUE(h.load(kernelPtx(7))) << h.errors;
  const auto s0 = statsNow();
  uint64_t out = h.alloc(64 * 4);
  int launches = 0;
  uint64_t insts = 0; // the same in every launch, interpreted or compiled
  for (; statsNow().launchesJit == s0.launchesJit; ++launches) {
    auto r = h.launch("k", {1}, {64}, {out});
    ASSERT_TRUE(r.ok()) << r.message;
    if (!insts)
      insts = r.threadInsts;
    EXPECT_EQ(r.threadInsts, insts);
    ASSERT_EQ(h.read<uint32_t>(out, 64), expected(launches + 1)) << "launch " << launches;
  }
  const auto s1 = statsNow();
  EXPECT_GE(launches, 2); // the first launch always runs interpreted
  EXPECT_EQ(s1.backgroundCompiles, s0.backgroundCompiles + 1);
  EXPECT_EQ(s1.launchesInterpreted, s0.launchesInterpreted + uint64_t(launches - 1));
  for (int i = 0; i < 3; ++i) {
    auto r = h.launch("k", {1}, {64}, {out});
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.threadInsts, insts);
  }
  EXPECT_EQ(h.read<uint32_t>(out, 64), expected(launches + 3));
  EXPECT_EQ(statsNow().launchesJit, s1.launchesJit + 3);
}

/// Fills `dir` with the code of kernelPtx(k) in a child process (which loads LLVM, so that this
/// one need not); false when the child could not compile it (no LLVM: the caller skips).
bool compileInChild(const std::string &dir, int k) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    bool ok = false;
    {
      std::string why;
      if (ptx::jit::backend(why)) {
        ModeHarness h("on", dir);
        const uint64_t before = statsNow().functionsCompiled; // (the parent's earlier tests count)
        ok = h.load(kernelPtx(k)) && runKernel(h, 1) == expected(1, uint32_t(k)) &&
             statsNow().functionsCompiled == before + 1;
      }
    }
    std::fflush(nullptr);
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  return pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
/// Whether this process has loaded the JIT module (and with it LLVM).
bool moduleLoaded() {
  const std::string m = ptx::jit::moduleFile();
  void *h = m.empty() ? nullptr : dlopen(m.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h)
    dlclose(h);
  return h != nullptr;
}

// Code in the cache runs without LLVM: the JIT's own loader maps the object file, nothing is
// compiled, the JIT module is not loaded, and differential mode finds the interpreter's bits;
// under --jit auto the cached code is mapped at the launch after the kernel got hot.
TEST(JitCache, CachedCodeRunsWithoutLlvm) {
  const std::string dir = tempDir("noload");
  if (ptx::jit::loader::identity(ptx::jit::moduleFile()).empty())
    GTEST_SKIP() << "no JIT module, or a host the loader does not run code on";
  if (!compileInChild(dir, 11))
    GTEST_SKIP() << "the JIT could not compile in a child process (no LLVM?)";
  const bool before = moduleLoaded(); // (true when an earlier test of this process loaded it)
  {
    ModeHarness h("diff", dir);
    ASSERT_TRUE(h.load(kernelPtx(11))) << h.errors;
    const auto s0 = statsNow();
    EXPECT_EQ(runKernel(h, 3), expected(3, 11));
    const auto s1 = statsNow();
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled); // nothing compiled
    EXPECT_EQ(s1.functionsLoaded, s0.functionsLoaded + 1); // mapped by the loader
    EXPECT_EQ(s1.functionsCached, s0.functionsCached + 1);
    EXPECT_EQ(s1.diffLaunches, s0.diffLaunches + 3);
    EXPECT_EQ(s1.diffMismatches, s0.diffMismatches);
  }
  {
    ModeHarness h("auto", dir, "1"); // hot after its first launch
    ASSERT_TRUE(h.load(kernelPtx(11))) << h.errors;
    const auto s0 = statsNow();
    EXPECT_EQ(runKernel(h, 3), expected(3, 11));
    const auto s1 = statsNow();
    EXPECT_EQ(s1.launchesJit, s0.launchesJit + 2); // from the second launch on
    EXPECT_EQ(s1.launchesInterpreted, s0.launchesInterpreted + 1);
    EXPECT_EQ(s1.backgroundCompiles, s0.backgroundCompiles);
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled);
    EXPECT_EQ(s1.functionsLoaded, s0.functionsLoaded + 1);
  }
  if (!before) {
    EXPECT_FALSE(moduleLoaded()) << "the JIT module was loaded although every function was cached";
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

// A cache file whose checksum holds but whose object the loader refuses (here: another machine
// in its ELF header) is named in a warning with the reason, then compiled again and rewritten.
TEST(JitCache, UnloadableObjectIsRejectedAndRecompiled) {
  REQUIRE_JIT();
  const std::string dir = tempDir("unloadable");
  const std::string lid = ptx::jit::loader::identity(ptx::jit::moduleFile());
  if (lid.empty())
    GTEST_SKIP() << "no JIT module, or a host the loader does not run code on";
  std::string key;
  {
    ModeHarness h("on", dir);
    ASSERT_TRUE(h.load(kernelPtx(13))) << h.errors;
    EXPECT_EQ(runKernel(h, 1), expected(1, 13));
    key = cache::key(kernelFn(h), anchor(), cache::buildOf(anchor()));
  }
  cache::Entry e;
  std::string why, err;
  ASSERT_EQ(cache::load(dir, key, std::string(), e, why, lid), cache::Load::Hit) << why;
  ASSERT_GT(e.object.size(), sizeof(Elf64_Ehdr));
  e.object[offsetof(Elf64_Ehdr, e_machine)] = char(EM_AARCH64);
  ASSERT_TRUE(cache::store(dir, key, e, err)) << err;
  ModeHarness h("on", dir);
  ASSERT_TRUE(h.load(kernelPtx(13))) << h.errors;
  const auto s0 = statsNow();
  testing::internal::CaptureStderr();
  const auto v = runKernel(h, 2);
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(v, expected(2, 13));
  EXPECT_NE(out.find("warning: the JIT cache's code of 'k' (" + dir + "/" + key +
                     ".jitobj) cannot be loaded: not a relocatable x86-64 object"),
            std::string::npos)
      << out;
  const auto s1 = statsNow();
  EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled + 1);
  EXPECT_EQ(s1.functionsLoaded, s0.functionsLoaded);
  cache::Entry again;
  ASSERT_EQ(cache::load(dir, key, std::string(), again, why, lid), cache::Load::Hit) << why;
  EXPECT_EQ(uint8_t(again.object[offsetof(Elf64_Ehdr, e_machine)]), EM_X86_64); // rewritten
  std::system(("rm -rf '" + dir + "'").c_str());
}

// The loader names what it refuses: not ELF, a truncated section table, a relocation type it
// does not apply, a missing entry point; and maps a real object, whose code runs.
TEST(JitCache, LoaderNamesWhatItRefuses) {
  REQUIRE_JIT();
  const std::string dir = tempDir("loader");
  const std::string lid = ptx::jit::loader::identity(ptx::jit::moduleFile());
  if (lid.empty())
    GTEST_SKIP() << "no JIT module, or a host the loader does not run code on";
  std::string key;
  {
    ModeHarness h("on", dir);
    ASSERT_TRUE(h.load(kernelPtx(17))) << h.errors;
    runKernel(h, 1);
    key = cache::key(kernelFn(h), anchor(), cache::buildOf(anchor()));
  }
  cache::Entry e;
  std::string why;
  ASSERT_EQ(cache::load(dir, key, std::string(), e, why, lid), cache::Load::Hit) << why;
  std::string err;
  EXPECT_NE(ptx::jit::loader::load(e.object, ptx::jit::kRunSymbol, err), nullptr) << err;
  EXPECT_EQ(ptx::jit::loader::load("", ptx::jit::kRunSymbol, err), nullptr);
  EXPECT_EQ(err, "not a 64-bit little-endian ELF object");
  EXPECT_EQ(ptx::jit::loader::load(e.object.substr(0, 200), ptx::jit::kRunSymbol, err), nullptr);
  EXPECT_EQ(err, "its section table lies outside the object");
  EXPECT_EQ(ptx::jit::loader::load(e.object, "no_such_function", err), nullptr);
  EXPECT_EQ(err, "the object defines no function 'no_such_function'");
  // the first relocation of .text made a GOT-relative one (R_X86_64_GOTPCREL, 9)
  std::string obj = e.object;
  const auto *eh = reinterpret_cast<const Elf64_Ehdr *>(obj.data());
  bool changed = false;
  for (unsigned i = 1; i < eh->e_shnum && !changed; ++i) {
    auto *sh = reinterpret_cast<Elf64_Shdr *>(&obj[eh->e_shoff + i * sizeof(Elf64_Shdr)]);
    if (sh->sh_type != SHT_RELA || sh->sh_size < sizeof(Elf64_Rela))
      continue;
    auto *rel = reinterpret_cast<Elf64_Rela *>(&obj[sh->sh_offset]);
    rel->r_info = ELF64_R_INFO(ELF64_R_SYM(rel->r_info), R_X86_64_GOTPCREL);
    changed = true;
  }
  ASSERT_TRUE(changed);
  EXPECT_EQ(ptx::jit::loader::load(obj, ptx::jit::kRunSymbol, err), nullptr);
  EXPECT_NE(err.find("relocation type 9 is not one the loader applies"), std::string::npos) << err;
  // damage anywhere in the headers and tables (the cache's checksum normally catches it first):
  // refused with a reason or mapped, never a crash (the code is not run)
  std::mt19937 rng(7);
  const size_t tables = std::min<size_t>(e.object.size(), 4096);
  for (int i = 0; i < 1000; ++i) {
    std::string bad = e.object;
    const size_t at = i % 2 ? rng() % sizeof(Elf64_Ehdr) : eh->e_shoff + rng() % (bad.size() - eh->e_shoff);
    bad[at] = char(rng());
    bad[rng() % tables] ^= char(1u << (rng() % 8));
    err.clear();
    if (!ptx::jit::loader::load(bad, ptx::jit::kRunSymbol, err)) {
      EXPECT_FALSE(err.empty());
    }
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

// --jit auto with the kernel's code in the cache in a form only LLVM may link (made on a host of
// another loader identity): once the kernel is hot, the loader declines it at the next launch,
// and the background thread links it with LLVM (nothing compiled), switched in at a launch.
TEST(JitCache, AutoLinksCachedCodeWhenHot) {
  REQUIRE_JIT();
  const std::string dir = tempDir("auto");
  std::string key;
  {
    ModeHarness h("on", dir);
    ASSERT_TRUE(h.load(kernelPtx(9))) << h.errors;
    runKernel(h, 1);
    key = cache::key(kernelFn(h), anchor(), cache::buildOf(anchor()));
  }
  {
    cache::Entry e;
    std::string why, err, id;
    ptx::jit::Backend *be = ptx::jit::backend(id);
    ASSERT_NE(be, nullptr);
    ASSERT_EQ(cache::load(dir, key, be->identity(), e, why), cache::Load::Hit) << why;
    e.loaderIdentity = "loader 1; another host";
    ASSERT_TRUE(cache::store(dir, key, e, err)) << err;
  }
  {
    ModeHarness h("auto", dir, "1");
    ASSERT_TRUE(h.load(kernelPtx(9))) << h.errors;
    const auto s0 = statsNow();
    uint64_t out = h.alloc(64 * 4);
    int launches = 0;
    for (; statsNow().launchesJit == s0.launchesJit; ++launches) {
      ASSERT_TRUE(h.launch("k", {1}, {64}, {out}).ok());
      ASSERT_EQ(h.read<uint32_t>(out, 64), expected(launches + 1, 9)) << "launch " << launches;
    }
    const auto s1 = statsNow();
    EXPECT_GE(launches, 2); // the first launch, and the one where the loader declined it
    EXPECT_EQ(s1.launchesInterpreted, s0.launchesInterpreted + uint64_t(launches - 1));
    EXPECT_EQ(s1.functionsCached, s0.functionsCached + 1);
    EXPECT_EQ(s1.functionsLoaded, s0.functionsLoaded); // linked by LLVM
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled);
    EXPECT_EQ(s1.backgroundCompiles, s0.backgroundCompiles + 1);
    EXPECT_EQ(h.read<uint32_t>(out, 64), expected(launches, 9));
  } // (the engine writes its hotness record here, before the directory goes)
  std::system(("rm -rf '" + dir + "'").c_str());
}

/// Waits until `path` exists (a background or detached compile writing it); false after `limit`
/// seconds, far beyond any compile of these small kernels (a liveness bound, not a timing check).
bool waitForFile(const std::string &path, int limit = 300) {
  for (int i = 0; i < limit * 100; ++i) {
    if (::access(path.c_str(), R_OK) == 0)
      return true;
    ::usleep(10000);
  }
  return false;
}

uint64_t earlyNow() {
  ptx::jit::Stats &s = ptx::jit::stats();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.kernelsEarly;
}
uint64_t deferredNow() {
  ptx::jit::Stats &s = ptx::jit::stats();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.kernelsDeferred;
}

// --jit auto remembers across runs how hot a kernel was (`<key>.jithot` beside its code): a run
// after one where the kernel got hot switches at its first launch, to the cached code at once,
// or, when the code is not in the cache, with the background compile started before that launch
// (here: by a bound the first launch alone would not reach).
TEST(JitCache, HotnessRecordSwitchesTheNextRunAtItsFirstLaunch) {
  REQUIRE_JIT();
  const std::string dir = tempDir("hotness");
  std::string key;
  {
    ModeHarness h("auto", dir, "1000"); // 640 thread instructions a launch: hot after 2
    ASSERT_TRUE(h.load(kernelPtx(17))) << h.errors;
    key = cache::key(kernelFn(h), anchor(), cache::buildOf(anchor()));
    const auto s0 = statsNow();
    uint64_t out = h.alloc(64 * 4);
    int launches = 0;
    for (; statsNow().launchesJit == s0.launchesJit; ++launches)
      ASSERT_TRUE(h.launch("k", {1}, {64}, {out}).ok());
    EXPECT_GE(launches, 3); // two interpreted, then the compiled code
    EXPECT_EQ(h.read<uint32_t>(out, 64), expected(launches, 17));
  } // the engine's end writes the record
  cache::Hotness rec;
  std::string why;
  ASSERT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Hit) << why;
  EXPECT_EQ(rec.runs, 1u);
  EXPECT_GE(rec.lastInsts, 3 * 640u);
  EXPECT_EQ(rec.totalInsts, rec.lastInsts);
  {
    ModeHarness h("auto", dir, "1000");
    ASSERT_TRUE(h.load(kernelPtx(17))) << h.errors;
    const auto s0 = statsNow();
    const uint64_t e0 = earlyNow();
    EXPECT_EQ(runKernel(h, 1), expected(1, 17));
    const auto s1 = statsNow();
    EXPECT_EQ(earlyNow(), e0 + 1);
    EXPECT_EQ(s1.launchesJit, s0.launchesJit + 1); // its first launch ran the cached code
    EXPECT_EQ(s1.launchesInterpreted, s0.launchesInterpreted);
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled);
  }
  ASSERT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Hit) << why;
  EXPECT_EQ(rec.runs, 2u);
  EXPECT_EQ(rec.lastInsts, 640u);
  EXPECT_EQ(std::remove((dir + "/" + key + ".jitobj").c_str()), 0);
  {
    // the record (640 in the last run) against a bound of 500: hot before the first launch; the
    // bound alone would wait for that launch to end
    ModeHarness h("auto", dir, "500");
    ASSERT_TRUE(h.load(kernelPtx(17))) << h.errors;
    const auto s0 = statsNow();
    const uint64_t e0 = earlyNow();
    uint64_t out = h.alloc(64 * 4);
    ASSERT_TRUE(h.launch("k", {1}, {64}, {out}).ok());
    EXPECT_EQ(earlyNow(), e0 + 1);
    ASSERT_TRUE(waitForFile(dir + "/" + key + ".jitobj")) << "the background compile wrote nothing";
    // the stored code comes just before the job is marked done: wait for the switch
    int launches = 1;
    for (; statsNow().launchesJit == s0.launchesJit; ++launches)
      ASSERT_TRUE(h.launch("k", {1}, {64}, {out}).ok());
    const auto s1 = statsNow();
    EXPECT_EQ(s1.backgroundCompiles, s0.backgroundCompiles + 1);
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled + 1);
    EXPECT_EQ(h.read<uint32_t>(out, 64), expected(launches, 17));
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

// A damaged hotness record is named in a warning and ignored (the kernel starts interpreted, as
// without one), and the run's own record replaces it.
TEST(JitCache, DamagedHotnessRecordIsIgnoredWithAWarning) {
  REQUIRE_JIT();
  const std::string dir = tempDir("badhot");
  const char *bad[] = {
      "garbage\n",
      "ptxsim-jit-hotness 1\nruns 0 last 5 total 5\n",     // no run
      "ptxsim-jit-hotness 1\nruns 2 last 9 total 5\n",     // last above total
      "ptxsim-jit-hotness 1\nruns 2 last 5 total 9\nzz\n", // trailing bytes
      "ptxsim-jit-hotness 1\nruns 2 last 5",               // truncated
      "ptxsim-jit-hotness 2\nruns 2 last 5 total 9\n",     // another version
  };
  for (const char *text : bad) {
    std::string key, path;
    {
      ModeHarness probe("off", dir);
      ASSERT_TRUE(probe.load(kernelPtx(19))) << probe.errors;
      key = cache::key(kernelFn(probe), anchor(), cache::buildOf(anchor()));
    }
    path = dir + "/" + key + ".jithot";
    std::system(("mkdir -p '" + dir + "'").c_str());
    writeFile(path, text);
    cache::Hotness rec;
    std::string why;
    ASSERT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Corrupt) << text;
    EXPECT_NE(why.find("the JIT hotness record " + path), std::string::npos) << why;
    EXPECT_NE(why.find("; it is ignored"), std::string::npos) << why;
    {
      ModeHarness h("auto", dir, "100");
      ASSERT_TRUE(h.load(kernelPtx(19))) << h.errors;
      const auto s0 = statsNow();
      const uint64_t e0 = earlyNow();
      testing::internal::CaptureStderr();
      const auto v = runKernel(h, 1);
      const std::string err = testing::internal::GetCapturedStderr();
      EXPECT_EQ(v, expected(1, 19));
      EXPECT_EQ(earlyNow(), e0); // ignored: nothing early
      EXPECT_EQ(statsNow().launchesInterpreted, s0.launchesInterpreted + 1);
      // (warned once per process and text: the first damaged file's warning is the one seen)
      if (text == bad[0]) {
        EXPECT_NE(err.find("warning: the JIT hotness record " + path + " is not a ptxsim JIT hotness record; it is ignored"),
                  std::string::npos)
            << err;
      }
    }
    ASSERT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Hit) << why; // rewritten
    EXPECT_EQ(rec.runs, 1u);
    EXPECT_EQ(rec.lastInsts, 640u);
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

// A kernel that never gets hot within a run, but whose instructions over the runs its record
// remembers pass the compile's estimate (PTXSIM_JIT_DEFER_INSTS here), is compiled at the end of
// the run in a detached process that the run does not wait for; the next run finds its code. A
// compile another process has claimed is not started again.
TEST(JitCache, DetachedCompileFillsTheCacheForTheNextRun) {
  REQUIRE_JIT();
  const std::string dir = tempDir("detached");
  setenv("PTXSIM_JIT_DEFER_INSTS", "1000", 1);
  setenv("PTXSIM_JIT_COMPILE_LATER", "1", 1); // opt-in
  std::string key;
  {
    ModeHarness h("auto", dir, "100000000"); // never hot within the run
    ASSERT_TRUE(h.load(kernelPtx(23))) << h.errors;
    key = cache::key(kernelFn(h), anchor(), cache::buildOf(anchor()));
    const auto s0 = statsNow();
    EXPECT_EQ(runKernel(h, 1), expected(1, 23)); // 640: below 1000, no record yet
    EXPECT_EQ(statsNow().launchesInterpreted, s0.launchesInterpreted + 1);
  }
  cache::Hotness rec;
  std::string why;
  EXPECT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Miss);
  // another process's compile of it under way (its claim): not started again
  std::system(("mkdir -p '" + dir + "'").c_str());
  const std::string busy = dir + "/" + key + ".jitbusy";
  writeFile(busy, "");
  {
    ModeHarness h("auto", dir, "100000000");
    ASSERT_TRUE(h.load(kernelPtx(23))) << h.errors;
    const uint64_t d0 = deferredNow();
    EXPECT_EQ(runKernel(h, 2), expected(2, 23)); // 1,280
    h.engine.reset(); // the end of the run: the record, no compile
    EXPECT_EQ(deferredNow(), d0);
  }
  ASSERT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Hit) << why;
  EXPECT_EQ(rec.lastInsts, 1280u);
  EXPECT_EQ(std::remove(busy.c_str()), 0);
  {
    ModeHarness h("auto", dir, "100000000");
    ASSERT_TRUE(h.load(kernelPtx(23))) << h.errors;
    const uint64_t d0 = deferredNow();
    EXPECT_EQ(runKernel(h, 1), expected(1, 23));
    EXPECT_EQ(deferredNow(), d0);
    h.engine.reset(); // the end of the run: record, and the detached compile
    EXPECT_EQ(deferredNow(), d0 + 1);
  }
  ASSERT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Hit) << why;
  EXPECT_EQ(rec.runs, 2u);
  EXPECT_EQ(rec.lastInsts, 640u);
  EXPECT_EQ(rec.totalInsts, 1920u);
  ASSERT_TRUE(waitForFile(dir + "/" + key + ".jitobj")) << "the detached compile wrote nothing";
  unsetenv("PTXSIM_JIT_DEFER_INSTS");
  unsetenv("PTXSIM_JIT_COMPILE_LATER");
  for (int i = 0; i < 30000 && ::access(busy.c_str(), F_OK) == 0; ++i) // its claim goes at its end
    ::usleep(10000);
  EXPECT_NE(::access(busy.c_str(), F_OK), 0) << "the detached compile left its claim";
  {
    ModeHarness h("on", dir);
    ASSERT_TRUE(h.load(kernelPtx(23))) << h.errors;
    const auto s0 = statsNow();
    EXPECT_EQ(runKernel(h, 2), expected(2, 23));
    const auto s1 = statsNow();
    EXPECT_EQ(s1.functionsCompiled, s0.functionsCompiled); // the detached process's code
    EXPECT_EQ(s1.functionsCached, s0.functionsCached + 1);
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

// Without PTXSIM_JIT_COMPILE_LATER=1 a run that passes the estimate keeps its record but leaves
// no process behind it: nothing is compiled for later, and no claim or code appears.
TEST(JitCache, CompileLaterIsOptIn) {
  REQUIRE_JIT();
  const std::string dir = tempDir("later_off");
  setenv("PTXSIM_JIT_DEFER_INSTS", "1000", 1);
  for (const char *v : {"", "0", "yes"}) { // unset, off, and a value it warns about
    if (*v)
      setenv("PTXSIM_JIT_COMPILE_LATER", v, 1);
    else
      unsetenv("PTXSIM_JIT_COMPILE_LATER");
    std::string key;
    {
      ModeHarness h("auto", dir, "100000000"); // never hot within the run
      ASSERT_TRUE(h.load(kernelPtx(23))) << h.errors;
      key = cache::key(kernelFn(h), anchor(), cache::buildOf(anchor()));
      const uint64_t d0 = deferredNow();
      EXPECT_EQ(runKernel(h, 2), expected(2, 23)); // 1,280 instructions: past the estimate
      h.engine.reset(); // the end of the run: the record only
      EXPECT_EQ(deferredNow(), d0) << "PTXSIM_JIT_COMPILE_LATER='" << v << "'";
    }
    cache::Hotness rec;
    std::string why;
    ASSERT_EQ(cache::loadHotness(dir, key, rec, why), cache::Load::Hit) << why;
    EXPECT_EQ(rec.lastInsts, 1280u);
    EXPECT_NE(::access((dir + "/" + key + ".jitbusy").c_str(), F_OK), 0);
    EXPECT_NE(::access((dir + "/" + key + ".jitobj").c_str(), F_OK), 0);
  }
  unsetenv("PTXSIM_JIT_DEFER_INSTS");
  unsetenv("PTXSIM_JIT_COMPILE_LATER");
  std::system(("rm -rf '" + dir + "'").c_str());
}

} // namespace
} // namespace ptxsim::test
