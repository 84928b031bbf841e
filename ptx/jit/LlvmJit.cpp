// The LLVM backend of the JIT (libptxsim_jit.so, loaded by ptx/jit/JitOps.cpp): translates a
// lowered function to one LLVM function over whole warps (32-lane vectors with the active mask)
// and compiles it with ORC's LLJIT for the host CPU.
//
// Contract (docs/executor.md, "The JIT engine"): a block is a maximal run of Ctl::None and
// warp-synchronous instructions between leaders (branch targets, reconvergence points, other
// control instructions and the instructions after them). Described handlers (JitOps.h) become
// native vector code with the handler's exact bits; every other instruction calls its handler
// with the same arguments the interpreter passes, so conversions, rounding modes, memory
// accesses and faults are the interpreter's own. Uniform branches jump inside the compiled code
// (loops stay in it); every other control instruction, and divergent branches, return to the
// interpreter loop.

#include "ptx/exec/Exec.h"
#include "ptx/exec/Memory.h"
#include "ptx/exec/Warp.h"
#include "ptx/jit/JitOps.h"
#include "ptx/jit/Liveness.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <cstddef>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace ptxsim::ptx::jit {
namespace {

using exec::ExecCtx;
using exec::Warp;

/// Whether `in` may sit inside a straight-line block: Ctl::None instructions, and warp-synchronous
/// ones (shfl.sync, vote.sync, ...), which the interpreter loop only runs through their handler
/// unless independent thread scheduling has diverged the warp (Exec.cpp, Ctl::WarpSync); the
/// code checks that case and leaves before such an instruction.
bool inBlock(const ir::Inst &in) { return in.ctl == ir::Ctl::None || in.ctl == ir::Ctl::WarpSync; }

/// Where compiled code may start (and blocks start): the first instruction, branch and
/// jump-table targets, reconvergence points, control instructions and every instruction after
/// one.
std::vector<bool> leaders(const ir::Function &fn) {
  const size_t n = fn.code.size();
  std::vector<bool> lead(n + 1, false);
  if (n)
    lead[0] = true;
  for (size_t pc = 0; pc < n; ++pc) {
    const ir::Inst &in = fn.code[pc];
    if (!inBlock(in)) {
      lead[pc] = true;
      lead[pc + 1] = true;
      if (in.ctl == ir::Ctl::Bra && in.target < n)
        lead[in.target] = true;
    }
    if (pc < fn.reconv.size() && fn.reconv[pc] < n)
      lead[fn.reconv[pc]] = true;
  }
  for (const auto &tbl : fn.jumpTables)
    for (uint32_t t : tbl)
      if (t < n)
        lead[t] = true;
  return lead;
}

/// Byte offset in ir::Function of Function::code's data pointer (the vector's first word, which
/// LlvmBackend::init checks).
size_t functionCodeOffset() {
  static const size_t off = [] {
    ir::Function f;
    return size_t(reinterpret_cast<const char *>(&f.code) - reinterpret_cast<const char *>(&f));
  }();
  return off;
}

// Grid is not a standard-layout type (it holds containers); GCC and Clang give offsetof the
// offsets of its plain fields all the same
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
constexpr size_t kGridBlock = offsetof(exec::Grid, block), kGridDim = offsetof(exec::Grid, dim),
                 kGridParams = offsetof(exec::Grid, paramAddr);
#pragma GCC diagnostic pop

bool isSigned(Type t) { return t == Type::S16 || t == Type::S32 || t == Type::S64; }
unsigned bitsOf(Type t) {
  switch (t) {
  case Type::S16: case Type::U16: return 16;
  case Type::S32: case Type::U32: case Type::F32: return 32;
  default: return 64;
  }
}

class Translator {
public:
  Translator(llvm::LLVMContext &c, llvm::Module &m, const ir::Function &fn, DescribeFn describe)
      : c_(c), m_(m), fn_(fn), describe_(describe), b_(c), live_(fn, describe) {
    i1_ = llvm::Type::getInt1Ty(c);
    i8_ = llvm::Type::getInt8Ty(c);
    i32_ = llvm::Type::getInt32Ty(c);
    i64_ = llvm::Type::getInt64Ty(c);
    v64_ = llvm::FixedVectorType::get(i64_, ir::kWarpSize);
    vmask_ = llvm::FixedVectorType::get(i1_, ir::kWarpSize);
    ptr_ = llvm::Type::getInt8PtrTy(c);
    handlerTy_ = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr_, ptr_, ptr_, i32_}, false);
    runTy_ = llvm::FunctionType::get(i64_, {ptr_, ptr_, i32_, i64_, llvm::PointerType::getUnqual(i32_),
                                            i64_, i32_}, false);
  }

  /// Emits the whole function as `name` (FunctionCode::run). A function of at most
  /// `regionInsts` instructions is one LLVM function; a larger one is split into pc ranges
  /// [lo, hi) of at most that many instructions (region()), each its own LLVM function, and
  /// `name` is a dispatcher that calls the range holding the start pc (dispatcher()). LLVM's
  /// time on one function grows faster than its size (the entry switch reaches every block),
  /// so ranges keep the compile time linear in the function's size.
  void function(const std::string &name, std::vector<bool> lead, uint32_t regionInsts,
                FunctionCode &code) {
    const uint32_t n = (uint32_t)fn_.code.size();
    code.entry.assign(n + 1, 0); // every instruction (blocks add their inner ones)
    std::fill(code.entry.begin(), code.entry.begin() + n, 1);
    if (regionInsts == 0 || n <= regionInsts) {
      region(name, llvm::Function::ExternalLinkage, 0, n, lead, code);
      return;
    }
    // a range starts a block (a block never spans two ranges)
    std::vector<uint32_t> bounds;
    for (uint32_t lo = 0; lo < n; lo += regionInsts) {
      bounds.push_back(lo);
      lead[lo] = true;
    }
    bounds.push_back(n);
    code.ranges = uint32_t(bounds.size() - 1);
    std::vector<llvm::Function *> parts;
    for (size_t r = 0; r + 1 < bounds.size(); ++r)
      parts.push_back(region(name + "_pc" + std::to_string(bounds[r]), llvm::Function::InternalLinkage,
                             bounds[r], bounds[r + 1], lead, code));
    dispatcher(name, bounds, parts);
  }

