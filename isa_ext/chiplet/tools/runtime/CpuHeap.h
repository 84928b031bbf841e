// The CPU model's heap for the measured program (CpuHeap.cpp).
#pragma once

namespace ptxsim::chiplet {

/// Reserves the measured program's heap (a CPU chiplet under --cpu-model). Returns false when
/// the address space cannot be had.
bool cpuHeapInit();
/// True while the program's own code runs (an interval is measured): its allocations come from
/// the CPU heap. Set by HostApi.cpp around the chiplet operations.
void cpuHeapSetUser(bool user);

} // namespace ptxsim::chiplet
