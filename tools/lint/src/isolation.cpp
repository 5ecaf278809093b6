#include "isolation.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kgb::lint::detail {
namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void child_main(int write_fd, const std::function<std::string()>& work, double time_limit_seconds,
                             std::size_t memory_limit_bytes) {
  // Die with the parent, and stop at the CPU limit even if the parent is stuck.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (memory_limit_bytes > 0) {
    rlimit as{static_cast<rlim_t>(memory_limit_bytes), static_cast<rlim_t>(memory_limit_bytes)};
    ::setrlimit(RLIMIT_AS, &as);
  }
  const rlim_t cpu = static_cast<rlim_t>(time_limit_seconds) + 2;
  rlimit cpu_limit{cpu, cpu + 1};
  ::setrlimit(RLIMIT_CPU, &cpu_limit);
  // Clang's crash handlers would print into the parent's terminal.
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
  }
  int code = 0;
  try {
    const std::string result = work();
    code = write_all(write_fd, result) ? 0 : kExitWriteFailed;
  } catch (const std::bad_alloc&) {
    code = kExitOutOfMemory;
  } catch (...) {
    code = kExitException;
  }
  ::close(write_fd);
  ::_exit(code);
}

}  // namespace

IsolatedChild start_isolated(const std::function<std::string()>& work, double time_limit_seconds,
                             std::size_t memory_limit_bytes) {
  IsolatedChild child;
  child.start = Clock::now();
  child.deadline = child.start + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(time_limit_seconds));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    child.error = std::string("pipe: ") + std::strerror(errno);
    return child;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    child.error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return child;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], work, time_limit_seconds, memory_limit_bytes);
  }
  ::close(fds[1]);
  child.pid = pid;
  child.read_fd = fds[0];
  return child;
}

IsolatedOutcome run_isolated(const std::function<std::string()>& work, double time_limit_seconds,
                             std::size_t memory_limit_bytes) {
  IsolatedChild child = start_isolated(work, time_limit_seconds, memory_limit_bytes);
  return finish_isolated(child);
}

IsolatedOutcome finish_isolated(IsolatedChild& child) {
  IsolatedOutcome outcome;
  if (child.pid < 0) {
    outcome.error = child.error.empty() ? "the child was not started" : child.error;
    return outcome;
  }
  const pid_t pid = child.pid;
  const int read_fd = child.read_fd;
  const auto start = child.start;
  const auto deadline = child.deadline;
  child.pid = -1;
  child.read_fd = -1;

  bool timed_out = false;
  char buffer[65536];
  for (;;) {
    const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (remaining <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{read_fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(remaining));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) continue;  // the loop re-checks the deadline
    const ssize_t n = ::read(read_fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0) break;  // the child closed its end: done or dead
    outcome.output.append(buffer, static_cast<size_t>(n));
  }
  ::close(read_fd);
  if (timed_out) ::kill(pid, SIGKILL);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (timed_out) {
    outcome.status = IsolatedOutcome::Status::TimedOut;
    outcome.output.clear();
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    outcome.status = IsolatedOutcome::Status::Completed;
  } else {
    outcome.status = IsolatedOutcome::Status::Crashed;
    outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    // SIGXCPU: the CPU limit, which only a runaway parse reaches.
    if (outcome.signal == SIGXCPU) outcome.status = IsolatedOutcome::Status::TimedOut;
    outcome.output.clear();
  }
  return outcome;
}

}  // namespace kgb::lint::detail
