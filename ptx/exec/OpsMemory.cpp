// Loads, stores, address conversion and asynchronous copies.

#include "ptx/exec/OpsCommon.h"

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

/// ld: in.width bytes per element, in.vec elements, in.ndst destinations (sinks skipped via
/// a scratch register). T is the element type (signed types sign-extend into the register).
template <class T> void ldFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint8_t *p[kWarpSize];
  unsigned n = in.vec;
  if (!resolveAddresses(ctx, w, in, m, sizeof(T) * n, sizeof(T) * n, false, p))
    return;
  if (n == 1) {
    uint64_t *d = w.reg(in.dst[0]);
    forLanes(m, [&](unsigned l) {
      T v;
      std::memcpy(&v, p[l], sizeof(T));
      d[l] = toBits(v);
    });
    return;
  }
  // read all elements before writing, in case a destination is also the address register
  T vals[4][kWarpSize];
  forLanes(m, [&](unsigned l) { std::memcpy(vals[0] + 0, p[l], 0); });
  for (unsigned i = 0; i < n && i < 4; ++i)
    forLanes(m, [&](unsigned l) { std::memcpy(&vals[i][l], p[l] + i * sizeof(T), sizeof(T)); });
  for (unsigned i = 0; i < n && i < 4; ++i) {
    uint64_t *d = w.reg(in.dst[i]);
    forLanes(m, [&](unsigned l) { d[l] = toBits(vals[i][l]); });
  }
}

template <class T> void stFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint8_t *p[kWarpSize];
  unsigned n = in.vec;
  if (!resolveAddresses(ctx, w, in, m, sizeof(T) * n, sizeof(T) * n, true, p))
    return;
  for (unsigned i = 0; i < n && i < 4; ++i) {
    const uint64_t *s = w.src(in.src[1 + i]);
    forLanes(m, [&](unsigned l) {
      T v = (T)s[l];
      std::memcpy(p[l] + i * sizeof(T), &v, sizeof(T));
    });
  }
}

template <class T> struct LdH { static constexpr ir::ExecFn fn = ldFn<T>; };
template <class T> struct StH { static constexpr ir::ExecFn fn = stFn<std::make_unsigned_t<T>>; };

ScalarType memType(ScalarType t) {
  switch (t) {
  case ScalarType::f32: return ScalarType::b32;
  case ScalarType::f64: return ScalarType::b64;
  case ScalarType::f16: case ScalarType::bf16: return ScalarType::b16;
  case ScalarType::f16x2: case ScalarType::bf16x2: return ScalarType::b32;
  default: return t;
  }
}

Space spaceOf(LowerCtx &c) {
  Mod m = c.first({Mod::global, Mod::shared, Mod::shared_cta, Mod::shared_cluster, Mod::local,
                   Mod::const_, Mod::param, Mod::param_entry, Mod::param_func});
  switch (m) {
  case Mod::global: return Space::Global;
  case Mod::shared: case Mod::shared_cta: case Mod::shared_cluster: return Space::Shared;
  case Mod::local: return Space::Local;
  case Mod::const_: return Space::Const;
  case Mod::param: case Mod::param_entry: case Mod::param_func: return Space::Param;
  default: return Space::None;
  }
}

bool lowerLd(LowerCtx &c) {
  ScalarType t = c.type();
  if (t == ScalarType::pred || typeBits(t) > 64)
    return c.unsupported("type");
  ScalarType mt = memType(t);
  ir::ExecFn fn = byIntType<LdH, kW8 | kW16to64>(mt);
  if (!fn)
    return c.unsupported("type");
  unsigned n = c.vecWidth();
  if (n > 4)
    return c.unsupported("vector width");
  uint32_t d[4];
  const Operand &dop = c.op(0);
  if (n == 1)
    d[0] = c.dst(dop);
  else
    for (unsigned i = 0; i < n; ++i)
      d[i] = c.dst(dop.elems[i]);
  ir::Inst tmp;
  c.address(c.op(1), spaceOf(c), tmp);
  ir::Inst &in = c.emit(fn, ir::OpClass::Mem);
  in.space = tmp.space;
  in.abase = tmp.abase;
  in.off = tmp.off;
  in.addr32 = tmp.addr32;
  in.src[0] = tmp.src[0];
  in.width = (uint8_t)(typeBits(t) / 8);
  in.vec = (uint8_t)n;
  in.ndst = (uint8_t)n;
  for (unsigned i = 0; i < n; ++i)
    in.dst[i] = d[i];
  return true;
}

