// Dynamic parallelism in the executor: device-runtime builtins (hand-written PTX in the form
// nvcc emits for `kernel<<<...>>>` in device code) and the queue of device launches: order
// independent of host threads, tail launches last, nesting and pending-launch limits, errors
// per thread, faults in children, and children run through a timing model.

#include "ExecHarness.h"
#include "timing/gpu/Gpu.h"

#include <sstream>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

const char *kDecls = R"(
.extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2
  (.param .b64 f, .param .align 4 .b8 g[12], .param .align 4 .b8 b[12], .param .b32 s);
.extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(.param .b64 buf, .param .b64 stream);
.extern .func (.param .b32 func_retval0) __cudaCDP2GetLastError();
.extern .func (.param .b32 func_retval0) __cudaCDP2PeekAtLastError();
)";

/// `%rd<buf>` = cudaGetParameterBufferV2(kernel, (gx,1,1), (bx,1,1), 0)
std::string getBuffer(const std::string &buf, const std::string &kernelAddr, const std::string &gx,
                      const std::string &bx) {
  std::ostringstream os;
  os << "  {\n  .param .b64 p0; st.param.b64 [p0], " << kernelAddr << ";\n"
     << "  .param .align 4 .b8 p1[12]; st.param.b32 [p1], " << gx
     << "; st.param.b32 [p1+4], 1; st.param.b32 [p1+8], 1;\n"
     << "  .param .align 4 .b8 p2[12]; st.param.b32 [p2], " << bx
     << "; st.param.b32 [p2+4], 1; st.param.b32 [p2+8], 1;\n"
     << "  .param .b32 p3; st.param.b32 [p3], 0;\n  .param .b64 rv;\n"
     << "  call.uni (rv), __cudaCDP2GetParameterBufferV2, (p0, p1, p2, p3);\n"
     << "  ld.param.b64 " << buf << ", [rv];\n  }\n";
  return os.str();
}

/// `err` = cudaLaunchDeviceV2(buf, stream)
std::string launchDevice(const std::string &err, const std::string &buf, const std::string &stream) {
  return "  {\n  .param .b64 p0; st.param.b64 [p0], " + buf + ";\n  .param .b64 p1; st.param.b64 [p1], " +
         stream + ";\n  .param .b32 rv;\n  call.uni (rv), __cudaCDP2LaunchDeviceV2, (p0, p1);\n" +
         "  ld.param.b32 " + err + ", [rv];\n  }\n";
}

std::string lastError(const std::string &err, bool peek = false) {
  return std::string("  {\n  .param .b32 rv;\n  call.uni (rv), ") +
         (peek ? "__cudaCDP2PeekAtLastError" : "__cudaCDP2GetLastError") + ", ();\n  ld.param.b32 " +
         err + ", [rv];\n  }\n";
}

// child(seq, slot, counter): thread 0 takes the next number from *counter and stores it at
// seq[slot]; every thread adds one to seq[64 + slot].
const char *kChild = R"(
.visible .entry child(.param .u64 seq, .param .u32 slot, .param .u64 counter) {
  .reg .b32 %r<6>; .reg .b64 %rd<8>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [seq]; ld.param.u32 %r1, [slot]; ld.param.u64 %rd2, [counter];
  mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3;
  atom.global.add.u32 %r3, [%rd4+256], 1;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra DONE;
  atom.global.add.u32 %r3, [%rd2], 1;
  st.global.u32 [%rd4], %r3;
DONE:
  ret;
}
)";

/// Stores (seq, slot, counter) into the parameter buffer %rd9.
const char *kFillChildParams = "  st.u64 [%rd9], %rd1; st.u32 [%rd9+8], %r9; st.u64 [%rd9+16], %rd2;\n";

