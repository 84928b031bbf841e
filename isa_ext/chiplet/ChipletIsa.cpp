// The chiplet instructions (docs/chiplets.md):
//   chiplet.send[.v2|.v4].b32  dx, dy, a;        each active lane sends its word(s) to (dx,dy)
//   chiplet.recv[.v2|.v4].b32  d, sx, sy;        each active lane receives its word(s) from (sx,sy)
// and, with -chiplet_legacy_addc 1 (or PTXSIM_CHIPLET_LEGACY_ADDC=1, `ptxsim chiplets
// --legacy-addc`), the reference document's encoding `addc.u32|s32 d, m, n`: m's decimal digits
// ab cd ef gh i are this chiplet (ab,cd), the peer (ef,gh), and i = 0 send n (d = n) or 1
// receive into d. Off by default, because addc is also a real instruction.
//
// Lanes act in lane order, each lane's words one message on the warp's channel (its linear index
// in the grid); a chiplet.recv takes exactly the next message on its warp's channel (another size
// is an error naming both instructions), the legacy addc words from channel 0's stream. A
// receive is a blocking instruction: in timing mode the warp stalls (ext_wait) until the SM's
// cycle reaches the message's arrival through the network model; in functional mode the chiplet
// waits for the data to be known.
// Message times are the SM cycle (timing) or, in functional mode, the chiplet clock at the
// kernel's first chiplet instruction plus the warp's instruction count.
//
// The process-side runtime (tools/runtime, libptxsim_chiplet.so, preloaded by the launcher)
// owns the transport and the synchronization; these handlers reach it through dlsym so that
// libcudart itself never links MPI or the chiplet runtime.

#include "base/ExtensionOptions.h"
#include "ptx/ast/Types.h"
#include "ptx/exec/Counters.h"
#include "ptx/exec/Exec.h"
#include "ptx/exec/Lower.h"
#include "ptx/exec/Program.h"
#include "ptx/exec/Warp.h"
#include "ptx/sema/OpcodeTable.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxsim::ext::chiplet {
namespace {

using namespace ptxsim::ptx;

using SelfFn = int (*)(unsigned *, unsigned *);
using SendFn = int (*)(unsigned, unsigned, const uint32_t *, size_t, uint64_t, uint32_t,
                       const char *, char *, size_t);
using RecvFn = int (*)(unsigned, unsigned, uint32_t *, size_t, uint64_t, uint32_t, int,
                       const char *, uint64_t *, char *, size_t);

struct Runtime {
  SelfFn self = nullptr;
  SendFn send = nullptr;
  RecvFn recv = nullptr;
};

const Runtime &runtime() {
  static Runtime r = [] {
    Runtime x;
    x.self = (SelfFn)dlsym(RTLD_DEFAULT, "ptxsimChipletDeviceSelf");
    x.send = (SendFn)dlsym(RTLD_DEFAULT, "ptxsimChipletDeviceSendMsg");
    x.recv = (RecvFn)dlsym(RTLD_DEFAULT, "ptxsimChipletDeviceRecvMsg");
    return x;
  }();
  return r;
}

uint16_t gSendMsgs = 0, gRecvMsgs = 0, gWords = 0;
exec::LowerFn gPlainAddc = nullptr;
NumberOption gLegacyAddc; ///< -chiplet_legacy_addc (handle)

std::mutex gMu;
const void *gLastGrid = nullptr;
uint64_t gLastGridId = 0, gKernelBase = 0;

/// The cycle a chiplet instruction of `w` happens at (see the file comment).
uint64_t cycleOf(exec::ExecCtx &ctx, const exec::Warp &w) {
  if (ctx.cycle)
    return ctx.cycle;
  std::lock_guard<std::mutex> g(gMu);
  if (ctx.grid != gLastGrid || ctx.grid->gridId != gLastGridId) {
    gLastGrid = ctx.grid;
    gLastGridId = ctx.grid->gridId;
    using ClockFn = uint64_t (*)();
    static ClockFn clock = (ClockFn)dlsym(RTLD_DEFAULT, "ptxsimChipletClock");
    gKernelBase = clock ? clock() : 0;
  }
  return gKernelBase + w.instCount;
}

/// The warp's channel: its linear index in the grid (CTA linear id x warps per CTA + warp id).
/// A message a warp sends travels on its channel; a chiplet.recv takes from its own.
uint32_t channelOf(const exec::ExecCtx &ctx, const exec::Warp &w) {
  uint64_t threads = (uint64_t)ctx.grid->block[0] * ctx.grid->block[1] * ctx.grid->block[2];
  uint64_t warps = (threads + ir::kWarpSize - 1) / ir::kWarpSize;
  return (uint32_t)(w.cta->linearId * warps + w.id);
}

/// "chiplet.send.v4.b32 at file.ptx:41:3 (kernel 'k', warp channel 2)": the instruction, for
/// message errors.
std::string siteOf(const exec::ExecCtx &ctx, const exec::Warp &w, const ir::Inst &in,
                   const char *what) {
  std::string s = what;
  if (in.vec > 1 && std::strncmp(what, "chiplet.", 8) == 0)
    s += ".v" + std::to_string(in.vec);
  if (std::strncmp(what, "chiplet.", 8) == 0)
    s += ".b32";
  if (in.line)
    s += " at " + w.fn->fileName + ":" + std::to_string(in.line) + ":" + std::to_string(in.col);
  s += " (kernel '" + (ctx.grid && ctx.grid->kernel ? ctx.grid->kernel->name : w.fn->name) +
       "', warp channel " + std::to_string(channelOf(ctx, w)) + ")";
  return s;
}

bool requireRuntime(exec::ExecCtx &ctx, exec::Warp &w, const ir::Inst &in, uint32_t mask,
                    const char *what) {
  if (runtime().send && runtime().recv)
    return true;
  ctx.fault(exec::FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(mask),
            std::string(what) +
                ": this process is not a chiplet (run the program with `ptxsim chiplets`)");
  return false;
}

void packCoords(exec::ExecCtx &, exec::Warp &w, const ir::Inst &in, uint32_t mask) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *x = w.src(in.src[0]), *y = w.src(in.src[1]);
  exec::forLanes(mask, [&](unsigned l) {
    d[l] = ((uint64_t)(uint32_t)x[l] << 32) | (uint32_t)y[l];
  });
}

