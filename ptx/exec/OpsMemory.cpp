// Loads, stores, address conversion, asynchronous copies and stack allocation (alloca).

#include "ptx/exec/OpsCommon.h"
#include "ptx/jit/JitOps.h"

#include <algorithm>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

/// ld: in.width bytes per element, in.vec elements, in.ndst destinations (sinks skipped via
/// a scratch register). T is the element type (signed types sign-extend into the register).
/// Copies `bytes` (4, 8, 16 or 32) for each lane in `m` between the pointers `ends(l)` returns
/// (destination, source), with a copy of constant size: one 8-byte or 16-byte move per lane, so a
/// concurrent reader or writer on another host thread never sees half a vector.
template <class Ends> inline void copyVectors(uint32_t m, unsigned bytes, Ends ends) {
  auto run = [&](auto size) {
    forLanes(m, [&](unsigned l) {
      auto [dst, src] = ends(l);
      std::memcpy(dst, src, decltype(size)::value);
    });
  };
  switch (bytes) {
  case 4: run(std::integral_constant<unsigned, 4>{}); break;
  case 8: run(std::integral_constant<unsigned, 8>{}); break;
  case 16: run(std::integral_constant<unsigned, 16>{}); break;
  default: run(std::integral_constant<unsigned, 32>{}); break;
  }
}

#if PTXSIM_HOST_AVX2
/// A full warp's 32-bit loads from scattered addresses (w.addr[l] + bias, all checked) as AVX2
/// gathers, four lanes to an instruction, each value zero-extended into its register slot as
/// toBits<uint32_t> does; the baseline loads lane by lane.
__attribute__((target("avx2"))) void gatherU32(uint64_t *d, const uint64_t *a, uint64_t bias) {
  for (unsigned l = 0; l < kWarpSize; l += 4) {
    const __m256i at = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(a + l));
    const __m128i v = _mm256_i64gather_epi32(reinterpret_cast<const int *>(bias), at, 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + l), _mm256_cvtepu32_epi64(v));
  }
}
#endif

#if PTXSIM_HOST_AVX2
/// The whole check resolveWarp makes of a full warp's shared access at a 32-bit [reg+off]
/// (ld.shared and st.shared's usual form: a tile's row, column or broadcast), in one AVX2 pass
/// over the address register: writes the lanes' addresses to `a` and returns whether every
/// lane's `bytes` lie in the CTA's `size` bytes of shared memory aligned to `bytes`, setting
/// `contiguous` as resolveWarp does; false, as resolveWarp's, when some lane needs the per-lane
/// path (which reports the fault). The same answer as resolveWarp's range and alignment test:
/// the addresses are below 2^32, so the unsigned 32-bit maximum of each 64-bit lane's halves is
/// their maximum (the high halves are 0), none is past 2^64 - bytes, and a full warp's least
/// address is never above its greatest; a coalesced warp's alignment is its first lane's.
inline __attribute__((always_inline, target("avx2"))) bool
sharedPass32In(const uint64_t *__restrict rg, uint64_t off, uint64_t *__restrict a, unsigned bytes,
               uint64_t size, bool &contiguous) {
  const uint32_t a0 = (uint32_t)(rg[0] + off), b = bytes;
  const __m256i low = _mm256_set1_epi64x(0xffffffffll), vo = _mm256_set1_epi64x((long long)off);
  // eight lanes' addresses at a time in 32-bit halves, in the order the shuffle below leaves
  // them: lanes 0 1 4 5 2 3 6 7 of the eight
  const __m256i step = _mm256_set1_epi32(int(8 * b));
  __m256i next = _mm256_add_epi32(
      _mm256_set1_epi32(int(a0)),
      _mm256_mullo_epi32(_mm256_set1_epi32(int(b)), _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7)));
  __m256i diff = _mm256_setzero_si256(), hi = diff, bits = diff;
