#include "ptx/sema/OpcodeTable.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <unordered_map>

// Spec language
// -------------
// Each row is: opcode name, modifier spec, operand spec.
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
//   flags: w register may be wider than the type; W twice the type's width (mul.wide); p `a|p` pair allowed; v `.vN` vector;
//          V brace vector of any width allowed; s symbol name allowed; ? optional; * repeats

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
    {"shape", ".m16n16k16|.m32n8k16|.m8n32k16|.m16n16k8|.m8n8k4|.m8n8k32|.m8n8k128|.m16n8k4|"
              ".m16n8k8|.m16n8k16|.m16n8k32|.m16n8k64|.m16n8k128|.m16n8k256|.m8n8k16|.m16n8k1"},
};

/// The built-in instruction set. One row per variant.
struct Row {
  const char *name;
  const char *mods;
  const char *operands;
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
    {"abs", "[.ftz] $f", "d0 s0"},
    {"abs", "[.ftz] $h", "d0 s0"},
    {"neg", "$s", "d0 s0"},
    {"neg", "[.ftz] $f", "d0 s0"},
    {"neg", "[.ftz] $h", "d0 s0"},
    {"min", "[.relu] $int|.u16x2|.s16x2", "d0 s0 s0 s0?"},
    {"max", "[.relu] $int|.u16x2|.s16x2", "d0 s0 s0 s0?"},
    {"min", "[.ftz] [.nan] [.xorsign] [.abs] .f32|.f64|$h", "d0 s0 s0 s0?"},
    {"max", "[.ftz] [.nan] [.xorsign] [.abs] .f32|.f64|$h", "d0 s0 s0 s0?"},
    {"popc", ".b32|.b64", "d:u32 s0"},
    {"clz", ".b32|.b64", "d:u32 s0"},
    {"bfind", "[.shiftamt] .u32|.u64|.s32|.s64", "d:u32 s0"},
    {"fns", ".b32", "d0 s0 s:u32 s:s32"},
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
    {"lop3", ".b32", "d0 s0 s0 s0 s:b32"},
    {"lop3", "$bop .b32", "d0/p s0 s0 s0 s:b32 q"},
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
    {"ex2", ".approx [.ftz] .f32|$h", "d0 s0"},
    {"tanh", ".approx .f32|$h", "d0 s0"},
    {"fma", "$rnd [.ftz] [.sat] .f32|.f64|.f32x2", "d0 s0 s0 s0"},
    {"fma", "[.rn] [.ftz] [.sat] [.relu] [.oob] $h", "d0 s0 s0 s0"},
    // ---- comparison and selection
    {"setp", "$cmp [.ftz] $num", "P/p s0 s0"},
    {"setp", "$cmp $bop [.ftz] $num", "P/p s0 s0 q"},
    {"set", "$cmp [$bop] [.ftz] .u32|.s32|.f32|.f16|.f16x2|.bf16|.bf16x2 $num",
     "d0 s1 s1 q?"},
    {"selp", "$num", "d0 s0 s0 q"},
    {"slct", "[.ftz] $num .s32|.f32", "d0 s0 s0 s1"},
    // ---- data movement
    {"mov", ".pred|$num", "d0 s0/s"},
    {"mov", ".b32|.b64|.b128|.u32|.u64", "d0/V s0/V"},
    {"ld", "[$sem] [$scope] [$space] [$ldcop] [.nc] [$evict1] [$evict2] [.L2::cache_hint] "
           "[$l2pf] [.unified] [$vec] $ldt",
     "d0/wv a s:u64?"},
    {"ldu", "[$space] [$vec] $ldt", "d0/wv a"},
    {"st", "[$sem] [$scope] [$space] [$stcop] [$evict1] [$evict2] [.L2::cache_hint] [$vec] $ldt",
     "a s0/wv s:u64?"},
    {"prefetch", "[.global|.local] .L1|.L2|.L2::evict_last|.L2::evict_normal", "a"},
    {"prefetchu", ".L1", "a"},
    {"cvta", "[.to] $cvtaspace .u32|.u64", "d0 s0/s"},
    {"cvt", "[$irnd|$rnd|.rna|.rs] [.ftz] [.sat] [.relu] [.satfinite] $any $any",
     "d0w s1w s1w? s:b32?"},
    {"cvt", ".pack .sat .u8|.s8|.u16|.s16|.u4|.s4 .s32 [.b32]", "d:b32 s:s32 s:s32 s:b32?"},
    {"isspacep", "$cvtaspace", "P s:u64/w"},
    {"shfl", "[.sync] .up|.down|.bfly|.idx .b32", "d0/p s0 s:u32 s:u32 s:u32?"},
    // ---- atomics
    {"atom", "[$sem] [$scope] [$space] $atomop [.noftz] [.L2::cache_hint] [$vec] $any",
     "d0/v a s0/v s:u64?"},
    {"atom", "[$sem] [$scope] [$space] .cas [.L2::cache_hint] .b16|.b32|.b64|.b128", "d0 a s0 s0 s:u64?"},
    {"red", "[$sem] [$scope] [$space] $atomop [.noftz] [.L2::cache_hint] [$vec] $any", "a s0/v s:u64?"},
    // ---- control flow
    {"bra", "[.uni]", "l"},
    {"brx", ".idx [.uni]", "s:u32 n"},
    {"call", "[.uni]", "x*"},
    {"ret", "[.uni]", ""},
    {"exit", "", ""},
    {"trap", "", ""},
    {"brkpt", "", ""},
    {"nanosleep", ".u32", "s0"},
    {"pmevent", "[.mask]", "s:u32"},
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
    {"barrier", ".cluster .arrive|.wait [.relaxed|.release|.acquire] [.aligned]", ""},
    {"membar", ".cta|.gl|.sys", ""},
    {"fence", "[.sc|.acq_rel] .cta|.cluster|.gpu|.sys", ""},
    // ---- warp-level
    {"vote", "[.sync] .all|.any|.uni .pred", "P q s:u32?"},
    {"vote", "[.sync] .ballot .b32", "d0 q s:u32?"},
    {"match", ".sync .any .b32|.b64", "d:b32 s0 s:u32"},
    {"match", ".sync .all .b32|.b64", "d:b32/p s0 s:u32"},
    {"redux", ".sync .add|.min|.max|.and|.or|.xor .u32|.s32|.b32", "d0 s0 s:u32"},
    {"redux", ".sync .min|.max [.abs] [.nan] .f32", "d0 s0 s:u32"},
    {"activemask", ".b32", "d0"},
    {"elect", ".sync", "d:b32/p s:u32"},
    // ---- asynchronous copies (functional semantics only)
    {"cp", ".async .ca|.cg .shared|.shared::cta .global [.L2::cache_hint] [$l2pf]",
     "a a s:u32 s:u32? s:u64?"},
    {"cp", ".async .commit_group", ""},
    {"cp", ".async .wait_group", "s:u32"},
    {"cp", ".async .wait_all", ""},
    // ---- textures and surfaces
    {"tex", "$geom [.level|.grad|.base] [.v4|.v2] $any $any", "d0/V a x? x? x?"},
    {"tld4", ".r|.g|.b|.a $geom [.v4] $any .f32", "d0/V a x? x?"},
    {"txq", "[.level] .width|.height|.depth|.channel_data_type|.channel_order|"
            ".normalized_coords|.filter_mode|.addr_mode_0|.addr_mode_1|.addr_mode_2|"
            ".force_unnormalized_coords|.num_samples|.num_mipmap_levels|.array_size .b32",
     "d0 a s:u32?"},
    {"suld", ".b $geom [$ldcop] [$vec] $bits .trap|.clamp|.zero", "d0/V a"},
    {"sust", ".b|.p $geom [$stcop] [$vec] $bits|.u32|.s32|.f32 .trap|.clamp|.zero", "a s0/V"},
    {"sured", ".b|.p $atomop $geom .b32|.b64|.u32|.u64|.s32|.s64 .trap|.clamp|.zero", "a s0"},
    // ---- tensor cores (shapes and fragments are checked by the executor)
    {"wmma", ".load .a|.b|.c .sync .aligned .row|.col $shape [$space] $any", "d0/V a s:u32?"},
    {"wmma", ".store .d .sync .aligned .row|.col $shape [$space] $any", "a s0/V s:u32?"},
    {"wmma", ".mma .sync .aligned .row|.col .row|.col $shape [$rnd] $any $any [$any] [$any] "
             "[.satfinite]",
     "d0/V x/V x/V x/V"},
    {"mma", ".sync .aligned $shape [.row] [.col] [.row|.col] [$rnd] [.satfinite] [.sp] "
            "[.ordered_metadata] [.kind::f16|.kind::f8f6f4] $any $any [$any] [$any]",
     "d0/V x/V x/V x/V x? x? x?"},
    {"ldmatrix", ".sync .aligned .m8n8|.m16n16|.m8n16 .x1|.x2|.x4 [.trans] [.shared|.shared::cta] "
                 ".b16|.b8",
     "d0/V a"},
    {"stmatrix", ".sync .aligned .m8n8|.m16n8 .x1|.x2|.x4 [.trans] [.shared|.shared::cta] .b16|.b8",
     "a s0/V"},
    // ---- video
    {"vadd", ".u32|.s32 .u32|.s32 .u32|.s32 [.sat] [.add|.min|.max]", "d0 s1 s2 s0?"},
    {"vsub", ".u32|.s32 .u32|.s32 .u32|.s32 [.sat] [.add|.min|.max]", "d0 s1 s2 s0?"},
    {"vabsdiff", ".u32|.s32 .u32|.s32 .u32|.s32 [.sat] [.add|.min|.max]", "d0 s1 s2 s0?"},
    {"vmin", ".u32|.s32 .u32|.s32 .u32|.s32 [.sat] [.add|.min|.max]", "d0 s1 s2 s0?"},
    {"vmax", ".u32|.s32 .u32|.s32 .u32|.s32 [.sat] [.add|.min|.max]", "d0 s1 s2 s0?"},
    {"vset", ".u32|.s32 .u32|.s32 $cmp [.add|.min|.max]", "d:u32 s0 s1 s:u32?"},
    // ---- miscellaneous
    {"stacksave", ".u32|.u64", "d0"},
    {"stackrestore", ".u32|.u64", "s0"},
    {"alloca", "[.local] .u32|.u64", "d0 s0 s:u32?"},
    {"discard", ".global .L2", "a s:u64"},
    {"applypriority", ".global .L2::evict_normal", "a s:u64"},
    {"createpolicy", "x*", "x*"},
    {"mbarrier", "x*", "x*"},
    {"griddepcontrol", ".launch_dependents|.wait", ""},
    {"setmaxnreg", ".inc|.dec .sync .aligned .u32", "s0"},
    {"mapa", "[.shared::cluster] .u32|.u64", "d0 s0 s:u32"},
    {"getctarank", "[.shared::cluster] .u32|.u64", "d:u32 s0"},
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
      return "modifier '" + std::string(alt) + "' is not in Modifiers.def/Types.def";
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
    for (uint16_t id = 0; id < kNumModifiers; ++id)
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
                   std::string_view operands) {
  OpcodeVariant v;
  std::string err = parseVariant(mods, operands, v);
  if (!err.empty())
    return std::string(name) + ": " + err;
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
      std::string err = addRow(*tab, r.name, r.mods, r.operands);
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

std::string registerOpcode(std::string_view name, std::string_view mods, std::string_view operands) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  return addRow(t, name, mods, operands);
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
