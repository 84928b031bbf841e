#include "timing/dram/scheduler/IDramScheduler.h"

namespace ptxsim::timing {

DramSchedulerRegistry &dramSchedulerRegistry() {
  static DramSchedulerRegistry *r = [] {
    auto *reg = new DramSchedulerRegistry();
    reg->add("frfcfs", createFrFcfsDramScheduler);
    reg->add("fcfs", createFcfsDramScheduler);
    reg->add("frfcfs_wd", createFrFcfsWriteDrainDramScheduler);
    return reg;
  }();
  return *r;
}

} // namespace ptxsim::timing