#pragma GCC unroll 4
  for (unsigned l = 0; l < kWarpSize; l += 8) {
    const __m256i x =
        _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(rg + l)), vo);
    const __m256i y =
        _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(rg + l + 4)), vo);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(a + l), _mm256_and_si256(x, low));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(a + l + 4), _mm256_and_si256(y, low));
    const __m256i v = _mm256_castps_si256(
        _mm256_shuffle_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(y), 0x88));
    diff = _mm256_or_si256(diff, _mm256_xor_si256(v, next));
    next = _mm256_add_epi32(next, step);
    hi = _mm256_max_epu32(hi, v);
    bits = _mm256_or_si256(bits, v);
  }
  __m128i hi4 = _mm_max_epu32(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1));
  __m128i or4 = _mm_or_si128(_mm256_castsi256_si128(bits), _mm256_extracti128_si256(bits, 1));
  hi4 = _mm_max_epu32(hi4, _mm_shuffle_epi32(hi4, 0x4e));
  or4 = _mm_or_si128(or4, _mm_shuffle_epi32(or4, 0x4e));
  hi4 = _mm_max_epu32(hi4, _mm_shuffle_epi32(hi4, 0xb1));
  or4 = _mm_or_si128(or4, _mm_shuffle_epi32(or4, 0xb1));
  const uint64_t top = (uint32_t)_mm_cvtsi128_si32(hi4);
  // coalesced as resolveWarp finds it (lane l at a0 + l * bytes in 64 bits): equal in 32 bits,
  // and lane 31's address not past 2^32 - 1 (where the 32-bit sums would wrap)
  const bool coalesced =
      _mm256_testz_si256(diff, diff) && (uint64_t)a0 + (uint64_t)(kWarpSize - 1) * b <= 0xffffffffu;
  // (a coalesced warp's greatest address is a0 + 31 * bytes: the same `top`)
  const uint64_t align = coalesced ? a0 : (uint32_t)_mm_cvtsi128_si32(or4);
  contiguous = coalesced;
  return !(align & (bytes - 1)) && top <= size && size - top >= bytes;
}
__attribute__((target("avx2"))) bool sharedPass32(const uint64_t *rg, uint64_t off, uint64_t *a,
                                                  unsigned bytes, uint64_t size, bool &contiguous) {
  return sharedPass32In(rg, off, a, bytes, size, contiguous);
}

template <class T> void ldFnAny(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m);

/// hostHasAvx2(), set when the library loads: ldFn reads it without the guard of a function's
/// static, whose first call's path would give ldFn a frame.
const bool kHostAvx2 = [] {
  __builtin_cpu_init(); // (before any constructor of libgcc's own may have run)
  return __builtin_cpu_supports("avx2") != 0;
}();

/// ldFn of a full warp's scalar 32-bit shared load at a 32-bit [reg+off] (matmul's tiles): the
/// pass and the gather in one call, the gather as for a warp that is not coalesced (the same
/// values); ldFnAny when sharedPass32 refuses the access (it reports the fault).
__attribute__((target("avx2"))) void ldSharedU32(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const auto &sh = w.cta->shared;
  bool contiguous;
  if (__builtin_expect(!sharedPass32In(w.src(in.src[0]), (uint64_t)in.off, w.addr, 4, sh.size(),
                                       contiguous),
                       0))
    return ldFnAny<uint32_t>(ctx, w, in, m);
  gatherU32(w.reg(in.dst[0]), w.addr, reinterpret_cast<uint64_t>(sh.data()));
}
#endif

/// resolveWarp() for ldFn and stFn (accesses aligned to their size): a full warp's shared
/// access at a 32-bit [reg+off] checked by sharedPass32 without resolveWarp's general frame
/// (matmul's tiles: 0.9 M such loads).
inline bool resolveWarpSized(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m, unsigned bytes,
                             bool write, WarpAccess &acc) {
#if PTXSIM_HOST_AVX2
  if (in.space == ir::MemSpace::Shared && in.addr32 && m == kFullMask &&
      in.abase == ir::AddrBase::Reg && hostHasAvx2()) {
    const auto &sh = w.cta->shared;
    if (!sharedPass32(w.src(in.src[0]), (uint64_t)in.off, w.addr, bytes, sh.size(), acc.contiguous))
      return false;
    acc.bias = reinterpret_cast<uint64_t>(sh.data());
    return true;
  }
#endif
  return resolveWarp(ctx, w, in, m, bytes, bytes, write, acc);
}

