#include "ptx/exec/Exec.h"
#include "ptx/jit/JitOps.h"

#include "ptx/exec/DevicePrintf.h"
#include "ptx/exec/Program.h"
#include "ptx/sema/OpcodeTable.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace ptxsim::ptx::exec {

// --- faults -------------------------------------------------------------------------------------

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

void reportPartialWarp(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t m, const char *what) {
  ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(m),
            std::string(what) + " executed by " + std::to_string(__builtin_popcount(m)) +
                " of 32 lanes of the warp (active mask " + hex(m) +
                "); .sync.aligned requires every lane to execute it together");
}

/// ", pc 12 of function 'f', at file.ptx:40:5 (app.cu:17)": where `in` of `f` is, for messages
/// (the function when it is not `kernel`, the source line when the PTX has .loc lines).
std::string instPlace(const Program *prog, const ir::Function *kernel, const ir::Function &f,
                      const ir::Inst &in) {
  uint32_t pc = uint32_t(&in - f.code.data());
  std::string msg = ", pc " + std::to_string(pc);
  if (&f != kernel)
    msg += " of function '" + f.name + "'";
  if (in.line)
    msg += ", at " + f.fileName + ":" + std::to_string(in.line) + ":" + std::to_string(in.col);
  if (in.debugLoc >= 0 && f.ast && size_t(in.debugLoc) < f.ast->debugLocs.size()) {
    const DebugLoc &d = f.ast->debugLocs[in.debugLoc];
    // the module's .file table lives in the loaded module; find it through the program
    std::string file;
    if (prog)
      for (const auto &m : prog->modules())
        if (m->fileName == f.fileName) {
          file = std::string(m->ast->debugFileName(d.file));
          break;
        }
    if (!file.empty() || d.line)
      msg += " (" + (file.empty() ? std::string("?") : file) + ":" + std::to_string(d.line) + ")";
  }
  return msg;
}

void ExecCtx::fault(FaultKind k, const Warp &w, const ir::Inst &in, unsigned lane,
                    const std::string &what) {
  if (faultKind != FaultKind::None)
    return;
  faultKind = k;
  const Cta &c = *w.cta;
  const ir::Function &f = *w.fn;
  std::string kname = grid && grid->kernel ? grid->kernel->name : f.name;
  std::string msg = "kernel '" + kname + "': " + what;
  msg += " in block (" + std::to_string(c.ctaid[0]) + "," + std::to_string(c.ctaid[1]) + "," +
         std::to_string(c.ctaid[2]) + "), thread (" + std::to_string(w.tid[0][lane]) + "," +
         std::to_string(w.tid[1][lane]) + "," + std::to_string(w.tid[2][lane]) + ")";
  msg += instPlace(prog, grid ? grid->kernel : nullptr, f, in);
  faultMsg = msg;
}

std::string warpPlaceText(const Program *prog, const Grid &g, const Warp &w) {
  const Cta &c = *w.cta;
  std::string s = "block (" + std::to_string(c.ctaid[0]) + "," + std::to_string(c.ctaid[1]) +
                  "," + std::to_string(c.ctaid[2]) + ") warp " + std::to_string(w.id);
  auto place = [&](const ir::Function *fn, const base::HugeVector<SimtEntry> &stack, uint32_t lanes) {
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%08x", lanes);
    std::string t = std::string(" lanes ") + mask;
    if (!fn || stack.empty())
      return t + " (no position)";
    uint32_t pc = stack.back().pc;
    if (pc >= fn->code.size())
      return t + ", pc " + std::to_string(pc);
    const ir::Inst &in = fn->code[pc];
    return t + instPlace(prog, g.kernel, *fn, in) + " " + std::string(opcodeInfo(in.opcode).name);
  };
  if (w.state == WarpState::AtBarrier)
    s += " (waiting at a barrier)";
  s += ":";
  s += place(w.fn, w.stack, w.stack.empty() ? 0 : w.stack.back().mask);
  for (const ThreadGroup &gr : w.groups) // (independent thread scheduling: the parked lanes)
    s += ";" + place(gr.fn, gr.stack, gr.lanes()) +
         (gr.wait == GroupWait::WarpSync ? " (waiting at a warp-synchronous instruction)"
          : gr.wait == GroupWait::CtaBar ? " (waiting at a barrier)"
                                         : "");
  return s;
}

/// IPDOM mode: a warp took the backward branch at `pc` with all its active lanes while other
/// lanes wait to reconverge, 2^24 times in a row, with its registers changing (a loop that keeps
/// them unchanged is reported as a livelock earlier). Say once per process that it may wait for
/// one of the waiting lanes, which needs independent thread scheduling.
[[gnu::cold, gnu::noinline]] void warnDivergentLoop(ExecCtx &ctx, Warp &w, const ir::Inst &in) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true))
    return;
  const Cta &c = *w.cta;
  const ir::Function &f = *w.fn;
  std::string kname = ctx.grid && ctx.grid->kernel ? ctx.grid->kernel->name : f.name;
  std::fprintf(stderr,
               "ptxsim: warning: kernel '%s', block (%u,%u,%u), warp %u has taken the loop branch "
               "at %s:%u %llu times in a row while other lanes of the warp wait to reconverge. If "
               "the loop waits for one of those lanes, it never ends with --simt ipdom (pre-Volta "
               "reconvergence at immediate post-dominators); --simt its models independent thread "
               "scheduling (docs/executor.md).\n",
               kname.c_str(), c.ctaid[0], c.ctaid[1], c.ctaid[2], w.id, f.fileName.c_str(), in.line,
               (unsigned long long)(uint64_t(1) << 24));
}

// --- addresses ------------------------------------------------------------------------------------

void computeAddresses(const Warp &w, const ir::Inst &in, uint32_t mask) {
  uint64_t *a = const_cast<uint64_t *>(w.addr);
  uint64_t off = (uint64_t)in.off;
  switch (in.abase) {
  case ir::AddrBase::Reg: {
    const uint64_t *r = w.src(in.src[0]);
    if (in.addr32)
      forLanes(mask, [&](unsigned l) { a[l] = (uint32_t)(r[l] + off); });
    else
      forLanes(mask, [&](unsigned l) { a[l] = r[l] + off; });
    return;
  }
  case ir::AddrBase::None:
    forLanes(mask, [&](unsigned l) { a[l] = off; });
    return;
  case ir::AddrBase::Frame:
    forLanes(mask, [&](unsigned l) { a[l] = w.frameBase + off; });
    return;
  case ir::AddrBase::DynShared:
    forLanes(mask, [&](unsigned l) { a[l] = w.cta->dynBase + off; });
    return;
  case ir::AddrBase::KParam:
    forLanes(mask, [&](unsigned l) { a[l] = w.cta->grid->paramAddr + off; });
    return;
  }
}

namespace {
const char *spaceWord(ir::MemSpace s) {
  switch (s) {
  case ir::MemSpace::Global: return "global";
  case ir::MemSpace::Shared: return "shared";
  case ir::MemSpace::Local: return "local";
  case ir::MemSpace::Const: return "constant";
  case ir::MemSpace::Generic: return "generic";
  case ir::MemSpace::Param: return "parameter";
  }
  return "?";
}

/// Why a device-memory access is refused.
enum class GlobalCheck : uint8_t { Ok, OutOfBounds, ReadOnly };

/// checkGlobalWhy's path when the most recently used allocation does not hold the access.
__attribute__((noinline)) GlobalCheck checkGlobalSlow(ExecCtx &ctx, uint64_t a, unsigned n,
                                                      bool write) {
  const Allocation *al = nullptr;
  for (unsigned i = 0; i < ExecCtx::kAllocCache && !al; ++i) {
    const Allocation &r = ctx.recentAllocs[i];
    if (a - r.base < r.size && r.size - (a - r.base) >= n) {
      al = &r;
      ctx.recentHit = i;
    }
  }
  if (!al) {
    Allocation &slot = ctx.recentAllocs[ctx.recentNext];
    if (!ctx.mem->lookup(a, slot) || slot.size - (a - slot.base) < n) {
      slot = Allocation{};
      return GlobalCheck::OutOfBounds;
    }
    ctx.recentHit = ctx.recentNext;
    ctx.recentNext = (ctx.recentNext + 1) % ExecCtx::kAllocCache;
    al = &slot;
  }
  // `__constant__` variables are read-only in kernels (kernels may only read them)
  return write && al->kind == AllocKind::Const ? GlobalCheck::ReadOnly : GlobalCheck::Ok;
}

/// Whether an access of `n` bytes at device address `a` is allowed: one compare against the
/// allocation the context used last in the common case.
inline __attribute__((always_inline)) GlobalCheck checkGlobalWhy(ExecCtx &ctx, uint64_t a,
                                                                 unsigned n, bool write) {
  const Allocation &r = ctx.recentAllocs[ctx.recentHit];
  if (__builtin_expect(a - r.base < r.size && r.size - (a - r.base) >= n, 1))
    return write && r.kind == AllocKind::Const ? GlobalCheck::ReadOnly : GlobalCheck::Ok;
  return checkGlobalSlow(ctx, a, n, write);
}

bool checkGlobal(ExecCtx &ctx, uint64_t a, unsigned n, bool write) {
  return checkGlobalWhy(ctx, a, n, write) == GlobalCheck::Ok;
}
} // namespace