void execSend(exec::ExecCtx &ctx, exec::Warp &w, const ir::Inst &in, uint32_t mask) {
  if (!requireRuntime(ctx, w, in, mask, "chiplet.send"))
    return;
  uint64_t at = cycleOf(ctx, w);
  const uint64_t *xy = w.src(in.src[0]);
  uint32_t channel = channelOf(ctx, w);
  std::string site = siteOf(ctx, w, in, "chiplet.send");
  for (uint32_t m = mask; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    uint32_t words[4];
    for (unsigned k = 0; k < in.vec; ++k)
      words[k] = (uint32_t)w.src(in.src[1 + k])[l];
    char err[256] = "";
    if (runtime().send((unsigned)(xy[l] >> 32), (unsigned)(uint32_t)xy[l], words, in.vec, at,
                       channel, site.c_str(), err, sizeof err)) {
      ctx.fault(exec::FaultKind::Invalid, w, in, l, std::string("chiplet.send: ") + err);
      return;
    }
  }
  ctx.count(gSendMsgs, (uint64_t)__builtin_popcount(mask));
  ctx.count(gWords, (uint64_t)__builtin_popcount(mask) * in.vec);
}

/// Words a warp has received and may not hand over before its cycle reaches `doneAt` (kept in
/// the warp's own slot, Warp::waitState, between the receive's polls).
struct Held : exec::WarpWaitState {
  std::vector<uint32_t> words; ///< lane order, in.vec per lane
  uint64_t doneAt = 0;
};

void deliver(exec::Warp &w, const ir::Inst &in, uint32_t mask, const std::vector<uint32_t> &v) {
  size_t i = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    for (unsigned k = 0; k < in.vec; ++k)
      w.reg(in.dst[k])[l] = v[i++];
  }
}

/// One receive step. `peerOf(lane)` gives the source chiplet. `whole`: each lane takes exactly
/// the next message on the warp's channel (chiplet.recv); otherwise words from channel 0's
/// stream (the document's legacy addc).
template <class PeerFn>
bool pollReceive(exec::ExecCtx &ctx, exec::Warp &w, const ir::Inst &in, uint32_t mask,
                 const char *what, bool whole, PeerFn peerOf) {
  if (w.waitStep == 0) {
    if (!requireRuntime(ctx, w, in, mask, what))
      return true;
    uint64_t at = cycleOf(ctx, w), doneAt = at;
    uint32_t channel = whole ? channelOf(ctx, w) : 0;
    std::string site = siteOf(ctx, w, in, what);
    Held h;
    h.words.resize((size_t)__builtin_popcount(mask) * in.vec);
    size_t i = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      unsigned sx, sy;
      std::string perr;
      if (!peerOf(l, sx, sy, perr)) {
        ctx.fault(exec::FaultKind::Invalid, w, in, l, std::string(what) + ": " + perr);
        return true;
      }
      char err[256] = "";
      uint64_t t = 0;
      if (runtime().recv(sx, sy, h.words.data() + i, in.vec, at, channel, whole, site.c_str(), &t,
                         err, sizeof err)) {
        ctx.fault(exec::FaultKind::Invalid, w, in, l, std::string(what) + ": " + err);
        return true;
      }
      doneAt = std::max(doneAt, t);
      i += in.vec;
    }
    ctx.count(gRecvMsgs, (uint64_t)__builtin_popcount(mask));
    ctx.count(gWords, h.words.size());
    if (!ctx.cycle || ctx.cycle >= doneAt) {
      deliver(w, in, mask, h.words);
      return true;
    }
    h.doneAt = doneAt;
    w.waitState = std::make_unique<Held>(std::move(h));
    return false; // timing: the data is in flight until doneAt
  }
  const Held *held = dynamic_cast<const Held *>(w.waitState.get());
  if (!held)
    return true;
  if (ctx.cycle < held->doneAt)
    return false;
  deliver(w, in, mask, held->words);
  w.waitState.reset();
  return true;
}

