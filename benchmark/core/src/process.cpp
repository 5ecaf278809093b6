#include "kgb/process.h"

#include "kgb/syscall_filter.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kgb {
namespace {

// Started as root, each isolated child runs as an unprivileged uid drawn from
// a range no distribution hands out (above the 16-bit ids, the systemd
// dynamic users and the usual subordinate-id ranges), one uid per working
// folder: the runners of one evaluation (candidate and baseline) share their
// folder, their HOME and so PoCL's kernel cache there, and must be one user;
// different evaluations work in different folders. RLIMIT_NPROC counts a
// uid's processes and threads machine-wide: with one shared uid ("nobody"), a
// fork bomb, or a few concurrent candidates with OpenMP and PoCL thread pools,
// used up the limit of every other evaluation running beside it. Two
// concurrent evaluations share a uid only by a 1-in-2^20 draw.
constexpr uid_t kSandboxUidBase = uid_t{1} << 30;
constexpr uint32_t kSandboxUidCount = uint32_t{1} << 20;

uid_t sandbox_uid_for(const std::string& working_dir) {
  uint64_t key;
  if (!working_dir.empty()) {
    key = 1469598103934665603ull;  // FNV-1a over the folder's path
    for (unsigned char c : working_dir) key = (key ^ c) * 1099511628211ull;
  } else {
    static std::atomic<uint32_t> counter{0};
    key = (static_cast<uint64_t>(::getpid()) << 32) | counter.fetch_add(1, std::memory_order_relaxed);
  }
  const uint64_t mixed = key * 0x9E3779B97F4A7C15ull;
  return kSandboxUidBase + static_cast<uid_t>((mixed >> 40) % kSandboxUidCount);
}

void ignore_sigpipe_once() {
  static std::once_flag once;
  // Writing to a runner that died must be an error value, not a signal that
  // kills the harness.
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void close_both() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
    read = write = -1;
  }
};

// Everything the child needs, prepared before clone/fork: after it only
// async-signal-safe calls happen.
struct ChildSetup {
  std::vector<std::string> argv_storage, env_storage;
  std::vector<char*> argv, envp;
  bool inherit_env = true;
  std::string working_dir;
  std::optional<ProcessLimits> limits;
  bool isolate = false;
  bool drop_root = false;
  uid_t sandbox_uid = 0;  // with drop_root: the child's uid and gid
  bool own_proc = false;  // in new PID + mount namespaces: mount a /proc that matches them
  // Not root: the namespaces come with a user namespace of our own, in which
  // the child keeps its uid and gid (so files mean what they meant) and from
  // which it takes no capability past exec.
  bool user_namespace = false;
  uid_t outer_uid = 0;
  gid_t outer_gid = 0;
  SyscallFilter* filter = nullptr;  // installed last, just before exec
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1, request_fd = -1, response_fd = -1, error_fd = -1, arena_fd = -1;
  // The program opened by the parent: executing through the descriptor works
  // after dropping root even when a folder on its path is closed to others.
  int exe_fd = -1;
};

[[noreturn]] void child_fail(int error_fd, int code) {
  int e = errno;
  ssize_t ignored = ::write(error_fd, &code, sizeof code);
  ignored = ::write(error_fd, &e, sizeof e);
  (void)ignored;
  ::_exit(127);
}

// Writes "text" to a file of /proc/self; async-signal-safe.
bool write_proc_self(const char* path, const char* text, size_t length) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text, length) == static_cast<ssize_t>(length);
  ::close(fd);
  return ok;
}

// "<id> <id> 1\n" into buf (at least 32 bytes); returns the length.
size_t identity_map_line(char* buf, unsigned long id) {
  char digits[20];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + id % 10);
    id /= 10;
  } while (id);
  size_t len = 0;
  for (int copy = 0; copy < 2; ++copy) {
    for (size_t i = n; i-- > 0;) buf[len++] = digits[i];
    buf[len++] = ' ';
  }
  buf[len++] = '1';
  buf[len++] = '\n';
  return len;
}