// Every thread with tid % 16 == 0 launches child<<<1, 8>>> with slot = global thread / 16.
std::string fanOutModule() {
  return ptxHeader() + kDecls + kChild + R"(
.visible .entry parent(.param .u64 seq, .param .u64 counter, .param .u64 errs) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [seq]; ld.param.u64 %rd2, [counter]; ld.param.u64 %rd3, [errs];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  and.b32 %r5, %r1, 15;
  setp.ne.u32 %p1, %r5, 0;
  @%p1 bra DONE;
  shr.u32 %r9, %r4, 4;
  mov.u64 %rd8, child;
)" + getBuffer("%rd9", "%rd8", "1", "8") +
         kFillChildParams + launchDevice("%r10", "%rd9", "0") + R"(
  mul.wide.u32 %rd4, %r9, 4; add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r10;
DONE:
  ret;
}
)";
}

std::vector<uint32_t> runFanOut(unsigned hostThreads) {
  ExecHarness h(hostThreads);
  EXPECT_TRUE(h.load(fanOutModule())) << h.errors;
  const uint32_t ctas = 6, threads = 64, launches = ctas * threads / 16;
  uint64_t seq = h.alloc(512 * 4), counter = h.alloc(4), errs = h.alloc(64 * 4);
  auto r = h.launch("parent", {ctas}, {threads}, {seq, counter, errs});
  EXPECT_TRUE(r.ok()) << r.message;
  auto s = h.read<uint32_t>(seq, 128);
  auto e = h.read<uint32_t>(errs, launches);
  for (uint32_t i = 0; i < launches; ++i) {
    EXPECT_EQ(e[i], 0u) << "launch " << i;
    EXPECT_EQ(s[64 + i], 8u) << "threads of child " << i;
  }
  EXPECT_EQ(h.read<uint32_t>(counter, 1)[0], launches);
  return std::vector<uint32_t>(s.begin(), s.begin() + launches);
}

TEST(ExecDeviceLaunch, ChildrenRunInCtaOrderWhateverTheHostThreads) {
  std::vector<uint32_t> one = runFanOut(1);
  // CTA order, then the order the launches were made inside each CTA
  for (uint32_t i = 0; i < one.size(); ++i)
    EXPECT_EQ(one[i], i) << "child " << i;
  EXPECT_EQ(runFanOut(2), one);
  EXPECT_EQ(runFanOut(4), one);
}

TEST(ExecDeviceLaunch, TailLaunchRunsAfterTheOtherChildren) {
  ExecHarness h;
  // thread 0 launches slot 0 into the tail stream first, then slots 1 and 2 into the NULL
  // stream, then slot 3 into cudaStreamFireAndForget
  std::string body = "  mov.u64 %rd8, child;\n";
  const char *streams[] = {"3", "0", "0", "4"};
  for (int slot = 0; slot < 4; ++slot)
    body += "  mov.u32 %r9, " + std::to_string(slot) + ";\n" + getBuffer("%rd9", "%rd8", "1", "1") +
            kFillChildParams + launchDevice("%r10", "%rd9", streams[slot]);
  ASSERT_TRUE(h.load(ptxHeader() + kDecls + kChild + R"(
.visible .entry parent(.param .u64 seq, .param .u64 counter) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [seq]; ld.param.u64 %rd2, [counter];
)" + body + "  ret;\n}\n")) << h.errors;
  uint64_t seq = h.alloc(512 * 4), counter = h.alloc(4);
  auto r = h.launch("parent", {1}, {1}, {seq, counter});
  ASSERT_TRUE(r.ok()) << r.message;
  auto s = h.read<uint32_t>(seq, 4);
  EXPECT_EQ(s, (std::vector<uint32_t>{3, 0, 1, 2}));
}

// rec(out, depth): out[depth] = depth + 1, then launches rec(out, depth + 1); the launch
// status goes to out[100 + depth].
std::string recursionModule() {
  return ptxHeader() + kDecls + R"(
.visible .entry rec(.param .u64 out, .param .u32 depth) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [depth];
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  add.s32 %r2, %r1, 1;
  st.global.u32 [%rd3], %r2;
  mov.u64 %rd8, rec;
)" + getBuffer("%rd9", "%rd8", "1", "1") +
         "  st.u64 [%rd9], %rd1; st.u32 [%rd9+8], %r2;\n" + launchDevice("%r10", "%rd9", "0") + R"(
  st.global.u32 [%rd3+400], %r10;
  ret;
}
)";
}

