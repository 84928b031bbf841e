#pragma once
// The SPU extension's entry point and options (docs/spu.md).
//
// Contract: registerSpuExtension() is called once at start-up (isa_ext/Extensions.def), before
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
  /// Power convention: false = per-unit accounting (every SM and IU charged for the structures
  /// it has; IUs are reduced SMs), true = the report's (energy of one SM + IU pair times the
  /// number of pairs, every IU charged as a full SM as McPAT's homogeneous cores do).
  bool powerPairs = false;
  /// Section 5: the IUs are DMA engines instead of reduced SMs (core kind "dma", timing/sm/core:
  /// they run the IU code without an issue pipeline, only their memory accesses take time; in
  /// power the IU cores are gone and a small DMA component replaces them).
  bool dmaIus = false;
  /// Debug check: a CB load of bytes its neighbour did not write in the previous step (stale
  /// data, such as a schedule built from the pass-local %spu_i/%spu_j reads) faults.
  bool checkReads = false;
};

/// Figure 10: bytes of virtual CBs (both halves) that `-spu_blocks_per_sm` m > 1 carves from each
/// SM's shared memory: 2(m-1) CBs per SM in 2D (the extra south and east CBs of the m blocks
/// side by side), m-1 in a 1D chain; 0 for one block per SM.
uint64_t virtualCbBytesPerSm(const Config &c);

/// Parses SPU options (`-spu_rows 4 -spu_cols 4 ...`) into `c`; returns an error message naming
/// the bad option, or an empty string.
std::string parseOptions(const std::string &text, Config &c);
/// The configuration in force (the timing configuration's options, then PTXSIM_SPU). When
/// PTXSIM_SPU is invalid it is ignored (configError() says why) and every launch fails.
Config config();
/// PTXSIM_SPU's error ("PTXSIM_SPU: option '-spu_cb_bytes' must be between 4 and 1048576"), or
/// an empty string when it is valid or unset.
std::string configError();
/// Fixes the configuration, ignoring options and PTXSIM_SPU from then on (tests).
void setConfig(const Config &c);

void registerSpuExtension();

} // namespace ptxsim::spu