namespace {
/// The cached allocation that holds [lo, lo + span) whole, or null (no lookup: the per-lane path
/// fills the cache).
inline const Allocation *cachedAllocation(ExecCtx &ctx, uint64_t lo, uint64_t span) {
  const Allocation &h = ctx.recentAllocs[ctx.recentHit];
  if (__builtin_expect(lo - h.base < h.size && h.size - (lo - h.base) >= span, 1))
    return &h;
  for (unsigned i = 0; i < ExecCtx::kAllocCache; ++i) {
    const Allocation &r = ctx.recentAllocs[i];
    if (lo - r.base < r.size && r.size - (lo - r.base) >= span) {
      ctx.recentHit = i;
      return &r;
    }
  }
  return nullptr;
}

/// The byte range [lo, hi + bytes) the lanes touch, and the OR of their addresses (alignment).
struct LaneRange {
  uint64_t lo, hi, bits;
};

/// Sets `r` from a full warp's pass over its addresses: `diff` is the OR of each lane's address
/// XOR its coalesced position (a[0] + l * bytes), `same` the OR of each XOR a[0]. False when the
/// lanes are neither coalesced nor all at one address (the caller then takes the min/max pass).
inline bool fullWarpRange(uint64_t a0, uint64_t diff, uint64_t same, unsigned bytes,
                          LaneRange &r, WarpAccess &acc) {
  if (diff == 0) {
    acc.contiguous = true;
    r = {a0, a0 + (uint64_t)(kWarpSize - 1) * bytes, a0};
    return true;
  }
  if (same == 0) {
    r = {a0, a0, a0};
    return true;
  }
  return false;
}

inline LaneRange laneRange(const uint64_t *a, uint32_t mask) {
  LaneRange r{~0ull, 0, 0};
  forLanes(mask, [&](unsigned l) {
    uint64_t v = a[l];
    r.lo = v < r.lo ? v : r.lo;
    r.hi = v > r.hi ? v : r.hi;
    r.bits |= v;
  });
  return r;
}

/// Whether the lanes' range `r` lies in one region (see resolveWarp); sets acc.bias.
inline bool regionOf(ExecCtx &ctx, const Warp &w, const ir::Inst &in, const LaneRange &r,
                     unsigned bytes, unsigned align, bool write, WarpAccess &acc) {
  const uint64_t lo = r.lo, hi = r.hi;
  // misaligned, wrapping around the address space, or empty (lo > hi): the per-lane path
  if ((r.bits & (align - 1)) || hi > ~0ull - bytes || lo > hi)
    return false;
  const DeviceMemory &m = *ctx.mem;
  switch (in.space) {
  case ir::MemSpace::Shared: {
    uint64_t size = w.cta->shared.size();
    if (hi > size || size - hi < bytes)
      return false;
    acc.bias = reinterpret_cast<uint64_t>(w.cta->shared.data());
    return true;
  }
  case ir::MemSpace::Local: return false; // lane-private memory: per-lane pointers
  case ir::MemSpace::Generic:
    if (m.inSharedWindow(lo) && m.inSharedWindow(hi)) {
      uint64_t size = w.cta->shared.size(), o = hi - m.sharedWindow();
      if (o > size || size - o < bytes)
        return false;
      acc.bias = reinterpret_cast<uint64_t>(w.cta->shared.data()) - m.sharedWindow();
      return true;
    }
    if (!m.inArena(lo) || !m.inArena(hi))
      return false;
    [[fallthrough]];
  default: { // global, const, kernel params, generic in the arena: device addresses
    const Allocation *al = cachedAllocation(ctx, lo, hi - lo + bytes);
    if (!al || (write && al->kind == AllocKind::Const))
      return false;
    acc.bias = 0;
    return true;
  }
  }
}

/// One warp-wide check of w.addr (already computed) for resolveWarp.
inline bool uniformAccess(ExecCtx &ctx, const Warp &w, const ir::Inst &in, uint32_t mask,
                          unsigned bytes, unsigned align, bool write, WarpAccess &acc) {
  const uint64_t *a = w.addr;
  acc.contiguous = false;
  LaneRange r;
  bool known = false;
  if (mask == kFullMask) {
    // coalesced and warp-uniform accesses first: one vectorisable pass, and the range is known
    uint64_t a0 = a[0], diff = 0, same = 0, next = a0;
    for (unsigned l = 0; l < kWarpSize; ++l, next += bytes) {
      diff |= a[l] ^ next;
      same |= a[l] ^ a0;
    }
    known = fullWarpRange(a0, diff, same, bytes, r, acc);
  }
  if (!known)
    r = laneRange(a, mask);
  return regionOf(ctx, w, in, r, bytes, align, write, acc);
}
} // namespace

/// A coalesced global load by a full warp at `a0`: if the same instruction's previous load by
/// this warp was `stride` bytes before, asks the host to prefetch the lines two strides further
/// on. Loops, grid-stride loops above all, step by a constant stride, and one iteration of the
/// interpreter takes about as long as a DRAM access (two give the request time to arrive):
/// without the hint the host's own prefetchers, which follow sequential streams, see one access
/// per megabyte and every load waits for DRAM. Prefetches never fault and change no result.
inline void prefetchNext(Warp &w, const ir::Inst &in, uint64_t a0, unsigned bytes) {
  uint64_t &last = w.lastLoad[(reinterpret_cast<uintptr_t>(&in) / sizeof(ir::Inst)) & 7];
  uint64_t stride = a0 - last;
  last = a0;
  if (stride + (1ull << 26) > (1ull << 27) || stride == 0)
    return; // no stride, or further than 64 MiB either way: not a loop's step
  uint64_t from = (a0 + 2 * stride) & ~63ull, to = a0 + 2 * stride + (uint64_t)kWarpSize * bytes;
  for (uint64_t p = from; p < to; p += 64)
    __builtin_prefetch(reinterpret_cast<const void *>(p));
}

#if defined(__x86_64__) && defined(__GNUC__)
/// resolveWarp's 64-bit [reg+off] pass compiled for AVX2 (four lanes per instruction instead of
/// SSE2's two); returns the lanes' difference from a coalesced run, as the baseline loop does.
static __attribute__((target("avx2"))) uint64_t addressPassAvx2(const uint64_t *__restrict rg,
                                                                uint64_t off,
                                                                uint64_t *__restrict a,
                                                                unsigned bytes) {
  uint64_t diff = 0, next = rg[0] + off;
  for (unsigned l = 0; l < kWarpSize; ++l, next += bytes) {
    uint64_t v = rg[l] + off;
    a[l] = v;
    diff |= v ^ next;
  }
  return diff;
}
/// The same pass for a 32-bit address ([reg+off] with addr32: shared memory's usual form), which
/// also takes the lanes' least and greatest address and their OR (`r`, as fullRangeAvx2 gives
/// them): the addresses are below 2^32, so the signed 64-bit compares AVX2 has order them, and
/// a warp that is not coalesced (a tile's column, a broadcast) needs no second pass.
static __attribute__((target("avx2"))) uint64_t addressPass32Avx2(const uint64_t *__restrict rg,
                                                                  uint64_t off,
                                                                  uint64_t *__restrict a,
                                                                  unsigned bytes, LaneRange &r) {
  uint64_t diff = 0, next = (uint32_t)(rg[0] + off), bits = 0;
  int64_t lo = INT64_MAX, hi = 0;
  for (unsigned l = 0; l < kWarpSize; ++l, next += bytes) {
    uint64_t v = (uint32_t)(rg[l] + off);
    a[l] = v;
    diff |= v ^ next;
    lo = (int64_t)v < lo ? (int64_t)v : lo;
    hi = (int64_t)v > hi ? (int64_t)v : hi;
    bits |= v;
  }
  r = LaneRange{(uint64_t)lo, (uint64_t)hi, bits};
  return diff;
}
static bool hostAvx2() {
  static const bool v = __builtin_cpu_supports("avx2");
  return v;
}
/// laneRange() of a full warp compiled for AVX2: the unsigned minimum and maximum four lanes
/// at a time (vpcmpgtq on biased values), where the baseline compares lane by lane. All lanes
/// at one address give {a0, a0, a0}, as fullWarpRange does.
static __attribute__((target("avx2"))) LaneRange fullRangeAvx2(const uint64_t *a) {
  uint64_t lo = ~0ull, hi = 0, bits = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    const uint64_t v = a[l];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    bits |= v;
  }
  return LaneRange{lo, hi, bits};
}
#endif

bool resolveWarp(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t mask, unsigned bytes,
                 unsigned align, bool write, WarpAccess &acc) {
  if (mask == kFullMask && in.abase == ir::AddrBase::Reg) {
    // the usual case, [reg + off] by a full warp: addresses and range check in one pass
    const uint64_t *__restrict rg = w.src(in.src[0]); // registers never alias w.addr
    const uint64_t off = (uint64_t)in.off;
    uint64_t *__restrict a = w.addr;
    uint64_t diff = 0, same = 0, a0;
    LaneRange r;
    bool ranged = false; // (r already holds the lanes' range)
    if (in.addr32) {
      a0 = (uint32_t)(rg[0] + off);
#if defined(__x86_64__) && defined(__GNUC__)
      if (hostAvx2()) {
        diff = addressPass32Avx2(rg, off, a, bytes, r);
        ranged = true;
      } else
#endif
      {
        uint64_t next = a0;
#pragma GCC unroll 4
        for (unsigned l = 0; l < kWarpSize; ++l, next += bytes) {
          uint64_t v = (uint32_t)(rg[l] + off);
          a[l] = v;
          diff |= v ^ next;
        }
      }
    } else {
      a0 = rg[0] + off;
#if defined(__x86_64__) && defined(__GNUC__)
      if (hostAvx2()) {
        diff = addressPassAvx2(rg, off, a, bytes);
      } else
#endif
      {
        uint64_t next = a0;
#pragma GCC unroll 4
        for (unsigned l = 0; l < kWarpSize; ++l, next += bytes) {
          uint64_t v = rg[l] + off;
          a[l] = v;
          diff |= v ^ next;
        }
      }
    }
    acc.contiguous = false;
    if (ranged && diff) {
      // (the range of lanes that are not coalesced, from the address pass)
    } else
#if defined(__x86_64__) && defined(__GNUC__)
    if (diff && hostAvx2()) {
      r = fullRangeAvx2(a); // (the range fullWarpRange or laneRange gives)
    } else
#endif
    {
      if (diff) // not coalesced: maybe all lanes at one address (a second, short pass)
        for (unsigned l = 0; l < kWarpSize; ++l)
          same |= a[l] ^ a0;
      if (!fullWarpRange(a0, diff, same, bytes, r, acc))
        r = laneRange(a, mask);
    }
    if (!regionOf(ctx, w, in, r, bytes, align, write, acc))
      return false;
    if (acc.contiguous && !write && acc.bias == 0)
      prefetchNext(w, in, a0, bytes);
    return true;
  }
  computeAddresses(w, in, mask);
  return uniformAccess(ctx, w, in, mask, bytes, align, write, acc);
}

uint8_t *translateGeneric(ExecCtx &ctx, const Warp &w, unsigned lane, uint64_t a, unsigned n,
                          bool write) {
  DeviceMemory &m = *ctx.mem;
  if (m.inSharedWindow(a)) {
    uint64_t o = a - m.sharedWindow();
    if (o + n > w.cta->shared.size())
      return nullptr;
    return w.cta->shared.data() + o;
  }
  if (m.inLocalWindow(a)) {
    uint64_t o = a - m.localWindow();
    if (o + n > w.cta->localPerThread)
      return nullptr;
    w.cta->localTouched = true;
    return w.cta->local.data() + (uint64_t)w.linearTid(lane) * w.cta->localPerThread + o;
  }
  if (!checkGlobal(ctx, a, n, write))
    return nullptr;
  return reinterpret_cast<uint8_t *>(a);
}