bool lowerSt(LowerCtx &c) {
  ScalarType t = c.type();
  if (t == ScalarType::pred || typeBits(t) > 64)
    return c.unsupported("type");
  ScalarType mt = memType(t);
  ir::ExecFn fn = byIntType<StH, kW8 | kW16to64>(mt);
  if (!fn)
    return c.unsupported("type");
  unsigned n = c.vecWidth();
  if (n > 4)
    return c.unsupported("vector width");
  ir::Opnd s[4];
  const Operand &sop = c.op(1);
  if (n == 1)
    s[0] = c.src(sop, t);
  else
    for (unsigned i = 0; i < n; ++i)
      s[i] = c.src(sop.elems[i], t);
  ir::Inst tmp;
  c.address(c.op(0), spaceOf(c), tmp);
  ir::Inst &in = c.emit(fn, ir::OpClass::Mem);
  in.space = tmp.space;
  in.abase = tmp.abase;
  in.off = tmp.off;
  in.addr32 = tmp.addr32;
  in.src[0] = tmp.src[0];
  in.width = (uint8_t)(typeBits(t) / 8);
  in.vec = (uint8_t)n;
  in.nsrc = (uint8_t)(n + 1);
  for (unsigned i = 0; i < n; ++i)
    in.src[1 + i] = s[i];
  return true;
}

/// cvta: in.flags bit0 = to generic (else from generic), in.aux = space (1 shared, 2 local).
void cvtaFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  uint64_t base = in.aux == 1 ? ctx.mem->sharedWindow() : in.aux == 2 ? ctx.mem->localWindow() : 0;
  bool toGeneric = in.flags & 1;
  bool narrow = in.flags & 2;
  forLanes(m, [&](unsigned l) {
    uint64_t v = narrow ? (uint32_t)a[l] : a[l];
    uint64_t r = toGeneric ? v + base : v - base;
    d[l] = narrow ? (uint32_t)r : r;
  });
}

void isspacepFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]);
  uint32_t r = 0;
  DeviceMemory &mem = *ctx.mem;
  forLanes(m, [&](unsigned l) {
    uint64_t v = a[l];
    bool ok;
    switch (in.aux) {
    case 1: ok = mem.inSharedWindow(v); break;
    case 2: ok = mem.inLocalWindow(v); break;
    case 3: { const Allocation *al = mem.find(v); ok = al && al->kind == AllocKind::Const; break; }
    case 4: { const Allocation *al = mem.find(v); ok = al && al->kind == AllocKind::Param; break; }
    default: ok = mem.inArena(v); break;
    }
    r |= uint32_t(ok) << l;
  });
  writePred(w, (uint16_t)in.dst[0], m, r);
}

void nopFn(ExecCtx &, Warp &, const Inst &, uint32_t) {}

bool lowerCvta(LowerCtx &c) {
  bool to = c.has(Mod::to);
  Space sp = spaceOf(c);
  ScalarType t = c.first({Mod::Count}) == Mod::Count ? c.type() : c.type();
  ir::Opnd a = c.src(c.op(1), t);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(cvtaFn);
  in.dst[0] = d;
  in.src[0] = a;
  in.aux = sp == Space::Shared ? 1 : sp == Space::Local ? 2 : 0;
  in.flags = (to ? 0 : 1) | (typeBits(t) == 32 ? 2 : 0);
  return true;
}

bool lowerIsspacep(LowerCtx &c) {
  Space sp = spaceOf(c);
  ir::Opnd a = c.src(c.op(1), ScalarType::u64);
  uint16_t p = c.predDst(c.op(0));
  ir::Inst &in = c.emit(isspacepFn);
  in.dst[0] = p;
  in.src[0] = a;
  in.aux = sp == Space::Shared ? 1 : sp == Space::Local ? 2 : sp == Space::Const ? 3
         : sp == Space::Param ? 4 : 0;
  return true;
}