void set_limit(int resource, rlim_t value) {
  struct rlimit rl{value, value};
  ::setrlimit(resource, &rl);
}

int child_main(void* arg) {
  auto* s = static_cast<ChildSetup*>(arg);
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed harness takes its runners along
  if (s->user_namespace) {
    // A harness that changed its credentials is not dumpable, and then its
    // /proc/self files belong to root: the child about to exec may be.
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    char line[64];
    size_t n = identity_map_line(line, s->outer_uid);
    if (!write_proc_self("/proc/self/setgroups", "deny", 4) || !write_proc_self("/proc/self/uid_map", line, n))
      child_fail(s->error_fd, 8);
    n = identity_map_line(line, s->outer_gid);
    if (!write_proc_self("/proc/self/gid_map", line, n)) child_fail(s->error_fd, 8);
  }
  // error_fd must survive until exec: first move it above the fd numbers
  // that are about to be taken.
  int moved = ::fcntl(s->error_fd, F_DUPFD_CLOEXEC, 10);
  if (moved < 0) child_fail(s->error_fd, 3);
  s->error_fd = moved;
  if (s->exe_fd >= 0 && (s->exe_fd = ::fcntl(s->exe_fd, F_DUPFD_CLOEXEC, 10)) < 0) child_fail(s->error_fd, 3);
  // Move the fds into place; the CLOEXEC originals close at exec.
  if (::dup2(s->stdin_fd, 0) < 0 || ::dup2(s->stdout_fd, 1) < 0 || ::dup2(s->stderr_fd, 2) < 0) child_fail(s->error_fd, 1);
  // The protocol fds first go above the targets, so that no dup2 below
  // overwrites a source that happens to sit on another's target number.
  int request = -1, response = -1, arena = -1;
  if (s->request_fd >= 0) {
    request = ::fcntl(s->request_fd, F_DUPFD_CLOEXEC, 10);
    response = ::fcntl(s->response_fd, F_DUPFD_CLOEXEC, 10);
    if (s->arena_fd >= 0) arena = ::fcntl(s->arena_fd, F_DUPFD_CLOEXEC, 10);
    if (request < 0 || response < 0 || (s->arena_fd >= 0 && arena < 0)) child_fail(s->error_fd, 2);
    if (::dup2(request, wire::kRequestFd) < 0 || ::dup2(response, wire::kResponseFd) < 0 ||
        (arena >= 0 && ::dup2(arena, wire::kArenaFd) < 0))
      child_fail(s->error_fd, 2);
  }
  int first_closed = s->request_fd < 0 ? 3 : arena >= 0 ? wire::kArenaFd + 1 : wire::kResponseFd + 1;
  for (int fd = first_closed; fd < 1024; ++fd)
    if (fd != s->error_fd && fd != s->exe_fd) ::close(fd);
  if (!s->working_dir.empty() && ::chdir(s->working_dir.c_str()) != 0) child_fail(s->error_fd, 4);
  if (s->own_proc) {
    // A /proc of the new PID namespace: with the parent's, getpid() (1 here)
    // names another process there, and the CUDA driver fails to start
    // (cudaErrorOperatingSystem; a matching /proc fixes it). Private
    // propagation keeps the mount out of the parent's namespace. Best effort:
    // without it the child still runs.
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0)
      ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  }
  if (s->limits) {
    const auto& l = *s->limits;
    set_limit(RLIMIT_CORE, 0);
    if (l.address_space_mb > 0) set_limit(RLIMIT_AS, static_cast<rlim_t>(l.address_space_mb) << 20);
    if (l.cpu_seconds > 0) set_limit(RLIMIT_CPU, static_cast<rlim_t>(l.cpu_seconds));
    if (l.processes > 0) set_limit(RLIMIT_NPROC, static_cast<rlim_t>(l.processes));
    if (l.file_size_mb > 0) set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(l.file_size_mb) << 20);
    if (l.open_files > 0) set_limit(RLIMIT_NOFILE, static_cast<rlim_t>(l.open_files));
  }
  if (s->drop_root) {
    // RLIMIT_NPROC does not bind root: run the candidate as an unprivileged user.
    // Raw system calls: glibc's setgroups/setgid/setuid broadcast the change to
    // every thread of the process (__nptl_setxid), and a child made by clone()
    // of a multithreaded parent still believes in the parent's threads and
    // waits for them forever.
    const uid_t id = s->sandbox_uid;
    if (::syscall(SYS_setgroups, 0, nullptr) != 0 || ::syscall(SYS_setresgid, id, id, id) != 0 ||
        ::syscall(SYS_setresuid, id, id, id) != 0)
      child_fail(s->error_fd, 5);
    // A change of credentials clears the parent-death signal: set it again.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  }
  if (s->isolate) ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (s->filter) {
    // Last: from here on, and through exec, the runner's rules hold.
    if (int e = s->filter->install(static_cast<pid_t>(::syscall(SYS_getpid))); e != 0) {
      errno = e;
      child_fail(s->error_fd, 7);
    }
  }
  char** envp = s->inherit_env ? environ : s->envp.data();
  if (s->exe_fd >= 0) ::syscall(SYS_execveat, s->exe_fd, "", s->argv.data(), envp, AT_EMPTY_PATH);
  else ::execve(s->argv[0], s->argv.data(), envp);
  child_fail(s->error_fd, 6);
}

