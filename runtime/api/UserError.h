#pragma once
// Ending the program after a user input error (a bad configuration, an override that cannot load).

#include <cstdio>
#include <unistd.h>

namespace ptxsim::runtime {

/// exit() would run the application's atexit handlers, which call back into the runtime while
/// this thread holds the context lock; so flush and leave directly, with status 2.
[[noreturn]] inline void stopForUserError() {
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(2);
}

} // namespace ptxsim::runtime
