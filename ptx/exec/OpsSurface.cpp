// Surface instructions on surface objects (TexDesc with kSurfMagic): suld.b, sust.b, sust.p,
// sured.b, sured.p and suq.
//
// suld.b/sust.b/sured.b address bytes: the x coordinate is a byte offset into the row (CUDA's
// surf2Dread(x * sizeof(T), y)); sust.p and sured.p address samples (x scaled by the element or
// data size). Layered geometries (a1d, a2d) take the layer as the first coordinate. An access
// must be aligned to its size (otherwise a misaligned-address fault). Out of range: .trap
// faults (an out-of-bounds fault naming the coordinates and the surface), .zero reads zeros and
// drops stores and reductions, .clamp accesses the nearest in-range location. The instructions
// report their per-lane addresses to timing models as global accesses (sured as atomics).

#include "ptx/exec/OpsCommon.h"
#include "ptx/exec/OpsTexture.h"

#include <cmath>

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

enum Clamp : uint8_t { kTrap, kClamp, kZero };
enum SGeom : uint8_t { S1d, S2d, S3d, SA1d, SA2d };
enum RedOp : uint8_t { kAdd, kMin, kMax, kAnd, kOr };

const char *geomName(unsigned g) {
  static const char *kNames[] = {"1d", "2d", "3d", "a1d", "a2d"};
  return kNames[g];
}

/// Finds the bytes [x, x + bytes) of row y, slice z, layer `layer` of surface `d`: `p` is their
/// host pointer, or null for an out-of-range access in .zero mode. False after a fault.
bool locate(ExecCtx &ctx, const Warp &w, const Inst &in, unsigned lane, const TexDesc &d,
            uint64_t handle, int64_t x, int64_t y, int64_t z, uint64_t layer, unsigned bytes,
            const char *what, uint8_t *&p) {
  int64_t rowBytes = (int64_t)d.width * d.elemBytes();
  if (x % bytes) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "misaligned surface %s of %u bytes at byte offset %lld (surface object 0x%llx)",
                  what, bytes, (long long)x, (unsigned long long)handle);
    ctx.fault(FaultKind::Misaligned, w, in, lane, buf);
    return false;
  }
  if (x < 0 || x + bytes > rowBytes || y < 0 || y >= d.height || z < 0 || z >= d.depth ||
      layer >= d.layers) {
    if (in.aux == kZero) {
      p = nullptr;
      return true;
    }
    if (in.aux == kTrap) {
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "out-of-bounds surface %s (.%s) of %u bytes at byte offset %lld, row %lld, "
                    "slice %lld, layer %llu of a %u x %u x %u surface of %u-byte elements with "
                    "%u layer(s) (surface object 0x%llx)",
                    what, geomName(in.aux2), bytes, (long long)x, (long long)y, (long long)z,
                    (unsigned long long)layer, d.width, d.height, d.depth,
                    d.elemBytes(), d.layers, (unsigned long long)handle);
      ctx.fault(FaultKind::OutOfBounds, w, in, lane, buf);
      return false;
    }
    int64_t xmax = rowBytes >= bytes ? (rowBytes - bytes) / bytes * bytes : 0;
    x = x < 0 ? 0 : x > xmax ? xmax : x;
    y = y < 0 ? 0 : y >= d.height ? d.height - 1 : y;
    z = z < 0 ? 0 : z >= d.depth ? d.depth - 1 : z;
    layer = layer >= d.layers ? d.layers - 1 : layer;
  }
  p = reinterpret_cast<uint8_t *>(d.data + layer * d.layerPitch + (uint64_t)z * d.slicePitch +
                                  (uint64_t)y * d.pitch + (uint64_t)x);
  return true;
}

/// Per-warp operand access shared by the handlers: in.src[0] handle, in.src[1..3] x, y, z,
/// in.src[4] layer (suld/sust) or value (sured); in.flags bit 0: sample addressing (x scaled).
struct SurfLanes {
  const uint64_t *h, *x, *y, *z, *s4;
  uint64_t lastH = 0;
  const TexDesc *d = nullptr;

  SurfLanes(const Warp &w, const Inst &in)
      : h(w.src(in.src[0])), x(w.src(in.src[1])), y(w.src(in.src[2])), z(w.src(in.src[3])),
        s4(w.src(in.src[4])) {}

  /// The descriptor of lane `l` (cached while the handle repeats); null after a fault.
  const TexDesc *desc(ExecCtx &ctx, const Warp &w, const Inst &in, unsigned l) {
    if (!d || h[l] != lastH) {
      d = checkedDescriptor(ctx, w, in, l, h[l], true);
      lastH = h[l];
    }
    return d;
  }
};