bool resolveAddresses(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t mask, unsigned bytes,
                      unsigned align, bool write, uint8_t **ptrs) {
  computeAddresses(w, in, mask);
  const uint64_t *a = w.addr;
  if (WarpAccess acc; uniformAccess(ctx, w, in, mask, bytes, align, write, acc)) {
    forLanes(mask, [&](unsigned l) { ptrs[l] = reinterpret_cast<uint8_t *>(a[l] + acc.bias); });
    return true;
  }
  Cta &cta = *w.cta;
  unsigned bad = 99;
  bool misaligned = false, readOnly = false;
  switch (in.space) {
  case ir::MemSpace::Shared: {
    uint64_t size = cta.shared.size();
    uint8_t *base = cta.shared.data();
    forLanes(mask, [&](unsigned l) {
      uint64_t o = a[l];
      if (o > size || size - o < bytes) {
        if (bad == 99)
          bad = l;
      } else if (o & (align - 1)) {
        if (bad == 99)
          bad = l, misaligned = true;
      }
      ptrs[l] = base + o;
    });
    break;
  }
  case ir::MemSpace::Local: {
    uint64_t per = cta.localPerThread;
    uint8_t *base = cta.local.data();
    cta.localTouched = true;
    forLanes(mask, [&](unsigned l) {
      uint64_t o = a[l];
      if (o > per || per - o < bytes) {
        if (bad == 99)
          bad = l;
      } else if (o & (align - 1)) {
        if (bad == 99)
          bad = l, misaligned = true;
      }
      ptrs[l] = base + (uint64_t)w.linearTid(l) * per + o;
    });
    break;
  }
  case ir::MemSpace::Generic: {
    forLanes(mask, [&](unsigned l) {
      uint8_t *p = translateGeneric(ctx, w, l, a[l], bytes, write);
      if (!p) {
        if (bad == 99) {
          bad = l;
          readOnly = write && checkGlobalWhy(ctx, a[l], bytes, true) == GlobalCheck::ReadOnly;
        }
      } else if (a[l] & (align - 1)) {
        if (bad == 99)
          bad = l, misaligned = true;
      }
      ptrs[l] = p;
    });
    break;
  }
  default: { // global, const, kernel params: device addresses
    forLanes(mask, [&](unsigned l) {
      uint64_t v = a[l];
      GlobalCheck why = checkGlobalWhy(ctx, v, bytes, write);
      if (why != GlobalCheck::Ok) {
        if (bad == 99)
          bad = l, readOnly = why == GlobalCheck::ReadOnly;
      } else if (v & (align - 1)) {
        if (bad == 99)
          bad = l, misaligned = true;
      }
      ptrs[l] = reinterpret_cast<uint8_t *>(v);
    });
    break;
  }
  }
  if (bad == 99)
    return true;
  if (readOnly) {
    ctx.fault(FaultKind::Invalid, w, in, bad,
              std::string(spaceWord(in.space)) + " store of " + std::to_string(bytes) +
                  " bytes to constant memory at address " + hex(a[bad]) +
                  " (a __constant__ variable: read-only in kernels)");
    return false;
  }
  std::string what = std::string(misaligned ? "misaligned " : "out-of-bounds ") +
                     spaceWord(in.space) + (write ? " write" : " read") + " of " +
                     std::to_string(bytes) + " bytes at address " + hex(a[bad]);
  if (!misaligned && (in.space == ir::MemSpace::Global || in.space == ir::MemSpace::Generic)) {
    const Allocation *al = ctx.mem->find(a[bad]);
    if (!al) {
      // name the nearest allocation below, which is usually the one overrun
      if (in.space == ir::MemSpace::Generic && ctx.mem->inSharedWindow(a[bad]))
        what += " (shared window offset " + hex(a[bad] - ctx.mem->sharedWindow()) + ", " +
                std::to_string(cta.shared.size()) + " bytes of shared memory)";
      else if (in.space == ir::MemSpace::Generic && ctx.mem->inLocalWindow(a[bad]))
        what += " (local window offset " + hex(a[bad] - ctx.mem->localWindow()) + ")";
      else if (const Allocation *below = ctx.mem->nearestBelow(a[bad]))
        what += " (" + std::to_string(a[bad] - (below->base + below->size)) + " bytes past the end of a " +
                std::to_string(below->size) + "-byte " + std::string(allocKindName(below->kind)) +
                " allocation at " + hex(below->base) + ")";
      else
        what += " (not inside any device allocation)";
    } else {
      what += " (past the end of a " + std::to_string(al->size) + "-byte " +
              std::string(allocKindName(al->kind)) + " allocation at " + hex(al->base) + ")";
    }
  } else if (!misaligned && in.space == ir::MemSpace::Shared) {
    what += " (" + std::to_string(cta.shared.size()) + " bytes of shared memory)";
  } else if (!misaligned && in.space == ir::MemSpace::Local) {
    what += " (" + std::to_string(cta.localPerThread) + " bytes of local memory per thread)";
  }
  ctx.fault(misaligned ? FaultKind::Misaligned : FaultKind::OutOfBounds, w, in, bad, what);
  return false;
}

// --- special registers ----------------------------------------------------------------------------

using namespace sreg;

namespace {
struct ExtSreg {
  std::string name;
  SpecialRegFn fn;
};
std::vector<ExtSreg> &extSregs() {
  static auto *v = new std::vector<ExtSreg>(); // never destroyed
  return *v;
}
} // namespace

uint32_t registerSpecialRegisterReader(std::string_view base, SpecialRegFn fn) {
  extSregs().push_back({std::string(base), fn});
  return kFirstExt + (uint32_t)extSregs().size() - 1;
}

uint32_t specialRegId(std::string_view b, char c) {
  int ci = c == 'y' ? 1 : c == 'z' ? 2 : 0;
  if (b == "%tid") return kTidX + ci;
  if (b == "%ntid") return kNtidX + ci;
  if (b == "%ctaid") return kCtaidX + ci;
  if (b == "%nctaid") return kNctaidX + ci;
  if (b == "%laneid") return kLaneid;
  if (b == "%warpid") return kWarpid;
  if (b == "%nwarpid") return kNwarpid;
  if (b == "%smid") return kSmid;
  if (b == "%nsmid") return kNsmid;
  if (b == "%gridid") return kGridid;
  if (b == "%lanemask_eq") return kLmEq;
  if (b == "%lanemask_le") return kLmLe;
  if (b == "%lanemask_lt") return kLmLt;
  if (b == "%lanemask_ge") return kLmGe;
  if (b == "%lanemask_gt") return kLmGt;
  if (b == "%clock") return kClock;
  if (b == "%clock_hi") return kClockHi;
  if (b == "%clock64") return kClock64;
  if (b == "%globaltimer") return kGtimer;
  if (b == "%globaltimer_lo") return kGtimerLo;
  if (b == "%globaltimer_hi") return kGtimerHi;
  if (b == "%dynamic_smem_size") return kDynSmem;
  if (b == "%total_smem_size") return kTotalSmem;
  if (b == "%aggr_smem_size") return kAggrSmem;
  // The driver's reserved shared memory region is not carved out of the CTA's window here: the
  // registers describe an empty region at the end of the CTA's shared memory, so code that
  // bounds its accesses by them touches nothing.
  if (b == "%reserved_smem_offset_begin" || b == "%reserved_smem_offset_end" ||
      b == "%reserved_smem_offset_0" || b == "%reserved_smem_offset_1")
    return kSmemEnd;
  if (b == "%reserved_smem_offset_cap") return kZero;
  if (b == "%envreg1") return kEnvreg1;
  if (b == "%envreg2") return kEnvreg2;
  // cluster registers: without clusters every CTA is its own cluster of one
  if (b == "%cluster_nctaid" || b == "%nclusterid" || b == "%cluster_nctarank" ||
      b == "%is_explicit_cluster")
    return b == "%is_explicit_cluster" ? kZero : (b == "%nclusterid" ? kNctaidX + ci : kOne);
  if (b == "%clusterid") return kCtaidX + ci;
  if (b == "%cluster_ctaid" || b == "%cluster_ctarank") return kZero;
  for (size_t i = 0; i < extSregs().size(); ++i)
    if (extSregs()[i].name == b)
      return kFirstExt + (uint32_t)i;
  return kZero;
}

void movSpecial(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t mask) {
  uint64_t *d = w.reg(in.dst[0]);
  const Cta &c = *w.cta;
  const Grid &g = *c.grid;
  uint64_t v = 0;
  // Functional mode has no clock: time advances with the warp's own instruction count, which
  // keeps results deterministic. A timing model sets the cycle of issue (ExecCtx::cycle) through
  // the step interface, and the clocks read it.
  const bool timed = ctx.nsPerCycle > 0;
  uint64_t clk = timed ? ctx.cycle : w.instCount * 4 + c.linearId * 16;
  uint64_t ns = timed ? uint64_t(double(ctx.cycle) * ctx.nsPerCycle) : g.timerBase + clk / 2;
  switch (in.aux) {
  case kTidX: case kTidY: case kTidZ:
    forLanes(mask, [&](unsigned l) { d[l] = w.tid[in.aux - kTidX][l]; });
    return;
  case kLaneid:
    forLanes(mask, [&](unsigned l) { d[l] = l; });
    return;
  case kLmEq: forLanes(mask, [&](unsigned l) { d[l] = 1u << l; }); return;
  case kLmLe: forLanes(mask, [&](unsigned l) { d[l] = (uint32_t)((2ull << l) - 1); }); return;
  case kLmLt: forLanes(mask, [&](unsigned l) { d[l] = (1u << l) - 1; }); return;
  case kLmGe: forLanes(mask, [&](unsigned l) { d[l] = ~((1u << l) - 1); }); return;
  case kLmGt: forLanes(mask, [&](unsigned l) { d[l] = (uint32_t)~((2ull << l) - 1); }); return;
  case kNtidX: case kNtidY: case kNtidZ: v = g.block[in.aux - kNtidX]; break;
  case kCtaidX: case kCtaidY: case kCtaidZ: v = c.ctaid[in.aux - kCtaidX]; break;
  case kNctaidX: case kNctaidY: case kNctaidZ: v = g.dim[in.aux - kNctaidX]; break;
  case kWarpid: v = w.id; break;
  case kNwarpid: v = 64; break;
  case kSmid: v = c.smid; break;
  case kNsmid: v = g.numSms; break;
  case kGridid: v = g.gridId; break;
  case kClock: v = (uint32_t)clk; break;
  case kClockHi: v = (uint32_t)(clk >> 32); break;
  case kClock64: v = clk; break;
  case kGtimer: v = ns; break; // functional mode: nanoseconds at a nominal 2 GHz
  case kGtimerLo: v = (uint32_t)ns; break;
  case kGtimerHi: v = (uint32_t)(ns >> 32); break;
  case kDynSmem: v = g.dynShared; break;
  case kTotalSmem: case kAggrSmem: case kSmemEnd: v = c.shared.size(); break;
  case kOne: v = 1; break;
  case kZero: v = 0; break;
  case kEnvreg1: v = (uint32_t)(g.gridWorkspace >> 32); break;
  case kEnvreg2: v = (uint32_t)g.gridWorkspace; break;
  default:
    if (in.aux >= kFirstExt && in.aux - kFirstExt < extSregs().size()) {
      extSregs()[in.aux - kFirstExt].fn(ctx, w, d, mask);
      return;
    }
    break;
  }
  forLanes(mask, [&](unsigned l) { d[l] = v; });
}

void predToValue(ExecCtx &, Warp &w, const ir::Inst &in, uint32_t mask) {
  uint64_t *d = w.reg(in.dst[0]);
  uint32_t p = w.preds[in.psrc[0]];
  forLanes(mask, [&](unsigned l) { d[l] = (p >> l) & 1; });
}

void nonZeroToPred(ExecCtx &, Warp &w, const ir::Inst &in, uint32_t mask) {
  const uint64_t *a = w.src(in.src[0]);
  uint32_t r = 0;
  forLanes(mask, [&](unsigned l) { r |= uint32_t((uint32_t)a[l] != 0) << l; });
  w.preds[in.dst[0]] = (w.preds[in.dst[0]] & ~mask) | r;
}

void movRuntimeAddress(ExecCtx &, Warp &w, const ir::Inst &in, uint32_t mask) {
  computeAddresses(w, in, mask);
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(mask, [&](unsigned l) { d[l] = w.addr[l]; });
}

uint16_t f64ToF16Bits(double d) {
  // Round to nearest even via float first is double rounding; do it directly.
  uint64_t b;
  std::memcpy(&b, &d, 8);
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
  double a = std::fabs(d);
  if (std::isnan(d))
    return sign | 0x7e00;
  if (a >= 65520.0)
    return sign | 0x7c00;
  if (a < std::ldexp(1.0, -25)) // below half the smallest subnormal (ties handled below)
    return a == std::ldexp(1.0, -25) ? sign : sign;
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5,1)
  int exp = e - 1;   // a = 1.x * 2^exp
  if (exp < -14)
    exp = -14; // subnormal range: fixed quantum 2^-24
  double q = std::ldexp(1.0, exp - 10);
  double n = std::nearbyint(a / q); // exact division by a power of two; ties to even
  uint64_t mant = (uint64_t)n;
  // mant in [2^10, 2^11] for normals, < 2^10 for subnormals
  uint32_t bits;
  if (exp == -14 && mant < 1024)
    bits = (uint32_t)mant;
  else {
    if (mant == 2048) {
      mant = 1024;
      ++exp;
    }
    if (exp > 15)
      return sign | 0x7c00;
    bits = (uint32_t)((exp + 15) << 10) | (uint32_t)(mant - 1024);
  }
  return sign | (uint16_t)bits;
}