private:
  /// The code of pcs [lo, hi) (and of hi when it is past the last instruction) as the function
  /// `name`: one LLVM block per leader, entered through a switch on the start pc; straight-line
  /// blocks run whole, uniform branches jump inside the code, a jump or fall-through into
  /// another range leaves with kCrossRange set in the count (the dispatcher goes on there),
  /// everything else leaves the code with the pc where the interpreter loop goes on.
  llvm::Function *region(const std::string &name, llvm::GlobalValue::LinkageTypes linkage, uint32_t lo,
                         uint32_t hi, const std::vector<bool> &lead, FunctionCode &code) {
    const uint32_t n = (uint32_t)fn_.code.size();
    auto *f = llvm::Function::Create(runTy_, linkage, name, m_);
    if (linkage == llvm::Function::InternalLinkage) // inlined, the ranges would be one function again
      f->addFnAttr(llvm::Attribute::NoInline);
    f_ = f;
    lo_ = lo, hi_ = hi;
    llvm::BasicBlock *entry = prologue(f);
    at_.assign(n + 1, nullptr);
    for (uint32_t pc = lo; pc < hi; ++pc)
      if (lead[pc])
        at_[pc] = llvm::BasicBlock::Create(c_, "pc" + std::to_string(pc), f);
    if (hi == n && lead[n])
      at_[n] = llvm::BasicBlock::Create(c_, "pc" + std::to_string(n), f);
    llvm::BasicBlock *bad = llvm::BasicBlock::Create(c_, "noentry", f);
    b_.SetInsertPoint(bad);
    b_.CreateRet(b_.getInt64(0));
    b_.SetInsertPoint(entry);
    dispatch_ = llvm::BasicBlock::Create(c_, "dispatch", f);
    b_.CreateBr(dispatch_);
    // the start pc, and where the code goes on after it changed the reconvergence stack
    b_.SetInsertPoint(dispatch_);
    llvm::Value *start = b_.CreateLoad(i32_, pcOut_);
    llvm::SwitchInst *sw = b_.CreateSwitch(start, bad);
    for (uint32_t pc = lo; pc < hi; ++pc)
      if (at_[pc])
        sw->addCase(b_.getInt32(pc), at_[pc]);
    if (at_[n]) { // past the last instruction: the interpreter says what that means
      b_.SetInsertPoint(at_[n]);
      leave(n);
    }
    for (uint32_t pc = lo; pc < hi;) {
      b_.SetInsertPoint(at_[pc]);
      const ir::Inst &in = fn_.code[pc];
      if (in.ctl == ir::Ctl::Bra) {
        branch(pc, code);
        ++pc;
        continue;
      }
      if (!inBlock(in)) {
        leave(pc);
        ++pc;
        continue;
      }
      uint32_t end = pc + 1;
      while (end < hi && !lead[end])
        ++end;
      block(pc, end - pc, sw, code);
      pc = end;
    }
    return f;
  }

  /// The entry block of `f` (a range or the whole function): its arguments, the instruction
  /// counter and the warp's fields every block reads.
  llvm::BasicBlock *prologue(llvm::Function *f) {
    forget(); // register values of another LLVM function (range) are not usable here
    pending_.clear();
    lazy_ = false;
    fastLoaded_ = nullptr;
    auto args = f->arg_begin();
    ctx_ = &*args++;
    warp_ = &*args++;
    argActive_ = &*args++;
    instBase_ = &*args++;
    pcOut_ = &*args++;
    budget_ = &*args++;
    argRpc_ = &*args;
    llvm::BasicBlock *entry = llvm::BasicBlock::Create(c_, "entry", f);
    b_.SetInsertPoint(entry);
    done_ = b_.CreateAlloca(i64_, nullptr, "done");
    b_.CreateStore(b_.getInt64(0), done_);
    // the running lanes and their reconvergence point: the arguments until the code changes
    // the reconvergence stack itself (diverge(), reconverge()); each leader reads them (reload)
    activeSlot_ = b_.CreateAlloca(i32_, nullptr, "active");
    rpcSlot_ = b_.CreateAlloca(i32_, nullptr, "rpc");
    resume_ = b_.CreateAlloca(llvm::ArrayType::get(i32_, 3), nullptr, "resume");
    b_.CreateStore(argActive_, activeSlot_);
    b_.CreateStore(argRpc_, rpcSlot_);
    regs_ = b_.CreateLoad(llvm::PointerType::getUnqual(i64_), fieldPtr(warp_, offsetof(Warp, regs),
                                                                         llvm::PointerType::getUnqual(i64_)));
    preds_ = b_.CreateLoad(llvm::PointerType::getUnqual(i32_),
                           fieldPtr(warp_, offsetof(Warp, preds), llvm::PointerType::getUnqual(i32_)));
    liveMask_ = b_.CreateLoad(i32_, fieldPtr(warp_, offsetof(Warp, liveMask), i32_));
    // the instructions through Warp::fn (the function now executing), not as constants: the
    // code holds no address of this process, so the disk cache can reuse it in another
    llvm::Value *fnNow = b_.CreateLoad(ptr_, fieldPtr(warp_, offsetof(Warp, fn), ptr_));
    code_ = b_.CreateLoad(ptr_, fieldPtr(fnNow, functionCodeOffset(), ptr_));
    // a warp diverged under independent thread scheduling: warp-synchronous instructions first
    // gather their member lanes in the interpreter loop (warpSyncArrive)
    its_ = b_.CreateICmpNE(b_.CreateLoad(i8_, fieldPtr(warp_, offsetof(Warp, its), i8_)), b_.getInt8(0));
    return entry;
  }

  /// The running lanes and their reconvergence point at a leader (the code may have changed
  /// them before jumping here: resume()), and whether independent thread scheduling has split
  /// the warp there.
  void reload() {
    predVals_.clear(); // (values of another block)
    active_ = b_.CreateLoad(i32_, activeSlot_, "act");
    rpc_ = b_.CreateLoad(i32_, rpcSlot_, "rpc");
    itsSplit_ = b_.CreateAnd(its_, b_.CreateICmpNE(active_, liveMask_));
  }

  /// `bra` at `pc` taken by `m`, some but not all active lanes, counted: the interpreter's
  /// divergence on the warp's reconvergence stack (jitDiverge), then the code goes on with the
  /// new top (resume()).
  void diverge(uint32_t pc, llvm::Value *m) { resume(callDiverge(pc, m)); }
  /// The call of jitDiverge for diverge() (and loopBack): its answer; the new top in resume_.
  llvm::Value *callDiverge(uint32_t pc, llvm::Value *m) {
    llvm::FunctionType *ty = llvm::FunctionType::get(i8_, {ptr_, ptr_, i32_, i32_, i64_, ptr_}, false);
    llvm::Value *fnp = b_.CreateLoad(llvm::PointerType::getUnqual(ty),
                                     fieldPtr(ctx_, offsetof(ExecCtx, diverge), llvm::PointerType::getUnqual(ty)));
    llvm::Value *count = b_.CreateAdd(instBase_, b_.CreateLoad(i64_, done_));
    return b_.CreateCall(ty, fnp, {ctx_, warp_, b_.getInt32(pc), m, count, b_.CreateBitCast(resume_, ptr_)});
  }
  /// The code reached `pc`, its reconvergence point, with budget left: the interpreter loop's
  /// pops (jitReconverge), then the code goes on with the new top (resume()).
  void reconverge(uint32_t pc) {
    llvm::FunctionType *ty = llvm::FunctionType::get(i8_, {ptr_, ptr_, i32_, i64_, ptr_}, false);
    llvm::Value *fnp = b_.CreateLoad(llvm::PointerType::getUnqual(ty),
                                     fieldPtr(ctx_, offsetof(ExecCtx, reconverge), llvm::PointerType::getUnqual(ty)));
    llvm::Value *count = b_.CreateAdd(instBase_, b_.CreateLoad(i64_, done_));
    llvm::Value *go = b_.CreateCall(ty, fnp, {ctx_, warp_, b_.getInt32(pc), count, b_.CreateBitCast(resume_, ptr_)});
    resume(go);
  }
  /// After jitDiverge/jitReconverge (`go` their answer): the top entry's lanes and
  /// reconvergence point become the code's, and it goes on at the top's pc through the entry
  /// switch when that pc is in this range and `go`; otherwise it leaves there (the interpreter
  /// loop pops the last entry, or the dispatcher of ranges goes on with the new top).
  void resume(llvm::Value *go) {
    auto field = [&](unsigned i) {
      return b_.CreateLoad(i32_, b_.CreateConstGEP2_32(llvm::ArrayType::get(i32_, 3), resume_, 0, i));
    };
    llvm::Value *pc = field(0);
    b_.CreateStore(field(1), activeSlot_);
    b_.CreateStore(field(2), rpcSlot_);
    b_.CreateStore(pc, pcOut_);
    llvm::Value *ok = b_.CreateICmpNE(go, b_.getInt8(0));
    ok = b_.CreateAnd(ok, b_.CreateICmpUGE(pc, b_.getInt32(lo_)));
    ok = b_.CreateAnd(ok, b_.CreateICmpULT(pc, b_.getInt32(hi_)));
    llvm::BasicBlock *out = llvm::BasicBlock::Create(c_, "resumeout", f_);
    b_.CreateCondBr(ok, dispatch_, out);
    b_.SetInsertPoint(out);
    b_.CreateRet(b_.CreateLoad(i64_, done_));
  }

  /// The exported `name` of a function in ranges: calls the range of the start pc
  /// (bounds[r] <= pc < bounds[r + 1]) with what is left of the budget, and again while the
  /// range it called left with kCrossRange (a jump or fall-through into another range, which
  /// the code of one function would have taken without leaving); returns the instructions
  /// counted by all of them. Every call runs at least one instruction before it crosses, so the
  /// budget ends the loop.
  void dispatcher(const std::string &name, const std::vector<uint32_t> &bounds,
                  const std::vector<llvm::Function *> &parts) {
    auto *f = llvm::Function::Create(runTy_, llvm::Function::ExternalLinkage, name, m_);
    std::vector<llvm::Value *> a;
    for (llvm::Argument &arg : f->args())
      a.push_back(&arg);
    llvm::Value *base = a[3], *pcOut = a[4], *budget = a[5];
    llvm::BasicBlock *entry = llvm::BasicBlock::Create(c_, "entry", f);
    llvm::BasicBlock *loop = llvm::BasicBlock::Create(c_, "dispatch", f);
    llvm::BasicBlock *ran = llvm::BasicBlock::Create(c_, "ran", f);
    llvm::BasicBlock *out = llvm::BasicBlock::Create(c_, "out", f);
    b_.SetInsertPoint(entry);
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    llvm::PHINode *total = b_.CreatePHI(i64_, 2, "total");
    total->addIncoming(b_.getInt64(0), entry);
    llvm::Value *pc = b_.CreateLoad(i32_, pcOut);
    llvm::PHINode *got = llvm::PHINode::Create(i64_, (unsigned)parts.size(), "got", ran);
    for (size_t r = 0; r < parts.size(); ++r) {
      llvm::BasicBlock *call = llvm::BasicBlock::Create(c_, "range", f);
      llvm::BasicBlock *next = nullptr;
      if (r + 1 < parts.size()) { // a pc past the last range goes to it: its code leaves there
        next = llvm::BasicBlock::Create(c_, "test", f);
        b_.CreateCondBr(b_.CreateICmpULT(pc, b_.getInt32(bounds[r + 1])), call, next);
      } else {
        b_.CreateBr(call);
      }
      b_.SetInsertPoint(call);
      llvm::Value *d = b_.CreateCall(parts[r], {a[0], a[1], a[2], b_.CreateAdd(base, total), pcOut,
                                                b_.CreateSub(budget, total), a[6]});
      got->addIncoming(d, call);
      b_.CreateBr(ran);
      if (next)
        b_.SetInsertPoint(next);
    }
    b_.SetInsertPoint(ran);
    llvm::Value *sum = b_.CreateAdd(total, b_.CreateAnd(got, b_.getInt64(~kCrossRange)));
    total->addIncoming(sum, ran);
    b_.CreateCondBr(b_.CreateICmpNE(b_.CreateAnd(got, b_.getInt64(kCrossRange)), b_.getInt64(0)), loop, out);
    b_.SetInsertPoint(out);
    b_.CreateRet(sum);
  }

  /// Set in a range's count when it left for another range (dispatcher()).
  static constexpr uint64_t kCrossRange = 1ull << 63;

  /// Leaves the code at `pc` with the instructions counted so far.
  void leave(uint32_t pc) {
    b_.CreateStore(b_.getInt32(pc), pcOut_);
    b_.CreateRet(b_.CreateLoad(i64_, done_));
  }
  /// Instructions the code may still run.
  llvm::Value *left() { return b_.CreateSub(budget_, b_.CreateLoad(i64_, done_)); }
  /// Goes on at `next` when `ok`, else leaves at `pc`.
  void goOnIf(llvm::Value *ok, uint32_t pc, llvm::BasicBlock *next) {
    llvm::BasicBlock *out = llvm::BasicBlock::Create(c_, "leave", f_);
    b_.CreateCondBr(ok, next, out);
    b_.SetInsertPoint(out);
    leave(pc);
  }
  /// Goes on at `next` unless the budget is spent (the code leaves at `pc`) or `pc` is the
  /// reconvergence point (reconverge(): the interpreter loop would pop the top entry there).
  void goOnUnlessSpentOrRpc(uint32_t pc, llvm::BasicBlock *next) {
    llvm::BasicBlock *more = llvm::BasicBlock::Create(c_, "more", f_);
    llvm::BasicBlock *join = llvm::BasicBlock::Create(c_, "rejoin", f_);
    goOnIf(b_.CreateICmpNE(left(), b_.getInt64(0)), pc, more);
    b_.SetInsertPoint(more);
    b_.CreateCondBr(b_.CreateICmpEQ(rpc_, b_.getInt32(pc)), join, next);
    b_.SetInsertPoint(join);
    reconverge(pc);
  }
  llvm::BasicBlock *target(uint32_t pc) {
    if (pc < at_.size() && at_[pc])
      return at_[pc];
    llvm::BasicBlock *bb = llvm::BasicBlock::Create(c_, "away", f_);
    llvm::IRBuilderBase::InsertPointGuard g(b_);
    b_.SetInsertPoint(bb);
    if (pc < lo_ || (pc >= hi_ && pc < fn_.code.size())) {
      // another range: the dispatcher goes on there, with the lanes and reconvergence point
      // it passed; if the code changed them, the interpreter loop does
      b_.CreateStore(b_.getInt32(pc), pcOut_);
      llvm::Value *same = b_.CreateAnd(b_.CreateICmpEQ(b_.CreateLoad(i32_, activeSlot_), argActive_),
                                       b_.CreateICmpEQ(b_.CreateLoad(i32_, rpcSlot_), argRpc_));
      llvm::Value *d = b_.CreateLoad(i64_, done_);
      b_.CreateRet(b_.CreateSelect(same, b_.CreateOr(d, b_.getInt64(kCrossRange)), d));
    } else {
      leave(pc);
    }
    return bb;
  }

  /// The straight-line block [pc, pc + len), in two versions. The fast one runs it whole when
  /// the budget allows and the reconvergence point is not inside it. The checked one (entered
  /// otherwise, and from the entry switch at every pc inside the block, where a turn that the
  /// budget ended resumes) stops before each instruction when the budget is spent or the pc is
  /// the reconvergence point, exactly where the interpreter's handler loop stops. Both go on at
  /// pc + len.
  void block(uint32_t pc, uint32_t len, llvm::SwitchInst *sw, FunctionCode &code) {
    std::vector<llvm::BasicBlock *> chk(len);
    for (uint32_t k = 0; k < len; ++k) {
      chk[k] = llvm::BasicBlock::Create(c_, "chk" + std::to_string(pc + k), f_);
      if (k)
        sw->addCase(b_.getInt32(pc + k), chk[k]);
    }
    llvm::BasicBlock *body = llvm::BasicBlock::Create(c_, "body", f_);
    reload();
    llvm::Value *fits = b_.CreateICmpUGE(left(), b_.getInt64(len));
    llvm::Value *noRpc = b_.CreateICmpUGE(b_.CreateSub(rpc_, b_.getInt32(pc)), b_.getInt32(len));
    b_.CreateCondBr(b_.CreateAnd(fits, noRpc), body, chk[0]);
    const uint32_t end = pc + len;
    const bool loop = end < hi_ && fn_.code[end].ctl == ir::Ctl::Bra && fn_.code[end].target == pc;
    llvm::BasicBlock *bodyTop = body;
    std::vector<std::pair<uint32_t, llvm::PHINode *>> carried;
    if (loop) // the loop's registers as phis at the body's top (loopHead)
      bodyTop = llvm::BasicBlock::Create(c_, "loopbody", f_);
    b_.SetInsertPoint(body);
    forget();
    lazy_ = true;
    if (loop)
      carried = loopHead(pc, len, body, bodyTop);
    llvm::Value *done = b_.CreateLoad(i64_, done_);
    for (uint32_t k = 0; k < len; ++k)
      inst(fn_.code[pc + k], done, k, pc, &code);
    if (loop) {
      loopBack(pc, len, done, bodyTop, carried);
    } else {
      flushBlockEnd(end);
      b_.CreateStore(b_.CreateAdd(done, b_.getInt64(len)), done_);
      b_.CreateBr(target(end));
    }
    lazy_ = false;
    for (uint32_t k = 0; k < len; ++k) {
      b_.SetInsertPoint(chk[k]);
      reload();
      llvm::BasicBlock *one = llvm::BasicBlock::Create(c_, "one", f_);
      goOnUnlessSpentOrRpc(pc + k, one);
      b_.SetInsertPoint(one);
      forget();
      llvm::Value *d = b_.CreateLoad(i64_, done_);
      inst(fn_.code[pc + k], d, 0, pc + k, nullptr);
      b_.CreateStore(b_.CreateAdd(d, b_.getInt64(1)), done_);
      b_.CreateBr(k + 1 < len ? chk[k + 1] : target(pc + len));
    }
  }

  /// The top of a loop's fast version (a block [pc, pc + len) followed by a `bra` back to pc):
  /// `entry` (from the block's head) reads from the register file every register the block's
  /// native code may read or write, and `top` takes them as phis of that value and the value
  /// the last iteration left (loopBack), so the loop's registers stay in SSA form from one
  /// iteration to the next. The registers the block writes start pending (the last iteration's
  /// values are not in the file; flushing one on entry writes the file's own value), and every
  /// value counts in the active lanes only. Returns the phis, to be completed by loopBack.
  std::vector<std::pair<uint32_t, llvm::PHINode *>> loopHead(uint32_t pc, uint32_t len, llvm::BasicBlock *entry,
                                                             llvm::BasicBlock *top) {
    std::set<uint32_t> regs, written;
    for (uint32_t k = 0; k < len; ++k) {
      const ir::Inst &in = fn_.code[pc + k];
      const Op op = describe_(in.fn).op;
      if (op == Op::None)
        continue; // a handler reads and writes the file (flushed before it, forgotten after)
      const unsigned slots = describedReadSlots(in, op);
      for (unsigned i = 0; i < 5; ++i)
        if (!in.src[i].cst && (slots >> i & 1))
          regs.insert(in.src[i].reg);
      if (op != Op::Setp && op != Op::St && (op != Op::Vote || in.aux == 3)) {
        regs.insert(in.dst[0]);
        written.insert(in.dst[0]);
      }
    }
    std::vector<std::pair<uint32_t, llvm::Value *>> first;
    for (uint32_t r : regs)
      first.emplace_back(r, b_.CreateAlignedLoad(v64_, regPtr(r), llvm::Align(8)));
    b_.CreateBr(top);
    b_.SetInsertPoint(top);
    std::vector<std::pair<uint32_t, llvm::PHINode *>> carried;
    for (auto &[r, v] : first) {
      llvm::PHINode *phi = b_.CreatePHI(v64_, 2);
      phi->addIncoming(v, entry);
      carried.emplace_back(r, phi);
      vals_[r] = phi;
      actOnly_.insert(r);
    }
    // the running lanes and their reconvergence point change when lanes leave the loop
    // (loopBack): phis too
    loopActive_ = b_.CreatePHI(i32_, 3, "loopact");
    loopActive_->addIncoming(active_, entry);
    loopRpc_ = b_.CreatePHI(i32_, 3, "looprpc");
    loopRpc_->addIncoming(rpc_, entry);
    active_ = loopActive_;
    rpc_ = loopRpc_;
    itsSplit_ = b_.CreateAnd(its_, b_.CreateICmpNE(active_, liveMask_));
    pending_ = written;
    return carried;
  }
  /// The end of a loop's fast version (loopHead), `done` the count at its top: when the `bra`
  /// at pc + len would jump back with every active lane (branch(): the budget allows it and
  /// the next iteration whole, the reconvergence point is neither the branch nor inside the
  /// block, and the spin count stays below where the interpreter may act or jitLoopStep says
  /// it would only count), it counts the branch (and the spin, as branch() does) and goes on at
  /// `top` with the registers as values; otherwise the pending registers live at the branch are
  /// written and the branch's own code decides, with nothing changed.
  void loopBack(uint32_t pc, uint32_t len, llvm::Value *done, llvm::BasicBlock *top,
                const std::vector<std::pair<uint32_t, llvm::PHINode *>> &carried) {
    const uint32_t end = pc + len;
    std::vector<llvm::Value *> next;
    for (auto &[r, phi] : carried) {
      auto it = vals_.find(r);
      next.push_back(it != vals_.end() ? it->second : b_.CreateAlignedLoad(v64_, regPtr(r), llvm::Align(8)));
    }
    llvm::Value *ran = b_.CreateAdd(done, b_.getInt64(len));
    llvm::Value *ok = b_.CreateICmpUGE(b_.CreateSub(budget_, ran), b_.getInt64(len + 1));
    ok = b_.CreateAnd(ok, b_.CreateICmpNE(rpc_, b_.getInt32(end)));
    ok = b_.CreateAnd(ok, b_.CreateICmpUGE(b_.CreateSub(rpc_, b_.getInt32(pc)), b_.getInt32(len)));
    llvm::Value *g = guardMask(fn_.code[end]);
    llvm::Value *all = b_.CreateICmpEQ(g, active_);
    llvm::Value *some = b_.CreateICmpNE(g, b_.getInt32(0));
    llvm::Value *full = b_.CreateICmpEQ(active_, liveMask_);
    llvm::Value *its = b_.CreateLoad(i8_, fieldPtr(warp_, offsetof(Warp, its), i8_));
    llvm::Value *from = b_.CreateSelect(b_.CreateICmpEQ(its, b_.getInt8(0)), b_.getInt64(exec::kLivelockFrom),
                                        b_.getInt64(exec::kSpinFrom));
    llvm::Value *pcPtr = fieldPtr(warp_, offsetof(Warp, spinPc), i32_);
    llvm::Value *cntPtr = fieldPtr(warp_, offsetof(Warp, spinCount), i64_);
    llvm::Value *same = b_.CreateICmpEQ(b_.CreateLoad(i32_, pcPtr), b_.getInt32(end));
    llvm::Value *c = b_.CreateAdd(b_.CreateSelect(same, b_.CreateLoad(i64_, cntPtr), b_.getInt64(0)), b_.getInt64(1));
    llvm::BasicBlock *again = llvm::BasicBlock::Create(c_, "loopagain", f_);
    llvm::BasicBlock *part = llvm::BasicBlock::Create(c_, "looppart", f_);
    llvm::BasicBlock *spin = llvm::BasicBlock::Create(c_, "loopspin", f_);
    llvm::BasicBlock *ask = llvm::BasicBlock::Create(c_, "loopask", f_);
    llvm::BasicBlock *jump = llvm::BasicBlock::Create(c_, "loopjump", f_);
    llvm::BasicBlock *out = llvm::BasicBlock::Create(c_, "loopout", f_);
    llvm::BasicBlock *taken = llvm::BasicBlock::Create(c_, "looptaken", f_);
    llvm::BasicBlock *split = llvm::BasicBlock::Create(c_, "loopsplit", f_);
    b_.CreateCondBr(b_.CreateAnd(ok, some), taken, out, llvm::MDBuilder(c_).createBranchWeights(1000, 1));
    b_.SetInsertPoint(taken);
    b_.CreateCondBr(all, again, split, llvm::MDBuilder(c_).createBranchWeights(1000, 1));
    b_.SetInsertPoint(again);
    b_.CreateCondBr(full, jump, part);
    b_.SetInsertPoint(part);
    b_.CreateCondBr(b_.CreateICmpULT(c, from), spin, ask);
    b_.SetInsertPoint(spin); // the spins in a row, as branch() counts them
    b_.CreateStore(b_.getInt32(end), pcPtr);
    b_.CreateStore(c, cntPtr);
    b_.CreateBr(jump);
    // from there on jitLoopStep decides (it may hash the registers live at the branch, so those
    // are written first; they stay values too); "leave" changes nothing, and the branch's own
    // code, which asks again, leaves
    b_.SetInsertPoint(ask);
    for (uint32_t r : pending_)
      if (live_.live(end, r))
        flushReg(r);
    llvm::FunctionType *stepTy = llvm::FunctionType::get(i8_, {ptr_, i32_}, false); // bool
    llvm::Value *step = b_.CreateLoad(llvm::PointerType::getUnqual(stepTy),
                                      fieldPtr(ctx_, offsetof(ExecCtx, loopStep), llvm::PointerType::getUnqual(stepTy)));
    llvm::Value *go = b_.CreateICmpNE(b_.CreateCall(stepTy, step, {warp_, b_.getInt32(end)}), b_.getInt8(0));
    b_.CreateCondBr(go, jump, out);
    b_.SetInsertPoint(jump);
    b_.CreateStore(b_.CreateAdd(ran, b_.getInt64(1)), done_);
    b_.CreateBr(top);
    for (size_t i = 0; i < carried.size(); ++i)
      carried[i].second->addIncoming(next[i], jump);
    loopActive_->addIncoming(active_, jump);
    loopRpc_->addIncoming(rpc_, jump);
    // some active lanes leave: the registers they may still read are written (in all the
    // active lanes; the others go on with the values), the branch counts and the interpreter's
    // divergence is made on the stack (jitDiverge); when its new top is the loop's lanes at the
    // loop's head with a reconvergence point outside the block, the loop goes on with them and
    // the values, else the code goes on wherever the new top is (resume())
    b_.SetInsertPoint(split);
    for (uint32_t r : pending_)
      if (live_.live(end, r))
        flushReg(r);
    b_.CreateStore(b_.CreateAdd(ran, b_.getInt64(1)), done_);
    llvm::Value *split1 = callDiverge(end, g);
    auto field = [&](unsigned i) {
      return b_.CreateLoad(i32_, b_.CreateConstGEP2_32(llvm::ArrayType::get(i32_, 3), resume_, 0, i));
    };
    llvm::Value *npc = field(0), *nmask = field(1), *nrpc = field(2);
    llvm::Value *stay = b_.CreateICmpNE(split1, b_.getInt8(0));
    stay = b_.CreateAnd(stay, b_.CreateICmpEQ(npc, b_.getInt32(pc)));
    stay = b_.CreateAnd(stay, b_.CreateICmpNE(nmask, b_.getInt32(0)));
    stay = b_.CreateAnd(stay, b_.CreateICmpUGE(b_.CreateSub(nrpc, b_.getInt32(pc)), b_.getInt32(len)));
    llvm::BasicBlock *goOn = llvm::BasicBlock::Create(c_, "loopnarrow", f_);
    llvm::BasicBlock *away = llvm::BasicBlock::Create(c_, "loopleft", f_);
    b_.CreateCondBr(stay, goOn, away, llvm::MDBuilder(c_).createBranchWeights(1000, 1));
    b_.SetInsertPoint(away);
    resume(split1);
    b_.SetInsertPoint(goOn);
    b_.CreateStore(nmask, activeSlot_);
    b_.CreateStore(nrpc, rpcSlot_);
    b_.CreateBr(top);
    for (size_t i = 0; i < carried.size(); ++i)
      carried[i].second->addIncoming(next[i], goOn);
    loopActive_->addIncoming(nmask, goOn);
    loopRpc_->addIncoming(nrpc, goOn);
    b_.SetInsertPoint(out);
    flushBlockEnd(end);
    b_.CreateStore(ran, done_);
    b_.CreateBr(target(end));
  }

  /// Instruction `base + k` (a Ctl::None one), `done` instructions after the code's start: native
  /// vector code or a call of its handler (counted in `code` when given). A fault leaves the
  /// code after it.
  void inst(const ir::Inst &in, llvm::Value *done, uint32_t k, uint32_t base, FunctionCode *code) {
    llvm::Value *m = guardMask(in);
    if (in.ctl == ir::Ctl::WarpSync) { // the interpreter loop gathers a split warp's lanes
      llvm::BasicBlock *go = llvm::BasicBlock::Create(c_, "wsync", f_);
      llvm::BasicBlock *out = llvm::BasicBlock::Create(c_, "gather", f_);
      b_.CreateCondBr(b_.CreateAnd(itsSplit_, b_.CreateICmpNE(m, b_.getInt32(0))), out, go,
                      llvm::MDBuilder(c_).createBranchWeights(1, 1000));
      b_.SetInsertPoint(out);
      flushAll(false);
      b_.CreateStore(b_.CreateAdd(done, b_.getInt64(k)), done_);
      leave(base + k);
      b_.SetInsertPoint(go);
    }
    llvm::BasicBlock *join = memFast(in, m);
    if (!join && native(in, m)) {
      if (code)
        ++code->nativeInsts;
      return;
    }
    if (code)
      ++code->calledInsts;
    // the interpreter's own handler, with the instruction's own IR (fault messages name it)
    llvm::BasicBlock *call = llvm::BasicBlock::Create(c_, "call", f_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(c_, "next", f_);
    llvm::BasicBlock *fault = llvm::BasicBlock::Create(c_, "fault", f_);
    flushAll(!join); // the handler reads the file (the inline path's values stay pending)
    b_.CreateCondBr(b_.CreateICmpNE(m, b_.getInt32(0)), call, after);
    b_.SetInsertPoint(call);
    llvm::Value *ran = b_.CreateAdd(done, b_.getInt64(k + 1)); // this one included
    b_.CreateStore(b_.CreateAdd(instBase_, ran), fieldPtr(warp_, offsetof(Warp, instCount), i64_));
    llvm::Value *inPtr = instPtr(in);
    llvm::Type *handlerPtrTy = llvm::PointerType::getUnqual(handlerTy_);
    llvm::Value *fnPtr =
        b_.CreateLoad(handlerPtrTy, fieldPtr(inPtr, offsetof(ir::Inst, fn), handlerPtrTy));
    b_.CreateCall(handlerTy_, fnPtr, {ctx_, warp_, inPtr, m});
    llvm::Value *fk = b_.CreateLoad(i8_, fieldPtr(ctx_, offsetof(ExecCtx, faultKind), i8_));
    b_.CreateCondBr(b_.CreateICmpNE(fk, b_.getInt8(0)), fault, after);
    b_.SetInsertPoint(fault);
    b_.CreateStore(ran, done_);
    leave(base + k + 1);
    b_.SetInsertPoint(after);
    if (!join) {
      forget(); // a handler may have written any register
      return;
    }
    // the slow path of an inline ld/st: the handler wrote the load's destination alone
    llvm::Value *reloaded = nullptr;
    if (fastLoaded_)
      reloaded = b_.CreateAlignedLoad(v64_, regPtr(in.dst[0]), llvm::Align(8));
    llvm::BasicBlock *slowEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    if (fastLoaded_) {
      llvm::PHINode *v = b_.CreatePHI(v64_, 2);
      v->addIncoming(fastLoaded_, fastEnd_);
      v->addIncoming(reloaded, slowEnd);
      vals_[in.dst[0]] = v; // all 32 lanes (a full warp on the global path), else the active ones
      if (fastPartial_)
        actOnly_.insert(in.dst[0]);
      else
        actOnly_.erase(in.dst[0]);
      if (lazy_)
        pending_.insert(in.dst[0]);
    }
  }

  /// ld/st of one 16-, 32- or 64-bit element per lane at [reg + off] in global memory: when the
  /// whole warp runs, its addresses are consecutive elements, aligned, and inside one of the
  /// allocations the interpreter's range checks found last (ExecCtx::recentAllocs), the access is
  /// one vector load or store. Otherwise (and for every fault) the handler runs: the code goes
  /// on in the current block; returns where both paths meet, or null when `in` has no fast path.
  llvm::BasicBlock *memFast(const ir::Inst &in, llvm::Value *m) {
    const OpDesc d = describe_(in.fn);
    if (d.op == Op::Ld && in.space == ir::MemSpace::Param && in.abase == ir::AddrBase::KParam && in.vec == 1)
      return paramFast(in, m, bitsOf(d.type) / 8, isSigned(d.type));
    fastPartial_ = false;
    if ((d.op != Op::Ld && d.op != Op::St) || in.space != ir::MemSpace::Global ||
        in.abase != ir::AddrBase::Reg || in.vec != 1 || in.addr32)
      return nullptr;
    const unsigned bytes = bitsOf(d.type) / 8;
    const bool store = d.op == Op::St;
    // the value to store is read here, where it dominates both paths (Translator::vals_)
    llvm::Value *stored = store ? src(in.src[1]) : nullptr;
    llvm::Value *a = b_.CreateAdd(src(in.src[0]), b_.CreateVectorSplat(ir::kWarpSize, b_.getInt64((uint64_t)in.off)));
    llvm::Value *a0 = b_.CreateExtractElement(a, (uint64_t)0);
    std::vector<llvm::Constant *> step;
    for (unsigned l = 0; l < ir::kWarpSize; ++l)
      step.push_back(b_.getInt64((uint64_t)l * bytes));
    llvm::Value *expect = b_.CreateAdd(b_.CreateVectorSplat(ir::kWarpSize, a0), llvm::ConstantVector::get(step));
    llvm::Value *ok = b_.CreateICmpEQ(b_.CreateBitCast(b_.CreateICmpEQ(a, expect), i32_), b_.getInt32(~0u));
    ok = b_.CreateAnd(ok, b_.CreateICmpEQ(m, b_.getInt32(~0u)));
    ok = b_.CreateAnd(ok, b_.CreateICmpEQ(b_.CreateAnd(a0, b_.getInt64(bytes - 1)), b_.getInt64(0)));
    if (store) { // not while stores are buffered
      llvm::Value *buf = b_.CreateLoad(i8_, fieldPtr(ctx_, offsetof(ExecCtx, bufferStores), i8_));
      ok = b_.CreateAnd(ok, b_.CreateICmpEQ(buf, b_.getInt8(0)));
    }
    llvm::BasicBlock *fast = llvm::BasicBlock::Create(c_, "memfast", f_);
    llvm::BasicBlock *slow = llvm::BasicBlock::Create(c_, "memslow", f_);
    llvm::BasicBlock *join = llvm::BasicBlock::Create(c_, "memdone", f_);
    inRecentAlloc(ok, a0, (uint64_t)bytes * ir::kWarpSize, store, fast, slow);
    b_.SetInsertPoint(fast);
    llvm::Type *vt = vecOf(b_.getIntNTy(bytes * 8));
    llvm::Value *p = b_.CreateIntToPtr(a0, llvm::PointerType::getUnqual(vt));
    if (store) {
      b_.CreateAlignedStore(bytes < 8 ? b_.CreateTrunc(stored, vt) : stored, p, llvm::Align(bytes));
      fastLoaded_ = nullptr;
    } else {
      prefetchNext(in, a0, bytes);
      llvm::Value *v = b_.CreateAlignedLoad(vt, p, llvm::Align(bytes));
      fastLoaded_ = bytes < 8 ? widen(v, isSigned(d.type)) : v;
      if (!lazy_)
        b_.CreateAlignedStore(fastLoaded_, regPtr(in.dst[0]), llvm::Align(8));
    }
    fastEnd_ = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(slow);
    return join;
  }
  /// ld.param of one element of the kernel's parameter buffer (the same address in every lane):
  /// when it is aligned and inside one of the allocations of the last accesses
  /// (ExecCtx::recentAllocs, which the buffer joins at its first access through the handler),
  /// one scalar load for the warp, in the lanes of `m`. Otherwise the handler runs (every fault
  /// with its message). Returns where both paths meet.
  llvm::BasicBlock *paramFast(const ir::Inst &in, llvm::Value *m, unsigned bytes, bool sgn) {
    // the value of the lanes outside `m`, read where it dominates both paths
    llvm::Value *old = nullptr;
    if (m != active_) {
      ir::Opnd o;
      o.reg = in.dst[0];
      old = src(o);
    }
    llvm::Value *cta = b_.CreateLoad(ptr_, fieldPtr(warp_, offsetof(Warp, cta), ptr_));
    llvm::Value *grid = b_.CreateLoad(ptr_, fieldPtr(cta, offsetof(exec::Cta, grid), ptr_));
    llvm::Value *a = b_.CreateAdd(b_.CreateLoad(i64_, fieldPtr(grid, kGridParams, i64_)),
                                  b_.getInt64((uint64_t)in.off));
    llvm::Value *ok = b_.CreateICmpEQ(b_.CreateAnd(a, b_.getInt64(bytes - 1)), b_.getInt64(0));
    llvm::BasicBlock *fast = llvm::BasicBlock::Create(c_, "paramfast", f_);
    llvm::BasicBlock *slow = llvm::BasicBlock::Create(c_, "paramslow", f_);
    llvm::BasicBlock *join = llvm::BasicBlock::Create(c_, "paramdone", f_);
    inRecentAlloc(ok, a, bytes, false, fast, slow);
    b_.SetInsertPoint(fast);
    llvm::Value *x = b_.CreateAlignedLoad(b_.getIntNTy(bytes * 8), b_.CreateIntToPtr(a, ptr_), llvm::Align(bytes));
    if (bytes < 8)
      x = sgn ? b_.CreateSExt(x, i64_) : b_.CreateZExt(x, i64_);
    llvm::Value *v = b_.CreateVectorSplat(ir::kWarpSize, x);
    if (!lazy_)
      writeLanes(in.dst[0], v, m);
    fastLoaded_ = old ? b_.CreateSelect(laneMask(m), v, old) : v;
    fastPartial_ = true; // right in the active lanes
    fastEnd_ = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(slow);
    return join;
  }
  /// Branches to `fast` when `ok` and [a, a + span) lies inside one of the allocations of the
  /// last accesses (cachedAllocation, Exec.cpp), tried one after another (a kernel's arrays keep
  /// their slots, so most accesses check one or two), and for a `store` not constant memory;
  /// else to `slow`.
  void inRecentAlloc(llvm::Value *ok, llvm::Value *a, uint64_t span, bool store, llvm::BasicBlock *fast,
                     llvm::BasicBlock *slow) {
    const auto likely = llvm::MDBuilder(c_).createBranchWeights(1000, 1);
    llvm::BasicBlock *next = llvm::BasicBlock::Create(c_, "memin", f_);
    b_.CreateCondBr(ok, next, slow, likely);
    for (unsigned i = 0; i < ExecCtx::kAllocCache; ++i) {
      b_.SetInsertPoint(next);
      llvm::Value *al = b_.CreateConstGEP1_64(i8_, ctx_, offsetof(ExecCtx, recentAllocs) + i * sizeof(exec::Allocation));
      llvm::Value *base = b_.CreateLoad(i64_, fieldPtr(al, offsetof(exec::Allocation, base), i64_));
      llvm::Value *size = b_.CreateLoad(i64_, fieldPtr(al, offsetof(exec::Allocation, size), i64_));
      llvm::Value *rel = b_.CreateSub(a, base);
      llvm::Value *in = b_.CreateAnd(b_.CreateICmpULT(rel, size),
                                     b_.CreateICmpUGE(b_.CreateSub(size, rel), b_.getInt64(span)));
      if (store) {
        llvm::Value *kind = b_.CreateLoad(i8_, fieldPtr(al, offsetof(exec::Allocation, kind), i8_));
        in = b_.CreateAnd(in, b_.CreateICmpNE(kind, b_.getInt8((uint8_t)exec::AllocKind::Const)));
      }
      next = i + 1 < ExecCtx::kAllocCache ? llvm::BasicBlock::Create(c_, "memin", f_) : slow;
      b_.CreateCondBr(in, fast, next);
    }
  }
  /// The interpreter's stride prefetch hint (prefetchNext, Exec.cpp) for a coalesced load at
  /// `a0`: the same per-warp state (Warp::lastLoad), the lines two strides further on.
  void prefetchNext(const ir::Inst &in, llvm::Value *a0, unsigned bytes) {
    const uint64_t slot = (reinterpret_cast<uintptr_t>(&in) / sizeof(ir::Inst)) & 7;
    llvm::Value *lastPtr = fieldPtr(warp_, offsetof(Warp, lastLoad) + slot * 8, i64_);
    llvm::Value *stride = b_.CreateSub(a0, b_.CreateLoad(i64_, lastPtr));
    b_.CreateStore(a0, lastPtr);
    llvm::Value *valid = b_.CreateAnd(
        b_.CreateICmpULE(b_.CreateAdd(stride, b_.getInt64(1ull << 26)), b_.getInt64(1ull << 27)),
        b_.CreateICmpNE(stride, b_.getInt64(0)));
    // an invalid stride prefetches the lines being loaded (harmless) instead of branching
    llvm::Value *at = b_.CreateSelect(valid, b_.CreateAdd(a0, b_.CreateShl(stride, 1)), a0);
    llvm::Value *from = b_.CreateAnd(at, b_.getInt64(~63ull));
    for (unsigned i = 0; i <= ir::kWarpSize * bytes / 64; ++i) {
      llvm::Value *pp = b_.CreateIntToPtr(b_.CreateAdd(from, b_.getInt64(64 * i)), ptr_);
      b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr_}, {pp, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
    }
  }
  /// The address of `in` in the running process (Function::code read at entry).
  llvm::Value *instPtr(const ir::Inst &in) {
    const uint64_t at = uint64_t(&in - fn_.code.data()) * sizeof(ir::Inst);
    return b_.CreateGEP(i8_, code_, b_.getInt64(at));
  }
  /// The lanes an instruction runs in: the active ones where its guard holds.
  llvm::Value *guardMask(const ir::Inst &in) {
    if (in.guard == ir::kPredTrue && !in.guardXor)
      return active_;
    return b_.CreateAnd(active_, b_.CreateXor(pred(in.guard), b_.getInt32(in.guardXor)));
  }

  /// `bra` (Exec.cpp runImpl): taken by every active lane, it jumps (a backward jump while
  /// other lanes wait only as long as the interpreter just counts it); taken by
  /// none, it falls through; a divergent branch leaves the code for the interpreter's
  /// reconvergence stack, which then runs each side in compiled code again.
  void branch(uint32_t pc, FunctionCode &code) {
    const ir::Inst &in = fn_.code[pc];
    ++code.branches;
    llvm::BasicBlock *run = llvm::BasicBlock::Create(c_, "bra", f_);
    reload();
    goOnUnlessSpentOrRpc(pc, run);
    b_.SetInsertPoint(run);
    llvm::Value *m = guardMask(in);
    llvm::BasicBlock *taken = llvm::BasicBlock::Create(c_, "taken", f_);
    llvm::BasicBlock *notAll = llvm::BasicBlock::Create(c_, "notall", f_);
    llvm::BasicBlock *none = llvm::BasicBlock::Create(c_, "none", f_);
    llvm::BasicBlock *split = llvm::BasicBlock::Create(c_, "diverge", f_);
    b_.CreateCondBr(b_.CreateICmpEQ(m, active_), taken, notAll);
    b_.SetInsertPoint(notAll);
    b_.CreateCondBr(b_.CreateICmpEQ(m, b_.getInt32(0)), none, split);
    b_.SetInsertPoint(split);
    count(1);
    diverge(pc, m);
    b_.SetInsertPoint(none);
    count(1);
    b_.CreateBr(target(pc + 1));
    b_.SetInsertPoint(taken);
    if (in.target <= pc) {
      // a loop while other lanes of the warp wait (divergentLoop, Exec.cpp): the interpreter
      // counts the spins in a row and only from a number on (kLivelockFrom under IPDOM,
      // kSpinFrom under ITS) may it do more; the code counts them inline up to there, then asks
      // jitLoopStep (ExecCtx::loopStep) whether the interpreter would only count this one
      // (done so) or act (the code leaves before the jump and the interpreter does it)
      llvm::BasicBlock *jump = llvm::BasicBlock::Create(c_, "loop", f_);
      llvm::BasicBlock *part = llvm::BasicBlock::Create(c_, "partloop", f_);
      llvm::BasicBlock *count = llvm::BasicBlock::Create(c_, "spincount", f_);
      llvm::BasicBlock *ask = llvm::BasicBlock::Create(c_, "spinask", f_);
      llvm::BasicBlock *asked = llvm::BasicBlock::Create(c_, "spinasked", f_);
      b_.CreateCondBr(b_.CreateICmpEQ(active_, liveMask_), jump, part);
      b_.SetInsertPoint(part);
      llvm::Value *its = b_.CreateLoad(i8_, fieldPtr(warp_, offsetof(Warp, its), i8_));
      llvm::Value *from = b_.CreateSelect(b_.CreateICmpEQ(its, b_.getInt8(0)),
                                          b_.getInt64(exec::kLivelockFrom), b_.getInt64(exec::kSpinFrom));
      llvm::Value *pcPtr = fieldPtr(warp_, offsetof(Warp, spinPc), i32_);
      llvm::Value *cntPtr = fieldPtr(warp_, offsetof(Warp, spinCount), i64_);
      llvm::Value *same = b_.CreateICmpEQ(b_.CreateLoad(i32_, pcPtr), b_.getInt32(pc));
      llvm::Value *c = b_.CreateAdd(b_.CreateSelect(same, b_.CreateLoad(i64_, cntPtr), b_.getInt64(0)), b_.getInt64(1));
      b_.CreateCondBr(b_.CreateICmpULT(c, from), count, ask);
      b_.SetInsertPoint(count);
      b_.CreateStore(b_.getInt32(pc), pcPtr);
      b_.CreateStore(c, cntPtr);
      b_.CreateBr(jump);
      b_.SetInsertPoint(ask);
      llvm::FunctionType *stepTy = llvm::FunctionType::get(i8_, {ptr_, i32_}, false); // bool
      llvm::Value *step = b_.CreateLoad(llvm::PointerType::getUnqual(stepTy),
                                        fieldPtr(ctx_, offsetof(ExecCtx, loopStep), llvm::PointerType::getUnqual(stepTy)));
      llvm::Value *go = b_.CreateICmpNE(b_.CreateCall(stepTy, step, {warp_, b_.getInt32(pc)}), b_.getInt8(0));
      b_.CreateBr(asked);
      b_.SetInsertPoint(asked);
      goOnIf(go, pc, jump);
      b_.SetInsertPoint(jump);
    }
    count(1);
    b_.CreateBr(target(in.target));
  }
  void count(uint64_t k) { b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64_, done_), b_.getInt64(k)), done_); }

  /// The address of the field of type `fieldTy` at byte `off` of the struct at `base`.
  llvm::Value *fieldPtr(llvm::Value *base, size_t off, llvm::Type *fieldTy) {
    return b_.CreateBitCast(b_.CreateConstGEP1_64(i8_, base, off), llvm::PointerType::getUnqual(fieldTy));
  }
  llvm::Value *predPtr(uint32_t idx) { return b_.CreateConstGEP1_64(i32_, preds_, idx); }
  /// Predicate `idx` in the active lanes: the value an instruction of the block wrote (predVals_),
  /// else the file's.
  llvm::Value *pred(uint32_t idx) {
    auto it = predVals_.find(idx);
    return it != predVals_.end() ? it->second : b_.CreateLoad(i32_, predPtr(idx));
  }
  llvm::Value *regPtr(uint32_t off) {
    return b_.CreateBitCast(b_.CreateConstGEP1_64(i64_, regs_, off), llvm::PointerType::getUnqual(v64_));
  }
  /// A source as 32 lanes of i64 (constants are vectors of 32 equal lanes).
  llvm::Value *src(const ir::Opnd &o) {
    if (o.cst)
      return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(ir::kWarpSize), b_.getInt64(o.cst[0]));
    auto it = vals_.find(o.reg);
    if (it != vals_.end())
      return it->second;
    llvm::Value *v = b_.CreateAlignedLoad(v64_, regPtr(o.reg), llvm::Align(8));
    vals_[o.reg] = v;
    return v;
  }
  llvm::Type *vecOf(llvm::Type *t) { return llvm::FixedVectorType::get(t, ir::kWarpSize); }
  llvm::Value *laneMask(llvm::Value *m) { return b_.CreateBitCast(m, vmask_); }
  /// Writes `v` (32 x i64) to register `dst` in the lanes of `m` (a subset of the active lanes).
  /// The value kept for the rest of the block holds the register in the active lanes (all 32
  /// only where it is merged with a value that has them: actOnly_). Inside a block's fast
  /// version the file write waits (pending_) for the block's end or the next point that reads
  /// the file (flushAll); elsewhere it is a masked store of the lanes of `m` at once.
  void store(uint32_t dst, llvm::Value *v, llvm::Value *m) {
    llvm::Value *kept = v;
    bool part = true;
    if (m != active_) { // guarded: the other active lanes keep their value
      ir::Opnd o;
      o.reg = dst;
      kept = b_.CreateSelect(laneMask(m), v, src(o));
      part = actOnly_.count(dst) != 0;
    }
    vals_[dst] = kept;
    if (lazy_)
      pending_.insert(dst);
    else
      writeLanes(dst, v, m);
    if (part)
      actOnly_.insert(dst);
    else
      actOnly_.erase(dst);
  }
  /// Forgets the register values known at the insertion point (not the pending writes).
  void forget() {
    vals_.clear();
    actOnly_.clear();
    predVals_.clear();
  }
  /// Writes `v` to register `dst` of the file in the lanes of `m`: merged with the file's value
  /// and stored whole (a masked store would keep the next block's load of the register from
  /// taking the value from the store buffer).
  void writeLanes(uint32_t dst, llvm::Value *v, llvm::Value *m) {
    llvm::Value *old = b_.CreateAlignedLoad(v64_, regPtr(dst), llvm::Align(8));
    b_.CreateAlignedStore(b_.CreateSelect(laneMask(m), v, old), regPtr(dst), llvm::Align(8));
  }
  /// Writes the pending value of `dst` to the file in the active lanes.
  void flushReg(uint32_t dst) { writeLanes(dst, vals_.at(dst), active_); }
  /// Writes every pending register (and forgets that they are pending when `clear`: on a side
  /// path that leaves or rejoins, they stay pending for the main path).
  void flushAll(bool clear) {
    for (uint32_t r : pending_)
      flushReg(r);
    if (clear)
      pending_.clear();
  }
  /// The end of a block's fast version, going on at `next`: the pending registers a lane may
  /// still read there are written, the others never (no lane reads them before writing them
  /// again, and the interpreter's spin watch hashes live registers only: Liveness.h).
  void flushBlockEnd(uint32_t next) {
    for (uint32_t r : pending_)
      if (live_.live(next, r))
        flushReg(r);
    pending_.clear();
  }
  /// Truncates to the type's width (floats as their bits, then as floats).
  llvm::Value *narrow(llvm::Value *v, Type t) {
    unsigned bits = bitsOf(t);
    if (bits < 64)
      v = b_.CreateTrunc(v, vecOf(b_.getIntNTy(bits)));
    if (t == Type::F32)
      v = b_.CreateBitCast(v, vecOf(b_.getFloatTy()));
    else if (t == Type::F64)
      v = b_.CreateBitCast(v, vecOf(b_.getDoubleTy()));
    return v;
  }
  /// The register value the handler writes (toBits): sign- or zero-extended.
  llvm::Value *widen(llvm::Value *v, bool sgn) {
    if (v->getType()->getScalarType()->isFloatingPointTy())
      v = b_.CreateBitCast(v, vecOf(b_.getIntNTy(v->getType()->getScalarSizeInBits())));
    if (v->getType()->getScalarSizeInBits() == 64)
      return v;
    return sgn ? b_.CreateSExt(v, v64_) : b_.CreateZExt(v, v64_);
  }
  /// NaN results become the PTX canonical NaN, as the handlers' finish() does.
  llvm::Value *canon(llvm::Value *v, Type t) {
    llvm::Value *isNan = b_.CreateFCmpUNO(v, v);
    llvm::Type *et = t == Type::F32 ? b_.getFloatTy() : b_.getDoubleTy();
    llvm::Value *nanBits = t == Type::F32 ? (llvm::Value *)b_.getInt32(0x7fffffffu)
                                          : (llvm::Value *)b_.getInt64(0x7fffffffffffffffull);
    llvm::Value *nan = b_.CreateVectorSplat(ir::kWarpSize, b_.CreateBitCast(nanBits, et));
    return b_.CreateSelect(isNan, nan, v);
  }

  /// shl/shr (IntOps.h shl, shr): amounts of the width or more give 0, or the sign fill for
  /// an arithmetic shift; the amount is an unsigned 32-bit value.
  llvm::Value *shift(const ir::Inst &in, OpDesc d) {
    const unsigned bits = bitsOf(d.type);
    llvm::Value *a = narrow(src(in.src[0]), d.type);
    llvm::Value *n = b_.CreateTrunc(src(in.src[1]), vecOf(i32_));
    llvm::Value *big = b_.CreateICmpUGE(n, b_.CreateVectorSplat(ir::kWarpSize, b_.getInt32(bits)));
    llvm::Type *at = a->getType();
    auto amount = [&](llvm::Value *x) {
      return bits == 32 ? x : bits < 32 ? b_.CreateTrunc(x, at) : b_.CreateZExt(x, at);
    };
    llvm::Value *zero = llvm::Constant::getNullValue(at);
    if (d.op == Op::Shl)
      return b_.CreateSelect(big, zero, b_.CreateShl(a, amount(n)));
    if (isSigned(d.type)) {
      llvm::Value *cl = b_.CreateSelect(big, b_.CreateVectorSplat(ir::kWarpSize, b_.getInt32(bits - 1)), n);
      return b_.CreateAShr(a, amount(cl));
    }
    return b_.CreateSelect(big, zero, b_.CreateLShr(a, amount(n)));
  }

  /// Emits `in` natively when its handler is described; false otherwise.
  bool native(const ir::Inst &in, llvm::Value *m) {
    OpDesc d = describe_(in.fn);
    if (d.op == Op::None || !inBlock(in))
      return false;
    const Type t = d.type;
    const bool sgn = isSigned(t);
    const unsigned bits = bitsOf(t);
    auto A = [&] { return narrow(src(in.src[0]), t); };
    auto B = [&] { return narrow(src(in.src[1]), t); };
    auto C = [&] { return narrow(src(in.src[2]), t); };
    llvm::Value *r = nullptr;
    switch (d.op) {
    case Op::Add: r = b_.CreateAdd(A(), B()); break;
    case Op::Sub: r = b_.CreateSub(A(), B()); break;
    case Op::MulLo: r = b_.CreateMul(A(), B()); break;
    case Op::MadLo: r = b_.CreateAdd(b_.CreateMul(A(), B()), C()); break;
    case Op::And: r = b_.CreateAnd(A(), B()); break;
    case Op::Or: r = b_.CreateOr(A(), B()); break;
    case Op::Xor: r = b_.CreateXor(A(), B()); break;
    case Op::Not: r = b_.CreateNot(A()); break;
    case Op::Min:
    case Op::Max: {
      llvm::Value *a = A(), *bb = B();
      llvm::Value *lt = sgn ? b_.CreateICmpSLT(a, bb) : b_.CreateICmpULT(a, bb);
      r = d.op == Op::Min ? b_.CreateSelect(lt, a, bb) : b_.CreateSelect(lt, bb, a);
      break;
    }
    case Op::MulWide: {
      if (bits > 32)
        return false;
      llvm::Type *wt = vecOf(b_.getIntNTy(2 * bits));
      llvm::Value *a = sgn ? b_.CreateSExt(A(), wt) : b_.CreateZExt(A(), wt);
      llvm::Value *bb = sgn ? b_.CreateSExt(B(), wt) : b_.CreateZExt(B(), wt);
      r = b_.CreateMul(a, bb);
      break;
    }
    case Op::Shl:
    case Op::Shr: r = shift(in, d); break;
    case Op::Mov: store(in.dst[0], src(in.src[0]), m); return true;
    case Op::Selp: {
      llvm::Value *c = b_.CreateXor(pred(in.psrc[0]), b_.getInt32(in.psrcXor[0]));
      store(in.dst[0], b_.CreateSelect(laneMask(c), src(in.src[0]), src(in.src[1])), m);
      return true;
    }
    case Op::Setp: return setp(in, d, m);
    case Op::Shfl: return shfl(in, m);
    case Op::Vote: return vote(in, m);
    case Op::Cvta: // the global window: the address itself (a 32-bit one zero-extended)
      if (in.aux != 0)
        return false;
      r = src(in.src[0]);
      if (in.flags & 2)
        r = b_.CreateZExt(b_.CreateTrunc(r, vecOf(i32_)), v64_);
      store(in.dst[0], r, m);
      return true;
    case Op::Special: return special(in, m);
    case Op::ActiveMask: // the top of the reconvergence stack: the code's active lanes
      store(in.dst[0], b_.CreateVectorSplat(ir::kWarpSize, b_.CreateZExt(active_, i64_)), m);
      return true;
    case Op::FAdd: r = canon(b_.CreateFAdd(A(), B()), t); break;
    case Op::FSub: r = canon(b_.CreateFSub(A(), B()), t); break;
    case Op::FMul: r = canon(b_.CreateFMul(A(), B()), t); break;
    case Op::FFma: {
      llvm::Value *a = A(), *bb = B(), *cc = C();
      r = canon(b_.CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, bb, cc}), t);
      break;
    }
    default: return false;
    }
    store(in.dst[0], widen(r, sgn), m);
    return true;
  }

  /// mov of a special register (movSpecial, Exec.cpp): %tid from the warp's lanes, %laneid the
  /// lane, %ntid, %ctaid and %nctaid the same in every lane (from the warp's CTA and grid); false
  /// (the handler runs) for every other register.
  bool special(const ir::Inst &in, llvm::Value *m) {
    using namespace exec::sreg;
    const uint32_t id = in.aux;
    llvm::Value *v;
    if (id <= kTidZ) {
      llvm::Value *t = b_.CreateAlignedLoad(
          vecOf(i32_), fieldPtr(warp_, offsetof(Warp, tid) + (id - kTidX) * sizeof(Warp::tid[0]), vecOf(i32_)),
          llvm::Align(4));
      v = b_.CreateZExt(t, v64_);
    } else if (id == kLaneid) {
      v = b_.CreateZExt(laneIds(), v64_);
    } else if (id <= kNctaidZ) {
      llvm::Value *cta = b_.CreateLoad(ptr_, fieldPtr(warp_, offsetof(Warp, cta), ptr_));
      size_t at;
      llvm::Value *base = cta;
      if (id >= kCtaidX && id <= kCtaidZ) {
        at = offsetof(exec::Cta, ctaid) + (id - kCtaidX) * 4;
      } else {
        base = b_.CreateLoad(ptr_, fieldPtr(cta, offsetof(exec::Cta, grid), ptr_));
        at = id <= kNtidZ ? kGridBlock + (id - kNtidX) * 4
                          : kGridDim + (id - kNctaidX) * 4;
      }
      v = b_.CreateVectorSplat(ir::kWarpSize, b_.CreateZExt(b_.CreateLoad(i32_, fieldPtr(base, at, i32_)), i64_));
    } else {
      return false;
    }
    store(in.dst[0], v, m);
    return true;
  }

  /// setp (integer): aux = comparison (eq ne lt le gt ge), flags & 3 = and/or/xor with psrc[0],
  /// dst[1] = the complement's predicate or ~0u (OpsInt.cpp setpIntFn).
  bool setp(const ir::Inst &in, OpDesc d, llvm::Value *m) {
    const bool sgn = isSigned(d.type);
    llvm::Value *a = narrow(src(in.src[0]), d.type), *bb = narrow(src(in.src[1]), d.type);
    llvm::CmpInst::Predicate p;
    switch (in.aux) {
    case 0: p = llvm::CmpInst::ICMP_EQ; break;
    case 1: p = llvm::CmpInst::ICMP_NE; break;
    case 2: p = sgn ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT; break;
    case 3: p = sgn ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE; break;
    case 4: p = sgn ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT; break;
    case 5: p = sgn ? llvm::CmpInst::ICMP_SGE : llvm::CmpInst::ICMP_UGE; break;
    default: return false;
    }
    llvm::Value *r = b_.CreateAnd(b_.CreateBitCast(b_.CreateICmp(p, a, bb), i32_), m);
    llvm::Value *q = b_.CreateNot(r);
    if (in.flags & 3) {
      llvm::Value *c = b_.CreateXor(pred(in.psrc[0]), b_.getInt32(in.psrcXor[0]));
      switch (in.flags & 3) {
      case 1: r = b_.CreateAnd(r, c); q = b_.CreateAnd(q, c); break;
      case 2: r = b_.CreateOr(r, c); q = b_.CreateOr(q, c); break;
      default: r = b_.CreateXor(r, c); q = b_.CreateXor(q, c); break;
      }
    }
    writePred(in.dst[0], r, m);
    if (in.dst[1] != ~0u)
      writePred(in.dst[1], q, m);
    return true;
  }
  /// 0, 1, ..., 31 as i32 lanes.
  llvm::Value *laneIds() {
    std::vector<llvm::Constant *> ids;
    for (unsigned l = 0; l < ir::kWarpSize; ++l)
      ids.push_back(b_.getInt32(l));
    return llvm::ConstantVector::get(ids);
  }
  llvm::Value *splat32(uint32_t v) { return b_.CreateVectorSplat(ir::kWarpSize, b_.getInt32(v)); }

  /// shfl (OpsWarp.cpp shflFn, the PTX ISA's pseudocode): per lane the source lane j from b and
  /// c (clamp in bits 0-4, segment mask in bits 8-12); a lane whose j is out of range reads its
  /// own value. Every lane reads the source register as it is (a lane that does not execute
  /// included), all 64 bits: a gather over the register. dst[1] (flags bit 0) gets the in-range
  /// bits.
  bool shfl(const ir::Inst &in, llvm::Value *m) {
    if (in.aux > 3)
      return false;
    llvm::Type *v32 = vecOf(i32_);
    llvm::Value *lane = laneIds();
    llvm::Value *bv = b_.CreateAnd(b_.CreateTrunc(src(in.src[1]), v32), splat32(31));
    llvm::Value *cw = b_.CreateTrunc(src(in.src[2]), v32);
    llvm::Value *cv = b_.CreateAnd(cw, splat32(31));
    llvm::Value *seg = b_.CreateAnd(b_.CreateLShr(cw, splat32(8)), splat32(31));
    llvm::Value *notSeg = b_.CreateNot(seg);
    llvm::Value *maxLane = b_.CreateOr(b_.CreateAnd(lane, seg), b_.CreateAnd(cv, notSeg));
    llvm::Value *j, *p;
    switch (in.aux) {
    case 0: // up
      j = b_.CreateSub(lane, bv);
      p = b_.CreateICmpSGE(j, maxLane);
      break;
    case 1: // down
      j = b_.CreateAdd(lane, bv);
      p = b_.CreateICmpSLE(j, maxLane);
      break;
    case 2: // bfly
      j = b_.CreateXor(lane, bv);
      p = b_.CreateICmpSLE(j, maxLane);
      break;
    default: // idx
      j = b_.CreateOr(b_.CreateAnd(lane, seg), b_.CreateAnd(bv, notSeg));
      p = b_.CreateICmpSLE(j, maxLane);
      break;
    }
    j = b_.CreateSelect(p, j, lane);
    llvm::Value *v;
    const uint32_t from = in.src[0].reg;
    if (!in.src[0].cst && pending_.count(from)) { // every lane reads it from the file
      flushReg(from);
      pending_.erase(from);
    }
    if (in.src[0].cst) {
      v = src(in.src[0]);
    } else if (auto *cj = llvm::dyn_cast<llvm::Constant>(j)) {
      // source lanes known here (constant lane, mask and clamp operands): a permutation of
      // the register's 32 lanes, all of them (inactive lanes as the file holds them)
      std::vector<int> perm(ir::kWarpSize);
      for (unsigned l = 0; l < ir::kWarpSize; ++l)
        perm[l] = (int)llvm::cast<llvm::ConstantInt>(cj->getAggregateElement(l))->getZExtValue();
      llvm::Value *whole = actOnly_.count(from) ? b_.CreateAlignedLoad(v64_, regPtr(from), llvm::Align(8))
                                                : src(in.src[0]);
      v = b_.CreateShuffleVector(whole, perm);
    } else { // j is in 0..31 in every lane: a gather inside the source register
      llvm::Value *base = b_.CreateConstGEP1_64(i64_, regs_, in.src[0].reg);
      llvm::Value *ptrs = b_.CreateGEP(i64_, base, b_.CreateZExt(j, v64_));
      v = b_.CreateMaskedGather(v64_, ptrs, llvm::Align(8), llvm::Constant::getAllOnesValue(vmask_),
                                llvm::UndefValue::get(v64_));
    }
    store(in.dst[0], v, m);
    if (in.flags & 1)
      writePred(in.dst[1], b_.CreateBitCast(p, i32_), m);
    return true;
  }

  /// vote (OpsWarp.cpp voteFn): lane l sees the executing lanes of its member mask (src0),
  /// part = m & membermask[l]; ballot writes v & part, all/any/uni a predicate.
  bool vote(const ir::Inst &in, llvm::Value *m) {
    if (in.aux > 3)
      return false;
    llvm::Value *v = b_.CreateXor(pred(in.psrc[0]), b_.getInt32(in.psrcXor[0]));
    llvm::Value *part = b_.CreateAnd(b_.CreateTrunc(src(in.src[0]), vecOf(i32_)),
                                     b_.CreateVectorSplat(ir::kWarpSize, m));
    llvm::Value *t = b_.CreateAnd(part, b_.CreateVectorSplat(ir::kWarpSize, v));
    if (in.aux == 3) { // ballot
      store(in.dst[0], b_.CreateZExt(t, v64_), m);
      return true;
    }
    llvm::Value *zero = llvm::Constant::getNullValue(t->getType());
    llvm::Value *x;
    if (in.aux == 0) // all
      x = b_.CreateICmpEQ(t, part);
    else if (in.aux == 1) // any
      x = b_.CreateICmpNE(t, zero);
    else // uni
      x = b_.CreateOr(b_.CreateICmpEQ(t, zero), b_.CreateICmpEQ(t, part));
    writePred(in.dst[0], b_.CreateBitCast(x, i32_), m);
    return true;
  }

  /// Writes `v` to predicate `idx` in the lanes of `m` (the file at once, merged with its other
  /// lanes); later readers in the block take the value right in the active lanes, without the
  /// file's other lanes (so a setp's compare feeds a selp or a guard directly: the merge
  /// through a general register was most of a `selp` chain's latency).
  void writePred(uint32_t idx, llvm::Value *v, llvm::Value *m) {
    llvm::Value *notM = b_.CreateNot(m), *vm = b_.CreateAnd(v, m);
    llvm::Value *act = m == active_ ? v : b_.CreateOr(b_.CreateAnd(pred(idx), notM), vm);
    llvm::Value *old = b_.CreateLoad(i32_, predPtr(idx));
    b_.CreateStore(b_.CreateOr(b_.CreateAnd(old, notM), vm), predPtr(idx));
    predVals_[idx] = act;
  }

  llvm::LLVMContext &c_;
  llvm::Module &m_;
  const ir::Function &fn_;
  DescribeFn describe_;
  llvm::IRBuilder<> b_;
  llvm::Type *i1_, *i8_, *i32_, *i64_, *ptr_;
  llvm::FixedVectorType *v64_, *vmask_;
  llvm::FunctionType *handlerTy_, *runTy_;
  llvm::Value *ctx_ = nullptr, *warp_ = nullptr, *regs_ = nullptr, *preds_ = nullptr;
  llvm::Value *active_ = nullptr, *instBase_ = nullptr, *pcOut_ = nullptr, *budget_ = nullptr,
              *rpc_ = nullptr, *liveMask_ = nullptr, *done_ = nullptr, *itsSplit_ = nullptr;
  /// The arguments' lanes and reconvergence point, their slots (reload()), the new top's fields
  /// (resume()) and whether the warp runs under independent thread scheduling.
  llvm::Value *argActive_ = nullptr, *argRpc_ = nullptr, *activeSlot_ = nullptr, *rpcSlot_ = nullptr,
              *resume_ = nullptr, *its_ = nullptr;
  llvm::BasicBlock *dispatch_ = nullptr; ///< the entry switch (resume() goes on there)
  llvm::PHINode *loopActive_ = nullptr, *loopRpc_ = nullptr; ///< a loop's lanes (loopHead)
  llvm::Function *f_ = nullptr;
  llvm::Value *code_ = nullptr; ///< Function::code.data() of the running process
  std::vector<llvm::BasicBlock *> at_; ///< per pc: the code of the leader there (else null)
  /// Register values known in SSA form at the insertion point (offset -> <32 x i64>): the
  /// straight-line code reads a register from the register file once and then uses the value,
  /// while every write still goes to the file (handlers, gathers and the interpreter read it
  /// there). Cleared where a block may be entered from elsewhere and after a handler call;
  /// only values that dominate the insertion point are kept.
  std::unordered_map<uint32_t, llvm::Value *> vals_;
  std::unordered_set<uint32_t> actOnly_; ///< vals_ entries right in the active lanes only
  std::unordered_map<uint32_t, llvm::Value *> predVals_; ///< predicates written (writePred)
  std::set<uint32_t> pending_;           ///< registers whose vals_ entry the file lacks (store())
  bool lazy_ = false;                    ///< emitting a block's fast version
  Liveness live_;
  llvm::Value *fastLoaded_ = nullptr;    ///< memFast: the value an inline load wrote (else null)
  llvm::BasicBlock *fastEnd_ = nullptr;  ///< memFast: the end of the inline path
  bool fastPartial_ = false;             ///< memFast: fastLoaded_ is right in the active lanes only
  uint32_t lo_ = 0, hi_ = 0;           ///< the pc range being emitted
};