template <class T> void ldFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
#if PTXSIM_HOST_AVX2
  // (tail calls both: no frame of its own, and ldSharedU32 without ldFnAny's, which is large)
  if constexpr (std::is_same_v<T, uint32_t>) {
    if (in.vec == 1 && in.space == ir::MemSpace::Shared && in.addr32 && m == kFullMask &&
        in.abase == ir::AddrBase::Reg && kHostAvx2)
      return ldSharedU32(ctx, w, in, m);
  }
#endif
  return ldFnAny<T>(ctx, w, in, m);
}

template <class T>
__attribute__((noinline)) void ldFnAny(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint8_t *p[kWarpSize];
  unsigned n = in.vec;
  if (WarpAccess acc; __builtin_expect(resolveWarpSized(ctx, w, in, m, sizeof(T) * n, false, acc), 1)) {
    // one check for the warp; a coalesced scalar load is one sequential copy
    const uint64_t *a = w.addr;
    if (n == 1) {
      uint64_t *d = w.reg(in.dst[0]);
      if (acc.contiguous) {
        const uint8_t *src = reinterpret_cast<const uint8_t *>(a[0] + acc.bias);
        for (unsigned l = 0; l < kWarpSize; ++l) {
          T v;
          std::memcpy(&v, src + l * sizeof(T), sizeof(T));
          d[l] = toBits(v);
        }
      } else {
#if PTXSIM_HOST_AVX2
        if (std::is_same_v<T, uint32_t> && m == kFullMask && hostHasAvx2())
          return gatherU32(d, a, acc.bias);
#endif
        forLanes(m, [&](unsigned l) {
          T v;
          std::memcpy(&v, reinterpret_cast<const uint8_t *>(a[l] + acc.bias), sizeof(T));
          d[l] = toBits(v);
        });
      }
      return;
    }
    forLanes(m, [&](unsigned l) { p[l] = reinterpret_cast<uint8_t *>(a[l] + acc.bias); });
  } else if (!resolveAddresses(ctx, w, in, m, sizeof(T) * n, sizeof(T) * n, false, p)) {
    return;
  }
  if (n == 1) {
    uint64_t *d = w.reg(in.dst[0]);
    forLanes(m, [&](unsigned l) {
      T v;
      std::memcpy(&v, p[l], sizeof(T));
      d[l] = toBits(v);
    });
    return;
  }
  // Each lane reads its whole vector in one access, as the hardware does: another thread's
  // vector store is seen entirely or not at all (CUB's decoupled look-back reads a tile's status
  // and value with one ld.v2 while other CTAs, on other host threads, store them with one
  // st.v2). All lanes are read before any destination is written, in case a destination is
  // also the address register.
  alignas(16) uint8_t buf[kWarpSize][32];
  copyVectors(m, n * sizeof(T), [&](unsigned l) { return std::pair{(uint8_t *)buf[l], (const uint8_t *)p[l]}; });
  for (unsigned i = 0; i < n && i < 4; ++i) {
    uint64_t *d = w.reg(in.dst[i]);
    forLanes(m, [&](unsigned l) {
      T v;
      std::memcpy(&v, buf[l] + i * sizeof(T), sizeof(T));
      d[l] = toBits(v);
    });
  }
}