uint16_t f64ToBf16Bits(double d) {
  float f = (float)d; // bf16 has fewer bits than f32; immediates are exact in practice
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if (std::isnan(f))
    return (uint16_t)((b >> 16) | 0x40);
  uint32_t lsb = (b >> 16) & 1;
  b += 0x7fff + lsb;
  return (uint16_t)(b >> 16);
}

// --- the interpreter ------------------------------------------------------------------------------

namespace {

void setFunction(Warp &w, const ir::Function *f) {
  w.fn = f;
  w.regs = w.regStore.data() + w.regBase;
  w.preds = w.predStore.data() + w.predBase;
}

/// Removes `m` from the entries at depth >= `from`, then pops empty entries from the top.
void retire(Warp &w, uint32_t m, size_t from) {
  for (size_t i = from; i < w.stack.size(); ++i)
    w.stack[i].mask &= ~m;
  while (!w.stack.empty() && w.stack.back().mask == 0)
    w.stack.pop_back();
}

uint8_t *localLane(Warp &w, unsigned lane, uint64_t off) {
  Cta &c = *w.cta;
  c.localTouched = true;
  return c.local.data() + (uint64_t)w.linearTid(lane) * c.localPerThread + off;
}

/// Completes a call whose frame's lanes have all returned: copies return values, restores the
/// caller's state.
void finishCall(Warp &w, bool copyBack) {
  CallFrame cf = w.calls.back();
  w.calls.pop_back();
  const ir::Function *callee = w.fn;
  uint32_t calleeFrame = w.frameBase;
  if (callee->dynamicStack && !w.stackSaves.empty()) { // free the callee's allocas
    const std::array<uint32_t, kWarpSize> &saved = w.stackSaves.back();
    forLanes(cf.mask, [&](unsigned l) { w.stackTop[l] = saved[l]; }); // only its lanes called
    w.stackSaves.pop_back();
    w.stackLow = *std::min_element(w.stackTop, w.stackTop + kWarpSize);
  }
  uint32_t calleeRegBase = w.regBase;
  w.regBase = cf.regBase;
  w.predBase = cf.predBase;
  w.frameBase = cf.frameBase;
  setFunction(w, cf.callerFn);
  if (!copyBack || !cf.site)
    return;
  uint32_t live = cf.mask;
  for (size_t i = 0; i < cf.site->rets.size() && i < callee->retOffsets.size(); ++i) {
    const ir::ArgCopy &r = cf.site->rets[i];
    uint32_t from = callee->retOffsets[i];
    uint32_t n = std::min<uint32_t>(r.size, callee->retSizes[i]);
    forLanes(live, [&](unsigned l) {
      uint64_t v = 0;
      if (from & 0x80000000u)
        v = w.regStore[calleeRegBase + (from & 0x7fffffffu) * kWarpSize + l];
      else
        std::memcpy(&v, localLane(w, l, calleeFrame + from), std::min<uint32_t>(n, 8));
      if (r.fromReg)
        w.regs[r.callerOff + l] = v;
      else if (from & 0x80000000u)
        std::memcpy(localLane(w, l, w.frameBase + r.callerOff), &v, std::min<uint32_t>(n, 8));
      else
        std::memcpy(localLane(w, l, w.frameBase + r.callerOff), localLane(w, l, calleeFrame + from), n);
    });
  }
}

bool builtinCall(ExecCtx &ctx, Warp &w, const ir::Inst &in, const ir::Function &callee,
                 const ir::CallSite &site, uint32_t m);

/// Enters `callee` for lanes `m` at call instruction `in` (the top entry's pc is already the
/// return address).
bool enterCall(ExecCtx &ctx, Warp &w, const ir::Inst &in, const ir::Function &callee,
               const ir::CallSite &site, uint32_t m) {
  if (!callee.hasBody)
    return builtinCall(ctx, w, in, callee, site, m);
  const ir::Function &caller = *w.fn;
  uint32_t newFrame = w.frameBase + caller.frameSize;
  if ((uint64_t)newFrame + callee.frameSize > w.stackLow) { // below the alloca region

    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(m),
              "call stack overflow calling '" + callee.name + "' (" +
                  std::to_string(w.cta->localPerThread) +
                  " bytes of local memory per thread; raise cudaLimitStackSize)");
    return false;
  }
  if (site.args.size() != callee.paramOffsets.size()) {
    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(m),
              "call to '" + callee.name + "' with " + std::to_string(site.args.size()) +
                  " arguments; it takes " + std::to_string(callee.paramOffsets.size()));
    return false;
  }
  uint32_t newRegBase = w.regBase + caller.numRegs * kWarpSize;
  uint32_t newPredBase = w.predBase + caller.numPreds;
  if (w.regStore.size() < newRegBase + (size_t)callee.numRegs * kWarpSize)
    w.regStore.resize(newRegBase + (size_t)callee.numRegs * kWarpSize);
  if (w.predStore.size() < newPredBase + (size_t)callee.numPreds)
    w.predStore.resize(newPredBase + callee.numPreds);
  w.predStore[newPredBase + ir::kPredFalse] = 0;
  w.predStore[newPredBase + ir::kPredTrue] = kFullMask;
  uint64_t *callerRegs = w.regStore.data() + w.regBase;
  for (size_t i = 0; i < site.args.size(); ++i) {
    const ir::ArgCopy &a = site.args[i];
    uint32_t to = callee.paramOffsets[i];
    uint32_t n = std::min<uint32_t>(a.size, callee.paramSizes[i]);
    forLanes(m, [&](unsigned l) {
      uint64_t v = 0;
      const uint8_t *from;
      if (a.cst || a.fromReg) {
        v = a.cst ? a.cst[l] : callerRegs[a.callerOff + l];
        from = reinterpret_cast<const uint8_t *>(&v);
      } else {
        from = localLane(w, l, w.frameBase + a.callerOff);
        if (to & 0x80000000u)
          std::memcpy(&v, from, std::min<uint32_t>(n, 8));
      }
      if (to & 0x80000000u)
        w.regStore[newRegBase + (to & 0x7fffffffu) * kWarpSize + l] = v;
      else
        std::memcpy(localLane(w, l, newFrame + to), from,
                    (a.cst || a.fromReg) ? std::min<uint32_t>(n, 8) : n);
    });
  }
  w.calls.push_back(CallFrame{w.fn, &site, (uint32_t)w.stack.size(), w.regBase, w.predBase,
                              w.frameBase, m});
  if (callee.dynamicStack) { // its allocas are freed when it returns
    w.stackSaves.emplace_back();
    std::memcpy(w.stackSaves.back().data(), w.stackTop, sizeof w.stackTop);
  }
  w.regBase = newRegBase;
  w.predBase = newPredBase;
  w.frameBase = newFrame;
  setFunction(w, &callee);
  w.stack.push_back(SimtEntry{0, ir::kNoPc, m});
  return true;
}

void releaseBarrier(Cta &cta, unsigned id) {
  BarrierState &b = cta.bars[id];
  uint32_t popc = b.redPopc, andv = b.redAnd, orv = b.redOr;
  for (uint32_t wid : b.waiting) {
    Warp &o = cta.warps[wid];
    if (o.state == WarpState::AtBarrier)
      o.state = WarpState::Ready;
  }
  (void)popc;
  (void)andv;
  (void)orv;
  b.waiting.clear();
  b.arrivedThreads = 0;
  b.redPopc = 0;
  b.redAnd = 1;
  b.redOr = 0;
}

/// Barrier bookkeeping; returns true when the barrier completed with this arrival.
bool arrive(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t m, unsigned &id, bool wait) {
  Cta &cta = *w.cta;
  uint32_t idv = in.src[0].cst ? (uint32_t)in.src[0].cst[0]
                               : (uint32_t)w.regs[in.src[0].reg + __builtin_ctz(w.stack.back().mask)];
  if (idv >= 16) {
    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(m ? m : 1),
              "barrier id " + std::to_string(idv) + " out of range (0-15)");
    return false;
  }
  id = idv;
  BarrierState &b = cta.bars[id];
  uint32_t expected = 0;
  if (in.aux & 1) { // thread count given
    uint32_t cnt = in.src[1].cst ? (uint32_t)in.src[1].cst[0]
                                 : (uint32_t)w.regs[in.src[1].reg + __builtin_ctz(w.stack.back().mask)];
    expected = (cnt + kWarpSize - 1) / kWarpSize;
  }
  b.expected = expected;
  b.arrivedThreads += 1; // counted in warps
  if (in.aux & 2) {      // bar.red: predicate in psrc[0]
    uint32_t p = (w.preds[in.psrc[0]] ^ in.psrcXor[0]) & m;
    b.redPopc += (uint32_t)__builtin_popcount(p);
    if ((p & m) != m)
      b.redAnd = 0;
    if (p)
      b.redOr = 1;
  }
  uint32_t need = expected ? expected : cta.liveWarps;
  if (wait) {
    w.state = WarpState::AtBarrier;
    b.waiting.push_back(w.id);
  }
  return b.arrivedThreads >= need;
}

// --- independent thread scheduling ----------------------------------------------------------------
//
// Under ITS (Warp::its) the lanes of a warp may run apart in groups. The running group's control
// state is the Warp's own (stack, calls, fn, frame bases), so the interpreter loop is the same
// in both modes; parked groups wait in Warp::groups in round-robin order. A warp starts as one
// group and splits only when it must: a group that spins (takes a backward branch with its
// registers unchanged, or for very long) while other lanes wait lets them run, and a group at a
// convergence point (bar.warp.sync, a .sync warp primitive, bar.sync) whose lanes are not all
// there waits for them. Groups whose control state becomes identical merge (reconvergence).

/// Spin detection at the backward branch `pc`: the registers live there (Function::spinRegs) of
/// the lowest lane of the running group's top entry and the entry's predicate bits (one lane
/// keeps the check cheap; a loop that makes progress changes its counter or pointer in every
/// lane).
uint64_t spinState(const Warp &w, uint32_t pc) {
  uint32_t m = w.stack.back().mask;
  unsigned l = (unsigned)__builtin_ctz(m);
  uint64_t h = 1469598103934665603ull;
  const uint64_t *r = w.regs + l;
  const ir::Function &fn = *w.fn;
  if (pc < fn.code.size() && fn.spinFirst.size() == fn.code.size() + 1) {
    // the registers live at the loop's branch (Function::spinRegs): a lane that changes only
    // others makes no progress, and the JIT leaves those out of the file
    for (uint32_t i = fn.spinFirst[pc]; i < fn.spinFirst[pc + 1]; ++i)
      h = (h ^ r[fn.spinRegs[i] * kWarpSize]) * 1099511628211ull;
  } else {
    for (uint32_t i = 0; i < fn.numRegs; ++i)
      h = (h ^ r[i * kWarpSize]) * 1099511628211ull;
  }
  for (uint32_t i = 0; i < w.fn->numPreds; ++i)
    h = (h ^ (w.preds[i] & m)) * 1099511628211ull;
  return h;
}

