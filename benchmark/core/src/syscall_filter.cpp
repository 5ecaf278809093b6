#include "kgb/syscall_filter.h"

#include <cerrno>
#include <cstddef>

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

namespace kgb {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "argument words are read as little-endian");

#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
constexpr uint32_t kX32Bit = 0x40000000u;  // __X32_SYSCALL_BIT
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
#error "the runner syscall filter knows x86_64 and aarch64"
#endif

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kDie = SECCOMP_RET_KILL_PROCESS;
constexpr uint32_t errno_ret(int e) { return SECCOMP_RET_ERRNO | (static_cast<uint32_t>(e) & SECCOMP_RET_DATA); }

constexpr uint32_t kNrOffset = offsetof(struct seccomp_data, nr);
constexpr uint32_t kArchOffset = offsetof(struct seccomp_data, arch);
constexpr uint32_t arg_low(int i) { return offsetof(struct seccomp_data, args) + 8 * static_cast<uint32_t>(i); }

// Calls that die whatever their arguments.
constexpr long kDeadly[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp, SYS_perf_event_open,
#ifdef SYS_pidfd_getfd
    SYS_pidfd_getfd,
#endif
#ifdef SYS_process_madvise
    SYS_process_madvise,
#endif
#ifdef SYS_process_mrelease
    SYS_process_mrelease,
#endif
#ifdef SYS_fork
    SYS_fork,
#endif
#ifdef SYS_vfork
    SYS_vfork,
#endif
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
    SYS_setsid, SYS_setpgid,  // leaving the process group the harness stops and kills
    SYS_unshare, SYS_setns, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot,
#ifdef SYS_open_tree
    SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
#endif
#ifdef SYS_mount_setattr
    SYS_mount_setattr,
#endif
    SYS_bpf, SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_kexec_load,
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
    SYS_reboot, SYS_swapon, SYS_swapoff, SYS_acct, SYS_quotactl,
    SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex,
#ifdef SYS_iopl
    SYS_iopl, SYS_ioperm,
#endif
    SYS_open_by_handle_at, SYS_name_to_handle_at,
};

// Calls whose first argument is a pid: allowed for 0 and the own pid, else
// they touch another process and die. The scheduler calls (affinity, policy)
// and tkill take any pid: the own threads' tids are other pids, drivers set
// their threads' scheduling, and in the runner's PID namespace every pid it
// can name is its own thread or child.
constexpr long kOwnPidOrDie[] = {
    SYS_prlimit64, SYS_migrate_pages, SYS_move_pages,
#ifdef SYS_pidfd_open
    SYS_pidfd_open,
#endif
};

// Signals: to itself (pid 0, own pid, own group) only; anything else dies.
constexpr long kSignalByPid[] = {SYS_kill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo};

class Builder {
 public:
  std::vector<sock_filter> code;
  std::vector<size_t> self_slots, neg_self_slots;

  void stmt(uint16_t op, uint32_t k) { code.push_back(BPF_STMT(op, k)); }
  void jump(uint16_t op, uint32_t k, uint8_t jt, uint8_t jf) { code.push_back(BPF_JUMP(op, k, jt, jf)); }
  void load(uint32_t offset) { stmt(BPF_LD | BPF_W | BPF_ABS, offset); }
  void ret(uint32_t action) { stmt(BPF_RET | BPF_K, action); }

