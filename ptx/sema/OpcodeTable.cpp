#include "ptx/sema/OpcodeTable.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <unordered_map>

// Spec language
// -------------
// Each row is: opcode name, modifier spec, operand spec, and optionally the lowest target that
// has the form (`"sm_80"`; `"sm_90a"` also needs an architecture-specific `a`/`f` target). The
// checker reports a form used on an older target (ptxas: "not supported on .target").
//
// Modifier spec: space-separated slots. A slot is a `|`-separated list of alternatives; a slot in
// `[ ]` is optional, a bare slot is required. An alternative is `.spelling` or `$set` (a named
// set, below). A slot whose alternatives are all types is a type slot; type slots are numbered
// 0, 1, ... in order, and an instruction's type modifiers fill them in the order written.
// Modifiers may be written in any order; each fills the first free slot that accepts it.
//
// Operand spec: space-separated operands `K[N|:type][/flags]`:
//   K: d dst reg, s src reg/imm, r src reg, P pred dst, q pred src, a address, l label,
//      c callee, L `( )` list, n any declared name, x anything
//   N: type slot (0..3); :type a fixed type (e.g. s:u32)
//   flags: w register may be wider than the type; W twice the type's width (mul.wide);
//          p `a|p` pair allowed; v `.vN` vector; V brace vector of any width allowed; s symbol name allowed; S video byte/half
//          selector allowed (`%r1.b0`, `%r2.h10`); i (addresses) a register or immediate may
//          stand for the address, as ptxas allows for cp.async.bulk; B (with V) must be a brace
//          vector (mma fragments); k an integer constant only (lop3's LUT); ? optional; * repeats