/// Exchanges the running group's control state with `g`'s.
void swapGroup(Warp &w, ThreadGroup &g) {
  std::swap(w.stack, g.stack);
  std::swap(w.calls, g.calls);
  std::swap(w.stackSaves, g.stackSaves);
  std::swap(w.fn, g.fn);
  std::swap(w.regBase, g.regBase);
  std::swap(w.predBase, g.predBase);
  std::swap(w.frameBase, g.frameBase);
  std::swap(w.waitStep, g.waitStep);
  std::swap(w.waitData, g.waitData);
  std::swap(w.spinPc, g.spinPc);
  std::swap(w.spinCount, g.spinCount);
  std::swap(w.spinHash, g.spinHash);
  if (w.fn)
    setFunction(w, w.fn);
}

/// Restricts the running group to the lanes in `keep`: drops stack entries without them and
/// completes the calls they have all returned from.
void keepLanes(Warp &w, uint32_t keep) {
  size_t n = w.stack.size();
  uint32_t idx[64];
  std::vector<uint32_t> big;
  uint32_t *map = idx;
  if (n > 64) {
    big.resize(n);
    map = big.data();
  }
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    map[i] = (uint32_t)j;
    if (w.stack[i].mask & keep) {
      SimtEntry e = w.stack[i];
      e.mask &= keep;
      w.stack[j++] = e;
    } else {
      map[i] = ir::kNoPc;
    }
  }
  w.stack.resize(j);
  while (!w.calls.empty() && map[w.calls.back().baseDepth] == ir::kNoPc) {
    w.calls.back().mask &= keep; // the kept lanes returned: their values go back now
    finishCall(w, true);
  }
  for (CallFrame &cf : w.calls) {
    cf.baseDepth = map[cf.baseDepth];
    cf.mask &= keep;
  }
}

/// Moves the lanes of the running group's top entry into a new parked group that waits for
/// `why`; the running group keeps its other lanes (there must be some).
/// A new group holding a copy of the running group's control state: its stack, calls, function
/// and frame (splitRunning then gives it its lanes).
ThreadGroup copyControl(const Warp &w) {
  ThreadGroup g;
  g.stack = w.stack;
  g.calls = w.calls;
  g.stackSaves = w.stackSaves;
  g.fn = w.fn;
  g.regBase = w.regBase;
  g.predBase = w.predBase;
  g.frameBase = w.frameBase;
  return g;
}

/// Parks `g` (a copyControl of the running group) with lanes `moved`; the running group keeps
/// its other lanes.
void splitRunning(Warp &w, ThreadGroup &&g, uint32_t moved) {
  keepLanes(w, ~moved); // the running group: the rest
  swapGroup(w, g);
  keepLanes(w, moved); // the copy: lanes `moved`
  swapGroup(w, g);
  g.spinPc = ir::kNoPc;
  g.spinCount = 0;
  w.groups.push_back(std::move(g));
  ++w.groupSwitches;
}

[[gnu::cold, gnu::noinline]] void splitOff(Warp &w, GroupWait why, uint32_t barId = 0) {
  ThreadGroup g = copyControl(w);
  g.waitStep = w.waitStep;
  g.waitData = w.waitData;
  g.wait = why;
  g.barId = barId;
  splitRunning(w, std::move(g), w.stack.back().mask); // the top entry's lanes
}

/// Independent thread scheduling across calls (Warp::leaveCalls): lanes `m` have returned from
/// the running group's innermost call, made in another function, while other lanes are still in
/// it. They become a runnable parked group that goes on in the caller (the call completes for
/// them: their return values go back now); the running group keeps the lanes in the callee.
/// ptxas puts no convergence barrier after such a call, so on the GPU the lanes that return
/// first run on (tools/correlate/README.md, 13_recursion).
[[gnu::cold, gnu::noinline]] void leaveCall(Warp &w, uint32_t m) {
  splitRunning(w, copyControl(w), m); // lanes m go on in the caller; the rest stay in the callee
}

/// Parks the running group's top-entry lanes waiting for `why`. When they are the whole group,
/// the warp is left without a running group (resumeNext must follow).
void park(Warp &w, GroupWait why, uint32_t barId = 0) {
  if (w.stack[0].mask & ~w.stack.back().mask) {
    splitOff(w, why, barId);
    return;
  }
  ThreadGroup g;
  swapGroup(w, g);
  g.wait = why;
  g.barId = barId;
  w.groups.push_back(std::move(g));
}

/// Whether parked `g` is at the same place as the running group in every respect but its lanes.
bool sameControl(const Warp &w, const ThreadGroup &g) {
  if (g.fn != w.fn || g.regBase != w.regBase || g.predBase != w.predBase ||
      g.frameBase != w.frameBase || g.stack.size() != w.stack.size() ||
      g.calls.size() != w.calls.size() || g.stackSaves.size() != w.stackSaves.size())
    return false;
  for (size_t i = 0; i < g.stack.size(); ++i)
    if (g.stack[i].pc != w.stack[i].pc || g.stack[i].rpc != w.stack[i].rpc)
      return false;
  for (size_t i = 0; i < g.calls.size(); ++i) {
    const CallFrame &a = g.calls[i], &b = w.calls[i];
    if (a.callerFn != b.callerFn || a.site != b.site || a.baseDepth != b.baseDepth ||
        a.regBase != b.regBase || a.predBase != b.predBase || a.frameBase != b.frameBase)
      return false;
  }
  return true;
}

/// Adds parked group `g`'s lanes to the running group (sameControl holds).
void absorb(Warp &w, const ThreadGroup &g) {
  uint32_t lanes = g.lanes();
  for (size_t i = 0; i < g.stack.size(); ++i)
    w.stack[i].mask |= g.stack[i].mask;
  for (size_t i = 0; i < g.calls.size(); ++i)
    w.calls[i].mask |= g.calls[i].mask;
  for (size_t i = 0; i < g.stackSaves.size(); ++i)
    forLanes(lanes, [&](unsigned l) { w.stackSaves[i][l] = g.stackSaves[i][l]; });
}

/// Reconvergence: merges every parked group at the running group's place into it.
void mergeParked(Warp &w) {
  for (size_t i = 0; i < w.groups.size();) {
    if (sameControl(w, w.groups[i])) {
      absorb(w, w.groups[i]);
      w.groups.erase(w.groups.begin() + (ptrdiff_t)i);
    } else {
      ++i;
    }
  }
}

/// Makes parked group `i` the running one; the running state (empty or already parked) is
/// dropped.
void loadGroup(Warp &w, size_t i) {
  ThreadGroup g = std::move(w.groups[i]);
  w.groups.erase(w.groups.begin() + (ptrdiff_t)i);
  swapGroup(w, g);
  ++w.groupSwitches;
  mergeParked(w);
}

/// Round robin: parks the running group (runnable) behind the others and runs the first
/// runnable parked group. False (nothing changed) when there is none.
[[gnu::cold, gnu::noinline]] bool rotateGroups(Warp &w) {
  for (size_t i = 0; i < w.groups.size(); ++i)
    if (w.groups[i].wait == GroupWait::None) {
      ThreadGroup cur;
      swapGroup(w, cur);
      loadGroup(w, i);
      w.groups.push_back(std::move(cur));
      return true;
    }
  return false;
}

/// The member mask a Ctl::WarpSync instruction names for `lanes` (the union of their operands)
/// in the frame whose registers start at `regs`.
uint32_t memberMask(const uint64_t *regs, const ir::Inst &in, uint32_t lanes) {
  const ir::Opnd &o = in.src[in.memberSrc];
  const uint64_t *v = o.cst ? o.cst : regs + o.reg;
  uint32_t mm = 0;
  forLanes(lanes, [&](unsigned l) { mm |= (uint32_t)v[l]; });
  return mm;
}

/// The barrier id bar.sync `in` names (its first lane's operand).
uint32_t barrierId(const uint64_t *regs, const ir::Inst &in, uint32_t lanes) {
  if (in.src[0].cst)
    return (uint32_t)in.src[0].cst[0];
  return (uint32_t)regs[in.src[0].reg + __builtin_ctz(lanes ? lanes : 1)];
}

const ir::Inst &groupInst(const ThreadGroup &g) { return g.fn->code[g.stack.back().pc]; }

/// Whether parked group `i`'s wait can end now: every live lane it waits for is waiting too.
bool canComplete(const Warp &w, size_t i) {
  const ThreadGroup &g = w.groups[i];
  uint32_t arrived = 0;
  if (g.wait == GroupWait::WarpSync) {
    for (const ThreadGroup &o : w.groups)
      if (o.wait == GroupWait::WarpSync)
        arrived |= o.lanes();
    uint32_t need = memberMask(w.regStore.data() + g.regBase, groupInst(g), g.lanes());
    return (need & w.liveMask & ~arrived) == 0;
  }
  if (g.wait == GroupWait::CtaBar) {
    for (const ThreadGroup &o : w.groups)
      if (o.wait == GroupWait::CtaBar && o.barId == g.barId)
        arrived |= o.lanes();
    return (w.liveMask & ~arrived) == 0;
  }
  return true;
}

std::string laneMaskText(uint32_t m) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", m);
  return b;
}

/// "pc 12 (file.ptx:40), bar.warp.sync" for messages.
std::string placeText(const ir::Function &f, uint32_t pc) {
  std::string s = "pc " + std::to_string(pc);
  if (pc < f.code.size()) {
    const ir::Inst &in = f.code[pc];
    if (in.line)
      s += " (" + f.fileName + ":" + std::to_string(in.line) + ")";
    s += " " + std::string(opcodeInfo(in.opcode).name);
  }
  if (!f.isEntry)
    s += " in '" + f.name + "'";
  return s;
}

/// No group of the warp can run: reports a deadlock naming every group's lanes and place.
[[gnu::cold, gnu::noinline]] void reportWarpDeadlock(ExecCtx &ctx, Warp &w) {
  std::string what = "deadlock: no thread of warp " + std::to_string(w.id) + " can progress:";
  for (const ThreadGroup &g : w.groups) {
    uint32_t pc = g.stack.back().pc;
    what += " lanes " + laneMaskText(g.lanes()) + " wait at " + placeText(*g.fn, pc);
    if (g.wait == GroupWait::WarpSync)
      what += " for lanes " +
              laneMaskText(memberMask(w.regStore.data() + g.regBase, groupInst(g), g.lanes()) &
                           w.liveMask & ~g.lanes());
    else if (g.wait == GroupWait::CtaBar)
      what += " (barrier " + std::to_string(g.barId) + ") for lanes " +
              laneMaskText(w.liveMask & ~g.lanes());
    what += ";";
  }
  what.pop_back();
  loadGroup(w, 0); // the fault names its first lane
  ctx.fault(FaultKind::Invalid, w, w.fn->code[w.stack.back().pc], (unsigned)__builtin_ctz(w.stack[0].mask),
            what);
}

/// The running group has finished or was parked as a whole: runs the next parked group that
/// can run, or one whose wait can now end (it executes its instruction again). Marks the warp
/// done when no group is left; faults (returns false) on a deadlock.
[[gnu::cold, gnu::noinline]] bool resumeNext(ExecCtx &ctx, Warp &w) {
  if (w.groups.empty()) {
    w.state = WarpState::Done;
    return true;
  }
  for (size_t i = 0; i < w.groups.size(); ++i)
    if (w.groups[i].wait == GroupWait::None) {
      loadGroup(w, i);
      return true;
    }
  for (size_t i = 0; i < w.groups.size(); ++i)
    if (canComplete(w, i)) {
      loadGroup(w, i);
      return true;
    }
  reportWarpDeadlock(ctx, w);
  return false;
}

