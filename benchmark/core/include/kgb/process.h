// Child processes: compilers (plain, with a timeout and captured output) and
// candidate runners (isolated: own PID, mount and network namespaces — through
// a user namespace when not started as root —, unprivileged user, a seccomp
// filter, rlimits, scrubbed environment, private working folder, killed with
// everything they started at the deadline).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kgb/result.h"
#include "kgb/wire.h"

namespace kgb {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

inline Deadline deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

struct ProcessLimits {
  int64_t address_space_mb = 0;  // 0 = unlimited
  int64_t cpu_seconds = 0;
  int64_t processes = 0;
  int64_t file_size_mb = 0;
  int64_t open_files = 0;
};

struct SpawnOptions {
  std::vector<std::string> argv;
  // The complete environment of the child; nullopt inherits the parent's.
  std::optional<std::map<std::string, std::string>> environment;
  std::filesystem::path working_dir;
  std::optional<ProcessLimits> limits;
  bool isolate = false;         // namespaces where permitted, drop root, no new privileges
  // With isolate: the runners' seccomp filter (kgb/syscall_filter.h), in force
  // from the program's first instruction. Off for tools that start processes
  // of their own (profilers, sanitizers).
  bool syscall_filter = false;
  bool protocol_pipes = false;  // request pipe on fd 3, response pipe on fd 4
  int shared_memory_fd = -1;    // with protocol_pipes: a memfd the child gets as fd 5 (wire::kArenaFd)
  size_t capture_limit = 64 * 1024;  // bytes kept per stream; the rest is drained and counted
};

struct ExitStatus {
  bool exited = false;   // normal exit
  int code = -1;
  int signal = 0;        // terminating signal
  bool timed_out = false;
  bool killed_by_limit() const;  // SIGXCPU, SIGXFSZ, SIGKILL from RLIMIT
  std::string describe() const;  // "exit code 3", "killed by signal 11 (Segmentation fault)", "timed out"
};

class ChildProcess {
 public:
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  static Result<std::unique_ptr<ChildProcess>> spawn(const SpawnOptions& options);

  // Protocol I/O (protocol_pipes only). Errors: "child.timeout", "child.closed", "child.protocol".
  Status send(wire::MessageType type, const std::vector<std::byte>& payload, Deadline deadline);
  // One frame whose payload is the concatenation of `pieces` (sent without joining them).
  Status send(wire::MessageType type, std::span<const std::span<const std::byte>> pieces, Deadline deadline);
  Result<std::pair<wire::MessageType, std::vector<std::byte>>> receive(Deadline deadline, uint64_t max_length);

  // Waits for the exit; kills the child (and everything it started) at the deadline.
  ExitStatus wait(Deadline deadline);
  void kill();
  // SIGSTOP / SIGCONT to the child (and its process group when it has one):
  // an idle child whose threads could still run is stopped while another
  // child is being timed.
  void suspend();
  void resume();
  // Closes the request pipe so a well-behaved runner exits.
  void close_input();

  pid_t pid() const { return pid_; }
  bool in_own_namespaces() const { return namespaced_; }
  const std::string& stdout_text() const { return out_.text; }
  const std::string& stderr_text() const { return err_.text; }
  size_t stdout_dropped() const { return out_.dropped; }
  size_t stderr_dropped() const { return err_.dropped; }
  std::optional<ExitStatus> exit_status() const { return exit_; }

 private:
  ChildProcess() = default;
  struct Capture {
    int fd = -1;
    std::string text;
    size_t dropped = 0;
    size_t limit = 0;
  };
  // Moves bytes until the write buffer is sent and the read buffer filled, or
  // until the deadline / the child closes its end. Drains stdout/stderr meanwhile.
  enum class Io { Done, Timeout, Closed };
  Io transfer(const std::byte* out, size_t out_len, std::byte* in, size_t in_len, Deadline deadline);
  void drain(Capture& c);
  bool reap(bool block);
  void signal_all(int sig);

  pid_t pid_ = -1;
  bool namespaced_ = false;
  int request_fd_ = -1, response_fd_ = -1;
  Capture out_, err_;
  std::optional<ExitStatus> exit_;
};

struct CommandResult {
  ExitStatus status;
  std::string output;  // stdout then stderr, capped
  double seconds = 0;
};

// Runs a tool (compiler, linker, nm) to completion. Fails only when it cannot
// be started; a non-zero exit is a value in CommandResult.
Result<CommandResult> run_command(const std::vector<std::string>& argv, const std::filesystem::path& working_dir,
                                  double timeout_seconds, size_t capture_limit = 256 * 1024);

// A private folder removed on destruction (unless KGB_KEEP_TEMP is set).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "kgb");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kgb