/// suld.b: in.aux clamp mode, in.aux2 SGeom, in.width element bytes, in.vec elements,
/// in.dst[0..vec).
void suldFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  SurfLanes s(w, in);
  unsigned eb = in.width, n = in.vec, bytes = eb * n;
  bool layered = in.aux2 == SA1d || in.aux2 == SA2d;
  uint64_t res[4][kWarpSize];
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    const TexDesc *d = s.desc(ctx, w, in, l);
    uint8_t *p = nullptr;
    if (!d || !locate(ctx, w, in, l, *d, s.h[l], (int32_t)s.x[l], (int32_t)s.y[l],
                      (int32_t)s.z[l], layered ? (uint32_t)s.s4[l] : 0, bytes, "read", p)) {
      bad = true;
      return;
    }
    w.addr[l] = p ? (uint64_t)p : d->data;
    for (unsigned i = 0; i < n; ++i) {
      uint64_t v = 0;
      if (p)
        std::memcpy(&v, p + i * eb, eb);
      res[i][l] = v;
    }
  });
  if (bad)
    return;
  for (unsigned i = 0; i < n; ++i) {
    uint64_t *dst = w.reg(in.dst[i]);
    forLanes(m, [&](unsigned l) { dst[l] = res[i][l]; });
  }
}

/// Values of sust (up to four, which do not fit beside the coordinates in an ir::Inst).
struct SustValues {
  ir::Opnd v[4];
};

AppendOnlyTable<SustValues> &sustValues() {
  static auto *t = new AppendOnlyTable<SustValues>; // lives as long as the IR that indexes it
  return *t;
}

/// Converts a 32-bit sust.p source value to channel `bits` of the surface's format.
uint32_t formatValue(const TexDesc &d, uint32_t v) {
  if (d.format == TexFormat::Float)
    return d.bits == 16 ? f64ToF16Bits(fromBits<float>(v)) : v;
  if (d.bits == 32)
    return v;
  if (d.format == TexFormat::Unsigned) {
    uint32_t mx = (1u << d.bits) - 1;
    return v > mx ? mx : v;
  }
  int32_t sv = (int32_t)v, mx = (1 << (d.bits - 1)) - 1, mn = -mx - 1;
  return (uint32_t)(sv > mx ? mx : sv < mn ? mn : sv);
}

/// sust.b / sust.p: as suld, values in sustValues().at(in.target); in.flags bit 0: sust.p.
void sustFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  SurfLanes s(w, in);
  const SustValues &sv = sustValues().at(in.target);
  unsigned eb = in.width, n = in.vec;
  bool formatted = in.flags & 1, layered = in.aux2 == SA1d || in.aux2 == SA2d;
  const uint64_t *vals[4];
  for (unsigned i = 0; i < n; ++i)
    vals[i] = w.src(sv.v[i]);
  forLanes(m, [&](unsigned l) {
    if (ctx.faulted())
      return;
    const TexDesc *d = s.desc(ctx, w, in, l);
    if (!d)
      return;
    unsigned bytes = formatted ? d->elemBytes() : eb * n;
    int64_t x = (int32_t)s.x[l];
    if (formatted)
      x *= bytes;
    uint8_t *p = nullptr;
    if (!locate(ctx, w, in, l, *d, s.h[l], x, (int32_t)s.y[l], (int32_t)s.z[l],
                layered ? (uint32_t)s.s4[l] : 0, bytes, "write", p))
      return;
    w.addr[l] = p ? (uint64_t)p : d->data;
    if (!p)
      return;
    if (!formatted) {
      for (unsigned i = 0; i < n; ++i)
        std::memcpy(p + i * eb, &vals[i][l], eb);
      return;
    }
    unsigned cb = d->bits / 8;
    for (unsigned c = 0; c < n && c < d->channels; ++c) {
      uint32_t v = formatValue(*d, (uint32_t)vals[c][l]);
      std::memcpy(p + c * cb, &v, cb);
    }
  });
}

template <class T> T applyRed(unsigned op, T a, T b) {
  switch (op) {
  case kMin: return a < b ? a : b;
  case kMax: return a > b ? a : b;
  case kAnd: return a & b;
  case kOr: return a | b;
  default: return (T)(a + b);
  }
}

