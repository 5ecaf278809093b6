// The seccomp filter of candidate and baseline runners: a kernel-level deny
// list that holds whatever machine code the candidate runs (raw `syscall`
// instructions, the 32-bit entry points, code in load-time constructors,
// io_uring), because it is installed before the runner program is executed
// and survives execve.
//
// What it forbids, and how (docs/sandbox.md has the reasons):
//   - reading or writing other processes: ptrace, process_vm_readv/writev,
//     kcmp, pidfd_getfd, process_madvise, perf_event_open: the process dies;
//   - new processes: fork, vfork, a fork-style clone: dies; threads and the
//     vfork-style clone of posix_spawn (PoCL runs the system linker) work;
//     clone3 fails with ENOSYS (glibc then falls back to clone); setsid and
//     setpgid die, so everything started stays in the runner's process
//     group, which the harness stops while it times anything else;
//   - signals to other processes: kill/tgkill/rt_(tg)sigqueueinfo to any pid
//     but its own (or its own group): dies;
//   - priority, I/O priority, resource limits and memory placement of other
//     processes, groups or users: dies unless it names the calling process
//     itself (pid 0 or its own pid); scheduler policy and affinity, and
//     tkill, take a thread's tid and are left to the PID namespace;
//   - network sockets: dies; Unix sockets are allowed (GPU drivers need
//     them; the network namespace and the sandbox uid bound their reach);
//   - io_uring (its operations bypass seccomp), namespaces and mounts,
//     kernel modules, BPF, keys, clocks, reboot, raw port I/O, handle-based
//     opens: dies;
//   - any other system-call ABI (x86's int 0x80 and x32): dies.
// "Dies" is SECCOMP_RET_KILL_PROCESS: the harness sees SIGSYS and names the
// rule (sandbox-syscall); a signal handler of the candidate cannot hide it.
#pragma once

#include <cstdint>
#include <sys/types.h>
#include <vector>

#include <linux/filter.h>

namespace kgb {

class SyscallFilter {
 public:
  // The runner filter for this build's architecture. Built in the parent:
  // installing it (in a freshly cloned child) must not allocate.
  static SyscallFilter for_runners();

  // Installs the filter on the calling thread with `self` as the process's
  // own pid (as the process itself sees it: 1 in a new PID namespace).
  // Async-signal-safe. Needs no_new_privs (or CAP_SYS_ADMIN). Returns 0 or an
  // errno value.
  int install(pid_t self);

  size_t instruction_count() const { return program_.size(); }

 private:
  std::vector<sock_filter> program_;
  std::vector<size_t> self_slots_;      // instructions whose k is the own pid
  std::vector<size_t> neg_self_slots_;  // ... whose k is -pid (own process group)
};

}  // namespace kgb