TEST(ExecDeviceLaunch, NestingStopsAtDepth24) {
  ExecHarness h;
  ASSERT_TRUE(h.load(recursionModule())) << h.errors;
  uint64_t out = h.alloc(256 * 4);
  auto r = h.launch("rec", {1}, {1}, {out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(out, 200);
  for (uint32_t d = 0; d <= 24; ++d)
    EXPECT_EQ(v[d], d + 1) << "depth " << d;
  EXPECT_EQ(v[25], 0u);
  for (uint32_t d = 0; d < 24; ++d)
    EXPECT_EQ(v[100 + d], 0u) << "launch from depth " << d;
  EXPECT_EQ(v[124], 65u); // cudaErrorLaunchMaxDepthExceeded
}

TEST(ExecDeviceLaunch, PendingLaunchLimit) {
  ExecHarness h;
  // one thread launches 8 children; each status goes to errs[i]
  std::string body = "  mov.u64 %rd8, child;\n  mov.u32 %r9, 0;\n";
  for (int i = 0; i < 8; ++i)
    body += getBuffer("%rd9", "%rd8", "1", "1") + kFillChildParams + launchDevice("%r10", "%rd9", "0") +
            "  st.global.u32 [%rd3+" + std::to_string(4 * i) + "], %r10;\n";
  ASSERT_TRUE(h.load(ptxHeader() + kDecls + kChild + R"(
.visible .entry parent(.param .u64 seq, .param .u64 counter, .param .u64 errs) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [seq]; ld.param.u64 %rd2, [counter]; ld.param.u64 %rd3, [errs];
)" + body + "  ret;\n}\n")) << h.errors;
  h.engine->setPendingLaunchLimit(5);
  uint64_t seq = h.alloc(512 * 4), counter = h.alloc(4), errs = h.alloc(8 * 4);
  auto r = h.launch("parent", {1}, {1}, {seq, counter, errs});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(errs, 8), (std::vector<uint32_t>{0, 0, 0, 0, 0, 69, 69, 69}));
  EXPECT_EQ(h.read<uint32_t>(counter, 1)[0], 5u);
}

TEST(ExecDeviceLaunch, BadLaunchesSetTheThreadsLastError) {
  ExecHarness h;
  // lane 0: a block of 2048 threads (null buffer, cudaErrorInvalidConfiguration), then
  // GetLastError twice; lane 1: a device function's address (cudaErrorInvalidDeviceFunction);
  // lane 2 only peeks. out[lane * 4 + k]
  ASSERT_TRUE(h.load(ptxHeader() + kDecls + R"(
.visible .func helper() { ret; }
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16; add.s64 %rd3, %rd1, %rd2;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r1, 1;
  mov.u64 %rd8, k;
  mov.u64 %rd7, helper;
  @%p2 mov.u64 %rd8, %rd7;
  mov.u32 %r2, 2048;
  @!%p1 mov.u32 %r2, 1;
  setp.eq.u32 %p3, %r1, 2;
  @%p3 bra PEEK;
)" + getBuffer("%rd9", "%rd8", "1", "%r2") + R"(
  cvt.u32.u64 %r3, %rd9;
  st.global.u32 [%rd3], %r3;
)" + lastError("%r4", true) + lastError("%r5") + lastError("%r6") + R"(
  st.global.u32 [%rd3+4], %r4; st.global.u32 [%rd3+8], %r5; st.global.u32 [%rd3+12], %r6;
  ret;
PEEK:
)" + lastError("%r4", true) + R"(
  st.global.u32 [%rd3+4], %r4;
  ret;
}
)")) << h.errors;
  uint64_t out = h.alloc(16 * 3);
  auto r = h.launch("k", {1}, {3}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(out, 12);
  EXPECT_EQ(v[0], 0u); // null buffer
  EXPECT_EQ(v[1], 9u); // peek
  EXPECT_EQ(v[2], 9u); // get
  EXPECT_EQ(v[3], 0u); // cleared
  EXPECT_EQ(v[4], 0u);
  EXPECT_EQ(v[5], 98u);
  EXPECT_EQ(v[9], 0u); // lane 2's own last error
}

TEST(ExecDeviceLaunch, FaultInAChildNamesItsLauncher) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kDecls + R"(
.visible .entry bad(.param .u64 p) {
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1+64], 1;
  ret;
}
.visible .entry parent(.param .u64 p) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [p];
  mov.u64 %rd8, bad;
)" + getBuffer("%rd9", "%rd8", "1", "1") +
                     "  st.u64 [%rd9], %rd1;\n" + launchDevice("%r10", "%rd9", "0") + "  ret;\n}\n"))
      << h.errors;
  uint64_t p = h.alloc(16);
  auto r = h.launch("parent", {1}, {1}, {p});
  EXPECT_EQ(r.status, ptx::exec::LaunchStatus::IllegalAddress);
  EXPECT_NE(r.message.find("kernel 'bad'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("launched from the device by kernel 'parent', nesting depth 1"),
            std::string::npos)
      << r.message;
}