/// Whether the code of `fn` holds a constant that is an address of this process which another
/// run would not repeat: inside a loaded binary (a handler or a variable: ASLR moves them) or
/// inside `fn`'s IR (heap). Such code is linked but never cached (Backend::compile leaves its
/// object empty), so a translator change that embeds such an address cannot make the disk
/// cache hand another process a stale one.
bool holdsProcessAddress(const llvm::Module &m, const ir::Function &fn) {
  const auto irLo = reinterpret_cast<uintptr_t>(fn.code.data());
  const uintptr_t irHi = irLo + fn.code.size() * sizeof(ir::Inst);
  auto processAddress = [&](uint64_t v) {
    if (v < 0x10000)
      return false;
    if (v >= irLo && v < irHi)
      return true;
    for (const auto &c : fn.consts) {
      const auto lo = reinterpret_cast<uintptr_t>(c.data());
      if (v >= lo && v < lo + sizeof(c))
        return true;
    }
    Dl_info info{};
    return dladdr(reinterpret_cast<void *>(uintptr_t(v)), &info) != 0 && info.dli_fname;
  };
  for (const llvm::Function &f : m)
    for (const llvm::BasicBlock &bb : f)
      for (const llvm::Instruction &in : bb)
        for (const llvm::Value *op : in.operands()) {
          const llvm::Value *v = op;
          if (const auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(v))
            if (ce->getOpcode() == llvm::Instruction::IntToPtr)
              v = ce->getOperand(0);
          if (const auto *ci = llvm::dyn_cast<llvm::ConstantInt>(v))
            if (ci->getBitWidth() == 64 && processAddress(ci->getZExtValue()))
              return true;
        }
  return false;
}