bool pollRecv(exec::ExecCtx &ctx, exec::Warp &w, const ir::Inst &in, uint32_t mask) {
  const uint64_t *xy = w.src(in.src[0]);
  return pollReceive(ctx, w, in, mask, "chiplet.recv", true,
                     [&](unsigned l, unsigned &sx, unsigned &sy, std::string &) {
                       sx = (unsigned)(xy[l] >> 32);
                       sy = (unsigned)(uint32_t)xy[l];
                       return true;
                     });
}

/// Coordinates and direction of a legacy addc: (self, peer, receive?).
bool decodeLegacy(uint32_t m, unsigned &px, unsigned &py, bool &recv, std::string &err) {
  unsigned me[2] = {0, 0};
  if (!runtime().self || !runtime().self(&me[0], &me[1])) {
    err = "this process is not a chiplet (run the program with `ptxsim chiplets`)";
    return false;
  }
  unsigned i = m % 10, gh = m / 10 % 100, ef = m / 1000 % 100, cd = m / 100000 % 100,
           ab = m / 10000000 % 100;
  if (i > 1 || m >= 1000000000u) {
    err = "operand " + std::to_string(m) + " is not the abcdefghi chiplet encoding (i = 0 send, 1 receive)";
    return false;
  }
  recv = i == 1;
  if (ab == me[0] && cd == me[1]) {
    px = ef;
    py = gh;
  } else if (ef == me[0] && gh == me[1]) { // the document's sample also writes the pairs swapped
    px = ab;
    py = cd;
  } else {
    err = "operand " + std::to_string(m) + " names chiplets (" + std::to_string(ab) + "," +
          std::to_string(cd) + ") and (" + std::to_string(ef) + "," + std::to_string(gh) +
          "), neither is this chiplet (" + std::to_string(me[0]) + "," + std::to_string(me[1]) + ")";
    return false;
  }
  return true;
}

/// Legacy addc: lanes that send go first (in lane order), then lanes that receive.
bool pollLegacy(exec::ExecCtx &ctx, exec::Warp &w, const ir::Inst &in, uint32_t mask) {
  const uint64_t *m = w.src(in.src[0]), *n = w.src(in.src[1]);
  uint64_t *d = w.reg(in.dst[0]);
  uint32_t recvMask = 0;
  if (w.waitStep == 0) {
    if (!requireRuntime(ctx, w, in, mask, "addc (chiplet legacy)"))
      return true;
    uint64_t at = cycleOf(ctx, w);
    for (uint32_t mm = mask; mm; mm &= mm - 1) {
      unsigned l = (unsigned)__builtin_ctz(mm);
      unsigned px, py;
      bool recv;
      std::string err;
      if (!decodeLegacy((uint32_t)m[l], px, py, recv, err)) {
        ctx.fault(exec::FaultKind::Invalid, w, in, l, "addc (chiplet legacy): " + err);
        return true;
      }
      if (recv) {
        recvMask |= 1u << l;
        continue;
      }
      uint32_t word = (uint32_t)n[l];
      char e[256] = "";
      if (runtime().send(px, py, &word, 1, at, 0, siteOf(ctx, w, in, "addc (chiplet legacy)").c_str(),
                         e, sizeof e)) {
        ctx.fault(exec::FaultKind::Invalid, w, in, l, std::string("addc (chiplet legacy): ") + e);
        return true;
      }
      d[l] = word;
      ctx.count(gSendMsgs, 1);
      ctx.count(gWords, 1);
    }
  } else {
    for (uint32_t mm = mask; mm; mm &= mm - 1) {
      unsigned l = (unsigned)__builtin_ctz(mm);
      if ((uint32_t)m[l] % 10 == 1)
        recvMask |= 1u << l;
    }
  }
  if (!recvMask)
    return true;
  return pollReceive(ctx, w, in, recvMask, "addc (chiplet legacy)", false,
                     [&](unsigned l, unsigned &sx, unsigned &sy, std::string &err) {
                       bool r;
                       return decodeLegacy((uint32_t)m[l], sx, sy, r, err);
                     });
}