/// stFn while ExecCtx::bufferStores: the same checks and faults, and the same addresses for the
/// timing model (w.addr), but each lane's bytes go to the context's store buffer. A full warp
/// storing one contiguous range (acc.contiguous: lane l's bytes follow lane l - 1's) is one entry
/// of 32 lanes' bytes, which the commit writes as the 32 lane entries in lane order would (the
/// lanes' bytes do not overlap); otherwise one entry per lane. The buffer grows once per warp
/// instruction, not once per lane (a grid-stride store spent 3,400 host instructions a warp in
/// per-lane growth, value-initialisation and, at the commit, per-lane copies).
template <class T> void bufferStore(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint8_t *p[kWarpSize];
  const unsigned n = in.vec, bytes = unsigned(sizeof(T)) * n;
  StoreBuffer &b = ctx.stores;
  const uint64_t *s[4];
  for (unsigned i = 0; i < n && i < 4; ++i)
    s[i] = w.src(in.src[1 + i]);
  // lane l's vector to `d` (the elements of the vector in order)
  auto put = [&](uint8_t *d, unsigned l) {
    for (unsigned i = 0; i < n && i < 4; ++i) {
      T v = (T)s[i][l];
      std::memcpy(d + i * sizeof(T), &v, sizeof(T));
    }
  };
  if (WarpAccess acc; resolveWarp(ctx, w, in, m, bytes, bytes, true, acc)) {
    if (acc.contiguous) {
      const size_t at = b.data.size();
      b.data.resize(at + size_t(kWarpSize) * bytes);
      uint8_t *d = b.data.data() + at;
      if (n == 1) {
        for (unsigned l = 0; l < kWarpSize; ++l) {
          T v = (T)s[0][l];
          std::memcpy(d + l * sizeof(T), &v, sizeof(T));
        }
      } else {
        for (unsigned l = 0; l < kWarpSize; ++l)
          put(d + l * bytes, l);
      }
      b.entries.push_back({reinterpret_cast<uint8_t *>(w.addr[0] + acc.bias), uint32_t(at),
                           kWarpSize * bytes});
      return;
    }
    forLanes(m, [&](unsigned l) { p[l] = reinterpret_cast<uint8_t *>(w.addr[l] + acc.bias); });
  } else if (!resolveAddresses(ctx, w, in, m, bytes, bytes, true, p)) {
    return;
  }
  size_t at = b.data.size();
  b.data.resize(at + size_t(laneCount(m)) * bytes);
  forLanes(m, [&](unsigned l) {
    put(b.data.data() + at, l);
    b.entries.push_back({p[l], uint32_t(at), bytes});
    at += bytes;
  });
}

template <class T> void stFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (__builtin_expect(ctx.bufferStores, 0) && in.space == ir::MemSpace::Global)
    return bufferStore<T>(ctx, w, in, m);
  uint8_t *p[kWarpSize];
  unsigned n = in.vec;
  if (WarpAccess acc; __builtin_expect(resolveWarpSized(ctx, w, in, m, sizeof(T) * n, true, acc), 1)) {
    const uint64_t *a = w.addr;
    if (n == 1) {
      const uint64_t *s = w.src(in.src[1]);
      if (acc.contiguous) {
        uint8_t *dst = reinterpret_cast<uint8_t *>(a[0] + acc.bias);
        for (unsigned l = 0; l < kWarpSize; ++l) {
          T v = (T)s[l];
          std::memcpy(dst + l * sizeof(T), &v, sizeof(T));
        }
      } else {
        forLanes(m, [&](unsigned l) {
          T v = (T)s[l];
          std::memcpy(reinterpret_cast<uint8_t *>(a[l] + acc.bias), &v, sizeof(T));
        });
      }
      return;
    }
    forLanes(m, [&](unsigned l) { p[l] = reinterpret_cast<uint8_t *>(a[l] + acc.bias); });
  } else if (!resolveAddresses(ctx, w, in, m, sizeof(T) * n, sizeof(T) * n, true, p)) {
    return;
  }
  if (n == 1) {
    const uint64_t *s = w.src(in.src[1]);
    forLanes(m, [&](unsigned l) {
      T v = (T)s[l];
      std::memcpy(p[l], &v, sizeof(T));
    });
    return;
  }
  // Each lane writes its whole vector in one access (see ldFn).
  alignas(16) uint8_t buf[kWarpSize][32];
  for (unsigned i = 0; i < n && i < 4; ++i) {
    const uint64_t *s = w.src(in.src[1 + i]);
    forLanes(m, [&](unsigned l) {
      T v = (T)s[l];
      std::memcpy(buf[l] + i * sizeof(T), &v, sizeof(T));
    });
  }
  copyVectors(m, n * sizeof(T), [&](unsigned l) { return std::pair{p[l], (const uint8_t *)buf[l]}; });
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