namespace ptxsim::ptx {
namespace {

struct NamedSet {
  const char *name;
  const char *alts;
};

constexpr NamedSet kSets[] = {
    {"rnd", ".rn|.rz|.rm|.rp"},
    {"irnd", ".rni|.rzi|.rmi|.rpi"},
    {"cmp", ".eq|.ne|.lt|.le|.gt|.ge|.lo|.ls|.hi|.hs|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan"},
    {"icmp", ".eq|.ne|.lt|.le|.gt|.ge|.lo|.ls|.hi|.hs"},
    {"fcmp", ".eq|.ne|.lt|.le|.gt|.ge|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan"},
    {"atomspace", ".global|.shared|.shared::cta|.shared::cluster"},
    {"ovspace", ".global|.shared|.shared::cta|.shared::cluster"},
    {"bop", ".and|.or|.xor"},
    {"u", ".u16|.u32|.u64"},
    {"s", ".s16|.s32|.s64"},
    {"b", ".b16|.b32|.b64"},
    {"int", ".u16|.u32|.u64|.s16|.s32|.s64"},
    {"int8", ".u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64"},
    {"i3264", ".u32|.s32|.u64|.s64"},
    {"f", ".f32|.f64"},
    {"h", ".f16|.f16x2|.bf16|.bf16x2"},
    {"bits", ".b8|.b16|.b32|.b64|.b128"},
    {"num", ".b16|.b32|.b64|.u16|.u32|.u64|.s16|.s32|.s64|.f16|.f16x2|.bf16|.bf16x2|.f32|.f64"},
    {"ldt", ".b8|.b16|.b32|.b64|.b128|.u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|.f16|.f16x2|"
            ".bf16|.bf16x2|.f32|.f64|.pred"},
    {"any", ".b8|.b16|.b32|.b64|.b128|.u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|.f16|.f16x2|"
            ".bf16|.bf16x2|.tf32|.f32|.f64|.e4m3|.e5m2|.e4m3x2|.e5m2x2|.e2m1x2|.e2m3x2|.e3m2x2|"
            ".ue8m0x2|.s2f6x2|.u16x2|.s16x2|.e4m3x4|.e5m2x4|.e2m1x4|.s4|.u4|.b1|.e2m1|.e2m3|.e3m2|"
            ".ue8m0|.ue4m3|.f32x2|.pred"},
    {"space", ".global|.shared|.local|.const|.param|.shared::cta|.shared::cluster|.param::entry|"
              ".param::func"},
    {"cvtaspace", ".global|.shared|.local|.const|.param|.shared::cta|.shared::cluster|"
                  ".param::entry"},
    {"sem", ".weak|.volatile|.relaxed|.acquire|.release|.acq_rel|.sc|.mmio"},
    {"scope", ".cta|.cluster|.gpu|.sys"},
    {"ldcop", ".ca|.cg|.cs|.lu|.cv"},
    {"stcop", ".wb|.cg|.cs|.wt"},
    {"evict1", ".L1::evict_normal|.L1::evict_unchanged|.L1::evict_first|.L1::evict_last|"
               ".L1::no_allocate"},
    {"evict2", ".L2::evict_normal|.L2::evict_first|.L2::evict_last|.L2::evict_unchanged|"
               ".L2::no_allocate"},
    {"l2pf", ".L2::64B|.L2::128B|.L2::256B"},
    {"vec", ".v2|.v4|.v8"},
    {"atomop", ".add|.inc|.dec|.min|.max|.exch|.and|.or|.xor"},
    {"geom", ".1d|.2d|.3d|.a1d|.a2d|.cube|.acube|.2dms|.a2dms"},
    {"cvtt", ".u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|.bf16|.f16|.f32|.f64"},
    {"cvti", ".u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64"},
    {"cvtf", ".bf16|.f16|.f32|.f64"},
    {"dim", ".1d|.2d|.3d|.4d|.5d"},
    {"redop", ".and|.or|.xor|.add|.inc|.dec|.min|.max"},
    {"vcmp", ".eq|.ne|.lt|.le|.gt|.ge"},
    {"vt", ".u32|.s32"},
    {"ss", ".shared|.shared::cta"},
    {"wss", ".global|.shared|.shared::cta"},
    {"l2prio", ".L2::evict_last|.L2::evict_normal|.L2::evict_first|.L2::evict_unchanged"},
    {"l2sec", ".L2::evict_first|.L2::evict_unchanged"},
    {"wmshape", ".m16n16k16|.m8n32k16|.m32n8k16"},
    {"cpbytes", ".mbarrier::complete_tx::bytes"},
    {"f8", ".e4m3|.e5m2"},
    {"f8f6f4", ".e4m3|.e5m2|.e3m2|.e2m3|.e2m1"},
    {"mmsem", ".relaxed|.release"},
    {"wgk8", ".m64n8k8|.m64n16k8|.m64n24k8|.m64n32k8|.m64n40k8|.m64n48k8|.m64n56k8|.m64n64k8|.m64n72k8|.m64n80k8|.m64n88k8|.m64n96k8|.m64n104k8|.m64n112k8|.m64n120k8|.m64n128k8|.m64n136k8|.m64n144k8|.m64n152k8|.m64n160k8|.m64n168k8|.m64n176k8|.m64n184k8|.m64n192k8|.m64n200k8|.m64n208k8|.m64n216k8|.m64n224k8|.m64n232k8|.m64n240k8|.m64n248k8|.m64n256k8"},
    {"wgk16", ".m64n8k16|.m64n16k16|.m64n24k16|.m64n32k16|.m64n40k16|.m64n48k16|.m64n56k16|.m64n64k16|.m64n72k16|.m64n80k16|.m64n88k16|.m64n96k16|.m64n104k16|.m64n112k16|.m64n120k16|.m64n128k16|.m64n136k16|.m64n144k16|.m64n152k16|.m64n160k16|.m64n168k16|.m64n176k16|.m64n184k16|.m64n192k16|.m64n200k16|.m64n208k16|.m64n216k16|.m64n224k16|.m64n232k16|.m64n240k16|.m64n248k16|.m64n256k16"},
    {"wgk32", ".m64n8k32|.m64n16k32|.m64n24k32|.m64n32k32|.m64n40k32|.m64n48k32|.m64n56k32|.m64n64k32|.m64n72k32|.m64n80k32|.m64n88k32|.m64n96k32|.m64n104k32|.m64n112k32|.m64n120k32|.m64n128k32|.m64n136k32|.m64n144k32|.m64n152k32|.m64n160k32|.m64n168k32|.m64n176k32|.m64n184k32|.m64n192k32|.m64n200k32|.m64n208k32|.m64n216k32|.m64n224k32|.m64n232k32|.m64n240k32|.m64n248k32|.m64n256k32"},
    {"wgk64", ".m64n8k64|.m64n16k64|.m64n24k64|.m64n32k64|.m64n40k64|.m64n48k64|.m64n56k64|.m64n64k64|.m64n72k64|.m64n80k64|.m64n88k64|.m64n96k64|.m64n104k64|.m64n112k64|.m64n120k64|.m64n128k64|.m64n136k64|.m64n144k64|.m64n152k64|.m64n160k64|.m64n168k64|.m64n176k64|.m64n184k64|.m64n192k64|.m64n200k64|.m64n208k64|.m64n216k64|.m64n224k64|.m64n232k64|.m64n240k64|.m64n248k64|.m64n256k64"},
    {"wgi32", ".m64n8k32|.m64n16k32|.m64n24k32|.m64n32k32|.m64n48k32|.m64n64k32|.m64n80k32|.m64n96k32|.m64n112k32|.m64n128k32|.m64n144k32|.m64n160k32|.m64n176k32|.m64n192k32|.m64n208k32|.m64n224k32|.m64n240k32|.m64n256k32"},
    {"wgi64", ".m64n8k64|.m64n16k64|.m64n24k64|.m64n32k64|.m64n48k64|.m64n64k64|.m64n80k64|.m64n96k64|.m64n112k64|.m64n128k64|.m64n144k64|.m64n160k64|.m64n176k64|.m64n192k64|.m64n208k64|.m64n224k64|.m64n240k64|.m64n256k64"},
    {"wgb1", ".m64n8k256|.m64n16k256|.m64n24k256|.m64n32k256|.m64n48k256|.m64n64k256|.m64n80k256|.m64n96k256|.m64n112k256|.m64n128k256|.m64n144k256|.m64n160k256|.m64n176k256|.m64n192k256|.m64n208k256|.m64n224k256|.m64n240k256|.m64n256k256"},
    {"shape", ".m16n16k16|.m32n8k16|.m8n32k16|.m16n16k8|.m8n8k4|.m8n8k32|.m8n8k128|.m16n8k4|"
              ".m16n8k8|.m16n8k16|.m16n8k32|.m16n8k64|.m16n8k128|.m16n8k256|.m8n8k16|.m16n8k1"},
};

/// The built-in instruction set. One row per variant.
struct Row {
  const char *name;
  const char *mods;
  const char *operands;
  const char *minSm = nullptr; ///< `sm_80`: needs sm_80 or later; `sm_90a`: also an `a`/`f` target
};

constexpr Row kRows[] = {
    // ---- integer arithmetic
    {"add", "[.sat] [.cc] $int|.u16x2|.s16x2", "d0 s0 s0"},
    {"add", "[$rnd] [.ftz] [.sat] .f32|.f64|.f32x2", "d0 s0 s0"},
    {"add", "[.rn] [.ftz] [.sat] $h", "d0 s0 s0"},
    {"sub", "[.sat] [.cc] $int|.u16x2|.s16x2", "d0 s0 s0"},
    {"sub", "[$rnd] [.ftz] [.sat] .f32|.f64|.f32x2", "d0 s0 s0"},
    {"sub", "[.rn] [.ftz] [.sat] $h", "d0 s0 s0"},
    {"addc", "[.cc] $i3264", "d0 s0 s0"},
    {"subc", "[.cc] $i3264", "d0 s0 s0"},
    {"mul", ".lo|.hi $int", "d0 s0 s0"},
    {"mul", ".wide .u16|.u32|.s16|.s32", "d0W s0 s0"},
    {"mul", "[$rnd] [.ftz] [.sat] .f32|.f64|.f32x2", "d0 s0 s0"},
    {"mul", "[.rn] [.ftz] [.sat] $h", "d0 s0 s0"},
    {"mad", ".lo|.hi [.sat] [.cc] $int", "d0 s0 s0 s0"},
    {"mad", ".wide [.cc] .u16|.u32|.s16|.s32", "d0W s0 s0 s0W"},
    {"mad", "[$rnd] [.ftz] [.sat] .f32|.f64", "d0 s0 s0 s0"},
    {"madc", ".lo|.hi [.cc] $i3264", "d0 s0 s0 s0"},
    {"mul24", ".lo|.hi .u32|.s32", "d0 s0 s0"},
    {"mad24", ".lo|.hi [.sat] .u32|.s32", "d0 s0 s0 s0"},
    {"sad", "$int", "d0 s0 s0 s0"},
    {"div", "$int", "d0 s0 s0"},
    {"div", ".approx|.full [.ftz] .f32", "d0 s0 s0"},
    {"div", "$rnd [.ftz] .f32|.f64", "d0 s0 s0"},
    {"rem", "$int", "d0 s0 s0"},
    {"abs", "$s", "d0 s0"},
    {"abs", "[.ftz] .f32|.f16|.f16x2", "d0 s0"},
    {"abs", ".f64|.bf16|.bf16x2", "d0 s0"},
    {"neg", "$s", "d0 s0"},
    {"neg", "[.ftz] .f32|.f16|.f16x2", "d0 s0"},
    {"neg", ".f64|.bf16|.bf16x2", "d0 s0"},
    // min/max: `.relu` only on .s32/.s16x2; `.xorsign` always comes with `.abs`; the
    // three-input form is .f32 only (sm_100+), where `.abs` may stand alone.
    {"min", "$int|.u16x2|.s16x2", "d0 s0 s0"},
    {"min", ".relu .s32|.s16x2", "d0 s0 s0"},
    {"min", "[.ftz] [.NaN] .f32|.f16|.f16x2", "d0 s0 s0"},
    {"min", "[.ftz] [.NaN] .xorsign .abs .f32|.f16|.f16x2", "d0 s0 s0", "sm_86"},
    {"min", "[.ftz] [.NaN] [.abs] .f32", "d0 s0 s0 s0"},
    {"min", "[.NaN] .bf16|.bf16x2", "d0 s0 s0"},
    {"min", "[.NaN] .xorsign .abs .bf16|.bf16x2", "d0 s0 s0", "sm_86"},
    {"min", ".f64", "d0 s0 s0"},
    {"max", "$int|.u16x2|.s16x2", "d0 s0 s0"},
    {"max", ".relu .s32|.s16x2", "d0 s0 s0"},
    {"max", "[.ftz] [.NaN] .f32|.f16|.f16x2", "d0 s0 s0"},
    {"max", "[.ftz] [.NaN] .xorsign .abs .f32|.f16|.f16x2", "d0 s0 s0", "sm_86"},
    {"max", "[.ftz] [.NaN] [.abs] .f32", "d0 s0 s0 s0"},
    {"max", "[.NaN] .bf16|.bf16x2", "d0 s0 s0"},
    {"max", "[.NaN] .xorsign .abs .bf16|.bf16x2", "d0 s0 s0", "sm_86"},
    {"max", ".f64", "d0 s0 s0"},
    {"popc", ".b32|.b64", "d:u32 s0"},
    {"clz", ".b32|.b64", "d:u32 s0"},
    {"bfind", "[.shiftamt] .u32|.u64|.s32|.s64", "d:u32 s0"},
    {"fns", ".b32", "d0 s0 s:b32 s:b32"},
    {"brev", ".b32|.b64", "d0 s0"},
    {"bfe", ".u32|.u64|.s32|.s64", "d0 s0 s:u32 s:u32"},
    {"bfi", ".b32|.b64", "d0 s0 s0 s:u32 s:u32"},
    {"szext", ".clamp|.wrap .u32|.s32", "d0 s0 s:u32"},
    {"bmsk", ".clamp|.wrap .b32", "d0 s:u32 s:u32"},
    {"dp4a", ".u32|.s32 .u32|.s32", "d:u32 s0 s1 s:u32"},
    {"dp2a", ".lo|.hi .u32|.s32 .u32|.s32", "d:u32 s0 s1 s:u32"},
    // ---- logic and shifts
    {"and", ".pred|$b", "d0 s0 s0"},
    {"or", ".pred|$b", "d0 s0 s0"},
    {"xor", ".pred|$b", "d0 s0 s0"},
    {"not", ".pred|$b", "d0 s0"},
    {"cnot", "$b", "d0 s0"},
    {"lop3", ".b32", "d0 s0 s0 s0 s:b32/k"},
    {"lop3", ".and|.or .b32", "d0/p s0 s0 s0 s:b32/k q"},
    {"shf", ".l|.r .clamp|.wrap .b32", "d0 s0 s0 s:u32"},
    {"shl", "$b", "d0 s0 s:u32"},
    {"shr", "$b|$int", "d0 s0 s:u32"},
    {"prmt", ".b32 [.f4e|.b4e|.rc8|.ecl|.ecr|.rc16]", "d0 s0 s0 s0"},
    // ---- floating point
    {"testp", ".finite|.infinite|.number|.notanumber|.normal|.subnormal .f32|.f64", "P s0"},
    {"copysign", ".f32|.f64", "d0 s0 s0"},
    {"rcp", ".approx|$rnd [.ftz] .f32|.f64", "d0 s0"},
    {"sqrt", ".approx|$rnd [.ftz] .f32|.f64", "d0 s0"},
    {"rsqrt", ".approx [.ftz] .f32|.f64", "d0 s0"},
    {"sin", ".approx [.ftz] .f32", "d0 s0"},
    {"cos", ".approx [.ftz] .f32", "d0 s0"},
    {"lg2", ".approx [.ftz] .f32", "d0 s0"},
    {"ex2", ".approx [.ftz] .f32", "d0 s0"},
    {"ex2", ".approx .f16|.f16x2", "d0 s0"},
    {"ex2", ".approx .ftz .bf16|.bf16x2", "d0 s0"},
    {"tanh", ".approx .f32|$h", "d0 s0"},
    {"fma", "$rnd [.ftz] [.sat] .f32", "d0 s0 s0 s0"},
    {"fma", "$rnd [.ftz] .f32x2", "d0 s0 s0 s0"},
    {"fma", "$rnd .f64", "d0 s0 s0 s0"},
    {"fma", ".rn [.ftz] [.sat] .f16|.f16x2", "d0 s0 s0 s0"},
    {"fma", ".rn [.ftz] .relu .f16|.f16x2", "d0 s0 s0 s0"},
    {"fma", "$rnd [.relu] .bf16|.bf16x2", "d0 s0 s0 s0"},
    {"fma", ".rn .oob [.relu] .f16|.f16x2", "d0 s0 s0 s0"},
    {"fma", "$rnd .oob [.relu] .bf16|.bf16x2", "d0 s0 s0 s0"},
    {"fma", "$rnd [.sat] .f32 .f16|.bf16", "d0 s1 s1 s0"},
    // ---- comparison and selection
    // setp: bit types compare only for (in)equality, integers have no unordered comparisons,
    // floating-point types no unsigned ones (ptxas: "Mismatch between instruction type and
    // comparison qualifier").
    {"setp", ".eq|.ne [.ftz] $b", "P/p s0 s0"},
    {"setp", ".eq|.ne $bop [.ftz] $b", "P/p s0 s0 q"},
    {"setp", "$icmp [.ftz] $int", "P/p s0 s0"},
    {"setp", "$icmp $bop [.ftz] $int", "P/p s0 s0 q"},
    {"setp", "$fcmp [.ftz] .f16|.f16x2|.bf16|.bf16x2|.f32|.f64", "P/p s0 s0"},
    {"setp", "$fcmp $bop [.ftz] .f16|.f16x2|.bf16|.bf16x2|.f32|.f64", "P/p s0 s0 q"},
    {"set", "$cmp [$bop] [.ftz] .u32|.s32|.f32|.f16|.f16x2|.bf16|.bf16x2 $num",
     "d0 s1 s1 q?"},
    {"selp", "$num", "d0 s0 s0 q"},
    {"slct", "[.ftz] $num .s32|.f32", "d0 s0 s0 s1"},
    // ---- data movement
    {"mov", ".pred|$num", "d0 s0/s"},
    {"mov", ".b32|.b64|.b128|.u32|.u64", "d0/V s0/V"},
    // ld/st: a scope only with .relaxed/.acquire/.release, which need one; .volatile and the
    // memory orders only on global/shared (or generic) memory and without .nc or cache operators.
    {"ld", "[.weak] [$space] [$ldcop] [$evict1] [$evict2] [.L2::cache_hint] "
           "[$l2pf] [.unified] [$vec] $ldt",
     "d0/wv a s:u64?"},
    {"ld", "[.weak] .global [$ldcop] .nc [$evict1] [$evict2] [.L2::cache_hint] "
           "[$l2pf] [.unified] [$vec] $ldt",
     "d0/wv a s:u64?"},
    {"ld", ".volatile [$ovspace] [$evict1] [$evict2] [.L2::cache_hint] [$l2pf] [$vec] $ldt",
     "d0/wv a s:u64?"},
    {"ld", ".relaxed|.acquire $scope [$ovspace] [$evict1] [$evict2] [.L2::cache_hint] [$l2pf] "
           "[$vec] $ldt",
     "d0/wv a s:u64?"},
    {"ld", ".mmio .relaxed .sys [.global] $ldt", "d0/w a"},
    {"ldu", "[$space] [$vec] $ldt", "d0/wv a"},
    {"st", "[.weak] [$space] [$stcop] [$evict1] [$evict2] [.L2::cache_hint] [$vec] $ldt",
     "a s0/wv s:u64?"},
    {"st", ".volatile [$ovspace] [$evict1] [$evict2] [.L2::cache_hint] [$vec] $ldt",
     "a s0/wv s:u64?"},
    {"st", ".relaxed|.release $scope [$ovspace] [$evict1] [$evict2] [.L2::cache_hint] [$vec] $ldt",
     "a s0/wv s:u64?"},
    {"st", ".mmio .relaxed .sys [.global] $ldt", "a s0/w"},
    {"prefetch", "[.global|.local] .L1|.L2", "a"},
    {"prefetch", "[.global] .L2::evict_last|.L2::evict_normal", "a"},
    {"prefetch", "[.const|.param] .tensormap", "a"},
    {"prefetchu", ".L1", "a"},
    {"cvta", "[.to] $cvtaspace .u32|.u64", "d0 s0/s"},
    // cvt rounding, as ptxas enforces it: none between integers; an integer rounding from float
    // to integer; a float rounding from integer to float and for narrowing float conversions;
    // none for widening ones; an optional integer rounding between equal float types.
    {"cvt", "[.sat] $cvti $cvti", "d0w s1w"},
    {"cvt", "$irnd [.ftz] [.sat] $cvti $cvtf", "d0w s1w"},
    {"cvt", "$rnd [.ftz] [.sat] $cvtf $cvti", "d0w s1w"},
    {"cvt", "$rnd [.ftz] [.sat] .f32 .f64", "d0w s1w"},
    {"cvt", "$rnd [.ftz] [.sat] .f16|.bf16 .f32|.f64", "d0w s1w"},
    {"cvt", "[$rnd] [.ftz] [.sat] .f16 .bf16", "d0w s1w"},
    {"cvt", "[$rnd] [.ftz] [.sat] .bf16 .f16", "d0w s1w"},
    {"cvt", "[.ftz] [.sat] .f64 .f32|.f16|.bf16", "d0w s1w"},
    {"cvt", "[.ftz] [.sat] .f32 .f16|.bf16", "d0w s1w"},
    {"cvt", "[$irnd] [.ftz] [.sat] .f16 .f16", "d0w s1w"},
    {"cvt", "[$irnd] [.ftz] [.sat] .bf16 .bf16", "d0w s1w"},
    {"cvt", "[$irnd] [.ftz] [.sat] .f32 .f32", "d0w s1w"},
    {"cvt", "[$irnd] [.ftz] [.sat] .f64 .f64", "d0w s1w"},
    {"cvt", ".rn|.rz [.relu] [.satfinite] .f16|.bf16 .f32", "d:b16/w s:f32/w"},
    {"cvt", ".rn|.rz [.relu] [.satfinite] .f16x2|.bf16x2 .f32", "d:b32/w s:f32/w s:f32/w"},
    {"cvt", ".rs [.relu] [.satfinite] .f16x2|.bf16x2 .f32", "d:b32/w s:f32/w s:f32/w s:b32/w"},
    {"cvt", ".rna [.satfinite] .tf32 .f32", "d:b32/w s:f32/w"},
    {"cvt", ".rn|.rz [.satfinite] [.relu] .tf32 .f32", "d:b32/w s:f32/w"},
    {"cvt", ".rn .satfinite [.relu] .e4m3x2|.e5m2x2 .f32", "d:b16/w s:f32/w s:f32/w", "sm_89"},
    {"cvt", ".rn .satfinite [.relu] .e4m3x2|.e5m2x2 .f16x2", "d:b16/w s:b32/w", "sm_89"},
    {"cvt", ".rn [.relu] .f16x2 .e4m3x2|.e5m2x2|.e2m3x2|.e3m2x2", "d:b32/w s:b16/w", "sm_89"},
    {"cvt", ".rn .satfinite [.relu] .e2m3x2|.e3m2x2 .f32", "d:b16/w s:f32/w s:f32/w", "sm_100a"},
    {"cvt", ".rn .satfinite [.relu] .e2m1x2 .f32", "d:b8/w s:f32/w s:f32/w", "sm_100a"},
    {"cvt", ".rn [.relu] .f16x2 .e2m1x2", "d:b32/w s:b8/w", "sm_100a"},
    {"cvt", ".rs [.relu] .satfinite .e4m3x4|.e5m2x4 .f32", "d:b32/w s:f32/wV s:b32/w", "sm_100a"},
    {"cvt", ".rs [.relu] .satfinite .e2m1x4 .f32", "d:b16/w s:f32/wV s:b32/w", "sm_100a"},
    {"cvt", ".rz|.rp [.satfinite] .ue8m0x2 .f32", "d:b16/w s:f32/w s:f32/w", "sm_100a"},
    {"cvt", ".rz|.rp [.satfinite] .ue8m0x2 .bf16x2", "d:b16/w s:b32/w", "sm_100a"},
    {"cvt", ".rn .bf16x2 .ue8m0x2", "d:b32/w s:b16/w", "sm_100a"},
    {"cvt", ".pack .sat .u16|.s16 .s32", "d:b32/w s:s32/w s:s32/w"},
    {"cvt", ".pack .sat .u8|.s8|.u4|.s4 .s32 .b32", "d:b32/w s:s32/w s:s32/w s:b32/w"},
    {"isspacep", "$cvtaspace", "P s:u32/w"},
    {"istypep", ".texref|.samplerref|.surfref", "P s:u64/s"},
    {"shfl", "[.sync] .up|.down|.bfly|.idx .b32", "d0/p s0 s:b32 s:b32 s:b32?"},
    // ---- atomics
    {"atom", "[$sem] [$scope] [$atomspace] $atomop [.noftz] [.L2::cache_hint] [$vec] $any",
     "d0/v a s0/v s:u64?"},
    {"atom", "[$sem] [$scope] [$atomspace] .cas [.L2::cache_hint] .b16|.b32|.b64|.b128", "d0 a s0 s0 s:u64?"},
    {"red", "[$sem] [$scope] [$atomspace] $atomop [.noftz] [.L2::cache_hint] [$vec] $any", "a s0/v s:u64?"},
    // asynchronous remote-shared-memory reductions and stores (sm_90)
    {"red", ".async .relaxed .cluster [.shared::cluster] $cpbytes .inc|.dec .u32", "a s0 a", "sm_90"},
    {"red", ".async .relaxed .cluster [.shared::cluster] $cpbytes .min|.max .u32|.s32", "a s0 a", "sm_90"},
    {"red", ".async .relaxed .cluster [.shared::cluster] $cpbytes .and|.or|.xor .b32", "a s0 a", "sm_90"},
    {"red", ".async .relaxed .cluster [.shared::cluster] $cpbytes .add .u32|.s32|.u64", "a s0 a", "sm_90"},
    {"red", ".async [.mmio] .release .gpu|.cluster [.global] .add .u32|.s32|.u64|.s64", "a s0", "sm_90"},
    {"st", ".async [.weak|.cluster] [.shared::cluster] $cpbytes [.v2|.v4] "
           ".b32|.b64|.u32|.u64|.s32|.s64|.f32|.f64",
     "a/i s0/vV a/i", "sm_90"},
    {"st", ".async [.mmio] .release .gpu|.sys [.global] "
           ".b8|.b16|.b32|.b64|.u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|.f32|.f64",
     "a s0w", "sm_90"},
    // multimem (sm_90): integer and floating-point forms; `.weak` takes no scope
    {"multimem", ".ld_reduce [.relaxed|.acquire] [$scope] [.global] .min|.max "
                 ".u32|.u64|.s32|.s64",
     "d0 a", "sm_90"},
    {"multimem", ".ld_reduce [.relaxed|.acquire] [$scope] [.global] .add .u32|.u64|.s32", "d0 a", "sm_90"},
    {"multimem", ".ld_reduce [.relaxed|.acquire] [$scope] [.global] .and|.or|.xor .b32|.b64",
     "d0 a", "sm_90"},
    {"multimem", ".ld_reduce .weak [.global] .min|.max .u32|.u64|.s32|.s64", "d0 a", "sm_90"},
    {"multimem", ".ld_reduce .weak [.global] .add .u32|.u64|.s32", "d0 a", "sm_90"},
    {"multimem", ".ld_reduce .weak [.global] .and|.or|.xor .b32|.b64", "d0 a", "sm_90"},
    {"multimem", ".ld_reduce [.relaxed|.acquire] [$scope] [.global] .add [.acc::f32|.acc::f16] "
                 "[$vec] .f16|.f16x2|.bf16|.bf16x2|.f32|.f64|.e5m2|.e5m2x2|.e5m2x4|.e4m3|.e4m3x2|"
                 ".e4m3x4",
     "d0/v a", "sm_90"},
    {"multimem", ".ld_reduce [.relaxed|.acquire] [$scope] [.global] .min|.max [$vec] "
                 ".f16|.f16x2|.bf16|.bf16x2|.e5m2|.e5m2x2|.e5m2x4|.e4m3|.e4m3x2|.e4m3x4",
     "d0/v a", "sm_90"},
    {"multimem", ".ld_reduce .weak [.global] .add [.acc::f32|.acc::f16] [$vec] "
                 ".f16|.f16x2|.bf16|.bf16x2|.f32|.f64|.e5m2|.e5m2x2|.e5m2x4|.e4m3|.e4m3x2|.e4m3x4",
     "d0/v a", "sm_90"},
    {"multimem", ".ld_reduce .weak [.global] .min|.max [$vec] "
                 ".f16|.f16x2|.bf16|.bf16x2|.e5m2|.e5m2x2|.e5m2x4|.e4m3|.e4m3x2|.e4m3x4",
     "d0/v a", "sm_90"},
    {"multimem", ".st [$mmsem] [$scope] [.global] [$vec] .b32|.b64|.u32|.u64|.s32|.s64|.f16|"
                 ".f16x2|.bf16|.bf16x2|.f32|.f64|.e5m2|.e5m2x2|.e5m2x4|.e4m3|.e4m3x2|.e4m3x4",
     "a s0/v", "sm_90"},
    {"multimem", ".st .weak [.global] [$vec] .b32|.b64|.u32|.u64|.s32|.s64|.f16|.f16x2|.bf16|"
                 ".bf16x2|.f32|.f64|.e5m2|.e5m2x2|.e5m2x4|.e4m3|.e4m3x2|.e4m3x4",
     "a s0/v", "sm_90"},
    {"multimem", ".red [$mmsem] [$scope] [.global] .min|.max .u32|.u64|.s32|.s64", "a s0", "sm_90"},
    {"multimem", ".red [$mmsem] [$scope] [.global] .add .u32|.u64|.s32", "a s0", "sm_90"},
    {"multimem", ".red [$mmsem] [$scope] [.global] .and|.or|.xor .b32|.b64", "a s0", "sm_90"},
    {"multimem", ".red [$mmsem] [$scope] [.global] .add [$vec] .f16|.f16x2|.bf16|.bf16x2|.f32|.f64",
     "a s0/v", "sm_90"},
    {"multimem", ".red [$mmsem] [$scope] [.global] .min|.max [$vec] .f16|.f16x2|.bf16|.bf16x2",
     "a s0/v", "sm_90"},
    // ---- control flow
    {"bra", "[.uni]", "l"},
    {"brx", ".idx [.uni]", "s:u32 n"},
    {"call", "[.uni]", "x*"},
    {"ret", "[.uni]", ""},
    {"exit", "", ""},
    {"trap", "", ""},
    {"brkpt", "", ""},
    {"nanosleep", ".u32", "s0"},
    {"pmevent", "[.mask]", "s:u32/k"},
    // ---- synchronisation
    {"bar", "[.cta] .sync|.arrive [.aligned]", "s:u32 s:u32?"},
    {"bar", "[.cta] .red .popc [.aligned] .u32", "d0 s:u32 q"},
    {"bar", "[.cta] .red .popc [.aligned] .u32", "d0 s:u32 s:u32 q"},
    {"bar", "[.cta] .red .and|.or [.aligned] .pred", "P s:u32 q"},
    {"bar", "[.cta] .red .and|.or [.aligned] .pred", "P s:u32 s:u32 q"},
    {"bar", ".warp .sync", "s:u32"},
    {"barrier", "[.cta] .sync|.arrive [.aligned]", "s:u32 s:u32?"},
    {"barrier", "[.cta] .red .popc [.aligned] .u32", "d0 s:u32 q"},
    {"barrier", "[.cta] .red .popc [.aligned] .u32", "d0 s:u32 s:u32 q"},
    {"barrier", "[.cta] .red .and|.or [.aligned] .pred", "P s:u32 q"},
    {"barrier", "[.cta] .red .and|.or [.aligned] .pred", "P s:u32 s:u32 q"},
    {"barrier", ".cluster .arrive [.release|.relaxed] [.aligned]", "", "sm_90"},
    {"barrier", ".cluster .wait [.acquire] [.aligned]", "", "sm_90"},
    {"membar", ".cta|.gl|.sys", ""},
    {"membar", ".proxy .alias", ""},
    {"fence", "[.sc|.acq_rel|.acquire|.release] .cta|.cluster|.gpu|.sys", ""},
    {"fence", ".acquire .sync_restrict::shared::cluster .cluster", "", "sm_90"},
    {"fence", ".release .sync_restrict::shared::cta .cluster", "", "sm_90"},
    {"fence", ".mbarrier_init .release .cluster", "", "sm_90"},
    {"fence", ".proxy .alias|.async", ""},
    {"fence", ".proxy .async .global|.shared::cta|.shared::cluster", "", "sm_90"},
    {"fence", ".proxy .tensormap::generic .release $scope", "", "sm_90"},
    {"fence", ".proxy .tensormap::generic .acquire $scope", "a s:u32", "sm_90"},
    {"fence", ".proxy .async::generic .acquire .sync_restrict::shared::cluster .cluster", "", "sm_90"},
    {"fence", ".proxy .async::generic .release .sync_restrict::shared::cta .cluster", "", "sm_90"},
    // ---- warp-level
    {"vote", "[.sync] .all|.any|.uni .pred", "P q s:u32?"},
    {"vote", "[.sync] .ballot .b32", "d0 q s:u32?"},
    {"match", ".sync .any .b32|.b64", "d:b32 s0 s:u32", "sm_70"},
    {"match", ".sync .all .b32|.b64", "d:b32/p s0 s:u32", "sm_70"},
    {"redux", ".sync .add|.min|.max .u32|.s32", "d0 s0 s:u32", "sm_80"},
    {"redux", ".sync .and|.or|.xor .b32", "d0 s0 s:u32", "sm_80"},
    {"redux", ".sync .min|.max [.abs] [.NaN] .f32", "d0 s0 s:u32", "sm_100a"},
    {"activemask", ".b32", "d0"},
    {"elect", ".sync", "d:b32/p s:u32", "sm_90"},
    // ---- asynchronous copies (functional semantics only)
    {"cp", ".async .ca|.cg .shared|.shared::cta .global [.L2::cache_hint] [$l2pf]",
     "a a s:u32 s:u32? s:u64?", "sm_80"},
    // the ignore-src predicate form: true reads nothing and zero-fills
    {"cp", ".async .ca|.cg .shared|.shared::cta .global [.L2::cache_hint] [$l2pf]",
     "a a s:u32 q s:u64?", "sm_80"},
    {"cp", ".async .commit_group", "", "sm_80"},
    {"cp", ".async .wait_group", "s:u32", "sm_80"},
    {"cp", ".async .wait_all", "", "sm_80"},
    {"cp", ".async .mbarrier .arrive [.noinc] [$ss] .b64", "a", "sm_80"},
    // bulk copies (sm_90): size is a byte count, [mbar] an mbarrier, then ctaMask (with
    // .multicast::cluster) and cache-policy (with .L2::cache_hint), in that order.
    {"cp", ".async .bulk .shared::cta .global $cpbytes", "a a s:u32 a/i", "sm_90"},
    {"cp", ".async .bulk .shared::cta .global $cpbytes .L2::cache_hint", "a a s:u32 a/i s:b64", "sm_90"},
    {"cp", ".async .bulk .shared::cluster .global $cpbytes", "a a s:u32 a/i", "sm_90"},
    {"cp", ".async .bulk .shared::cluster .global $cpbytes .L2::cache_hint", "a a s:u32 a/i s:b64", "sm_90"},
    {"cp", ".async .bulk .shared::cluster .global $cpbytes .multicast::cluster", "a a s:u32 a/i s:b16", "sm_90"},
    {"cp", ".async .bulk .shared::cluster .global $cpbytes .multicast::cluster .L2::cache_hint",
     "a a s:u32 a/i s:b16 s:b64", "sm_90"},
    {"cp", ".async .bulk .shared::cluster .shared::cta $cpbytes", "a a s:u32 a/i", "sm_90"},
    {"cp", ".async .bulk .global .shared::cta .bulk_group", "a a s:u32", "sm_90"},
    {"cp", ".async .bulk .global .shared::cta .bulk_group .L2::cache_hint", "a a s:u32 s:b64", "sm_90"},
    {"cp", ".async .bulk .global .shared::cta .bulk_group .cp_mask", "a a s:u32 s:b16", "sm_90"},
    {"cp", ".async .bulk .global .shared::cta .bulk_group .L2::cache_hint .cp_mask",
     "a a s:u32 s:b64 s:b16", "sm_90"},
    {"cp", ".async .bulk .commit_group", "", "sm_90"},
    {"cp", ".async .bulk .wait_group [.read]", "s:u32", "sm_90"},
    {"cp", ".async .bulk .prefetch .L2 .global", "a s:u32", "sm_90"},
    {"cp", ".async .bulk .prefetch .L2 .global .L2::cache_hint", "a s:u32 s:b64", "sm_90"},
    // tensor copies: the second operand is `[tensorMap, {coords}]`; im2col forms add a vector of
    // .b16 offsets before the optional ctaMask / cache-policy.
    {"cp", ".async .bulk .tensor $dim .shared::cta|.shared::cluster .global [.tile|.tile::gather4] "
           "$cpbytes [.cta_group::1|.cta_group::2]",
     "a/i a a/i", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .shared::cta|.shared::cluster .global [.tile|.tile::gather4] "
           "$cpbytes [.cta_group::1|.cta_group::2] .L2::cache_hint",
     "a/i a a/i s:b64", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .shared::cluster .global [.tile|.tile::gather4] $cpbytes "
           ".multicast::cluster [.cta_group::1|.cta_group::2]",
     "a/i a a/i s:b16", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .shared::cluster .global [.tile|.tile::gather4] $cpbytes "
           ".multicast::cluster [.cta_group::1|.cta_group::2] .L2::cache_hint",
     "a/i a a/i s:b16 s:b64", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .shared::cta|.shared::cluster .global "
           ".im2col|.im2col::w|.im2col::w::128 $cpbytes [.cta_group::1|.cta_group::2]",
     "a/i a a/i s:b16/V", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .shared::cta|.shared::cluster .global "
           ".im2col|.im2col::w|.im2col::w::128 $cpbytes [.cta_group::1|.cta_group::2] "
           ".L2::cache_hint",
     "a/i a a/i s:b16/V s:b64", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .shared::cluster .global .im2col|.im2col::w|.im2col::w::128 "
           "$cpbytes .multicast::cluster [.cta_group::1|.cta_group::2]",
     "a/i a a/i s:b16/V s:b16", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .shared::cluster .global .im2col|.im2col::w|.im2col::w::128 "
           "$cpbytes .multicast::cluster [.cta_group::1|.cta_group::2] .L2::cache_hint",
     "a/i a a/i s:b16/V s:b16 s:b64", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .global .shared::cta [.tile|.tile::scatter4|.im2col_no_offs] "
           ".bulk_group",
     "a a/i", "sm_90"},
    {"cp", ".async .bulk .tensor $dim .global .shared::cta [.tile|.tile::scatter4|.im2col_no_offs] "
           ".bulk_group .L2::cache_hint",
     "a a/i s:b64", "sm_90"},
    {"cp", ".async .bulk .prefetch .tensor $dim .L2 .global [.tile|.tile::gather4]", "a", "sm_90"},
    {"cp", ".async .bulk .prefetch .tensor $dim .L2 .global [.tile|.tile::gather4] .L2::cache_hint",
     "a s:b64", "sm_90"},
    {"cp", ".async .bulk .prefetch .tensor $dim .L2 .global .im2col|.im2col::w|.im2col::w::128",
     "a s:b16/V", "sm_90"},
    {"cp", ".async .bulk .prefetch .tensor $dim .L2 .global .im2col|.im2col::w|.im2col::w::128 "
           ".L2::cache_hint",
     "a s:b16/V s:b64", "sm_90"},
    // bulk reductions
    {"cp", ".reduce .async .bulk .shared::cluster .shared::cta $cpbytes .and|.or|.xor .b32",
     "a a s:u32 a/i", "sm_90"},
    {"cp", ".reduce .async .bulk .shared::cluster .shared::cta $cpbytes .inc|.dec .u32",
     "a a s:u32 a/i", "sm_90"},
    {"cp", ".reduce .async .bulk .shared::cluster .shared::cta $cpbytes .min|.max .u32|.s32",
     "a a s:u32 a/i", "sm_90"},
    {"cp", ".reduce .async .bulk .shared::cluster .shared::cta $cpbytes .add .u32|.s32|.u64",
     "a a s:u32 a/i", "sm_90"},
    {"cp", ".reduce .async .bulk .global .shared::cta .bulk_group [.L2::cache_hint] "
           ".and|.or|.xor .b32|.b64",
     "a a s:u32 s:b64?", "sm_90"},
    {"cp", ".reduce .async .bulk .global .shared::cta .bulk_group [.L2::cache_hint] .inc|.dec .u32",
     "a a s:u32 s:b64?", "sm_90"},
    {"cp", ".reduce .async .bulk .global .shared::cta .bulk_group [.L2::cache_hint] .min|.max "
           ".u32|.s32|.u64|.s64|.f16|.bf16",
     "a a s:u32 s:b64?", "sm_90"},
    {"cp", ".reduce .async .bulk .global .shared::cta .bulk_group [.L2::cache_hint] .add "
           ".u32|.s32|.u64|.f32|.f64",
     "a a s:u32 s:b64?", "sm_90"},
    {"cp", ".reduce .async .bulk .global .shared::cta .bulk_group [.L2::cache_hint] .add .noftz "
           ".f16|.bf16",
     "a a s:u32 s:b64?", "sm_90"},
    {"cp", ".reduce .async .bulk .tensor $dim .global .shared::cta $redop [.tile|.im2col_no_offs] "
           ".bulk_group [.L2::cache_hint]",
     "a a/i s:b64?", "sm_90"},
    // ---- textures and surfaces
    // The address is `[tex, {coords}]` or `[tex, sampler, {coords}]`; then an optional .s32
    // offset vector and an optional .f32 depth-compare value.
    {"tex", "[.base] $geom .v4 .u32|.s32|.f16|.f32 .s32|.f32", "d0/VB a x? x?"},
    {"tex", "[.base] $geom .v2 .f16x2 .s32|.f32", "d0/VB a x? x?"},
    {"tex", ".level $geom .v4 .u32|.s32|.f16|.f32 .s32|.f32", "d0/VB a x x? x?"},
    {"tex", ".level $geom .v2 .f16x2 .s32|.f32", "d0/VB a x x? x?"},
    {"tex", ".grad $geom .v4 .u32|.s32|.f16|.f32 .s32|.f32",
     "d0/VB a x x x? x?"},
    {"tex", ".grad $geom .v2 .f16x2 .s32|.f32", "d0/VB a x x x? x?"},
    {"tld4", ".r|.g|.b|.a .2d|.a2d|.cube|.acube .v4 .u32|.s32|.f32 .f32", "d0/VB a x? x?"},
    {"txq", ".width|.height|.depth|.channel_data_type|.channel_order|.normalized_coords|"
            ".array_size|.num_mipmap_levels|.num_samples|.force_unnormalized_coords|.filter_mode|"
            ".addr_mode_0|.addr_mode_1|.addr_mode_2 .b32",
     "d0 a"},
    {"txq", ".level .width|.height|.depth .b32", "d0 a x"},
    {"suq", ".width|.height|.depth|.channel_data_type|.channel_order|.array_size|.memory_layout "
            ".b32",
     "d0 a"},
    {"suld", ".b .1d|.2d|.3d|.a1d|.a2d [.ca|.cg|.cs|.cv] [.v2|.v4] .b8|.b16|.b32|.b64 "
             "[.trap|.clamp|.zero]",
     "d0/wvV a"},
    {"sust", ".b .1d|.2d|.3d|.a1d|.a2d [.wb|.cg|.cs|.wt] [.v2|.v4] .b8|.b16|.b32|.b64 "
             "[.trap|.clamp|.zero]",
     "a s0/wvV"},
    {"sust", ".p .1d|.2d|.3d|.a1d|.a2d [.v2|.v4] .b32 [.trap|.clamp|.zero]", "a s0/wvV"},
    {"sured", ".b .add|.min|.max .1d|.2d|.3d .u32|.u64|.s32|.s64 .trap|.clamp|.zero", "a s0/w"},
    {"sured", ".b .and|.or .1d|.2d|.3d .b32|.b64 .trap|.clamp|.zero", "a s0/w"},
    {"sured", ".p .add|.min|.max|.and|.or .1d|.2d|.3d .b32|.b64 .trap|.clamp|.zero", "a s0/w"},
    // ---- tensor cores. Fragments are brace vectors; A/B fragments of packed types live in .b32
    // registers, the accumulators in registers of the C/D type (element types are checked by the
    // executor).
    {"wmma", ".load .a|.b .sync .aligned .row|.col $wmshape [$wss] .f16|.s8|.u8|.bf16",
     "d:b32/VB a s:u32?"},
    {"wmma", ".load .c .sync .aligned .row|.col $wmshape [$wss] .f16|.f32|.s32", "d0/VB a s:u32?"},
    {"wmma", ".load .a|.b .sync .aligned .row|.col .m16n16k8 [$wss] .tf32", "d:b32/VB a s:u32?"},
    {"wmma", ".load .c .sync .aligned .row|.col .m16n16k8 [$wss] .f32", "d0/VB a s:u32?"},
    {"wmma", ".load .a|.b|.c .sync .aligned .row|.col .m8n8k4 [$wss] .f64", "d0/VB a s:u32?"},
    {"wmma", ".load .a .sync .aligned .row .m8n8k32 [$wss] .s4|.u4", "d:b32/VB a s:u32?"},
    {"wmma", ".load .b .sync .aligned .col .m8n8k32 [$wss] .s4|.u4", "d:b32/VB a s:u32?"},
    {"wmma", ".load .a .sync .aligned .row .m8n8k128 [$wss] .b1", "d:b32/VB a s:u32?"},
    {"wmma", ".load .b .sync .aligned .col .m8n8k128 [$wss] .b1", "d:b32/VB a s:u32?"},
    {"wmma", ".load .c .sync .aligned .row|.col .m8n8k32|.m8n8k128 [$wss] .s32", "d0/VB a s:u32?"},
    {"wmma", ".store .d .sync .aligned .row|.col $wmshape [$wss] .f16|.f32|.s32", "a s0/VB s:u32?"},
    {"wmma", ".store .d .sync .aligned .row|.col .m8n8k32|.m8n8k128 [$wss] .s32", "a s0/VB s:u32?"},
    {"wmma", ".store .d .sync .aligned .row|.col .m16n16k8 [$wss] .f32", "a s0/VB s:u32?"},
    {"wmma", ".store .d .sync .aligned .row|.col .m8n8k4 [$wss] .f64", "a s0/VB s:u32?"},
    {"wmma", ".mma .sync .aligned .row|.col .row|.col $wmshape .f16|.f32 .f16|.f32",
     "d0/VB s:b32/VB s:b32/VB s1/VB"},
    {"wmma", ".mma .sync .aligned .row|.col .row|.col $wmshape .s32 .s8|.u8 .s8|.u8 .s32 [.satfinite]",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"wmma", ".mma .sync .aligned .row|.col .row|.col $wmshape .f32 .bf16 .bf16 .f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"wmma", ".mma .sync .aligned .row|.col .row|.col .m16n16k8 .f32 .tf32 .tf32 .f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"wmma", ".mma .sync .aligned .row|.col .row|.col .m8n8k4 [$rnd] .f64 .f64 .f64 .f64",
     "d0/VB s0/VB s0/VB s0/VB"},
    {"wmma", ".mma .sync .aligned .row .col .m8n8k32 .s32 .s4|.u4 .s4|.u4 .s32 [.satfinite]",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"wmma", ".mma .xor|.and .popc .sync .aligned .row .col .m8n8k128 .s32 .b1 .b1 .s32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"mma", ".sync .aligned .m8n8k4 .row|.col .row|.col .f16|.f32 .f16 .f16 .f16|.f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"mma", ".sync .aligned .m16n8k8|.m16n8k16 .row .col .f16|.f32 .f16 .f16 .f16|.f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"mma", ".sync .aligned .m16n8k4|.m16n8k8 .row .col .f32 .tf32 .tf32 .f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"mma", ".sync .aligned .m16n8k8|.m16n8k16 .row .col .f32 .bf16 .bf16 .f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"mma", ".sync .aligned .m16n8k16|.m16n8k32 .row .col .f16|.f32 $f8 $f8 .f16|.f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB", "sm_89"},
    {"mma", ".sync .aligned .m16n8k32 .row .col .kind::f8f6f4 .f16|.f32 $f8f6f4 $f8f6f4 .f16|.f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB", "sm_120a"},
    {"mma", ".sync .aligned .m8n8k4|.m16n8k4|.m16n8k8|.m16n8k16 .row .col .f64 .f64 .f64 .f64",
     "d0/VB s0/VB s0/VB s0/VB"},
    {"mma", ".sync .aligned .m8n8k16|.m16n8k16|.m16n8k32 .row .col [.satfinite] .s32 .u8|.s8 .u8|.s8 "
            ".s32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"mma", ".sync .aligned .m8n8k32|.m16n8k32|.m16n8k64 .row .col [.satfinite] .s32 .u4|.s4 .u4|.s4 "
            ".s32",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    {"mma", ".sync .aligned .m8n8k128|.m16n8k128|.m16n8k256 .row .col .s32 .b1 .b1 .s32 .xor|.and "
            ".popc",
     "d0/VB s:b32/VB s:b32/VB s3/VB"},
    // sparse mma: metadata register and an immediate sparsity selector follow C
    {"mma", ".sp|.sp::ordered_metadata .sync .aligned .m16n8k16|.m16n8k32 .row .col .f16|.f32 .f16 "
            ".f16 .f16|.f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB s:b32 s:u32/k"},
    {"mma", ".sp|.sp::ordered_metadata .sync .aligned .m16n8k16|.m16n8k32 .row .col .f32 .bf16 .bf16 "
            ".f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB s:b32 s:u32/k"},
    {"mma", ".sp|.sp::ordered_metadata .sync .aligned .m16n8k8|.m16n8k16 .row .col .f32 .tf32 .tf32 "
            ".f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB s:b32 s:u32/k"},
    {"mma", ".sp|.sp::ordered_metadata .sync .aligned .m16n8k64 .row .col .f32 $f8 $f8 .f32",
     "d0/VB s:b32/VB s:b32/VB s3/VB s:b32 s:u32/k", "sm_89"},
    {"mma", ".sp|.sp::ordered_metadata .sync .aligned .m16n8k32|.m16n8k64 .row .col [.satfinite] .s32 "
            ".u8|.s8 .u8|.s8 .s32",
     "d0/VB s:b32/VB s:b32/VB s3/VB s:b32 s:u32/k"},
    {"mma", ".sp|.sp::ordered_metadata .sync .aligned .m16n8k64|.m16n8k128 .row .col [.satfinite] "
            ".s32 .u4|.s4 .u4|.s4 .s32",
     "d0/VB s:b32/VB s:b32/VB s3/VB s:b32 s:u32/k"},
    {"ldmatrix", ".sync .aligned .m8n8 .x1|.x2|.x4 [.trans] [$ss] .b16", "d:b32/V a", "sm_75"},
    {"ldmatrix", ".sync .aligned .m16n16 .x1|.x2 .trans [$ss] .b8", "d:b32/V a", "sm_100a"},
    {"ldmatrix", ".sync .aligned .m16n16 .x1|.x2 .trans [$ss] .b8x16 .b6x16_p32|.b4x16_p64",
     "d:b32/V a", "sm_100a"},
    {"ldmatrix", ".sync .aligned .m8n16 .x1|.x2|.x4 [$ss] .b8x16 .b6x16_p32|.b4x16_p64", "d:b32/V a", "sm_100a"},
    {"stmatrix", ".sync .aligned .m8n8 .x1|.x2|.x4 [.trans] [$ss] .b16", "a s:b32/V", "sm_90"},
    {"stmatrix", ".sync .aligned .m16n8 .x1|.x2|.x4 .trans [$ss] .b8", "a s:b32/V", "sm_100a"},
    {"movmatrix", ".sync .aligned .m8n8 .trans .b16", "d:b32 s:b32", "sm_75"},
    // warpgroup mma (sm_90a): D is a brace vector; A is a 64-bit shared-memory descriptor or a
    // brace vector of registers; then scale-d (predicate) and immediate scale/transpose flags.
    {"wgmma", ".fence .sync [.aligned]", "", "sm_90a"},
    {"wgmma", ".commit_group .sync [.aligned]", "", "sm_90a"},
    {"wgmma", ".wait_group .sync [.aligned]", "s:u32", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk16 .f16|.f32 .f16 .f16",
     "d0/VB s:b64 s:b64 q s:s32/k s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk16 .f16|.f32 .f16 .f16",
     "d0/VB s:b32/VB s:b64 q s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk16 .f32 .bf16 .bf16",
     "d0/VB s:b64 s:b64 q s:s32/k s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk16 .f32 .bf16 .bf16",
     "d0/VB s:b32/VB s:b64 q s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk8 .f32 .tf32 .tf32", "d0/VB s:b64 s:b64 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk8 .f32 .tf32 .tf32",
     "d0/VB s:b32/VB s:b64 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk32 .f16|.f32 $f8 $f8", "d0/VB s:b64 s:b64 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgk32 .f16|.f32 $f8 $f8",
     "d0/VB s:b32/VB s:b64 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgi32 [.satfinite] .s32 .s8|.u8 .s8|.u8", "d0/VB s:b64 s:b64 q", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgi32 [.satfinite] .s32 .s8|.u8 .s8|.u8",
     "d0/VB s:b32/VB s:b64 q", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgb1 .s32 .b1 .b1 .and .popc", "d0/VB s:b64 s:b64 q", "sm_90a"},
    {"wgmma", ".mma_async .sync [.aligned] $wgb1 .s32 .b1 .b1 .and .popc", "d0/VB s:b32/VB s:b64 q", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk32 .f16|.f32 .f16 .f16",
     "d0/VB s:b64 s:b64 s:b32/V s:u32 q s:s32/k s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk32 .f16|.f32 .f16 .f16",
     "d0/VB s:b32/VB s:b64 s:b32/V s:u32 q s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk32 .f32 .bf16 .bf16",
     "d0/VB s:b64 s:b64 s:b32/V s:u32 q s:s32/k s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk32 .f32 .bf16 .bf16",
     "d0/VB s:b32/VB s:b64 s:b32/V s:u32 q s:s32/k s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk16 .f32 .tf32 .tf32",
     "d0/VB s:b64 s:b64 s:b32/V s:u32 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk16 .f32 .tf32 .tf32",
     "d0/VB s:b32/VB s:b64 s:b32/V s:u32 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk64 .f16|.f32 $f8 $f8",
     "d0/VB s:b64 s:b64 s:b32/V s:u32 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgk64 .f16|.f32 $f8 $f8",
     "d0/VB s:b32/VB s:b64 s:b32/V s:u32 q s:s32/k s:s32/k", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgi64 [.satfinite] .s32 .s8|.u8 .s8|.u8",
     "d0/VB s:b64 s:b64 s:b32/V s:u32 q", "sm_90a"},
    {"wgmma", ".mma_async .sp .sync [.aligned] $wgi64 [.satfinite] .s32 .s8|.u8 .s8|.u8",
     "d0/VB s:b32/VB s:b64 s:b32/V s:u32 q", "sm_90a"},
    // ---- video. Operand byte/half selectors (`a.b0`, `d.h1`) are not parsed by the grammar, so
    // only the selector-free forms are accepted. The third operand of the 3-operand scalar forms
    // appears only with a secondary operation.
    {"vadd", "$vt $vt $vt [.sat]", "d0/S s1/S s2/S s0/S?"},
    {"vadd", "$vt $vt $vt [.sat] .add|.min|.max", "d0/S s1/S s2/S s0/S"},
    {"vsub", "$vt $vt $vt [.sat]", "d0/S s1/S s2/S s0/S?"},
    {"vsub", "$vt $vt $vt [.sat] .add|.min|.max", "d0/S s1/S s2/S s0/S"},
    {"vabsdiff", "$vt $vt $vt [.sat]", "d0/S s1/S s2/S s0/S?"},
    {"vabsdiff", "$vt $vt $vt [.sat] .add|.min|.max", "d0/S s1/S s2/S s0/S"},
    {"vmin", "$vt $vt $vt [.sat]", "d0/S s1/S s2/S s0/S?"},
    {"vmin", "$vt $vt $vt [.sat] .add|.min|.max", "d0/S s1/S s2/S s0/S"},
    {"vmax", "$vt $vt $vt [.sat]", "d0/S s1/S s2/S s0/S?"},
    {"vmax", "$vt $vt $vt [.sat] .add|.min|.max", "d0/S s1/S s2/S s0/S"},
    {"vshl", "$vt $vt .u32 [.sat] .clamp|.wrap", "d0/S s1/S s2/S s0/S?"},
    {"vshl", "$vt $vt .u32 [.sat] .clamp|.wrap .add|.min|.max", "d0/S s1/S s2/S s0/S"},
    {"vshr", "$vt $vt .u32 [.sat] .clamp|.wrap", "d0/S s1/S s2/S s0/S?"},
    {"vshr", "$vt $vt .u32 [.sat] .clamp|.wrap .add|.min|.max", "d0/S s1/S s2/S s0/S"},
    {"vmad", "$vt $vt $vt [.po] [.sat] [.shr7|.shr15]", "d0/S s1/S s2/S s0/S"},
    {"vset", "$vt $vt $vcmp", "d:u32/S s0/S s1/S s:u32/S?"},
    {"vset", "$vt $vt $vcmp .add|.min|.max", "d:u32/S s0/S s1/S s:u32/S"},
    {"vadd2", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vsub2", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vavrg2", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vabsdiff2", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vmin2", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vmax2", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vadd4", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vsub4", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vavrg4", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vabsdiff4", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vmin4", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vmax4", "$vt $vt $vt [.sat|.add]", "d0/S s1/S s2/S s0/S"},
    {"vset2", "$vt $vt $vcmp [.add]", "d:u32/S s0/S s1/S s:u32/S"},
    {"vset4", "$vt $vt $vcmp [.add]", "d:u32/S s0/S s1/S s:u32/S"},
    // ---- miscellaneous
    {"stacksave", ".u32|.u64", "d0"},
    {"stackrestore", ".u32|.u64", "s0"},
    {"alloca", "[.local] .u32|.u64", "d0 s0 s:u32?"},
    {"discard", "[.global] .L2", "a s:u64", "sm_80"},
    {"applypriority", "[.global] .L2::evict_normal", "a s:u64", "sm_80"},
    {"createpolicy", ".fractional $l2prio [$l2sec] .b64", "d0 s:f32?", "sm_80"},
    {"createpolicy", ".range [.global] $l2prio [$l2sec] .b64", "d0 a s:u32 s:u32", "sm_80"},
    {"createpolicy", ".cvt .L2 .b64", "d0 s:b64", "sm_80"},
    // mbarrier (sm_80; tx-count, cluster and sem/scope forms sm_90). The arrive forms on a
    // .shared::cluster address return no state: their destination is `_`.
    {"mbarrier", ".init [$ss] .b64", "a s:u32", "sm_80"},
    {"mbarrier", ".inval [$ss] .b64", "a", "sm_80"},
    {"mbarrier", ".arrive|.arrive_drop [.release|.relaxed] [.cta|.cluster] [$ss] .b64",
     "d0 a s:u32?", "sm_80"},
    {"mbarrier", ".arrive|.arrive_drop .noComplete [.release|.relaxed] [.cta] [$ss] .b64",
     "d0 a s:u32", "sm_80"},
    {"mbarrier", ".arrive|.arrive_drop [.release|.relaxed] [.cta|.cluster] .shared::cluster .b64",
     "d0 a s:u32?", "sm_90"},
    {"mbarrier", ".arrive|.arrive_drop .expect_tx [.release|.relaxed] [.cta|.cluster] "
                 "[$ss|.shared::cluster] .b64",
     "d0 a s:u32", "sm_90"},
    {"mbarrier", ".expect_tx|.complete_tx [.relaxed] [.cta|.cluster] [$ss|.shared::cluster] .b64",
     "a s:u32", "sm_90"},
    {"mbarrier", ".test_wait [.acquire|.relaxed] [.cta|.cluster] [$ss] .b64", "P a s0", "sm_80"},
    {"mbarrier", ".test_wait .parity [.acquire|.relaxed] [.cta|.cluster] [$ss] .b64", "P a s:u32", "sm_80"},
    {"mbarrier", ".try_wait [.acquire|.relaxed] [.cta|.cluster] [$ss] .b64", "P a s0 s:u32?", "sm_90"},
    {"mbarrier", ".try_wait .parity [.acquire|.relaxed] [.cta|.cluster] [$ss] .b64",
     "P a s:u32 s:u32?", "sm_90"},
    {"mbarrier", ".pending_count .b64", "d:u32 s0", "sm_80"},
    {"griddepcontrol", ".launch_dependents|.wait", "", "sm_90"},
    {"setmaxnreg", ".inc|.dec .sync .aligned .u32", "s0/k", "sm_90a"},
    {"tensormap", ".replace .tile .global_address [.global|.shared::cta] .b1024 .b64", "a s0", "sm_90a"},
    {"tensormap", ".replace .tile .rank [.global|.shared::cta] .b1024 .b32", "a s0", "sm_90a"},
    {"tensormap", ".replace .tile .box_dim|.global_dim|.element_stride [.global|.shared::cta] "
                  ".b1024 .b32",
     "a s:b32 s0", "sm_90a"},
    {"tensormap", ".replace .tile .global_stride [.global|.shared::cta] .b1024 .b64", "a s:b32 s0", "sm_90a"},
    {"tensormap", ".replace .tile .elemtype|.interleave_layout|.swizzle_mode|.swizzle_atomicity|"
                  ".fill_mode [.global|.shared::cta] .b1024 .b32",
     "a s0/k", "sm_90a"},
    {"tensormap", ".cp_fenceproxy .global .shared::cta .tensormap::generic .release $scope .sync "
                  ".aligned",
     "a a s:u32", "sm_90"},
    {"clusterlaunchcontrol", ".try_cancel .async [.shared::cta] $cpbytes [.multicast::cluster::all] "
                             ".b128",
     "a a", "sm_100"},
    {"clusterlaunchcontrol", ".query_cancel .is_canceled .pred .b128", "P s1", "sm_100"},
    {"clusterlaunchcontrol", ".query_cancel .get_first_ctaid .v4 .b32 .b128", "d0/v s1", "sm_100"},
    {"clusterlaunchcontrol", ".query_cancel .get_first_ctaid::x|.get_first_ctaid::y|"
                             ".get_first_ctaid::z .b32 .b128",
     "d0 s1", "sm_100"},
    {"mapa", "[.shared::cluster] .u32|.u64", "d0 s0 s:u32", "sm_90"},
    {"getctarank", "[.shared::cluster] .u32|.u64", "d:u32 s0", "sm_90"},
};

struct Table {
  std::vector<OpcodeInfo> ops;
  std::deque<std::string> names; // stable storage for the map keys below
  std::unordered_map<std::string_view, uint16_t> byName;
  std::unordered_map<std::string_view, SpecialRegInfo> sregs;
  std::mutex mu; // guards registration after start-up (extensions)
};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(sep, i);
    if (j == std::string_view::npos)
      j = s.size();
    if (j > i)
      out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

/// Expands `$set` names and resolves spellings; returns an error message or "".
std::string addAlternatives(std::string_view alts, std::vector<uint16_t> &out, int depth = 0) {
  for (std::string_view alt : split(alts, '|')) {
    if (alt[0] == '$') {
      bool found = false;
      for (const NamedSet &set : kSets) {
        if (alt.substr(1) == set.name && depth < 4) {
          std::string err = addAlternatives(set.alts, out, depth + 1);
          if (!err.empty())
            return err;
          found = true;
        }
      }
      if (!found)
        return "unknown modifier set '" + std::string(alt) + "'";
      continue;
    }
    if (alt[0] != '.')
      return "modifier '" + std::string(alt) + "' must start with '.'";
    uint16_t id = lookupModifier(alt.substr(1));
    if (id == kInvalidModifier)
      return "modifier '" + std::string(alt) + "' is not in Modifiers.def/Types.def nor registered (registerModifier)";
    out.push_back(id);
  }
  return "";
}

std::string parseVariant(std::string_view mods, std::string_view operands, OpcodeVariant &v) {
  v.spec = std::string(mods) + " | " + std::string(operands);
  int8_t typeIndex = 0;
  for (std::string_view tok : split(mods, ' ')) {
    if (tok == "x*")
      continue; // free-form modifiers: handled as "any modifier accepted"
    ModSlot slot;
    slot.required = true;
    if (tok.front() == '[') {
      if (tok.back() != ']')
        return "unbalanced '[' in '" + std::string(tok) + "'";
      slot.required = false;
      tok = tok.substr(1, tok.size() - 2);
    }
    std::string err = addAlternatives(tok, slot.allowed);
    if (!err.empty())
      return err;
    slot.isType = true;
    for (uint16_t id : slot.allowed)
      slot.isType &= modIsType(id);
    if (slot.isType)
      slot.typeIndex = typeIndex++;
    v.slots.push_back(std::move(slot));
  }
  v.numTypeSlots = static_cast<unsigned>(typeIndex);
  bool freeMods = mods.find("x*") != std::string_view::npos;
  if (freeMods) {
    // A row written `x*` accepts any modifiers: model it as one optional slot per modifier.
    ModSlot any;
    for (uint16_t id = 0; id < modifierCount(); ++id)
      any.allowed.push_back(id);
    for (int i = 0; i < 16; ++i)
      v.slots.push_back(any);
  }
  for (std::string_view tok : split(operands, ' ')) {
    OperandSpec o;
    switch (tok[0]) {
    case 'd': o.kind = OperandSpec::Kind::Dst; break;
    case 's': o.kind = OperandSpec::Kind::Src; break;
    case 'r': o.kind = OperandSpec::Kind::Reg; break;
    case 'P': o.kind = OperandSpec::Kind::PredDst; break;
    case 'q': o.kind = OperandSpec::Kind::PredSrc; break;
    case 'a': o.kind = OperandSpec::Kind::Addr; break;
    case 'l': o.kind = OperandSpec::Kind::Label; break;
    case 'c': o.kind = OperandSpec::Kind::Callee; break;
    case 'L': o.kind = OperandSpec::Kind::List; break;
    case 'n': o.kind = OperandSpec::Kind::Symbol; break;
    case 'x': o.kind = OperandSpec::Kind::Any; break;
    default: return "unknown operand kind in '" + std::string(tok) + "'";
    }
    size_t i = 1;
    if (i < tok.size() && tok[i] >= '0' && tok[i] <= '3') {
      o.typeSlot = static_cast<int8_t>(tok[i] - '0');
      if (o.typeSlot >= typeIndex && !freeMods)
        return "operand '" + std::string(tok) + "' names a missing type slot";
      ++i;
    } else if (i < tok.size() && tok[i] == ':') {
      size_t j = i + 1;
      while (j < tok.size() && tok[j] != '/' && tok[j] != '?' && tok[j] != '*' &&
             !(tok[j] == 'w' && j + 1 == tok.size()))
        ++j;
      o.fixed = lookupType(tok.substr(i + 1, j - i - 1));
      if (o.fixed == ScalarType::None)
        return "unknown type in '" + std::string(tok) + "'";
      i = j;
    }
    for (; i < tok.size(); ++i) {
      switch (tok[i]) {
      case '/': break;
      case 'w': o.wide = true; break;
      case 'W': o.doubled = true; break;
      case 'p': o.pair = true; break;
      case 'v': o.vecMod = true; break;
      case 'V': o.vector = true; break;
      case 'S': o.selectorOk = true; break;
      case 'i': o.addrLoose = true; break;
      case 'B': o.vector = true; o.braceOnly = true; break;
      case 'k': o.constOnly = true; break;
      case 's': o.symbolOk = true; break;
      case '?': o.optional = true; break;
      case '*': o.rest = true; o.optional = true; break;
      default: return "unknown operand flag in '" + std::string(tok) + "'";
      }
    }
    v.operands.push_back(o);
  }
  v.minOperands = 0;
  for (const OperandSpec &o : v.operands)
    if (!o.optional)
      ++v.minOperands;
  v.maxOperands = static_cast<unsigned>(v.operands.size());
  if (!v.operands.empty() && v.operands.back().rest)
    v.maxOperands = ~0u;
  return "";
}

std::string addRow(Table &t, std::string_view name, std::string_view mods,
                   std::string_view operands, std::string_view minSm = {}) {
  OpcodeVariant v;
  std::string err = parseVariant(mods, operands, v);
  if (!err.empty())
    return std::string(name) + ": " + err;
  if (!minSm.empty()) {
    if (minSm.size() < 4 || minSm.substr(0, 3) != "sm_")
      return std::string(name) + ": bad minimum target '" + std::string(minSm) + "'";
    size_t i = 3;
    unsigned sm = 0;
    while (i < minSm.size() && minSm[i] >= '0' && minSm[i] <= '9')
      sm = sm * 10 + static_cast<unsigned>(minSm[i++] - '0');
    if (i == 3 || sm > 9999 || (i < minSm.size() && (minSm.substr(i) != "a")))
      return std::string(name) + ": bad minimum target '" + std::string(minSm) + "'";
    v.minSm = static_cast<uint16_t>(sm);
    v.archSpecific = i < minSm.size();
  }
  auto it = t.byName.find(name);
  if (it == t.byName.end()) {
    t.names.emplace_back(name);
    it = t.byName.emplace(t.names.back(), static_cast<uint16_t>(t.ops.size())).first;
    t.ops.emplace_back();
    t.ops.back().name = std::string(name);
  }
  t.ops[it->second].variants.push_back(std::move(v));
  return "";
}

void addSreg(Table &t, std::string_view name, ScalarType type, bool vec) {
  auto it = t.sregs.find(name);
  if (it != t.sregs.end()) {
    it->second = {type, vec};
    return;
  }
  t.names.emplace_back(name);
  t.sregs.emplace(t.names.back(), SpecialRegInfo{type, vec});
}

void addBuiltinSpecialRegisters(Table &t) {
  struct S {
    const char *name;
    ScalarType type;
    bool vec;
  };
  static constexpr S regs[] = {
      {"%tid", ScalarType::u32, true},           {"%ntid", ScalarType::u32, true},
      {"%ctaid", ScalarType::u32, true},         {"%nctaid", ScalarType::u32, true},
      {"%laneid", ScalarType::u32, false},       {"%warpid", ScalarType::u32, false},
      {"%nwarpid", ScalarType::u32, false},      {"%smid", ScalarType::u32, false},
      {"%nsmid", ScalarType::u32, false},        {"%gridid", ScalarType::u64, false},
      {"%lanemask_eq", ScalarType::u32, false},  {"%lanemask_le", ScalarType::u32, false},
      {"%lanemask_lt", ScalarType::u32, false},  {"%lanemask_ge", ScalarType::u32, false},
      {"%lanemask_gt", ScalarType::u32, false},  {"%clock", ScalarType::u32, false},
      {"%clock_hi", ScalarType::u32, false},     {"%clock64", ScalarType::u64, false},
      {"%globaltimer", ScalarType::u64, false},  {"%globaltimer_lo", ScalarType::u32, false},
      {"%globaltimer_hi", ScalarType::u32, false},
      {"%dynamic_smem_size", ScalarType::u32, false},
      {"%total_smem_size", ScalarType::u32, false},
      {"%aggr_smem_size", ScalarType::u32, false},
      {"%reserved_smem_offset_begin", ScalarType::b32, false},
      {"%reserved_smem_offset_end", ScalarType::b32, false},
      {"%reserved_smem_offset_cap", ScalarType::b32, false},
      {"%reserved_smem_offset_0", ScalarType::b32, false},
      {"%reserved_smem_offset_1", ScalarType::b32, false},
      {"%cluster_ctaid", ScalarType::u32, true}, {"%cluster_nctaid", ScalarType::u32, true},
      {"%clusterid", ScalarType::u32, true},     {"%nclusterid", ScalarType::u32, true},
      {"%cluster_ctarank", ScalarType::u32, false},
      {"%cluster_nctarank", ScalarType::u32, false},
      {"%is_explicit_cluster", ScalarType::pred, false},
      {"%current_graph_exec", ScalarType::u64, false},
      {"%pm0_64", ScalarType::u64, false},       {"%pm1_64", ScalarType::u64, false},
      {"%pm2_64", ScalarType::u64, false},       {"%pm3_64", ScalarType::u64, false},
      {"%pm4_64", ScalarType::u64, false},       {"%pm5_64", ScalarType::u64, false},
      {"%pm6_64", ScalarType::u64, false},       {"%pm7_64", ScalarType::u64, false},
  };
  for (const S &s : regs)
    addSreg(t, s.name, s.type, s.vec);
  for (int i = 0; i < 8; ++i)
    addSreg(t, "%pm" + std::to_string(i), ScalarType::u32, false);
  for (int i = 0; i < 32; ++i)
    addSreg(t, "%envreg" + std::to_string(i), ScalarType::b32, false);
}

Table &table() {
  static Table *t = [] {
    auto *tab = new Table();
    for (const Row &r : kRows) {
      std::string err = addRow(*tab, r.name, r.mods, r.operands, r.minSm ? r.minSm : "");
      if (!err.empty()) {
        std::fprintf(stderr, "ptxsim: internal error: bad opcode table row %s\n", err.c_str());
        std::abort();
      }
    }
    addBuiltinSpecialRegisters(*tab);
    return tab;
  }();
  return *t;
}

} // namespace

uint16_t lookupOpcode(std::string_view name) {
  Table &t = table();
  auto it = t.byName.find(name);
  return it == t.byName.end() ? kInvalidOpcode : it->second;
}

const OpcodeInfo &opcodeInfo(uint16_t id) { return table().ops.at(id); }

size_t opcodeCount() { return table().ops.size(); }

std::string registerOpcode(std::string_view name, std::string_view mods, std::string_view operands,
                           std::string_view minSm) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  return addRow(t, name, mods, operands, minSm);
}

const SpecialRegInfo *lookupSpecialRegister(std::string_view base) {
  Table &t = table();
  auto it = t.sregs.find(base);
  return it == t.sregs.end() ? nullptr : &it->second;
}

void registerSpecialRegister(std::string_view base, ScalarType type, bool vec) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  addSreg(t, base, type, vec);
}

} // namespace ptxsim::ptx