/// The module's own build: its GNU build id (the code it makes changes with it).
struct NoteSearch {
  uintptr_t addr;
  std::string id;
};
std::string moduleBuild() {
  NoteSearch s{reinterpret_cast<uintptr_t>(&leaders), {}};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *s = static_cast<NoteSearch *>(data);
        bool holds = false;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
          holds |= ph.p_type == PT_LOAD && s->addr >= lo && s->addr < lo + ph.p_memsz;
        }
        for (int i = 0; holds && i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          const char *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
          const char *end = ph.p_type == PT_NOTE ? p + ph.p_memsz : p;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *desc = p + sizeof(ElfW(Nhdr)) + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID)
              for (uint32_t j = 0; j < n->n_descsz && desc + j < end; ++j) {
                char b[3];
                std::snprintf(b, sizeof b, "%02x", uint8_t(desc[j]));
                s->id += b;
              }
            p = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return holds ? 1 : 0;
      },
      &s);
  if (s.id.empty()) { // no build id: the module file's size and time
    Dl_info info{};
    struct stat st {};
    if (dladdr(reinterpret_cast<void *>(&leaders), &info) && info.dli_fname &&
        ::stat(info.dli_fname, &st) == 0)
      return std::string("module ") + info.dli_fname + " " + std::to_string(st.st_size) + " " +
             std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  }
  return "module build-id " + s.id;
}