/// A global (or generic) load that must see other SMs' writes: .volatile, or .relaxed/.acquire at
/// a scope wider than the CTA. The SM's L1 is not coherent, so the GPU reads these at the L2
/// (SASS LDG.E.STRONG.GPU/.SYS); a spin on a flag polls the L2, not a stale L1 line.
bool coherentAtL2(LowerCtx &c) {
  Space sp = spaceOf(c);
  if (sp != Space::Global && sp != Space::None)
    return false;
  if (c.has(Mod::volatile_))
    return true;
  return (c.has(Mod::relaxed) || c.has(Mod::acquire)) &&
         (c.has(Mod::gpu) || c.has(Mod::sys) || c.has(Mod::cluster));
}

/// ld.b128 / st.b128 of one .b128 register: two 64-bit halves of a 16-byte aligned access into
/// (from) the register's two slots.
bool lowerLdSt128(LowerCtx &c, bool store) {
  if (c.vecWidth() != 1)
    return c.unsupported("vector of .b128");
  const Operand &r = c.op(store ? 1 : 0);
  if (r.kind != Operand::Kind::Reg || c.regBits(r) != 128)
    return c.unsupported(".b128 operand");
  uint32_t reg = store ? c.src(r, ScalarType::b128).reg : c.dst(r);
  ir::Inst &in = c.emitAddressed(store ? stFn<uint64_t> : ldFn<uint64_t>, ir::OpClass::Mem, c.op(store ? 0 : 1), spaceOf(c));
  in.width = 8;
  in.vec = 2;
  if (store) {
    in.src[1].reg = reg;
    in.src[2].reg = reg + ir::kWarpSize;
    in.nsrc = 3;
  } else {
    in.dst[0] = reg;
    in.dst[1] = reg + ir::kWarpSize;
    in.ndst = 2;
  }
  return true;
}

bool lowerLd(LowerCtx &c) {
  ScalarType t = c.type();
  if (t == ScalarType::b128)
    return lowerLdSt128(c, false);
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
  ir::Inst &in = c.emitAddressed(fn, ir::OpClass::Mem, c.op(1), spaceOf(c));
  in.width = (uint8_t)(typeBits(t) / 8);
  in.vec = (uint8_t)n;
  in.ndst = (uint8_t)n;
  if (c.has(Mod::cg) || c.has(Mod::cv) || coherentAtL2(c))
    in.hints |= ir::Inst::kHintBypassL1; // cached at L2 only (timing models)
  for (unsigned i = 0; i < n; ++i)
    in.dst[i] = d[i];
  return true;
}

bool lowerSt(LowerCtx &c) {
  ScalarType t = c.type();
  if (t == ScalarType::b128)
    return lowerLdSt128(c, true);
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
  ir::Inst &in = c.emitAddressed(fn, ir::OpClass::Mem, c.op(0), spaceOf(c));
  in.sassSeq = uint8_t(fenceOf(c, false));
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

/// The load half of cp.async with a src-size operand (in.src[1]) or an ignore-src predicate
/// (psrc[0]): each lane reads the first min(src-size, cp-size) bytes of its source, nothing when
/// ignore-src is true, and the rest of the cp-size bytes read as zero.
void cpAsyncZfillLoadFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const unsigned size = in.width * in.vec;
  const uint64_t *ss = w.src(in.src[1]);
  const uint32_t ignore = w.pred(in.psrc[0], in.psrcXor[0]) & m;
  uint32_t full = 0, part = 0;
  forLanes(m & ~ignore, [&](unsigned l) {
    uint32_t n = (uint32_t)ss[l];
    if (n >= size)
      full |= 1u << l;
    else if (n)
      part |= 1u << l;
  });
  if (full) {
    ldFn<uint32_t>(ctx, w, in, full);
    if (ctx.faultKind != FaultKind::None)
      return;
  }
  for (unsigned i = 0; i < in.vec; ++i) {
    uint64_t *d = w.reg(in.dst[i]);
    forLanes(m & ~full, [&](unsigned l) { d[l] = 0; });
  }
  for (uint32_t rest = part; rest; rest &= rest - 1) {
    unsigned l = (unsigned)__builtin_ctz(rest);
    uint32_t n = (uint32_t)ss[l];
    uint8_t *p[kWarpSize];
    if (!resolveAddresses(ctx, w, in, 1u << l, n, 1, false, p))
      return;
    uint8_t bytes[16] = {};
    std::memcpy(bytes, p[l], n);
    for (unsigned i = 0; i < in.vec; ++i) {
      uint32_t v;
      std::memcpy(&v, bytes + 4 * i, 4);
      w.reg(in.dst[i])[l] = v;
    }
  }
}

/// cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}: a
/// global load then a shared store (functional semantics: the copy completes at issue, so
/// commit/wait are no-ops). Source bytes at or past src-size, or all of them when ignore-src is
/// true, read as zero.
bool lowerCpAsync(LowerCtx &c) {
  const Instruction &ai = c.ai();
  if (ai.operands.size() < 3)
    return c.unsupported("form");
  uint64_t size = (uint64_t)c.op(2).ival;
  if (size != 4 && size != 8 && size != 16)
    return c.unsupported("size");
  // operand 3 is src-size or ignore-src unless it is the cache policy (the last operand of an
  // .L2::cache_hint form)
  unsigned extra = (unsigned)ai.operands.size() - (c.has(Mod::L2_cache_hint) ? 4 : 3);
  bool zfill = false;
  ir::Opnd srcSize = c.constant(size);
  uint16_t ignore = ir::kPredFalse;
  uint32_t ignoreXor = 0;
  if (extra >= 1) {
    zfill = true;
    if (c.isPredOperand(c.op(3)))
      c.predSrc(c.op(3), ignore, ignoreXor);
    else
      srcSize = c.src(c.op(3), ScalarType::u32);
  }
  unsigned n = size == 16 ? 4 : size == 8 ? 2 : 1;
  uint32_t t[4];
  for (unsigned i = 0; i < n; ++i)
    t[i] = c.temp();
  ir::Inst ta, tb;
  c.address(c.op(1), Space::Global, ta);
  c.address(c.op(0), Space::Shared, tb);
  {
    ir::Inst &in = c.emit(zfill ? cpAsyncZfillLoadFn : ldFn<uint32_t>, ir::OpClass::Mem);
    LowerCtx::copyAddress(in, ta);
    in.width = 4;
    in.vec = (uint8_t)n;
    in.ndst = (uint8_t)n;
    for (unsigned i = 0; i < n; ++i)
      in.dst[i] = t[i];
    in.src[1] = srcSize;
    in.psrc[0] = ignore;
    in.psrcXor[0] = ignoreXor;
  }
  ir::Inst &st = c.emit(stFn<uint32_t>, ir::OpClass::Mem);
  LowerCtx::copyAddress(st, tb);
  st.width = 4;
  st.vec = (uint8_t)n;
  for (unsigned i = 0; i < n; ++i)
    st.src[1 + i].reg = t[i];
  return true;
}

/// Writes each lane's effective address of the instruction's address operand to dst[0] (the
/// source address of a bulk copy, whose own address fields hold the destination).
void effectiveAddressFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  computeAddresses(w, in, m);
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = w.addr[l]; });
}

/// cp.async.bulk: each lane in `m` copies src[1] bytes (a multiple of 16, both addresses
/// 16-byte aligned) from the address in register src[2] (space aux2) to the instruction's
/// address. The copy completes at issue. flags bit 0: .cp_mask, src[3] the byte mask applied
/// to every 16-byte chunk.
void bulkCopyFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *sz = w.src(in.src[1]);
  const uint64_t *mask = (in.flags & 1) ? w.src(in.src[3]) : nullptr;
  for (uint32_t rest = m; rest; rest &= rest - 1) {
    unsigned l = (unsigned)__builtin_ctz(rest);
    uint32_t n = (uint32_t)sz[l];
    if (n % 16) {
      ctx.fault(FaultKind::Invalid, w, in, l,
                "cp.async.bulk of " + std::to_string(n) + " bytes: the size must be a multiple of 16");
      return;
    }
    Inst from = in;
    from.space = (ir::MemSpace)in.aux2;
    from.abase = ir::AddrBase::Reg;
    from.off = 0;
    from.addr32 = false;
    from.src[0] = in.src[2];
    uint8_t *dp[kWarpSize], *sp[kWarpSize];
    if (!resolveAddresses(ctx, w, from, 1u << l, n, 16, false, sp) ||
        !resolveAddresses(ctx, w, in, 1u << l, n, 16, true, dp))
      return;
    if (!mask) {
      std::memmove(dp[l], sp[l], n);
      continue;
    }
    for (uint32_t i = 0; i < n; ++i)
      if ((mask[l] >> (i % 16)) & 1)
        dp[l][i] = sp[l][i];
  }
}