enum class SyncStep : uint8_t { Go, Parked, Fault };

/// A diverged warp's running group is at warp-synchronous `in` (pc `pc`, guard lanes `m`).
/// Go: the member lanes are all here or waiting at warp-synchronous instructions; they joined
/// the running group, or (same instruction and frame, other stack) execute with it: `m` is
/// updated. Parked: the top-entry lanes wait and another group runs.
[[gnu::cold, gnu::noinline]] SyncStep warpSyncArrive(ExecCtx &ctx, Warp &w, const ir::Inst &in,
                                                     uint32_t pc, uint32_t &m, uint32_t &coLanes) {
  uint32_t top = w.stack.back().mask;
  uint32_t need = memberMask(w.regs, in, m ? m : top) & w.liveMask;
  uint32_t missing = need & ~top;
  coLanes = 0;
  if (!missing)
    return SyncStep::Go;
  uint32_t waiting = 0;
  for (const ThreadGroup &g : w.groups)
    if (g.wait == GroupWait::WarpSync)
      waiting |= g.lanes();
  if (missing & ~waiting) {
    park(w, GroupWait::WarpSync);
    if (w.stack.empty() && !resumeNext(ctx, w))
      return SyncStep::Fault;
    return SyncStep::Parked;
  }
  bool barWarp = in.cls == ir::OpClass::Sync; // bar.warp.sync: any such instruction will do
  for (size_t i = 0; i < w.groups.size();) {
    ThreadGroup &g = w.groups[i];
    if (g.wait != GroupWait::WarpSync || !(g.lanes() & missing)) {
      ++i;
      continue;
    }
    if (sameControl(w, g)) {
      absorb(w, g);
      w.groups.erase(w.groups.begin() + (ptrdiff_t)i);
      continue;
    }
    const ir::Inst &gi = groupInst(g);
    if (barWarp && gi.cls == ir::OpClass::Sync) {
      ++g.stack.back().pc; // its bar.warp.sync completes too
      g.wait = GroupWait::None;
    } else if (g.fn == w.fn && g.stack.back().pc == pc && g.regBase == w.regBase &&
               g.predBase == w.predBase) {
      coLanes |= g.lanes();
      ++g.stack.back().pc;
      g.wait = GroupWait::None;
    } else {
      ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(top),
                "lanes " + laneMaskText(g.lanes() & need) + " named in the member mask " +
                    laneMaskText(need) + " wait at a different warp-synchronous instruction (" +
                    placeText(*g.fn, g.stack.back().pc) +
                    "); the lanes of a .sync warp primitive must execute the same instruction");
      return SyncStep::Fault;
    }
    ++i;
  }
  m = ((w.stack.back().mask | coLanes) & (w.preds[in.guard] ^ in.guardXor));
  return SyncStep::Go;
}

/// A diverged warp's running group is at bar.sync/bar.red `in` (already advanced past it).
/// Go: every live lane of the warp is here or parked at the same barrier; they are released
/// with the warp's arrival. Parked: the top-entry lanes wait at the instruction.
[[gnu::cold, gnu::noinline]] SyncStep ctaBarArrive(ExecCtx &ctx, Warp &w, const ir::Inst &in,
                                                   uint32_t pc) {
  uint32_t top = w.stack.back().mask;
  uint32_t id = barrierId(w.regs, in, top);
  uint32_t arrived = top;
  for (const ThreadGroup &g : w.groups)
    if (g.wait == GroupWait::CtaBar && g.barId == id)
      arrived |= g.lanes();
  if (w.liveMask & ~arrived) {
    w.stack.back().pc = pc; // executes the barrier again when the others have come
    park(w, GroupWait::CtaBar, id);
    if (w.stack.empty() && !resumeNext(ctx, w))
      return SyncStep::Fault;
    return SyncStep::Parked;
  }
  for (size_t i = 0; i < w.groups.size();) {
    ThreadGroup &g = w.groups[i];
    if (g.wait == GroupWait::CtaBar && g.barId == id) {
      ++g.stack.back().pc;
      g.wait = GroupWait::None;
      if (sameControl(w, g)) {
        absorb(w, g);
        w.groups.erase(w.groups.begin() + (ptrdiff_t)i);
        continue;
      }
    }
    ++i;
  }
  return SyncStep::Go;
}

[[gnu::cold, gnu::noinline]] void reportLivelock(ExecCtx &ctx, Warp &w, const ir::Inst &in,
                                                 uint32_t pc) {
  uint32_t spin = w.stack.back().mask;
  std::string where;
  for (size_t i = w.stack.size() - 1; i-- > 0;)
    if (w.stack[i].mask & ~spin) {
      where = " while lanes " + laneMaskText(w.stack[i].mask & ~spin) +
              " wait to reconverge at " + placeText(*w.fn, w.stack[i].pc);
      break;
    }
  ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(spin),
            "livelock: lanes " + laneMaskText(spin) + " of warp " + std::to_string(w.id) +
                " keep taking the loop branch at " + placeText(*w.fn, pc) +
                " with their registers unchanged" + where +
                ". Under --simt ipdom (pre-Volta reconvergence) the loop waits forever for lanes "
                "of its own warp (a lock or flag handed over inside divergent code needs "
                "independent thread scheduling: --simt its, PTXSIM_SIMT=its)");
}

/// IPDOM: how often the register state is compared once watched (from kLivelockFrom, Exec.h),
/// and how long it must stay unchanged to be a livelock.
constexpr uint64_t kLivelockEvery = uint64_t(1) << 10;
constexpr uint64_t kLivelockSpins = uint64_t(1) << 20;
/// ITS: a diverged group that takes one backward branch kSpinFrom (Exec.h) times in a row has its
/// registers compared every kSpinEvery iterations; unchanged means it spins and yields. Any
/// loop yields after kLongLoop iterations (forward progress for loops that count while they
/// wait).
constexpr uint64_t kSpinEvery = 2;
constexpr uint64_t kLongLoop = uint64_t(1) << 16;

/// The running group took the backward branch at `pc` with all its top-entry lanes while other
/// lanes of the warp are elsewhere. Returns true when the running group changed or a fault was
/// reported.
[[gnu::cold, gnu::noinline]] bool divergentLoop(ExecCtx &ctx, Warp &w, const ir::Inst &in,
                                                uint32_t pc) {
  if (w.spinPc != pc) {
    w.spinPc = pc;
    w.spinCount = 0;
  }
  uint64_t c = ++w.spinCount;
  if (!w.its) {
    if (c >= kLivelockFrom && c % kLivelockEvery == 0) {
      uint64_t h = spinState(w, pc);
      if (c == kLivelockFrom || h != w.spinHash) {
        w.spinHash = h;
        w.spinSince = c;
      } else if (c - w.spinSince >= kLivelockSpins) {
        reportLivelock(ctx, w, in, pc);
        return true;
      }
    }
    if (c == (uint64_t(1) << 24))
      warnDivergentLoop(ctx, w, in);
    return false;
  }
  if (c < kSpinFrom || (c < kLongLoop && c % kSpinEvery != 0))
    return false;
  if (c < kLongLoop) {
    uint64_t h = spinState(w, pc);
    if (c == kSpinFrom || h != w.spinHash) {
      w.spinHash = h;
      return false;
    }
  }
  // it spins (or loops very long): let the warp's other lanes run
  w.spinPc = ir::kNoPc;
  w.spinCount = 0;
  if (w.stack[0].mask & ~w.stack.back().mask) {
    splitOff(w, GroupWait::None); // the spinners queue up behind the others
    return true;
  }
  return rotateGroups(w);
}

} // namespace

bool jitLoopStep(Warp &w, uint32_t pc) {
  // divergentLoop's decisions, applied only where it would just count
  const uint64_t c = (w.spinPc == pc ? w.spinCount : 0) + 1;
  if (!w.its) {
    if ((c >= kLivelockFrom && c % kLivelockEvery == 0) || c == (uint64_t(1) << 24))
      return false;
  } else if (!(c < kSpinFrom || (c < kLongLoop && c % kSpinEvery != 0))) {
    if (c >= kLongLoop)
      return false;
    uint64_t h = spinState(w, pc);
    if (c != kSpinFrom && h == w.spinHash)
      return false; // it spins: the warp's other lanes go first
    w.spinHash = h;
  }
  w.spinPc = pc;
  w.spinCount = c;
  return true;
}

namespace {

/// A `bra` at `pc` whose taken lanes `taken` are neither none nor all of `top`'s lanes `active`
/// (runImpl, and compiled code through jitDiverge): `top` waits at the reconvergence point and
/// each path that does not start there gets an entry, the taken one on top. May reallocate the
/// stack (`top` is then gone).
void divergeAt(Warp &w, SimtEntry &top, uint32_t pc, uint32_t target, uint32_t active, uint32_t taken) {
  const uint32_t r = w.fn->reconv[pc], notTaken = active & ~taken;
  top.pc = r;
  // fall-through lanes that reach the reconvergence point at once wait in `top`
  if (pc + 1 != r)
    w.stack.push_back(SimtEntry{pc + 1, r, notTaken});
  if (target != r)
    w.stack.push_back(SimtEntry{target, r, taken});
}

/// After compiled code changed the stack (jitDiverge, jitReconverge): pops the entries at their
/// reconvergence point as runImpl's loop does, but not the last one; fills `out` with the top;
/// settles the thread instructions counted with the lanes `before` (runImpl adds the call's
/// instructions with the lanes of the top it finds at the end: so ctx.threadInsts gets `count`
/// instructions of `before` less those of the new lanes, and the sum comes out right);
/// true when the top can run.
bool jitSettle(ExecCtx &ctx, Warp &w, uint32_t before, uint64_t count, JitResume *out) {
  while (w.stack.size() > 1 && (w.stack.back().pc == w.stack.back().rpc || w.stack.back().mask == 0))
    w.stack.pop_back();
  const SimtEntry &top = w.stack.back();
  out->pc = top.pc;
  out->mask = top.mask;
  out->rpc = top.rpc;
  ctx.threadInsts += count * (uint64_t(laneCount(before)) - uint64_t(laneCount(top.mask)));
  return top.pc != top.rpc && top.mask != 0;
}

} // namespace

bool jitDiverge(ExecCtx &ctx, Warp &w, uint32_t pc, uint32_t taken, uint64_t count, JitResume *out) {
  ++ctx.jitStackChanges;
  SimtEntry &top = w.stack.back();
  const uint32_t active = top.mask;
  divergeAt(w, top, pc, w.fn->code[pc].target, active, taken);
  return jitSettle(ctx, w, active, count, out);
}

bool jitReconverge(ExecCtx &ctx, Warp &w, uint32_t pc, uint64_t count, JitResume *out) {
  ++ctx.jitStackChanges;
  SimtEntry &top = w.stack.back();
  top.pc = pc;
  return jitSettle(ctx, w, top.mask, count, out);
}