std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    std::string candidate = dirs.substr(start, colon - start) + "/" + program;
    if (colon > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = colon + 1;
  }
  return program;
}

}  // namespace

bool ExitStatus::killed_by_limit() const { return signal == SIGXCPU || signal == SIGXFSZ; }

std::string ExitStatus::describe() const {
  if (timed_out) return "timed out (killed at the wall-clock limit)";
  if (exited) return "exit code " + std::to_string(code);
  if (signal) {
    const char* name = ::strsignal(signal);
    std::string s = "killed by signal " + std::to_string(signal) + " (" + (name ? name : "?") + ")";
    if (signal == SIGXCPU) s += ": CPU time limit";
    if (signal == SIGXFSZ) s += ": file size limit";
    return s;
  }
  return "still running";
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const SpawnOptions& options) {
  ignore_sigpipe_once();
  if (options.argv.empty()) return make_error("child.spawn", "no program given");
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  Pipe out, err, req, resp, errp;
  if (!out.open() || !err.open() || !errp.open() || (options.protocol_pipes && (!req.open() || !resp.open())))
    return make_error("child.spawn", std::string("cannot create pipes: ") + std::strerror(errno));
  // Tensors of hundreds of MB cross the protocol pipes: larger pipe buffers
  // mean far fewer wake-ups (best effort; the system maximum may be lower).
  for (int fd : {req.write, resp.write})
    if (fd >= 0) ::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

  ChildSetup setup;
  setup.argv_storage = options.argv;
  setup.argv_storage[0] = resolve_program(options.argv[0]);
  for (auto& a : setup.argv_storage) setup.argv.push_back(a.data());
  setup.argv.push_back(nullptr);
  if (options.environment) {
    setup.inherit_env = false;
    for (const auto& [k, v] : *options.environment) setup.env_storage.push_back(k + "=" + v);
    for (auto& e : setup.env_storage) setup.envp.push_back(e.data());
    setup.envp.push_back(nullptr);
  }
  setup.working_dir = options.working_dir.string();
  setup.limits = options.limits;
  setup.isolate = options.isolate;
  setup.drop_root = options.isolate && ::geteuid() == 0;
  std::optional<SyscallFilter> filter;
  if (options.isolate && options.syscall_filter) {
    static const SyscallFilter kRunnerFilter = SyscallFilter::for_runners();
    filter = kRunnerFilter;  // install() writes the child's pid into its copy
    setup.filter = &*filter;
  }
  int exe_fd = -1;
  if (setup.drop_root) {
    setup.sandbox_uid = sandbox_uid_for(options.working_dir.string());
    exe_fd = ::open(setup.argv_storage[0].c_str(), O_PATH | O_CLOEXEC);
    setup.exe_fd = exe_fd;
  }
  setup.stdin_fd = devnull;
  setup.stdout_fd = out.write;
  setup.stderr_fd = err.write;
  setup.error_fd = errp.write;
  if (options.protocol_pipes) {
    setup.request_fd = req.read;
    setup.response_fd = resp.write;
    setup.arena_fd = options.shared_memory_fd;
  }

  pid_t pid = -1;
  if (options.isolate) {
    // PID namespace: when the runner (its init) dies, the kernel kills every
    // process it left behind (fork bombs, daemons). Network namespace: no
    // network. Both need privileges; without them fall back to a process group.
    constexpr size_t kStack = 256 * 1024;
    std::vector<char> stack(kStack);
    setup.own_proc = true;
    if (!setup.drop_root) {
      // Not root: a user namespace of our own makes the same namespaces
      // possible (where the kernel allows unprivileged user namespaces).
      setup.user_namespace = true;
      setup.outer_uid = ::geteuid();
      setup.outer_gid = ::getegid();
      pid = ::clone(child_main, stack.data() + kStack,
                    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | SIGCHLD, &setup);
      setup.user_namespace = pid >= 0;
    }
    if (pid < 0) pid = ::clone(child_main, stack.data() + kStack, CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | SIGCHLD, &setup);
    if (pid < 0) {  // no mount namespace allowed: PID and network namespaces alone
      setup.own_proc = false;
      pid = ::clone(child_main, stack.data() + kStack, CLONE_NEWPID | CLONE_NEWNET | SIGCHLD, &setup);
    }
    if (pid > 0) child->namespaced_ = true;
  }
  if (pid < 0) {
    pid = ::fork();
    if (pid == 0) child_main(&setup);
  }
  int saved_errno = errno;
  ::close(out.write);
  ::close(err.write);
  ::close(errp.write);
  if (devnull >= 0) ::close(devnull);
  if (exe_fd >= 0) ::close(exe_fd);
  if (options.protocol_pipes) {
    ::close(req.read);
    ::close(resp.write);
  }
  if (pid < 0) {
    out.close_both();
    err.close_both();
    errp.close_both();
    req.close_both();
    resp.close_both();
    return make_error("child.spawn", std::string("cannot start a process: ") + std::strerror(saved_errno));
  }
  child->pid_ = pid;
  // exec succeeded when the error pipe closes without data.
  int code = 0, err_no = 0;
  ssize_t n = ::read(errp.read, &code, sizeof code);
  if (n == sizeof code) {
    ssize_t ignored = ::read(errp.read, &err_no, sizeof err_no);
    (void)ignored;
  }
  ::close(errp.read);
  child->out_ = Capture{out.read, {}, 0, options.capture_limit};
  child->err_ = Capture{err.read, {}, 0, options.capture_limit};
  set_nonblocking(out.read);
  set_nonblocking(err.read);
  if (options.protocol_pipes) {
    child->request_fd_ = req.write;
    child->response_fd_ = resp.read;
    set_nonblocking(req.write);
    set_nonblocking(resp.read);
  }
  if (n == sizeof code) {
    child->wait(deadline_after(5));
    static const char* steps[] = {"", "redirect stdio", "protocol pipes", "fd setup", "enter working folder", "drop privileges", "exec",
                                  "install the syscall filter", "map the user namespace"};
    std::string step = code >= 1 && code <= 8 ? steps[code] : "setup";
    return make_error("child.spawn", "cannot start " + options.argv[0] + ": " + step + " failed: " + std::strerror(err_no));
  }
  return child;
}