TEST(ExecDeviceLaunch, ChildrenRunThroughTheTimingModel) {
  ExecHarness h;
  ASSERT_TRUE(h.load(fanOutModule())) << h.errors;
  timing::Gpu gpu(timing::TimingConfig{}, *h.engine);
  const ptx::exec::Kernel *k = h.engine->findKernel("parent", h.module);
  ASSERT_NE(k, nullptr);
  uint64_t seq = h.alloc(512 * 4), counter = h.alloc(4), errs = h.alloc(64 * 4);
  uint64_t params[3] = {seq, counter, errs};
  ptx::exec::LaunchParams p;
  p.kernel = k;
  p.grid = {2};
  p.block = {32};
  p.params = params;
  std::vector<timing::KernelTimingStats> stats;
  auto r = h.engine->launchTree(p, [&](const ptx::exec::LaunchParams &q) {
    stats.emplace_back();
    return gpu.runKernel(q, stats.back());
  });
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(stats.size(), 5u); // the parent and its 4 children
  EXPECT_EQ(stats[0].kernel, "parent");
  for (size_t i = 1; i < stats.size(); ++i) {
    EXPECT_EQ(stats[i].kernel, "child");
    EXPECT_GT(stats[i].cycles, 0u);
  }
  EXPECT_EQ(h.read<uint32_t>(seq, 4), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(ExecDeviceLaunch, PtxIsaLaunchApi) {
  // cudaGetParameterBuffer(alignment, size) + cudaLaunchDevice(func, buffer, grid, block,
  // shared, stream), as the PTX ISA documents them for hand-written PTX
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kChild + R"(
.extern .func (.param .b64 func_retval0) cudaGetParameterBuffer(.param .b64 a, .param .b64 s);
.extern .func (.param .b32 func_retval0) cudaLaunchDevice(.param .b64 f, .param .b64 buf,
  .param .align 4 .b8 g[12], .param .align 4 .b8 b[12], .param .b32 sh, .param .b64 st);
.visible .entry parent(.param .u64 seq, .param .u64 counter, .param .u64 errs) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [seq]; ld.param.u64 %rd2, [counter]; ld.param.u64 %rd3, [errs];
  mov.u32 %r9, 2;
  {
  .param .b64 p0; st.param.b64 [p0], 8;
  .param .b64 p1; st.param.b64 [p1], 24;
  .param .b64 rv;
  call.uni (rv), cudaGetParameterBuffer, (p0, p1);
  ld.param.b64 %rd9, [rv];
  }
)" + std::string(kFillChildParams) + R"(
  mov.u64 %rd8, child;
  {
  .param .b64 p0; st.param.b64 [p0], %rd8;
  .param .b64 p1; st.param.b64 [p1], %rd9;
  .param .align 4 .b8 p2[12]; st.param.b32 [p2], 1; st.param.b32 [p2+4], 1; st.param.b32 [p2+8], 1;
  .param .align 4 .b8 p3[12]; st.param.b32 [p3], 5; st.param.b32 [p3+4], 1; st.param.b32 [p3+8], 1;
  .param .b32 p4; st.param.b32 [p4], 0;
  .param .b64 p5; st.param.b64 [p5], 0;
  .param .b32 rv;
  call.uni (rv), cudaLaunchDevice, (p0, p1, p2, p3, p4, p5);
  ld.param.b32 %r10, [rv];
  }
  st.global.u32 [%rd3], %r10;
  ret;
}
)")) << h.errors;
  uint64_t seq = h.alloc(512 * 4), counter = h.alloc(4), errs = h.alloc(4);
  auto r = h.launch("parent", {1}, {1}, {seq, counter, errs});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(errs, 1)[0], 0u);
  EXPECT_EQ(h.read<uint32_t>(seq + 4 * 66, 1)[0], 5u); // the child's 5 threads ran in slot 2
}