namespace {

/// The end of the straight-line run of pure instructions (ir::Inst::pure) from `pc`, at
/// most Warp::kAheadMax + 1 long, that stops before the reconvergence point `rpc`.
uint32_t pureRunEnd(const ir::Function &fn, uint32_t pc, uint32_t rpc) {
  if (__builtin_expect(!fn.pureRun.empty(), 1)) {
    // (the lowering's table: the same end, rpc being after pc)
    const uint32_t end = pc + fn.pureRun[pc];
    return rpc > pc && rpc < end ? rpc : end;
  }
  const ir::Inst *code = fn.code.data();
  const uint32_t end = std::min<uint32_t>(uint32_t(fn.code.size()), pc + 1 + Warp::kAheadMax);
  uint32_t p = pc;
  while (p < end && p != rpc && code[p].pure)
    ++p;
  return p;
}

/// Starts bringing into the host's caches the rows of the data registers the instructions
/// [pc, end) read and write, each once (a row: 32 lanes of 8 bytes, four cache lines). A stepped
/// warp's registers have mostly left the caches since its last issue; this way their misses
/// overlap instead of coming one handler after another. Only a hint.
void prefetchRows(const Warp &w, uint32_t pc, uint32_t end) {
  const ir::Function &fn = *w.fn;
  if (__builtin_expect(!fn.aheadRowFirst.empty(), 1)) {
    // (the lowering's list for the run from pc, whatever cuts it shorter)
    const uint16_t *r = fn.aheadRows.data() + fn.aheadRowFirst[pc];
    const uint16_t *e = fn.aheadRows.data() + fn.aheadRowFirst[pc + 1];
    for (; r != e; ++r) {
      const char *p = reinterpret_cast<const char *>(w.regs + size_t(*r) * kWarpSize);
      for (unsigned b = 0; b < kWarpSize * sizeof(uint64_t); b += 64)
        __builtin_prefetch(p + b);
    }
    return;
  }
  const ir::Inst *code = fn.code.data();
  uint64_t seen[4] = {};
  auto row = [&](uint16_t r) {
    if (r & ir::Inst::kPredBit)
      return;
    if (r < fn.regSlot.size())
      r = uint16_t(fn.regSlot[r]); // (the register's row in the store)
    if (r >= 256 || (seen[r >> 6] >> (r & 63) & 1))
      return;
    seen[r >> 6] |= uint64_t(1) << (r & 63);
    const char *p = reinterpret_cast<const char *>(w.regs + size_t(r) * kWarpSize);
    for (unsigned b = 0; b < kWarpSize * sizeof(uint64_t); b += 64)
      __builtin_prefetch(p + b);
  };
  for (uint32_t p = pc; p < end; ++p) {
    const ir::Inst &in = code[p];
    for (unsigned i = 0; i < in.nrs; ++i)
      row(in.rs[i]);
    for (unsigned i = 0; i < in.nrd; ++i)
      row(in.rd[i]);
  }
}

/// A step just executed the pure instruction before `pc`: the pure instructions [pc, end) that
/// follow it in a straight line run now for the lanes of `active` their guards select, while
/// the warp's registers are in the host's caches. Their own steps then only record them
/// (Warp::aheadN).
void runAhead(ExecCtx &ctx, Warp &w, uint32_t pc, uint32_t end, uint32_t active) {
  const ir::Inst *code = w.fn->code.data();
  uint32_t k = 0;
  for (uint32_t p = pc; p < end; ++p) {
    const ir::Inst &in = code[p];
    const uint32_t m = active & (w.preds[in.guard] ^ in.guardXor);
    w.aheadMask[k++] = m;
    if (m)
      in.fn(ctx, w, in, m); // (pure: touches nothing but the warp's registers, never faults)
  }
  w.aheadPc = pc;
  w.aheadN = uint8_t(k);
  w.aheadAt = 0;
  w.aheadActive = active;
  w.aheadLanes = uint8_t(laneCount(active));
}

template <bool kStep>
uint64_t runImpl(ExecCtx &ctx, Warp &w, uint64_t budget, WarpInstRecord *rec) {
  uint64_t n = 0;
  while (n < budget) {
    if (w.stack.empty()) {
      w.state = WarpState::Done;
      break;
    }
    SimtEntry &top = w.stack.back();
    uint32_t pc = top.pc;
    if (pc == top.rpc || top.mask == 0) {
      w.stack.pop_back();
      continue;
    }
    const ir::Function &fn = *w.fn;
    if (w.aheadN) {
      // executed ahead of its issue by an earlier step (runAhead): recorded only
      if (__builtin_expect(pc != w.aheadPc, 0)) {
        ctx.fault(FaultKind::Invalid, w, fn.code[pc], (unsigned)__builtin_ctz(top.mask),
                  "internal error: the warp is at pc " + std::to_string(pc) +
                      ", not where its instructions executed ahead resume (" +
                      std::to_string(w.aheadPc) + ")");
        return n;
      }
      ++n;
      recordAhead(ctx, w, top, fn, kStep ? rec : nullptr);
      continue;
    }
    if constexpr (!kStep) {
      // Straight-line code: handlers of Ctl::None instructions never touch control state, so
      // `top`, the function and the active mask stay as they are until a control instruction,
      // the reconvergence point or the end of the budget; only the pc moves.
      const ir::Inst *code = fn.code.data();
      const uint32_t active = top.mask, lanes = laneCount(active);
      const uint32_t rpc = top.rpc;
      uint64_t done = 0;
      if (ctx.jit && fn.jit && fn.jit->entry[pc]) {
        // compiled code starts here: it runs blocks and uniform branches until an instruction
        // only this loop runs, the reconvergence point, the budget's end or a fault; when it
        // cannot start (a block the budget or `rpc` cuts) the handlers below run one by one
        const uint64_t base = w.instCount; // the code updates it for the handlers it calls
        uint32_t next = pc;
        done = fn.jit->run(&ctx, &w, active, base, &next, budget - n, rpc);
        if (done) {
          w.instCount = base + done;
          // the code may have diverged and reconverged (jitDiverge, jitReconverge: `top` may
          // be gone); they settled the instructions counted with other lanes than the last
          SimtEntry &now = w.stack.back();
          now.pc = next;
          n += done;
          ctx.warpInsts += done;
          ctx.threadInsts += (base + done) * laneCount(now.mask) - base * lanes;
          if (__builtin_expect(ctx.faultKind != FaultKind::None, 0))
            break;
          continue;
        }
      }
      while (code[pc].ctl == ir::Ctl::None && n + done < budget) {
        const ir::Inst &in = code[pc];
        uint32_t m = active & (w.preds[in.guard] ^ in.guardXor);
        ++done;
        ++w.instCount;
        ++pc;
        if (m) {
          in.fn(ctx, w, in, m);
          if (__builtin_expect(ctx.faultKind != FaultKind::None, 0))
            break;
        }
        if (pc == rpc)
          break;
      }
      if (done) {
        top.pc = pc;
        n += done;
        ctx.warpInsts += done;
        ctx.threadInsts += done * lanes;
        if (__builtin_expect(ctx.faultKind != FaultKind::None, 0))
          break;
        continue;
      }
    }
    const ir::Inst &in = fn.code[pc];
    uint32_t active = top.mask;
    uint32_t m = active & (w.preds[in.guard] ^ in.guardXor);
    ++n;
    ++w.instCount;
    ++ctx.warpInsts;
    ctx.threadInsts += laneCount(active);
    if constexpr (kStep) {
      rec->pc = pc;
      rec->inst = &in;
      rec->fn = &fn;
      rec->activeMask = active;
      rec->execMask = m;
      rec->cls = in.cls;
      rec->isMemory = false;
      rec->blocked = false;
      rec->callDone = false;
    }
    if (in.ctl == ir::Ctl::None) {
      top.pc = pc + 1;
      if constexpr (kStep) {
        // (a run of one instruction: nothing to run ahead, it executes as any other)
        const uint32_t end = in.pure ? pureRunEnd(fn, pc, top.rpc) : pc + 1;
        if (end > pc + 1) {
          prefetchRows(w, pc, end);
          if (m)
            in.fn(ctx, w, in, m);
          runAhead(ctx, w, pc + 1, end, active);
          continue;
        }
      }
      if (m) {
        in.fn(ctx, w, in, m);
        if (__builtin_expect(ctx.faultKind != FaultKind::None, 0))
          break;
        if constexpr (kStep) {
          if (in.cls == ir::OpClass::Mem || in.cls == ir::OpClass::Atomic)
            recordAccess(ctx, w, in, m, *rec);
        }
      }
      continue;
    }
    switch (in.ctl) {
    case ir::Ctl::Bra: {
      uint32_t notTaken = active & ~m;
      if (!notTaken) {
        top.pc = in.target;
        // a loop while other lanes of the warp wait (to reconverge, or in other groups)
        if (__builtin_expect(in.target <= pc && top.mask != w.liveMask, 0) &&
            divergentLoop(ctx, w, in, pc) && ctx.faulted())
          return n;
      } else if (!m) {
        top.pc = pc + 1;
      } else {
        divergeAt(w, top, pc, in.target, active, m);
      }
      break;
    }
    case ir::Ctl::Brx: {
      const std::vector<uint32_t> &tbl = fn.jumpTables[in.target];
      const uint64_t *idx = w.src(in.src[0]);
      top.pc = pc + 1;
      if (!m)
        break;
      uint32_t groups[kWarpSize];
      uint32_t gmask[kWarpSize];
      unsigned ng = 0;
      bool bad = false;
      forLanes(m, [&](unsigned l) {
        uint32_t i = (uint32_t)idx[l];
        if (i >= tbl.size()) {
          if (!bad)
            ctx.fault(FaultKind::Invalid, w, in, l,
                      "brx.idx index " + std::to_string(i) + " out of range (table of " +
                          std::to_string(tbl.size()) + " labels)");
          bad = true;
          return;
        }
        uint32_t t = tbl[i];
        unsigned g = 0;
        while (g < ng && groups[g] != t)
          ++g;
        if (g == ng) {
          groups[ng] = t;
          gmask[ng++] = 0;
        }
        gmask[g] |= 1u << l;
      });
      if (bad)
        return n;
      uint32_t rest = active & ~m; // guard-false lanes fall through
      if (ng == 1 && !rest) {
        top.pc = groups[0];
        break;
      }
      uint32_t r = fn.reconv[pc];
      top.pc = r;
      if (rest && pc + 1 != r)
        w.stack.push_back(SimtEntry{pc + 1, r, rest});
      for (unsigned g = ng; g-- > 0;)
        if (groups[g] != r)
          w.stack.push_back(SimtEntry{groups[g], r, gmask[g]});
      break;
    }
    case ir::Ctl::Call:
    case ir::Ctl::CallIndirect: {
      const ir::CallSite &site = fn.calls[in.target];
      if (!m) {
        top.pc = pc + 1;
        break;
      }
      const ir::Function *callee;
      if (in.ctl == ir::Ctl::Call) {
        callee = ctx.prog->function(site.callee);
      } else {
        const uint64_t *fp = w.src(in.src[0]);
        unsigned l0 = (unsigned)__builtin_ctz(m);
        uint64_t target = fp[l0];
        callee = ctx.prog->functionAt(target);
        if (!callee) {
          ctx.fault(FaultKind::Invalid, w, in, l0,
                    "indirect call through an invalid function address " + hex(target));
          return n;
        }
        uint32_t same = 0;
        forLanes(m, [&](unsigned l) { same |= uint32_t(fp[l] == target) << l; });
        if (same != active) {
          // serialise: this group now, the others after, all meeting at pc + 1
          top.pc = pc + 1;
          uint32_t others = active & ~same;
          w.stack.push_back(SimtEntry{pc, pc + 1, others});
          w.stack.push_back(SimtEntry{pc, pc + 1, same});
          break;
        }
      }
      top.pc = pc + 1;
      if (!enterCall(ctx, w, in, *callee, site, m))
        return n;
      break;
    }
    case ir::Ctl::Ret: {
      if (!m) {
        top.pc = pc + 1;
        break;
      }
      if (w.calls.empty()) { // ret from the kernel: like exit
        top.pc = pc + 1;
        retire(w, m, 0);
        w.liveMask &= ~m;
        if (w.stack.empty() && !resumeNext(ctx, w))
          return n;
        break;
      }
      top.pc = pc + 1;
      size_t base = w.calls.back().baseDepth;
      retire(w, m, base);
      if (w.stack.size() <= base) {
        finishCall(w, true);
        if constexpr (kStep)
          rec->callDone = true;
      } else if (__builtin_expect(w.leaveCalls, 0) && w.calls.back().callerFn != w.fn) {
        leaveCall(w, m);
        return n;
      }
      break;
    }
    case ir::Ctl::Exit: {
      top.pc = pc + 1;
      if (!m)
        break;
      retire(w, m, 0);
      w.liveMask &= ~m;
      while (!w.calls.empty() && w.calls.back().baseDepth >= w.stack.size())
        finishCall(w, false);
      if (w.stack.empty() && !resumeNext(ctx, w)) // the warp is done, or another group runs
        return n;
      break;
    }
    case ir::Ctl::Trap:
      if (!m) {
        top.pc = pc + 1;
        break;
      }
      ctx.fault(FaultKind::Trap, w, in, (unsigned)__builtin_ctz(m), "trap instruction executed");
      return n;
    case ir::Ctl::Bar:
    case ir::Ctl::BarRed:
    case ir::Ctl::BarArrive: {
      top.pc = pc + 1;
      if (!m)
        break;
      if (__builtin_expect(w.its && top.mask != w.liveMask, 0) && in.ctl != ir::Ctl::BarArrive) {
        // a diverged warp arrives when all its live lanes have
        SyncStep st = ctaBarArrive(ctx, w, in, pc);
        if (st == SyncStep::Fault)
          return n;
        if (st == SyncStep::Parked)
          break;
        m = w.stack.back().mask & (w.preds[in.guard] ^ in.guardXor);
      }
      unsigned id;
      bool wait = in.ctl != ir::Ctl::BarArrive;
      bool done = arrive(ctx, w, in, m, id, wait);
      if (ctx.faulted())
        return n;
      if (done) {
        BarrierState &b = w.cta->bars[id];
        if (in.aux & 2) {
          // deliver the reduction to every waiting warp
          for (uint32_t wid : b.waiting) {
            Warp &o = w.cta->warps[wid];
            const ir::Inst &oi = o.fn->code[o.stack.back().pc - 1];
            unsigned op = (oi.aux >> 2) & 3;
            uint64_t v = op == 0 ? b.redPopc : op == 1 ? b.redAnd : b.redOr;
            uint64_t *d = o.reg(oi.dst[0]);
            if ((oi.aux >> 4) & 1) { // predicate destination
              o.preds[oi.dst[0]] = v ? kFullMask : 0;
            } else {
              for (unsigned l = 0; l < kWarpSize; ++l)
                d[l] = v;
            }
          }
        }
        releaseBarrier(*w.cta, id);
      }
      if (w.state == WarpState::AtBarrier)
        return n;
      break;
    }
    case ir::Ctl::Yield:
      top.pc = pc + 1;
      if (w.its && top.mask != w.liveMask) { // nanosleep: the warp's other lanes go first
        if (w.stack[0].mask & ~top.mask)
          splitOff(w, GroupWait::None);
        else
          rotateGroups(w);
      }
      return n;
    case ir::Ctl::WarpSync: {
      uint32_t co = 0;
      if (__builtin_expect(w.its && top.mask != w.liveMask, 0) && m) {
        SyncStep st = warpSyncArrive(ctx, w, in, pc, m, co);
        if (st == SyncStep::Fault)
          return n;
        if (st == SyncStep::Parked)
          break;
        if constexpr (kStep) {
          rec->activeMask = w.stack.back().mask | co;
          rec->execMask = m;
        }
      }
      w.stack.back().pc = pc + 1;
      if (m) {
        in.fn(ctx, w, in, m);
        if (__builtin_expect(ctx.faultKind != FaultKind::None, 0))
          return n;
      }
      break;
    }
    case ir::Ctl::Wait:
      if (!m) {
        top.pc = pc + 1;
        break;
      }
      if (in.poll(ctx, w, in, m)) {
        w.waitStep = 0;
        w.waitData = 0;
        top.pc = pc + 1;
        if (ctx.faulted())
          return n;
        break;
      }
      // not yet: the instruction did not execute; the warp stays here and gives up its turn
      ++w.waitStep;
      --n;
      --w.instCount;
      --ctx.warpInsts;
      ctx.threadInsts -= laneCount(active);
      ctx.waited = true;
      if constexpr (kStep)
        rec->blocked = true;
      return n;
    case ir::Ctl::Unsupported:
      ctx.fault(FaultKind::Unsupported, w, in, (unsigned)__builtin_ctz(active ? active : 1),
                "unsupported PTX instruction '" +
                    (in.aux < fn.notes.size() ? fn.notes[in.aux] : opcodeInfo(in.opcode).name) + "'");
      return n;
    case ir::Ctl::None:
      break;
    }
  }
  return n;
}

} // namespace