template <class T> void reduceAt(uint8_t *p, unsigned op, uint64_t bits) {
  T *q = reinterpret_cast<T *>(p);
  T v = (T)bits;
  T old = __atomic_load_n(q, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(q, &old, applyRed<T>(op, old, v), false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
  }
}

/// sured: in.aux clamp mode, in.aux2 SGeom, in.off RedOp, in.width 4 or 8, in.flags bit 0
/// sample addressing, bit 1 signed (bit 2: signedness from the surface format, sured.p).
void suredFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  SurfLanes s(w, in);
  unsigned bytes = in.width, op = (unsigned)in.off;
  forLanes(m, [&](unsigned l) {
    if (ctx.faulted())
      return;
    const TexDesc *d = s.desc(ctx, w, in, l);
    if (!d)
      return;
    int64_t x = (int32_t)s.x[l];
    if (in.flags & 1)
      x *= bytes;
    uint8_t *p = nullptr;
    if (!locate(ctx, w, in, l, *d, s.h[l], x, (int32_t)s.y[l], (int32_t)s.z[l], 0, bytes,
                "reduction", p))
      return;
    w.addr[l] = p ? (uint64_t)p : d->data;
    if (!p)
      return;
    bool sgn = in.flags & 4 ? d->format == TexFormat::Signed : (in.flags & 2) != 0;
    if (bytes == 4)
      sgn ? reduceAt<int32_t>(p, op, s.s4[l]) : reduceAt<uint32_t>(p, op, s.s4[l]);
    else
      sgn ? reduceAt<int64_t>(p, op, s.s4[l]) : reduceAt<uint64_t>(p, op, s.s4[l]);
  });
}

/// Geometry and coordinate operands of `[h, {coords}]`: x, y, z and the layer (constant 0
/// where the geometry has none). False for an operand of another shape.
bool surfOperands(LowerCtx &c, const Operand &a, SGeom &g, ir::Opnd *out) {
  static const Mod kMods[] = {Mod::_1d, Mod::_2d, Mod::_3d, Mod::a1d, Mod::a2d};
  Mod gm = c.first({Mod::_1d, Mod::_2d, Mod::_3d, Mod::a1d, Mod::a2d});
  unsigned gi = 0;
  while (gi < 5 && kMods[gi] != gm)
    ++gi;
  if (gi == 5 || a.kind != Operand::Kind::Address || a.elems.size() != 2)
    return false;
  g = (SGeom)gi;
  std::vector<const Operand *> v;
  const Operand &co = a.elems[1];
  if (co.kind == Operand::Kind::Vector)
    for (const Operand &e : co.elems)
      v.push_back(&e);
  else
    v.push_back(&co);
  static const unsigned kCoords[] = {1, 2, 3, 1, 2};
  unsigned first = g == SA1d || g == SA2d ? 1 : 0, nc = kCoords[gi];
  if (v.size() < first + nc)
    return false;
  out[0] = c.src(a.elems[0], ScalarType::u64);
  for (unsigned k = 0; k < 3; ++k)
    out[1 + k] = k < nc ? c.src(*v[first + k], ScalarType::s32) : c.constant(0);
  out[4] = first ? c.src(*v[0], ScalarType::u32) : c.constant(0);
  return true;
}

unsigned clampMode(LowerCtx &c) {
  Mod m = c.first({Mod::trap, Mod::clamp, Mod::zero});
  return m == Mod::clamp ? kClamp : m == Mod::zero ? kZero : kTrap;
}

unsigned dataBytes(ScalarType t) {
  switch (t) {
  case ScalarType::b8: return 1;
  case ScalarType::b16: return 2;
  case ScalarType::b64: case ScalarType::u64: case ScalarType::s64: return 8;
  default: return 4;
  }
}

bool lowerSuld(LowerCtx &c) {
  if (!c.has(Mod::b))
    return c.unsupported("formatted load");
  SGeom g;
  ir::Opnd ops[5];
  if (!surfOperands(c, c.op(1), g, ops))
    return c.unsupported("surface operand");
  unsigned n = c.vecWidth();
  auto dsts = vectorElements(c.op(0));
  if (dsts.size() != n)
    return c.unsupported("destination");
  uint32_t d[4];
  for (unsigned i = 0; i < n; ++i)
    d[i] = c.dst(*dsts[i]);
  ir::Inst &in = c.emit(suldFn, ir::OpClass::Mem);
  for (unsigned k = 0; k < 5; ++k)
    in.src[k] = ops[k];
  in.nsrc = 5;
  in.space = ir::MemSpace::Global;
  in.aux = clampMode(c);
  in.aux2 = g;
  in.width = (uint8_t)dataBytes(c.type(0));
  in.vec = (uint8_t)n;
  in.ndst = (uint8_t)n;
  for (unsigned i = 0; i < n; ++i)
    in.dst[i] = d[i];
  return true;
}

