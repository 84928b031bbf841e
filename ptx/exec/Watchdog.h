#pragma once
// Kernel timeouts (`ptxsim run --kernel-timeout`, PTXSIM_KERNEL_TIMEOUT): a launch that runs
// longer than a limit of host time is stopped, as a GPU's watchdog stops a kernel.
//
// Contract: arm() registers a deadline and what to do when it passes; fire() runs on the
// watchdog's own thread (started at the first arm()) unless disarm() came first. disarm()
// returns only after a fire() already under way has returned, so fire() may touch the state of
// the launch that armed it. The executors never wait for the watchdog: fire() sets flags they
// read where they already look for faults (Grid::stop), so a run without a timeout pays nothing
// and one with a timeout pays one mutex per launch.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ptxsim::ptx::exec {

class Watchdog {
public:
  using Clock = std::chrono::steady_clock;
  static Watchdog &instance();
  /// Calls `fire` once `deadline` has passed; returns a token for disarm().
  uint64_t arm(Clock::time_point deadline, std::function<void()> fire);
  /// Cancels the token's deadline; a fire() in progress has returned when this returns.
  void disarm(uint64_t token);

private:
  Watchdog() = default;
  void loop();
  struct State;
  State *s_ = nullptr;
};

/// Parses a kernel timeout in seconds ("30", "0.5"): a number greater than 0 and at most
/// 1,000,000. Returns empty and sets `seconds`, or why the text is not one.
std::string parseKernelTimeout(std::string_view text, double &seconds);

} // namespace ptxsim::ptx::exec
