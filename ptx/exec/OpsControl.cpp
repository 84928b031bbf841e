// Control flow, calls, barriers, fences and other instructions without data results.

#include "ptx/exec/OpsCommon.h"

namespace ptxsim::ptx::exec {

ir::ExecFn nopHandler();

namespace {

bool lowerCall(LowerCtx &c) {
  const Instruction &ai = c.ai();
  // call (rets), callee, (args)[, prototype|targets]
  const Operand *rets = nullptr, *args = nullptr, *callee = nullptr;
  for (const Operand &o : ai.operands) {
    if (o.kind == Operand::Kind::List) {
      if (!callee)
        rets = &o;
      else if (!args)
        args = &o;
    } else if (!callee) {
      callee = &o;
    }
  }
  if (!callee || callee->kind != Operand::Kind::Reg)
    return c.unsupported("callee");
  ir::CallSite site;
  auto copyOf = [&](const Operand &o, bool isRet) {
    ir::ArgCopy a;
    if (o.kind == Operand::Kind::Imm || o.kind == Operand::Kind::FImm) {
      a.cst = c.constant(o.kind == Operand::Kind::Imm ? (uint64_t)o.ival : o.fbits).cst;
      a.size = 8;
      return a;
    }
    SymbolRef s = c.lookup(o.name);
    if (s.kind == SymbolRef::Kind::Frame) {
      a.callerOff = (uint32_t)(s.addr + o.ival);
      a.size = (uint32_t)s.size;
    } else if (s.kind == SymbolRef::Kind::Reg) {
      a.fromReg = true;
      a.callerOff = s.index * kWarpSize;
      a.size = (s.bits + 7) / 8;
    } else if (!isRet) {
      ir::Opnd v = c.src(o, ScalarType::b64);
      a.fromReg = v.cst == nullptr;
      a.cst = v.cst;
      a.callerOff = v.reg;
      a.size = 8;
    }
    return a;
  };
  if (rets)
    for (const Operand &o : rets->elems)
      site.rets.push_back(copyOf(o, true));
  if (args)
    for (const Operand &o : args->elems)
      site.args.push_back(copyOf(o, false));
  SymbolRef cs = c.lookup(callee->name);
  bool indirect = cs.kind != SymbolRef::Kind::Function;
  ir::Opnd fp;
  if (indirect)
    fp = c.src(*callee, ScalarType::u64);
  else
    site.callee = cs.index;
  uint32_t idx = (uint32_t)c.fn().calls.size();
  c.fn().calls.push_back(std::move(site));
  ir::Inst &in = c.emitCtl(indirect ? ir::Ctl::CallIndirect : ir::Ctl::Call);
  in.target = idx;
  in.src[0] = fp;
  return true;
}

// bar.sync a{, b}; bar.arrive a, b; bar.red.op.type d, a{, b}, {!}c; barrier.* the same.
bool lowerBar(LowerCtx &c) {
  const Instruction &ai = c.ai();
  bool isRed = c.has(Mod::red);
  bool isArrive = c.has(Mod::arrive);
  if (c.has(Mod::warp)) { // bar.warp.sync membermask: a convergence point (Ctl::WarpSync)
    ir::Opnd mm = ai.operands.empty() ? c.constant(ir::kFullMask) : c.src(c.op(0), ScalarType::u32);
    ir::Inst &in = c.emit(nopHandler(), ir::OpClass::Sync);
    in.src[0] = mm;
    in.nsrc = 1;
    in.aux = 1; // bar.warp.sync: lanes at different instructions may meet
    in.ctl = ir::Ctl::WarpSync;
    in.memberSrc = 0;
    dropMaskDependency(in, 0);
    return true;
  }
  unsigned first = isRed ? 1 : 0;
  size_t nops = ai.operands.size();
  ir::Opnd id = nops > first ? c.src(c.op(first), ScalarType::u32) : c.constant(0);
  bool hasCount = isRed ? nops == 4 : nops >= first + 2;
  ir::Opnd cnt = hasCount ? c.src(c.op(first + 1), ScalarType::u32) : ir::Opnd{};
  uint16_t p = ir::kPredTrue;
  uint32_t px = 0;
  uint32_t d = 0;
  bool predDst = false;
  if (isRed) {
    c.predSrc(c.op(nops - 1), p, px);
    predDst = c.type() == ScalarType::pred;
    d = predDst ? c.predDst(c.op(0)) : c.dst(c.op(0));
  }
  ir::Inst &in = c.emitCtl(isRed ? ir::Ctl::BarRed : isArrive ? ir::Ctl::BarArrive : ir::Ctl::Bar,
                           ir::OpClass::Sync);
  in.src[0] = id;
  in.src[1] = cnt;
  in.psrc[0] = p;
  in.psrcXor[0] = px;
  in.dst[0] = d;
  unsigned op = c.has(Mod::popc) ? 0 : c.has(Mod::and_) ? 1 : 2;
  in.aux = (hasCount ? 1 : 0) | (isRed ? 2 : 0) | (op << 2) | (predDst ? 16 : 0);
  return true;
}


/// fence/membar: no effect in the executor (one host thread runs a warp's lanes in order, and
/// global memory is the host's); the timing model charges the MEMBAR's scope.
bool lowerFence(LowerCtx &c) {
  ir::Inst &in = c.emit(nopHandler(), ir::OpClass::Sync);
  in.sassSeq = uint8_t(fenceOf(c, true));
  return true;
}
} // namespace

void registerControlOps() {
  registerLowering("bra", [](LowerCtx &c) {
    int32_t label = c.ai().target;
    ir::Inst &in = c.emitCtl(ir::Ctl::Bra);
    c.labelTarget(in, (uint32_t)label);
    return true;
  });
  registerLowering("brx", [](LowerCtx &c) {
    ir::Opnd idx = c.src(c.op(0), ScalarType::u32);
    const TargetList &tl = c.astFn().targets[(size_t)c.ai().target];
    uint32_t t = (uint32_t)c.fn().jumpTables.size();
    c.fn().jumpTables.push_back(tl.labels); // label indices, mapped to pcs after lowering
    ir::Inst &in = c.emitCtl(ir::Ctl::Brx);
    in.src[0] = idx;
    in.target = t;
    return true;
  });
  registerLowering("call", lowerCall);
  registerLowering("ret", [](LowerCtx &c) {
    c.emitCtl(c.fn().isEntry ? ir::Ctl::Exit : ir::Ctl::Ret);
    return true;
  });
  registerLowering("exit", [](LowerCtx &c) { c.emitCtl(ir::Ctl::Exit); return true; });
  registerLowering("trap", [](LowerCtx &c) { c.emitCtl(ir::Ctl::Trap); return true; });
  registerLowering("brkpt", [](LowerCtx &c) { c.emitCtl(ir::Ctl::Trap); return true; });
  registerLowering("bar", lowerBar);
  registerLowering("barrier", lowerBar);
  registerLowering("membar", lowerFence);
  registerLowering("fence", lowerFence);
  registerLowering("nanosleep", [](LowerCtx &c) { c.emitCtl(ir::Ctl::Yield, ir::OpClass::Misc); return true; });
  registerLowering("pmevent", [](LowerCtx &c) { c.emit(nopHandler(), ir::OpClass::Misc); return true; });
}

ir::SassSeq fenceOf(const LowerCtx &c, bool isFence) {
  if (isFence) {
    if (c.has(Mod::proxy) || c.has(Mod::mbarrier_init) || c.has(Mod::op_restrict) ||
        c.has(Mod::sync_restrict_shared_cluster) || c.has(Mod::sync_restrict_shared_cta))
      return ir::SassSeq::None;
  } else if (!c.has(Mod::release) && !c.has(Mod::acq_rel)) {
    return ir::SassSeq::None;
  }
  if (c.has(Mod::cta))
    return ir::SassSeq::FenceCta;
  if (c.has(Mod::sys))
    return ir::SassSeq::FenceSys;
  return ir::SassSeq::FenceGpu; // .gpu, .cluster, membar.gl, or no scope (.gpu by default)
}

} // namespace ptxsim::ptx::exec