class LlvmBackend final : public Backend {
public:
  bool init(std::string &err) {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) {
      err = llvm::toString(jtmb.takeError());
      return false;
    }
    jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Default);
    auto tm = jtmb->createTargetMachine();
    if (!tm) {
      err = llvm::toString(tm.takeError());
      return false;
    }
    tm_ = std::move(*tm);
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!jit) {
      err = llvm::toString(jit.takeError());
      return false;
    }
    jit_ = std::move(*jit);
    std::vector<ir::Inst> probe(1);
    if (*reinterpret_cast<ir::Inst *const *>(&probe) != probe.data()) {
      err = "this C++ library's std::vector does not hold its data pointer first";
      return false;
    }
    identity_ = "LLVM " LLVM_VERSION_STRING "; " + tm_->getTargetTriple().str() + "; " +
                tm_->getTargetCPU().str() + "; " + tm_->getTargetFeatureString().str() + "; " +
                moduleBuild();
    return true;
  }

  FunctionCode *compile(const ir::Function &fn, DescribeFn describe, uint32_t regionInsts,
                        std::string &err, std::string *object) override {
    std::unique_lock<std::mutex> lock(mu_); // the translator and the target machine
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto mod = std::make_unique<llvm::Module>("ptxsim_jit", *ctx);
    mod->setDataLayout(tm_->createDataLayout());
    mod->setTargetTriple(tm_->getTargetTriple().str());
    auto code = std::make_unique<FunctionCode>();
    Translator tr(*ctx, *mod, fn, describe);
    tr.function(kRunName, leaders(fn), regionInsts, *code);
    std::string verr;
    llvm::raw_string_ostream vs(verr);
    if (llvm::verifyModule(*mod, &vs)) {
      err = "LLVM IR of '" + fn.name + "' does not verify: " + vs.str();
      return nullptr;
    }
    const bool relocatable = !holdsProcessAddress(*mod, fn);
    optimize(*mod);
    llvm::orc::SimpleCompiler compiler(*tm_);
    auto obj = compiler(*mod);
    if (!obj) {
      err = llvm::toString(obj.takeError());
      return nullptr;
    }
    std::string bytes((*obj)->getBufferStart(), (*obj)->getBufferSize());
    dump(fn, *mod, bytes);
    lock.unlock(); // linking does not wait for another compile
    if (!linkLocked(bytes, *code, err))
      return nullptr;
    if (object && relocatable)
      *object = std::move(bytes);
    return code.release(); // lives as long as the process, like the IR it runs
  }

  FunctionCode *link(const ir::Function &fn, const std::string &object, const FunctionCode &meta,
                     std::string &err) override {
    if (meta.entry.size() != fn.code.size() + 1) {
      err = "the cached code of '" + fn.name + "' has " + std::to_string(meta.entry.size()) +
            " entry flags for " + std::to_string(fn.code.size()) + " instructions";
      return nullptr;
    }
    auto code = std::make_unique<FunctionCode>(meta);
    if (!linkLocked(object, *code, err))
      return nullptr;
    return code.release();
  }

  std::string identity() const override { return identity_; }