uint64_t runWarp(ExecCtx &ctx, Warp &w, uint64_t budget) { return runImpl<false>(ctx, w, budget, nullptr); }

const ir::Inst *peekWarp(Warp &w) {
  if (w.state != WarpState::Ready)
    return nullptr;
  while (!w.stack.empty()) {
    SimtEntry &top = w.stack.back();
    if (top.pc == top.rpc || top.mask == 0) {
      w.stack.pop_back();
      continue;
    }
    return &w.fn->code[top.pc];
  }
  return nullptr;
}

bool stepPureRun(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t pc, uint32_t rpc, uint32_t m,
                 uint32_t active) {
  // (runImpl's run of a step, the same order: the rows, the instruction, the run)
  const uint32_t end = pureRunEnd(*w.fn, pc, rpc);
  if (end <= pc + 1)
    return false;
  prefetchRows(w, pc, end);
  if (m)
    in.fn(ctx, w, in, m);
  runAhead(ctx, w, pc + 1, end, active);
  return true;
}

void recordGenericSpace(const ExecCtx &ctx, WarpInstRecord &rec, uint32_t m) {
  // a generic access goes where its first lane's address points; the others are assumed to go
  // to the same space (mixed-space warps are rare)
  const DeviceMemory &mem = *ctx.mem;
  uint64_t a0 = rec.addr[__builtin_ctz(m)];
  uint64_t base = 0;
  if (mem.inSharedWindow(a0)) {
    rec.space = ir::MemSpace::Shared;
    base = mem.sharedWindow();
  } else if (mem.inLocalWindow(a0)) {
    rec.space = ir::MemSpace::Local;
    base = mem.localWindow();
  } else {
    rec.space = ir::MemSpace::Global;
  }
  if (base)
    forLanes(m, [&](unsigned l) { rec.addr[l] -= base; });
}

bool stepWarp(ExecCtx &ctx, Warp &w, WarpInstRecord &rec) {
  if (w.state != WarpState::Ready)
    return false;
  uint64_t switches = w.groupSwitches;
  bool ran = runImpl<true>(ctx, w, 1, &rec) == 1;
  rec.switched = w.groupSwitches != switches;
  return ran;
}

// --- builtins (calls to bodiless externals) -------------------------------------------------------

namespace {
struct ReadCtx {
  ExecCtx *ctx;
  Warp *w;
  unsigned lane;
};
bool readDevice(void *c, uint64_t addr, void *out, size_t n) {
  auto *p = static_cast<ReadCtx *>(c);
  uint8_t *h = translateGeneric(*p->ctx, *p->w, p->lane, addr, (unsigned)n);
  if (!h)
    return false;
  std::memcpy(out, h, n);
  return true;
}

uint64_t argValue(Warp &w, const ir::ArgCopy &a, unsigned l) {
  if (a.cst)
    return a.cst[l];
  if (a.fromReg)
    return w.regs[a.callerOff + l];
  uint64_t v = 0;
  std::memcpy(&v, localLane(w, l, w.frameBase + a.callerOff), std::min<uint32_t>(a.size, 8));
  return v;
}

void setRet(Warp &w, const ir::CallSite &site, unsigned l, uint64_t v) {
  if (site.rets.empty())
    return;
  const ir::ArgCopy &r = site.rets[0];
  if (r.fromReg)
    w.regs[r.callerOff + l] = v;
  else
    std::memcpy(localLane(w, l, w.frameBase + r.callerOff), &v, std::min<uint32_t>(r.size, 8));
}

bool builtinCall(ExecCtx &ctx, Warp &w, const ir::Inst &in, const ir::Function &callee,
                 const ir::CallSite &site, uint32_t m) {
  switch ((Builtin)callee.builtin) {
  case Builtin::Vprintf: {
    bool ok = true;
    forLanes(m, [&](unsigned l) {
      if (!ok || site.args.size() < 2)
        return;
      uint64_t fmt = argValue(w, site.args[0], l), args = argValue(w, site.args[1], l);
      ReadCtx c{&ctx, &w, l};
      int r = formatDevicePrintf(w.cta->printf, fmt, args, readDevice, &c);
      setRet(w, site, l, (uint64_t)(int64_t)r);
    });
    return ok;
  }
  case Builtin::Malloc:
    forLanes(m, [&](unsigned l) {
      uint64_t n = site.args.empty() ? 0 : argValue(w, site.args[0], l);
      setRet(w, site, l, ctx.prog->heapMalloc(n));
    });
    return true;
  case Builtin::Free:
    forLanes(m, [&](unsigned l) {
      if (!site.args.empty())
        ctx.prog->heapFree(argValue(w, site.args[0], l));
    });
    return true;
  case Builtin::AssertFail: {
    unsigned l = (unsigned)__builtin_ctz(m);
    std::string msg = "assertion failed";
    if (site.args.size() >= 3) {
      auto str = [&](uint64_t a) {
        std::string s;
        for (int i = 0; i < 512; ++i) {
          uint8_t *p = translateGeneric(ctx, w, l, a + i, 1);
          if (!p || !*p)
            break;
          s += (char)*p;
        }
        return s;
      };
      msg = "assertion '" + str(argValue(w, site.args[0], l)) + "' failed at " +
            str(argValue(w, site.args[1], l)) + ":" +
            std::to_string((uint32_t)argValue(w, site.args[2], l));
    }
    ctx.fault(FaultKind::Assert, w, in, l, msg);
    return false;
  }
  default:
    if (callee.builtin >= (uint32_t)Builtin::DeviceRuntimeFirst)
      return deviceRuntimeCall(ctx, w, in, callee.builtin, site, m);
    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(m),
              "call to undefined external function '" + callee.name + "'");
    return false;
  }
}
} // namespace

uint64_t builtinArg(Warp &w, const ir::ArgCopy &a, unsigned lane) { return argValue(w, a, lane); }

void builtinArgBytes(Warp &w, const ir::ArgCopy &a, unsigned lane, void *out, size_t n) {
  if (a.cst || a.fromReg) {
    uint64_t v = argValue(w, a, lane);
    std::memcpy(out, &v, std::min<size_t>(n, 8));
    return;
  }
  std::memcpy(out, localLane(w, lane, w.frameBase + a.callerOff), std::min<size_t>(n, a.size));
}

void builtinReturn(Warp &w, const ir::CallSite &site, unsigned lane, uint64_t v) {
  setRet(w, site, lane, v);
}

} // namespace ptxsim::ptx::exec
