#pragma once
// The SPU extension's entry point and options (docs/spu.md).
//
// Contract: registerSpuExtension() is called once at start-up (isa_ext/Extensions.cpp), before
// any PTX is parsed. It adds the PTX forms (`ld.cb.north|west`, `st.cb.south|east`, `spu.sync`,
// the `%spu_*` special registers), their lowering and handlers, a launch policy that takes
// over launches of kernels using SPU instructions when the simulated GPU has an SPU (passes of
// co-resident CTAs plus the IUs, placed on the SMs and IUs of figure 6), a timing model for CB
// accesses, the SPU's statistics and its power components. A kernel without SPU instructions
// is never taken: it runs exactly as on a GPU without the extension.
//
// The options come from the timing configuration (`-spu_enabled 1 -spu_rows 4 ...`, see
// configs/spu-gtx480.config) and, in either mode, from the environment variable PTXSIM_SPU,
// which holds the same options (`PTXSIM_SPU="-spu_rows 2 -spu_cols 2"`; `PTXSIM_SPU=1` is the
// 4 x 4 default). The environment wins over the configuration file.

#include "isa_ext/spu/Machine.h"

#include <string>

namespace ptxsim::spu {

/// Everything the user can set, with the model parameters the timing and power models use.
struct Config {
  bool enabled = false;
  Options machine;
  uint32_t cbLatency = 24;        ///< cycles from a CB access to its data (shared-memory-like)
  uint32_t cbBanks = 32;          ///< 4-byte banks of a CB
  uint32_t syncLatency = 20;      ///< cycles the barrier network adds to a block synchronization
  uint32_t viuBytesPerCycle = 32; ///< spill/restore bandwidth of one VIU
};

/// Parses SPU options (`-spu_rows 4 -spu_cols 4 ...`) into `c`; returns an error message naming
/// the bad option, or an empty string.
std::string parseOptions(const std::string &text, Config &c);
/// The configuration in force (the timing configuration's options, then PTXSIM_SPU).
Config config();
/// Fixes the configuration, ignoring options and PTXSIM_SPU from then on (tests).
void setConfig(const Config &c);

void registerSpuExtension();

} // namespace ptxsim::spu