private:
  /// PTXSIM_JIT_DUMP=DIR (a developer's aid): the optimised IR and the object of each compiled
  /// function as DIR/<name>.ll and DIR/<name>.o, to read with objdump or llc.
  static void dump(const ir::Function &fn, const llvm::Module &m, const std::string &object) {
    const char *dir = std::getenv("PTXSIM_JIT_DUMP");
    if (!dir || !*dir)
      return;
    const std::string base = std::string(dir) + "/" + fn.name;
    std::error_code ec;
    llvm::raw_fd_ostream ll(base + ".ll", ec);
    if (!ec)
      m.print(ll, nullptr);
    if (FILE *f = std::fopen((base + ".o").c_str(), "wb")) {
      std::fwrite(object.data(), 1, object.size(), f);
      std::fclose(f);
    }
  }

  void optimize(llvm::Module &m) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm_.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    mpm.run(m, mam);
  }

  /// Links `object` into a library of its own (every object defines kRunName) and sets
  /// `code.run` (under linkMu_, not mu_: a link never waits for a compile).
  bool linkLocked(const std::string &object, FunctionCode &code, std::string &err) {
    std::lock_guard<std::mutex> lock(linkMu_);
    auto jd = jit_->createJITDylib("ptxsim_jit_" + std::to_string(serial_++));
    if (!jd) {
      err = llvm::toString(jd.takeError());
      return false;
    }
    jd->addToLinkOrder(jit_->getMainJITDylib());
    auto buf = llvm::MemoryBuffer::getMemBufferCopy(object, "ptxsim_jit_object");
    if (auto e = jit_->addObjectFile(*jd, std::move(buf))) {
      err = llvm::toString(std::move(e));
      return false;
    }
    auto sym = jit_->lookup(*jd, kRunName);
    if (!sym) {
      err = llvm::toString(sym.takeError());
      return false;
    }
    code.run = reinterpret_cast<RunFn>(sym->getAddress());
    return true;
  }

  static constexpr const char *kRunName = kRunSymbol; // (the loader looks it up too)
  std::mutex mu_, linkMu_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string identity_;
  uint64_t serial_ = 0;
};

} // namespace
} // namespace ptxsim::ptx::jit

extern "C" __attribute__((visibility("default"))) ptxsim::ptx::jit::Backend *ptxsimJitCreate(int abi) {
  if (abi != ptxsim::ptx::jit::kBackendAbi)
    return nullptr;
  auto *b = new ptxsim::ptx::jit::LlvmBackend();
  std::string err;
  if (!b->init(err)) {
    std::fprintf(stderr, "ptxsim: the LLVM JIT cannot start: %s\n", err.c_str());
    delete b;
    return nullptr;
  }
  return b;
}