ChildProcess::~ChildProcess() {
  if (!exit_) {
    kill();
    reap(true);
  }
  for (int fd : {request_fd_, response_fd_, out_.fd, err_.fd})
    if (fd >= 0) ::close(fd);
}

void ChildProcess::signal_all(int sig) {
  if (pid_ <= 0 || exit_) return;
  ::kill(pid_, sig);
  // The process group it leads: what it started (the syscall filter keeps
  // every process there) stops and continues with it. In a PID namespace
  // SIGKILL of its init takes the rest along anyway.
  ::kill(-pid_, sig);
}

void ChildProcess::kill() { signal_all(SIGKILL); }
void ChildProcess::suspend() { signal_all(SIGSTOP); }
void ChildProcess::resume() { signal_all(SIGCONT); }

void ChildProcess::close_input() {
  if (request_fd_ >= 0) {
    ::close(request_fd_);
    request_fd_ = -1;
  }
}

void ChildProcess::drain(Capture& c) {
  if (c.fd < 0) return;
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(c.fd, buf, sizeof buf);
    if (n > 0) {
      size_t room = c.limit > c.text.size() ? c.limit - c.text.size() : 0;
      size_t keep = std::min<size_t>(room, static_cast<size_t>(n));
      c.text.append(buf, keep);
      c.dropped += static_cast<size_t>(n) - keep;
      continue;
    }
    if (n == 0) {
      ::close(c.fd);
      c.fd = -1;
    }
    return;  // EAGAIN or closed
  }
}

