// Isolated child processes under the conditions a multi-threaded harness
// (the agent loop, the MCP server) creates them in: other threads starting at
// the same moment, and the harness killed with SIGKILL. Root only (the
// namespaces and the drop to the unprivileged user); skipped otherwise.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "kgb/process.h"

using namespace kgb;

namespace {

SpawnOptions isolated(std::vector<std::string> argv) {
  SpawnOptions o;
  o.argv = std::move(argv);
  o.isolate = true;
  o.environment = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
  o.working_dir = "/";
  return o;
}

bool gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

// Runs `body` in a forked process with a deadline: a hang is a failure, not a hung test.
int in_child_with_deadline(int seconds, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::alarm(static_cast<unsigned>(seconds));
    ::_exit(body());
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("isolated spawns while other threads start: the child never waits for them") {
  if (::geteuid() != 0) return;  // the drop to the unprivileged user is what hung
  // A thread being created when the child is cloned used to stay "being
  // created" in the child's copy of the C library, whose setuid/setgid then
  // waited for it forever (and the harness waited for the child's exec).
  const int rc = in_child_with_deadline(60, [] {
    std::atomic<bool> stop = false;
    std::thread churn([&] {
      while (!stop) std::thread([] {}).join();
    });
    int failures = 0;
    for (int i = 0; i < 200; ++i) {
      auto child = ChildProcess::spawn(isolated({"/bin/true"}));
      if (!child) {
        ++failures;
        continue;
      }
      const ExitStatus st = (*child)->wait(deadline_after(10));
      if (!st.exited || st.code != 0) ++failures;
    }
    stop = true;
    churn.join();
    return failures == 0 ? 0 : 1;
  });
  const std::string why = rc == 128 + SIGALRM ? "hung: a spawn never returned" : "exit " + std::to_string(rc);
  CHECK_MESSAGE(rc == 0, why);
}

TEST_CASE("a harness killed with SIGKILL takes its isolated children along") {
  if (::geteuid() != 0) return;  // as root the child drops to the unprivileged user
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t harness = ::fork();
  REQUIRE(harness >= 0);
  if (harness == 0) {
    ::close(fds[0]);
    auto child = ChildProcess::spawn(isolated({"/bin/sleep", "60"}));
    const pid_t pid = child ? (*child)->pid() : -1;
    (void)!::write(fds[1], &pid, sizeof pid);
    ::pause();
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t sleeper = -1;
  REQUIRE(::read(fds[0], &sleeper, sizeof sleeper) == sizeof sleeper);
  ::close(fds[0]);
  REQUIRE(sleeper > 0);
  CHECK_FALSE(gone(sleeper));
  ::kill(harness, SIGKILL);
  ::waitpid(harness, nullptr, 0);
  bool died = false;
  for (int i = 0; i < 100 && !died; ++i) {
    died = gone(sleeper);
    if (!died) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK_MESSAGE(died, "the child outlived its killed parent");
  if (!died) ::kill(sleeper, SIGKILL);
}
