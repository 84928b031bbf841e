#pragma once
// The host cores this process may run on: its CPU affinity mask (what `taskset`, Slurm's
// cpusets and containers' cpusets allow), not every core the machine has online, which
// std::thread::hardware_concurrency() counts. The default number of host threads of both
// modes: more threads than allowed cores share them, and a waiting thread then takes time
// from the working ones.

namespace ptxsim::base {

/// At least 1. Read once per call (a process may change its mask).
unsigned usableCores();

} // namespace ptxsim::base