/// cp.async.bulk (non-tensor): global -> shared (completing transactions on an mbarrier),
/// shared::cta -> shared::cluster (a cluster of one CTA: the same shared memory), shared ->
/// global (.bulk_group); the prefetch form does nothing. Copies complete at issue, so
/// cp.async.bulk.commit_group/wait_group are no-ops.
bool lowerCpAsyncBulk(LowerCtx &c) {
  if (c.has(Mod::tensor))
    return c.unsupported("tensor form (tensor maps)");
  if (c.has(Mod::prefetch)) {
    c.emit(nopFn, ir::OpClass::Mem);
    return true;
  }
  bool toGlobal = c.has(Mod::bulk_group);
  bool fromShared = toGlobal || !c.has(Mod::global);
  Space srcSpace = fromShared ? Space::Shared : Space::Global;
  Space dstSpace = toGlobal ? Space::Global : Space::Shared;
  // the source address into a register
  uint32_t srcReg = c.temp();
  {
    ir::Inst &a = c.emitAddressed(effectiveAddressFn, ir::OpClass::Alu, c.op(1), srcSpace);
    a.dst[0] = srcReg;
  }
  ir::Opnd size = c.src(c.op(2), ScalarType::u32);
  ir::Opnd byteMask;
  bool cpMask = toGlobal && c.has(Mod::cp_mask);
  if (cpMask)
    byteMask = c.src(c.op(c.numOps() - 1), ScalarType::b16);
  ir::Inst &in = c.emitAddressed(bulkCopyFn, ir::OpClass::Mem, c.op(0), dstSpace);
  in.hints |= ir::Inst::kHintOtherSpace;
  in.src[1] = size;
  in.src[2].reg = srcReg;
  in.src[3] = byteMask;
  in.nsrc = cpMask ? 4 : 3;
  in.flags = cpMask ? 1 : 0;
  in.aux2 = (uint32_t)(srcSpace == Space::Shared ? ir::MemSpace::Shared : ir::MemSpace::Global);
  in.width = 16;
  if (!toGlobal)
    emitBulkCompleteTx(c, c.op(3), size);
  return true;
}

// --- stack allocation -------------------------------------------------------------------------

void updateStackLow(Warp &w) { w.stackLow = *std::min_element(w.stackTop, w.stackTop + kWarpSize); }

/// alloca{.local}.u32|.u64 d, size{, align}: each lane takes `size` bytes below its stack top,
/// aligned down to in.aux; d is the block's local-space address. Allocations grow down from
/// the end of the thread's local memory (cudaLimitStackSize) towards the call frames.
void allocaFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *sz = w.src(in.src[0]);
  const uint64_t align = in.aux, frameEnd = w.frameBase + w.fn->frameSize;
  for (uint32_t rest = m; rest; rest &= rest - 1) {
    unsigned l = (unsigned)__builtin_ctz(rest);
    uint64_t size = in.width == 4 ? (uint32_t)sz[l] : sz[l], top = w.stackTop[l];
    uint64_t nt = size > top ? 0 : (top - size) & ~(align - 1);
    if (size > top || nt < frameEnd) {
      ctx.fault(FaultKind::Invalid, w, in, l,
                "alloca of " + std::to_string(size) + " bytes overflows the stack (" +
                    std::to_string(w.cta->localPerThread) +
                    " bytes of local memory per thread; raise cudaLimitStackSize)");
      return;
    }
    w.stackTop[l] = (uint32_t)nt;
    d[l] = nt;
  }
  updateStackLow(w);
}