/// cp.async.ca/cg.shared.global [dst], [src], size[, srcsize]: a global load then a shared
/// store (functional semantics: the copy completes at issue, so commit/wait are no-ops).
bool lowerCpAsync(LowerCtx &c) {
  const Instruction &ai = c.ai();
  if (ai.operands.size() < 3 || c.has(Mod::bulk))
    return c.unsupported("form");
  uint64_t size = (uint64_t)c.op(2).ival;
  if (size != 4 && size != 8 && size != 16)
    return c.unsupported("size");
  bool zfill = false;
  ir::Opnd srcSize;
  if (ai.operands.size() >= 4 && !c.isPredOperand(c.op(3))) {
    if (c.op(3).kind == Operand::Kind::Imm && (uint64_t)c.op(3).ival == size)
      ;
    else {
      zfill = true;
      srcSize = c.src(c.op(3), ScalarType::u32);
    }
  }
  unsigned n = size == 16 ? 4 : size == 8 ? 2 : 1;
  uint32_t t[4];
  for (unsigned i = 0; i < n; ++i)
    t[i] = c.temp();
  ir::Inst ta, tb;
  c.address(c.op(1), Space::Global, ta);
  c.address(c.op(0), Space::Shared, tb);
  {
    ir::Inst &in = c.emit(ldFn<uint32_t>, ir::OpClass::Mem);
    in.space = ta.space;
    in.abase = ta.abase;
    in.off = ta.off;
    in.addr32 = ta.addr32;
    in.src[0] = ta.src[0];
    in.width = 4;
    in.vec = (uint8_t)n;
    in.ndst = (uint8_t)n;
    for (unsigned i = 0; i < n; ++i)
      in.dst[i] = t[i];
    if (zfill) {
      // source bytes beyond srcsize read as zero: only 0 (all zero) or full size supported
      in.fn = [](ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
        const uint64_t *ss = w.src(in.src[1]);
        uint32_t full = 0, zero = 0;
        forLanes(m, [&](unsigned l) {
          if ((uint32_t)ss[l] >= in.width * in.vec)
            full |= 1u << l;
          else
            zero |= 1u << l;
        });
        if (full)
          ldFn<uint32_t>(ctx, w, in, full);
        for (unsigned i = 0; i < in.vec; ++i) {
          uint64_t *d = w.reg(in.dst[i]);
          forLanes(zero, [&](unsigned l) { d[l] = 0; });
        }
      };
      in.src[1] = srcSize;
    }
  }
  ir::Inst &st = c.emit(stFn<uint32_t>, ir::OpClass::Mem);
  st.space = tb.space;
  st.abase = tb.abase;
  st.off = tb.off;
  st.addr32 = tb.addr32;
  st.src[0] = tb.src[0];
  st.width = 4;
  st.vec = (uint8_t)n;
  for (unsigned i = 0; i < n; ++i)
    st.src[1 + i].reg = t[i];
  return true;
}

} // namespace

ir::ExecFn nopHandler() { return nopFn; }

void registerMemoryOps() {
  registerLowering("ld", lowerLd);
  registerLowering("ldu", lowerLd);
  registerLowering("st", lowerSt);
  registerLowering("cvta", lowerCvta);
  registerLowering("isspacep", lowerIsspacep);
  registerLowering("prefetch", [](LowerCtx &c) { c.emit(nopFn); return true; });
  registerLowering("prefetchu", [](LowerCtx &c) { c.emit(nopFn); return true; });
  registerLowering("cp", [](LowerCtx &c) {
    // cp.async and its group operations
    if (c.has(Mod::mbarrier))
      return lowerCpAsyncMbarrierArrive(c);
    if (c.has(Mod::commit_group) || c.has(Mod::wait_group) || c.has(Mod::wait_all)) {
      c.emit(nopFn, ir::OpClass::Sync);
      return true;
    }
    return lowerCpAsync(c);
  });
}

} // namespace ptxsim::ptx::exec