bool ChildProcess::reap(bool block) {
  if (exit_) return true;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (r != pid_) return false;
  ExitStatus e;
  if (WIFEXITED(status)) {
    e.exited = true;
    e.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
  }
  exit_ = e;
  if (!namespaced_) ::kill(-pid_, SIGKILL);  // leftovers in its group
  return true;
}

ChildProcess::Io ChildProcess::transfer(const std::byte* out, size_t out_len, std::byte* in, size_t in_len,
                                        Deadline deadline) {
  size_t sent = 0, received = 0;
  while (sent < out_len || received < in_len) {
    auto now = Clock::now();
    if (now >= deadline) return Io::Timeout;
    pollfd fds[4];
    int n = 0;
    int want_write = (sent < out_len && request_fd_ >= 0) ? n : -1;
    if (want_write >= 0) fds[n++] = {request_fd_, POLLOUT, 0};
    int want_read = (received < in_len && response_fd_ >= 0) ? n : -1;
    if (want_read >= 0) fds[n++] = {response_fd_, POLLIN, 0};
    int out_idx = out_.fd >= 0 ? n : -1;
    if (out_idx >= 0) fds[n++] = {out_.fd, POLLIN, 0};
    int err_idx = err_.fd >= 0 ? n : -1;
    if (err_idx >= 0) fds[n++] = {err_.fd, POLLIN, 0};
    if (want_write < 0 && want_read < 0) return Io::Closed;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    int r = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(std::clamp<int64_t>(ms, 1, 1000)));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Io::Closed;
    }
    if (out_idx >= 0 && fds[out_idx].revents) drain(out_);
    if (err_idx >= 0 && fds[err_idx].revents) drain(err_);
    if (want_write >= 0 && fds[want_write].revents) {
      if (fds[want_write].revents & (POLLERR | POLLHUP)) return Io::Closed;
      ssize_t k = ::write(request_fd_, out + sent, out_len - sent);
      if (k > 0) sent += static_cast<size_t>(k);
      else if (k < 0 && errno != EAGAIN && errno != EINTR) return Io::Closed;
    }
    if (want_read >= 0 && fds[want_read].revents) {
      ssize_t k = ::read(response_fd_, in + received, in_len - received);
      if (k > 0) received += static_cast<size_t>(k);
      else if (k == 0) return Io::Closed;
      else if (errno != EAGAIN && errno != EINTR) return Io::Closed;
    }
  }
  return Io::Done;
}

