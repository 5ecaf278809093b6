// The cross-process timing lock: real processes contending for a real flock.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "kgb/platform.h"
#include "kgb/timing_lock.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char name[] = "/tmp/kgb-lock-test-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
};

// A child process that takes the lock, tells the parent through a pipe, holds
// it for `hold_ms` and exits.
pid_t hold_in_child(const fs::path& dir, const std::string& key, int hold_ms) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ready[0]);
    auto lock = kgb::TimingLock::acquire(dir, key, 10);
    if (!lock) ::_exit(3);
    char one = 1;
    if (::write(ready[1], &one, 1) != 1) ::_exit(4);
    std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  return pid;
}

int reap(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a second process waits for the timing lock until the holder lets go") {
  TempDir dir;
  const pid_t holder = hold_in_child(dir.path, "gpu-0", 400);
  const auto start = std::chrono::steady_clock::now();
  auto lock = kgb::TimingLock::acquire(dir.path, "gpu-0", 10);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(lock);
  CHECK(lock->held());
  CHECK(waited >= 0.3);
  CHECK(lock->waited_seconds() >= 0.3);
  CHECK(reap(holder) == 0);
}

TEST_CASE("locks of different devices do not wait for each other") {
  TempDir dir;
  const pid_t holder = hold_in_child(dir.path, "gpu-0", 2000);
  auto other = kgb::TimingLock::acquire(dir.path, "gpu-1", 0.5);
  REQUIRE(other);
  CHECK(other->waited_seconds() < 0.2);
  ::kill(holder, SIGKILL);
  reap(holder);
}

TEST_CASE("a wait past its deadline is an error value, and a killed holder frees the lock") {
  TempDir dir;
  const pid_t holder = hold_in_child(dir.path, "cpu", 60000);
  auto late = kgb::TimingLock::acquire(dir.path, "cpu", 0.2);
  REQUIRE_FALSE(late);
  CHECK(late.error().code == "timing-lock.timeout");
  // The kernel drops a dead process's flock: a crashed kgb never wedges the host.
  ::kill(holder, SIGKILL);
  reap(holder);
  auto after = kgb::TimingLock::acquire(dir.path, "cpu", 2);
  CHECK(after);
}

TEST_CASE("the lock is released on destruction and by release()") {
  TempDir dir;
  {
    auto first = kgb::TimingLock::acquire(dir.path, "cpu", 1);
    REQUIRE(first);
  }
  auto second = kgb::TimingLock::acquire(dir.path, "cpu", 0.1);
  REQUIRE(second);
  second->release();
  CHECK_FALSE(second->held());
  auto third = kgb::TimingLock::acquire(dir.path, "cpu", 0.1);
  CHECK(third);
}

TEST_CASE("an unusable lock folder is an error value, not an exception") {
  auto lock = kgb::TimingLock::acquire("/nonexistent-kgb-folder/sub", "cpu", 0.1);
  REQUIRE_FALSE(lock);
  CHECK(lock.error().code == "timing-lock.open");
}

TEST_CASE("the key names the device: the CPUs, or the GPUs the process sees") {
  kgb::Platform cpu;
  cpu.name = "cpu-x86_64";
  cpu.backend = "cpu";
  CHECK(kgb::timing_lock_key(cpu) == "cpu");
  kgb::Platform cuda;
  cuda.name = "cuda-sm90";
  cuda.backend = "cuda";
  ::setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
  CHECK(kgb::timing_lock_key(cuda) == "gpu-2_3");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  CHECK(kgb::timing_lock_key(cuda) == "gpu-all");
}