uint32_t coords(exec::LowerCtx &c, const Operand &x, const Operand &y) {
  uint32_t t = c.temp();
  ir::Inst &p = c.emit(packCoords, ir::OpClass::Alu);
  p.dst[0] = t;
  p.ndst = 1;
  p.src[0] = c.src(x, ScalarType::u32);
  p.src[1] = c.src(y, ScalarType::u32);
  p.nsrc = 2;
  return t;
}

bool lowerChiplet(exec::LowerCtx &c) {
  unsigned n = c.vecWidth();
  if (n != 1 && n != 2 && n != 4)
    return c.unsupported("vector width (chiplet messages are .b32, .v2.b32 or .v4.b32)");
  static const uint16_t kSend = registerModifier("send");
  if (c.hasModifier(kSend)) {
    uint32_t t = coords(c, c.op(0), c.op(1));
    ir::Opnd v[4];
    const Operand &sop = c.op(2);
    for (unsigned i = 0; i < n; ++i)
      v[i] = c.src(n == 1 ? sop : sop.elems[i], ScalarType::b32);
    ir::Inst &in = c.emit(execSend, ir::OpClass::Sync);
    in.src[0].reg = t;
    for (unsigned i = 0; i < n; ++i)
      in.src[1 + i] = v[i];
    in.nsrc = (uint8_t)(n + 1);
    in.vec = (uint8_t)n;
    return true;
  }
  uint32_t t = coords(c, c.op(1), c.op(2));
  uint32_t d[4];
  const Operand &dop = c.op(0);
  for (unsigned i = 0; i < n; ++i)
    d[i] = c.dst(n == 1 ? dop : dop.elems[i]);
  ir::Inst &in = c.emitWait(pollRecv, ir::OpClass::Sync);
  in.src[0].reg = t;
  in.nsrc = 1;
  for (unsigned i = 0; i < n; ++i)
    in.dst[i] = d[i];
  in.ndst = (uint8_t)n;
  in.vec = (uint8_t)n;
  return true;
}

bool legacyOn() {
  const char *e = std::getenv("PTXSIM_CHIPLET_LEGACY_ADDC");
  return gLegacyAddc.value() != 0 || (e && *e && std::strcmp(e, "0") != 0);
}

bool lowerAddc(exec::LowerCtx &c) {
  ScalarType t = c.type();
  if (!legacyOn() || c.has(Mod::cc) || (t != ScalarType::u32 && t != ScalarType::s32))
    return gPlainAddc(c);
  ir::Opnd m = c.src(c.op(1), ScalarType::u32);
  ir::Opnd n = c.src(c.op(2), ScalarType::u32);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emitWait(pollLegacy, ir::OpClass::Sync);
  in.src[0] = m;
  in.src[1] = n;
  in.nsrc = 2;
  in.dst[0] = d;
  in.ndst = 1;
  in.vec = 1;
  return true;
}

void check(const std::string &err) {
  if (!err.empty()) {
    std::fprintf(stderr, "ptxsim: internal error: chiplet extension: %s\n", err.c_str());
    std::abort();
  }
}

} // namespace

void registerChiplet() {
  registerModifier("send");
  registerModifier("recv");
  check(registerOpcode("chiplet", ".send [$vec] .b32", "s:u32 s:u32 s0/v"));
  check(registerOpcode("chiplet", ".recv [$vec] .b32", "d0/v s:u32 s:u32"));
  exec::registerLowering("chiplet", lowerChiplet);
  gPlainAddc = exec::registerLowering("addc", lowerAddc);
  gLegacyAddc = registerOption("-chiplet_legacy_addc", 0,
                               "chiplet extension: addc.u32/addc.s32 are the reference document's "
                               "chiplet send/receive (abcdefghi encoding) instead of "
                               "add-with-carry",
                               0, 1);
  gSendMsgs = exec::registerExecCounter("chiplet.send_msgs", stats::Unit::Count,
                                        "chiplet messages sent (one per lane and instruction)");
  gRecvMsgs = exec::registerExecCounter("chiplet.recv_msgs", stats::Unit::Count,
                                        "chiplet messages received");
  gWords = exec::registerExecCounter("chiplet.words", stats::Unit::Count,
                                     "32-bit words sent or received by chiplet instructions");
}

} // namespace ptxsim::ext::chiplet