bool lowerSust(LowerCtx &c) {
  bool formatted = c.has(Mod::p);
  SGeom g;
  ir::Opnd ops[5];
  if (!surfOperands(c, c.op(0), g, ops))
    return c.unsupported("surface operand");
  unsigned n = c.vecWidth();
  auto vals = vectorElements(c.op(1));
  if (vals.size() != n)
    return c.unsupported("source");
  ScalarType t = c.type(0);
  SustValues sv;
  for (unsigned i = 0; i < n; ++i)
    sv.v[i] = c.src(*vals[i], t);
  uint32_t idx = sustValues().add(sv);
  if (idx == AppendOnlyTable<SustValues>::kFull)
    return c.unsupported("too many sust instructions");
  ir::Inst &in = c.emit(sustFn, ir::OpClass::Mem);
  for (unsigned k = 0; k < 5; ++k)
    in.src[k] = ops[k];
  in.nsrc = 5;
  in.space = ir::MemSpace::Global;
  in.aux = clampMode(c);
  in.aux2 = g;
  in.width = (uint8_t)dataBytes(t);
  in.vec = (uint8_t)n;
  in.flags = formatted ? 1 : 0;
  in.target = idx;
  return true;
}

bool lowerSured(LowerCtx &c) {
  Mod om = c.first({Mod::add, Mod::min, Mod::max, Mod::and_, Mod::or_});
  unsigned op = om == Mod::min ? kMin : om == Mod::max ? kMax : om == Mod::and_ ? kAnd
              : om == Mod::or_ ? kOr : kAdd;
  SGeom g;
  ir::Opnd ops[5];
  if (!surfOperands(c, c.op(0), g, ops))
    return c.unsupported("surface operand");
  ScalarType t = c.type(0);
  bool sample = c.has(Mod::p);
  ops[4] = c.src(c.op(1), t);
  ir::Inst &in = c.emit(suredFn, ir::OpClass::Atomic);
  for (unsigned k = 0; k < 5; ++k)
    in.src[k] = ops[k];
  in.nsrc = 5;
  in.space = ir::MemSpace::Global;
  in.aux = clampMode(c);
  in.aux2 = g;
  in.off = op;
  in.width = (uint8_t)dataBytes(t);
  in.vec = 1;
  in.flags = (sample ? 1 : 0) | (t == ScalarType::s32 || t == ScalarType::s64 ? 2 : 0) |
             (sample ? 4 : 0);
  return true;
}

/// suq: in.aux = 0 width, 1 height, 2 depth, 3 array_size, 4 memory_layout.
void suqFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *h = w.src(in.src[0]);
  uint64_t res[kWarpSize];
  bool bad = false;
  forLanes(m, [&](unsigned l) {
    if (bad)
      return;
    const TexDesc *d = checkedDescriptor(ctx, w, in, l, h[l], true);
    if (!d) {
      bad = true;
      return;
    }
    uint32_t v = 0;
    switch (in.aux) {
    case 0: v = d->width; break;
    case 1: v = d->height; break;
    case 2: v = d->depth; break;
    case 3: v = d->layered ? (d->cubemap ? d->layers / 6 : d->layers) : 0; break;
    default: v = 0; break; // CUDA arrays are not pitch-linear
    }
    res[l] = v;
  });
  if (bad)
    return;
  uint64_t *dst = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { dst[l] = res[l]; });
}

bool lowerSuq(LowerCtx &c) {
  static const Mod kQ[] = {Mod::width, Mod::height, Mod::depth, Mod::array_size,
                           Mod::memory_layout};
  unsigned q = 0;
  while (q < 5 && !c.has(kQ[q]))
    ++q;
  if (q == 5)
    return c.unsupported("query");
  const Operand &a = c.op(1);
  if (a.kind != Operand::Kind::Address || a.elems.empty())
    return c.unsupported("surface operand");
  ir::Opnd hs = c.src(a.elems[0], ScalarType::u64);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(suqFn, ir::OpClass::Misc);
  in.src[0] = hs;
  in.nsrc = 1;
  in.aux = q;
  in.dst[0] = d;
  in.ndst = 1;
  return true;
}

} // namespace

void registerSurfaceOps() {
  registerLowering("suld", lowerSuld);
  registerLowering("sust", lowerSust);
  registerLowering("sured", lowerSured);
  registerLowering("suq", lowerSuq);
}

} // namespace ptxsim::ptx::exec