Status ChildProcess::send(wire::MessageType type, const std::vector<std::byte>& payload, Deadline deadline) {
  const std::span<const std::byte> whole[] = {payload};
  return send(type, whole, deadline);
}

Status ChildProcess::send(wire::MessageType type, std::span<const std::span<const std::byte>> pieces, Deadline deadline) {
  uint64_t length = 0;
  for (const auto& piece : pieces) length += piece.size();
  wire::FrameHeader h{wire::kMagic, static_cast<uint32_t>(type), length};
  auto io = transfer(reinterpret_cast<const std::byte*>(&h), sizeof h, nullptr, 0, deadline);
  for (size_t i = 0; i < pieces.size() && io == Io::Done; ++i)
    io = transfer(pieces[i].data(), pieces[i].size(), nullptr, 0, deadline);
  if (io == Io::Done) return Ok{};
  if (io == Io::Timeout) return make_error("child.timeout", "the runner did not take its input before the deadline");
  return make_error("child.closed", "the runner closed its input (it exited or crashed)");
}

Result<std::pair<wire::MessageType, std::vector<std::byte>>> ChildProcess::receive(Deadline deadline, uint64_t max_length) {
  wire::FrameHeader h{};
  auto io = transfer(nullptr, 0, reinterpret_cast<std::byte*>(&h), sizeof h, deadline);
  if (io == Io::Timeout) return make_error("child.timeout", "no answer from the runner before the deadline");
  if (io == Io::Closed) return make_error("child.closed", "the runner exited or crashed before answering");
  if (h.magic != wire::kMagic) return make_error("child.protocol", "the runner's answer is corrupted (bad frame magic)");
  if (h.length > max_length)
    return make_error("child.protocol", "the runner's answer is larger than expected (" + std::to_string(h.length) + " bytes)");
  std::vector<std::byte> payload(h.length);
  io = transfer(nullptr, 0, payload.data(), payload.size(), deadline);
  if (io == Io::Timeout) return make_error("child.timeout", "the runner's answer did not complete before the deadline");
  if (io == Io::Closed) return make_error("child.closed", "the runner exited in the middle of its answer");
  return std::pair{static_cast<wire::MessageType>(h.type), std::move(payload)};
}

ExitStatus ChildProcess::wait(Deadline deadline) {
  while (!reap(false)) {
    if (Clock::now() >= deadline) {
      kill();
      reap(true);
      exit_->timed_out = true;
      break;
    }
    pollfd fds[2];
    int n = 0;
    if (out_.fd >= 0) fds[n++] = {out_.fd, POLLIN, 0};
    if (err_.fd >= 0) fds[n++] = {err_.fd, POLLIN, 0};
    if (n > 0) {
      ::poll(fds, static_cast<nfds_t>(n), 5);
      drain(out_);
      drain(err_);
    } else {
      ::usleep(2000);
    }
  }
  drain(out_);
  drain(err_);
  return *exit_;
}

Result<CommandResult> run_command(const std::vector<std::string>& argv, const std::filesystem::path& working_dir,
                                  double timeout_seconds, size_t capture_limit) {
  SpawnOptions opts;
  opts.argv = argv;
  opts.working_dir = working_dir;
  opts.capture_limit = capture_limit;
  auto start = Clock::now();
  auto child = ChildProcess::spawn(opts);
  if (!child) return child.error();
  CommandResult r;
  r.status = (*child)->wait(deadline_after(timeout_seconds));
  r.output = (*child)->stdout_text() + (*child)->stderr_text();
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

TempDir::TempDir(const std::string& prefix) {
  std::random_device rd;
  auto base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto p = base / (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000));
    std::error_code ec;
    if (std::filesystem::create_directory(p, ec)) {
      path_ = p;
      // The isolated runner works here as an unprivileged user.
      std::filesystem::permissions(p, std::filesystem::perms::all, ec);
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary folder under " + base.string());
}

TempDir::~TempDir() {
  if (std::getenv("KGB_KEEP_TEMP")) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace kgb
