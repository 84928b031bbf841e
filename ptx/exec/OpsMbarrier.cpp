// mbarrier: split arrive/wait barriers kept in 64-bit objects in shared memory.
//
// The object's encoding (opaque to programs, which only pass it to mbarrier instructions):
//   bits  0-19  pending arrivals of the current phase
//   bits 20-39  expected arrivals per phase (init's count, lowered by arrive_drop)
//   bits 40-60  pending transaction count, signed 21 bits (expect_tx adds, complete_tx subtracts)
//   bits 61-63  phase number modulo 8 (bit 61 is the phase parity)
// A phase completes when both the pending arrivals and the transaction count reach zero: the
// phase number advances and the pending count reloads from the expected count. The state token
// an arrive returns is the object as it was before the arrive, so test_wait/try_wait with a
// token complete once the object's phase differs from the token's, and pending_count reads
// the token's pending field. Lanes of a warp act one after another in lane order; one host
// thread runs a CTA, so shared-memory objects need no locking.
//
// test_wait and try_wait never block: they answer whether the phase completed, and then end
// the warp's turn (a Yield) so that the warps it waits for run before it retries. Programs poll
// both in loops (libcu++'s barrier and pipeline waits poll test_wait on sm_80, try_wait on
// sm_90, and only back off with nanosleep after 40 us of %globaltimer, which in functional mode
// is 80,000 of the warp's own instructions): without the yield a waiting warp spun through its
// whole quantum at every turn (sm_80 pipeline copy loop: 3x the instructions of sm_90's).

#include "ptx/exec/OpsCommon.h"

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

constexpr uint64_t kCountMask = (1ull << 20) - 1;

struct MbarState {
  uint32_t pending = 0, expected = 0, phase = 0;
  int32_t tx = 0;

  static MbarState decode(uint64_t v) {
    MbarState s;
    s.pending = (uint32_t)(v & kCountMask);
    s.expected = (uint32_t)((v >> 20) & kCountMask);
    uint32_t t = (uint32_t)((v >> 40) & ((1u << 21) - 1));
    s.tx = (int32_t)(t << 11) >> 11;
    s.phase = (uint32_t)(v >> 61);
    return s;
  }
  uint64_t encode() const {
    return (pending & kCountMask) | (expected & kCountMask) << 20 |
           (uint64_t)((uint32_t)tx & ((1u << 21) - 1)) << 40 | (uint64_t)(phase & 7) << 61;
  }
  void completeIfDone() {
    if (pending == 0 && tx == 0) {
      phase = (phase + 1) & 7;
      pending = expected;
    }
  }
};

enum class MbarOp : uint8_t {
  Init, Inval, Arrive, ArriveDrop, ExpectTx, CompleteTx, TestWait, TestWaitParity, CpAsyncArrive
};

/// Inst::aux: the operation; flags bit 0: arrive also expects a transaction count (src[1]),
/// bit 1: cp.async.mbarrier.arrive.noinc, bit 2: arrive.noComplete (must not end the phase). dst[0]: state register (arrive) or predicate
/// (waits); src[0]: address register; src[1]: count, transaction count, token or parity.
void mbarrierFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  MbarOp op = (MbarOp)in.aux;
  bool reads = op == MbarOp::TestWait || op == MbarOp::TestWaitParity;
  uint8_t *p[kWarpSize];
  if (!resolveAddresses(ctx, w, in, m, 8, 8, !reads, p))
    return;
  const uint64_t *v = w.src(in.src[1]);
  if (reads) {
    uint32_t done = 0;
    forLanes(m, [&](unsigned l) {
      uint64_t obj;
      std::memcpy(&obj, p[l], 8);
      uint32_t cur = MbarState::decode(obj).phase;
      bool ok = op == MbarOp::TestWait ? MbarState::decode(v[l]).phase != cur
                                       : (cur & 1) != ((uint32_t)v[l] & 1);
      done |= uint32_t(ok) << l;
    });
    writePred(w, (uint16_t)in.dst[0], m, done);
    return;
  }
  uint64_t *d = in.ndst ? w.reg(in.dst[0]) : nullptr;
  uint32_t rest = m;
  while (rest) {
    unsigned l = (unsigned)__builtin_ctz(rest);
    rest &= rest - 1;
    uint64_t obj;
    std::memcpy(&obj, p[l], 8);
    MbarState s = MbarState::decode(obj);
    uint32_t n = (uint32_t)v[l];
    auto arrive = [&](uint32_t count, bool drop) {
      if (count > s.pending) {
        ctx.fault(FaultKind::Invalid, w, in, l,
                  "mbarrier arrive of " + std::to_string(count) + " with only " +
                      std::to_string(s.pending) + " arrivals pending in the phase");
        return false;
      }
      if ((in.flags & 4) && count == s.pending) {
        ctx.fault(FaultKind::Invalid, w, in, l,
                  "mbarrier arrive.noComplete of " + std::to_string(count) +
                      " would complete the phase (its last pending arrivals)");
        return false;
      }
      s.pending -= count;
      if (drop)
        s.expected -= count <= s.expected ? count : s.expected;
      s.completeIfDone();
      return true;
    };
    switch (op) {
    case MbarOp::Init:
      s = MbarState{};
      s.pending = s.expected = n & (uint32_t)kCountMask;
      break;
    case MbarOp::Inval: s = MbarState{}; break;
    case MbarOp::Arrive:
    case MbarOp::ArriveDrop:
      if (d)
        d[l] = obj;
      if (in.flags & 1) {
        s.tx += (int32_t)n;
        n = 1;
      }
      if (!arrive(n, op == MbarOp::ArriveDrop))
        return;
      break;
    case MbarOp::ExpectTx:
      s.tx += (int32_t)n;
      s.completeIfDone();
      break;
    case MbarOp::CompleteTx:
      s.tx -= (int32_t)n;
      s.completeIfDone();
      break;
    case MbarOp::CpAsyncArrive:
      // the copies complete at issue; without .noinc the pending count is raised by one first,
      // so the arrival only has an effect with .noinc
      if ((in.flags & 2) && !arrive(1, false))
        return;
      break;
    default: break;
    }
    uint64_t nv = s.encode();
    std::memcpy(p[l], &nv, 8);
  }
}

void pendingCountFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  forLanes(m, [&](unsigned l) { d[l] = MbarState::decode(a[l]).pending; });
}

Space mbarSpace(LowerCtx &c) {
  return c.has(Mod::shared) || c.has(Mod::shared_cta) ? Space::Shared : Space::None;
}

/// Emits the mbarrier handler for address operand `addrOp` (in `space`, by default the one the
/// instruction names) with value operand `val`.
Inst &emitMbar(LowerCtx &c, MbarOp op, const Operand &addrOp, ir::Opnd val, ir::OpClass cls,
               Space space) {
  Inst &in = c.emitAddressed(mbarrierFn, cls, addrOp, space);
  in.src[1] = val;
  in.width = 8;
  in.aux = (uint32_t)op;
  return in;
}
Inst &emitMbar(LowerCtx &c, MbarOp op, const Operand &addrOp, ir::Opnd val, ir::OpClass cls) {
  return emitMbar(c, op, addrOp, val, cls, mbarSpace(c));
}

bool lowerMbarrier(LowerCtx &c) {
  if (c.has(Mod::shared_cluster))
    return c.unsupported("cluster mbarrier");
  if (c.has(Mod::pending_count)) {
    ir::Opnd a = c.src(c.op(1), ScalarType::b64);
    uint32_t d = c.dst(c.op(0));
    Inst &in = c.emit(pendingCountFn);
    in.dst[0] = d;
    in.src[0] = a;
    return true;
  }
  if (c.has(Mod::init) || c.has(Mod::inval) || c.has(Mod::complete_tx) ||
      (c.has(Mod::expect_tx) && !c.has(Mod::arrive) && !c.has(Mod::arrive_drop))) {
    MbarOp op = c.has(Mod::init) ? MbarOp::Init : c.has(Mod::inval) ? MbarOp::Inval
              : c.has(Mod::complete_tx) ? MbarOp::CompleteTx : MbarOp::ExpectTx;
    ir::Opnd v = c.numOps() > 1 ? c.src(c.op(1), ScalarType::u32) : c.constant(0);
    emitMbar(c, op, c.op(0), v, ir::OpClass::Atomic);
    return true;
  }
  if (c.has(Mod::arrive) || c.has(Mod::arrive_drop)) {
    bool tx = c.has(Mod::expect_tx);
    ir::Opnd v = c.numOps() > 2 ? c.src(c.op(2), ScalarType::u32) : c.constant(1);
    uint32_t d = c.dst(c.op(0));
    Inst &in = emitMbar(c, c.has(Mod::arrive_drop) ? MbarOp::ArriveDrop : MbarOp::Arrive,
                        c.op(1), v, ir::OpClass::Atomic);
    in.dst[0] = d;
    in.ndst = 1;
    in.flags = (tx ? 1 : 0) | (c.has(Mod::noComplete) ? 4 : 0);
    return true;
  }
  if (c.has(Mod::test_wait) || c.has(Mod::try_wait)) {
    bool parity = c.has(Mod::parity);
    ir::Opnd v = c.src(c.op(2), parity ? ScalarType::u32 : ScalarType::b64);
    uint16_t p = c.predDst(c.op(0));
    Inst &in = emitMbar(c, parity ? MbarOp::TestWaitParity : MbarOp::TestWait, c.op(1), v,
                        ir::OpClass::Mem);
    in.dst[0] = p;
    c.emitCtl(ir::Ctl::Yield, ir::OpClass::Sync);
    return true;
  }
  return c.unsupported("mbarrier operation");
}

} // namespace

/// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]. The `cp` opcode belongs to the
/// memory family (OpsMemory.cpp), which can forward this form here.
bool lowerCpAsyncMbarrierArrive(LowerCtx &c) {
  Inst &in = emitMbar(c, MbarOp::CpAsyncArrive, c.op(0), c.constant(0), ir::OpClass::Atomic);
  in.flags = c.has(Mod::noinc) ? 2 : 0;
  return true;
}

/// The mbarrier::complete_tx::bytes of a bulk copy: `bytes` transactions complete on the
/// mbarrier at shared address operand `mbar` (a cluster of one CTA: its own shared memory).
void emitBulkCompleteTx(LowerCtx &c, const Operand &mbar, ir::Opnd bytes) {
  emitMbar(c, MbarOp::CompleteTx, mbar, bytes, ir::OpClass::Atomic, Space::Shared);
}

void registerMbarrierOps() { registerLowering("mbarrier", lowerMbarrier); }

} // namespace ptxsim::ptx::exec
