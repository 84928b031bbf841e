#pragma once
// Which registers a CTA must find zeroed (docs/executor.md, "CTA set-up").
//
// Contract: the interpreter defines a register that no instruction has written yet as 0 in
// every lane. A fresh CTA reuses a retired CTA's register file, so it zeroes every register it
// may read before writing it; computeZeroAtStart finds the others (those every lane writes
// before any read) so that initCta skips them. (A declared register that nothing reaches has no
// place in the register file at all: exec/Lower.cpp places registers as the code names them.) The analysis is conservative: whatever it cannot
// prove (calls, indirect branches, instructions whose reads it does not know, reads of other
// lanes' registers) leaves the register, or the whole file, zeroed, so results stay bit-exact.

#include "ptx/ir/Ir.h"

#include <cstdint>
#include <vector>

namespace ptxsim::ptx::exec {

/// Sets fn.zeroAtStart to the registers (offsets, index * 32) a CTA of kernel `fn` may read in
/// some lane before that lane has written them, and fn.zeroAtStartKnown when the analysis could
/// tell (otherwise every register is zeroed). Call once the function's code is final.
void computeZeroAtStart(ir::Function &fn);

/// Sets fn.spinFirst and fn.spinRegs: at each backward branch, the registers a lane may still
/// read there (ptx/jit/Liveness.h). A loop whose lanes change only other registers makes no
/// progress, and the JIT leaves those out of the register file, so the spin watch (spinState,
/// Exec.cpp) hashes these alone. Left empty (every register hashed) when the analysis cannot
/// bound the reads. Call once the function's code is final.
void computeSpinRegs(ir::Function &fn);

} // namespace ptxsim::ptx::exec