TEST(ExecDeviceLaunch, DeviceRuntimeNamesBindToTheBuiltinsEvenWhenAModuleDefinesThem) {
  ExecHarness h;
  // a stand-in for NVIDIA's cudadevrt, loaded first
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .func (.param .b32 func_retval0) __cudaCDP2GetLastError() {
  st.param.b32 [func_retval0], 77;
  ret;
}
)", "cudadevrt.ptx")) << h.errors;
  ASSERT_TRUE(h.load(ptxHeader() + kDecls + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
)" + lastError("%r1") + R"(
  st.global.u32 [%rd1], %r1;
  ret;
}
)")) << h.errors;
  uint64_t out = h.alloc(4);
  std::vector<uint32_t> init{5};
  std::memcpy(reinterpret_cast<void *>(out), init.data(), 4);
  auto r = h.launch("k", {1}, {1}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], 0u);
}

TEST(ExecDeviceLaunch, ProgramsWithoutDeviceLaunchesReserveNothing) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + ".visible .entry k() { ret; }\n")) << h.errors;
  uint64_t before = h.engine->memory().bytesInUse();
  auto r = h.launch("k", {4}, {32}, {});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.deviceWork.empty());
  EXPECT_EQ(h.engine->memory().bytesInUse(), before);
}

} // namespace

namespace {
/// A kernel calling cudaGraphSetConditional(handle, 40 + %tid.x) from thread `who`, in the
/// form nvcc emits for the device-side call.
std::string setConditionalKernel(int who) {
  return ptxHeader() + R"(
.extern .func cudaGraphSetConditional(.param .b64 h, .param .b32 v);
.visible .entry k(.param .u64 handle) {
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [handle];
  mov.u32 %r1, %tid.x;
  setp.ne.s32 %p1, %r1, )" + std::to_string(who) + R"(;
  @%p1 bra DONE;
  add.s32 %r2, %r1, 40;
  {
  .param .b64 p0; st.param.b64 [p0], %rd1;
  .param .b32 p1; st.param.b32 [p1], %r2;
  call.uni cudaGraphSetConditional, (p0, p1);
  }
DONE:
  ret;
}
)";
}
} // namespace

TEST(ExecDeviceLaunch, GraphSetConditionalStoresToTheHandlesSlot) {
  ExecHarness h;
  ASSERT_TRUE(h.load(setConditionalKernel(3))) << h.errors;
  uint64_t slot = h.alloc(8);
  std::memset(reinterpret_cast<void *>(slot), 0, 8);
  auto r = h.launch("k", {1}, {32}, {slot});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(slot, 2), (std::vector<uint32_t>{43, 0}));
}

TEST(ExecDeviceLaunch, GraphSetConditionalWithABadHandleFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(setConditionalKernel(0))) << h.errors;
  auto r = h.launch("k", {1}, {32}, {uint64_t(12345)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("cudaGraphSetConditional"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("0x3039"), std::string::npos) << r.message;
}