  // Every rule starts with the syscall number in the accumulator and ends in
  // a return, so each block is "if nr != N skip the block".
  void simple(long nr, uint32_t action) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 1);
    ret(action);
  }

  // nr with argument `arg` (its low 32 bits) equal to 0, the own pid or (with
  // group) minus the own pid: allowed; otherwise `otherwise`.
  void own_pid(long nr, int arg, bool zero_ok, bool group, uint32_t otherwise) {
    const uint8_t body = static_cast<uint8_t>(2 + (zero_ok ? 1 : 0) + 1 + (group ? 1 : 0) + 1);
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, body);
    load(arg_low(arg));
    // Distances to the final "allow": count the checks still ahead.
    uint8_t ahead = static_cast<uint8_t>(1 + (group ? 1 : 0));  // the own-pid check, the group check
    if (zero_ok) jump(BPF_JMP | BPF_JEQ | BPF_K, 0, static_cast<uint8_t>(ahead + 1), 0);
    self_slots.push_back(code.size());
    jump(BPF_JMP | BPF_JEQ | BPF_K, 0, static_cast<uint8_t>(ahead), 0);
    if (group) {
      neg_self_slots.push_back(code.size());
      jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
    }
    ret(otherwise);
    ret(kAllow);
  }

  // setpriority(which, who) and ioprio_set(which, who): only "this process";
  // a user's or a group's priority reaches the baseline runner: dies.
  void own_process_who(long nr, uint32_t which_process) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 7);
    load(arg_low(0));
    jump(BPF_JMP | BPF_JEQ | BPF_K, which_process, 0, 3);
    load(arg_low(1));
    jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0);
    self_slots.push_back(code.size());
    jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
    ret(kDie);
    ret(kAllow);
  }
};

}  // namespace

SyscallFilter SyscallFilter::for_runners() {
  Builder b;
  // Another ABI's entry point (x86's int 0x80, an arm32 process) has other
  // numbers: nothing below would mean anything there.
  b.load(kArchOffset);
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0);
  b.ret(kDie);
  b.load(kNrOffset);
#ifdef __x86_64__
  b.jump(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, 0, 1);
  b.ret(kDie);
#endif
  for (long nr : kDeadly) b.simple(nr, kDie);
#ifdef SYS_clone3
  // glibc tries clone3 first and falls back to clone on ENOSYS; clone3's flags
  // live in memory, where the filter cannot read them.
  b.simple(SYS_clone3, errno_ret(ENOSYS));
#endif
  // clone: threads, and the vfork-style clone of posix_spawn (the child
  // shares the memory and must exec or exit): PoCL starts the system linker
  // that way for every program it builds. A fork-style copy dies. Whatever
  // is started stays in the runner's process group (setsid and setpgid die
  // below), so the harness stops it with the runner.
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 6);
  b.load(arg_low(0));
  b.jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 3, 0);
  b.stmt(BPF_ALU | BPF_AND | BPF_K, CLONE_VM | CLONE_VFORK);
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, CLONE_VM | CLONE_VFORK, 1, 0);
  b.ret(kDie);
  b.ret(kAllow);
  // socket: Unix sockets only (refusing them, foreign tids' scheduling and
  // tkill broke the CUDA driver's start-up: cudaErrorOperatingSystem); in the
  // runner's network namespace abstract names reach nothing outside, and a
  // path socket only what the sandbox uid may write. Any other family dies.
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 4);
  b.load(arg_low(0));
  b.jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1);
  b.ret(kAllow);
  b.ret(kDie);
  for (long nr : kSignalByPid) {
    const bool group = nr == SYS_kill;  // kill(-pgid): the runner leads its own group
    b.own_pid(nr, 0, nr == SYS_kill, group, kDie);
  }
  for (long nr : kOwnPidOrDie) b.own_pid(nr, 0, true, false, kDie);
  b.own_process_who(SYS_setpriority, 0 /* PRIO_PROCESS */);
  b.own_process_who(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */);
  b.ret(kAllow);

  SyscallFilter f;
  f.program_ = std::move(b.code);
  f.self_slots_ = std::move(b.self_slots);
  f.neg_self_slots_ = std::move(b.neg_self_slots);
  return f;
}

int SyscallFilter::install(pid_t self) {
  for (size_t i : self_slots_) program_[i].k = static_cast<uint32_t>(self);
  // -pid names the own process group; but as pid 1 (a new PID namespace) -1
  // would be "every process": then only kill(0) names the group.
  for (size_t i : neg_self_slots_) program_[i].k = self == 1 ? 0u : static_cast<uint32_t>(-self);
  struct sock_fprog prog{static_cast<unsigned short>(program_.size()), program_.data()};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) return errno;
  return 0;
}

}  // namespace kgb