/// stacksave.u32|.u64 d: the lane's stack top.
void stackSaveFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = w.stackTop[l]; });
}

/// stackrestore.u32|.u64 a: frees what was allocated since stacksave gave a.
void stackRestoreFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]);
  const uint64_t frameEnd = w.frameBase + w.fn->frameSize;
  for (uint32_t rest = m; rest; rest &= rest - 1) {
    unsigned l = (unsigned)__builtin_ctz(rest);
    if (a[l] < frameEnd || a[l] > w.cta->localPerThread) {
      ctx.fault(FaultKind::Invalid, w, in, l,
                "stackrestore to " + std::to_string(a[l]) + ", which stacksave did not return");
      return;
    }
    w.stackTop[l] = (uint32_t)a[l];
  }
  updateStackLow(w);
}

bool lowerAlloca(LowerCtx &c) {
  ScalarType t = c.type();
  uint64_t align = c.numOps() > 2 ? (uint64_t)c.op(2).ival : 8;
  if (align == 0 || (align & (align - 1)))
    return c.unsupported("alignment");
  ir::Opnd size = c.src(c.op(1), t);
  uint32_t d = c.dst(c.op(0));
  c.fn().dynamicStack = true;
  ir::Inst &in = c.emit(allocaFn, ir::OpClass::Misc);
  in.dst[0] = d;
  in.src[0] = size;
  in.nsrc = 1;
  in.width = (uint8_t)(typeBits(t) / 8);
  in.aux = (uint32_t)align;
  return true;
}

bool lowerStackSave(LowerCtx &c, bool restore) {
  c.fn().dynamicStack = true;
  if (restore) {
    ir::Opnd a = c.src(c.op(0), c.type());
    ir::Inst &in = c.emit(stackRestoreFn, ir::OpClass::Misc);
    in.src[0] = a;
    in.nsrc = 1;
  } else {
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(stackSaveFn, ir::OpClass::Misc);
    in.dst[0] = d;
  }
  return true;
}

} // namespace

bool isBufferableStore(const ir::Inst &in) {
  return in.ctl == ir::Ctl::None && in.cls == ir::OpClass::Mem && in.space == ir::MemSpace::Global &&
         !(in.hints & Inst::kHintOtherSpace) &&
         (in.fn == stFn<uint8_t> || in.fn == stFn<uint16_t> || in.fn == stFn<uint32_t> ||
          in.fn == stFn<uint64_t>);
}

void commitStores(StoreBuffer &b) {
  // (a lane's entry of 4 or 8 bytes as one move, not a call of the library's copy)
  for (const StoreBuffer::Entry &e : b.entries) {
    const uint8_t *src = b.data.data() + e.offset;
    switch (e.bytes) {
    case 4: std::memcpy(e.dst, src, 4); break;
    case 8: std::memcpy(e.dst, src, 8); break;
    default: std::memcpy(e.dst, src, e.bytes); break;
    }
  }
  b.entries.clear();
  b.data.clear();
}

ir::ExecFn nopHandler() { return nopFn; }

void registerMemoryOps() {
  // the JIT's inline fast path for coalesced global accesses (ptx/jit/JitOps.h); every other
  // case, and every fault, goes through these handlers
  jit::describeInts<LdH>(jit::Op::Ld);
  jit::describeInts<StH>(jit::Op::St);
  jit::describe(cvtaFn, jit::Op::Cvta, jit::Type::U64);
  jit::describe(movSpecial, jit::Op::Special, jit::Type::U64);
  registerLowering("ld", lowerLd);
  registerLowering("ldu", lowerLd);
  registerLowering("st", lowerSt);
  registerLowering("cvta", lowerCvta);
  registerLowering("isspacep", lowerIsspacep);
  registerLowering("alloca", lowerAlloca);
  registerLowering("stacksave", [](LowerCtx &c) { return lowerStackSave(c, false); });
  registerLowering("stackrestore", [](LowerCtx &c) { return lowerStackSave(c, true); });
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
    if (c.has(Mod::bulk))
      return lowerCpAsyncBulk(c);
    return lowerCpAsync(c);
  });
}

} // namespace ptxsim::ptx::exec
