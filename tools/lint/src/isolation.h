// Runs a piece of work in a forked child with a deadline and an address-space
// limit, and brings its text result back over a pipe. libTooling runs in
// process and can hang (an include of a device file, a macro bomb) or crash;
// the parent survives both and reports them.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include <sys/types.h>

namespace kgb::lint::detail {

// Exit codes of a child that ended without a result.
inline constexpr int kExitWriteFailed = 3;
inline constexpr int kExitException = 4;
inline constexpr int kExitOutOfMemory = 5;

struct IsolatedOutcome {
  enum class Status { Completed, TimedOut, Crashed, Failed };
  Status status = Status::Failed;
  std::string output;  // what the work returned (Completed only)
  int signal = 0;      // Crashed: the terminating signal
  int exit_code = 0;   // Crashed: a non-zero exit without a result
  std::string error;   // Failed: why the child could not be run
  double seconds = 0;
};

// The work runs in the child only; the child ends with _exit, so nothing of the
// parent (atexit handlers, buffered stdio, destructors) runs twice.
IsolatedOutcome run_isolated(const std::function<std::string()>& work, double time_limit_seconds,
                             std::size_t memory_limit_bytes);

// The same in two steps, so the caller can work while the child runs: a
// started child must be finished (it is killed at its deadline then).
struct IsolatedChild {
  pid_t pid = -1;
  int read_fd = -1;
  std::chrono::steady_clock::time_point start, deadline;
  std::string error;  // why it could not be started (pid < 0)
};
IsolatedChild start_isolated(const std::function<std::string()>& work, double time_limit_seconds,
                             std::size_t memory_limit_bytes);
IsolatedOutcome finish_isolated(IsolatedChild& child);

}  // namespace kgb::lint::detail
