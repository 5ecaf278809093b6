// The runner sandbox at the kernel level (kgb/syscall_filter.h, the user
// namespace of process.cpp): the corpus under cheats/sandbox/ evaluated end to
// end on cpu-x86_64 with real g++ and real runners, as root and, where this
// tree is readable by an unprivileged user, as that user too. Every cheat
// must end in cheat-detected with the rule sandbox-syscall; the legitimate
// look-alike must pass.
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/syscall_filter.h"
#include "kgb/task.h"
#include "v2_candidate_support.h"

namespace {

using kgb_v2_test::cpu;
using kgb_v2_test::read_text;

const kgb::Task& scale_task() {
  static kgb::Task task = [] {
    auto t = kgb::load_task_file(std::string(KGB_TEST_DIR) + "/tasks/test/scale/spec.json");
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    return *t;
  }();
  return task;
}

// A line "// kgb-cheat-include: NAME" in a corpus file stands for the file
// NAME beside it (code several cheats share).
std::string expand_cheat_include(const std::string& path) {
  const std::string text = read_text(path);
  const std::string marker = "// kgb-cheat-include: ";
  const size_t at = text.find(marker);
  if (at == std::string::npos) return text;
  const size_t end = text.find('\n', at);
  const std::string name = text.substr(at + marker.size(), end - at - marker.size());
  const std::string folder = path.substr(0, path.rfind('/') + 1);
  return text.substr(0, at) + read_text(folder + name) + text.substr(end);
}

// A corpus file is the body of a candidate: the correct scale kernel first,
// then the file, whose entry point is spelled KGB_CHEAT_ENTRY. A bare name is
// under cheats/sandbox/, "dir/name" under cheats/dir/.
std::string candidate(const std::string& file) {
  const std::string dir = std::string(KGB_TEST_DIR);
  return read_text(dir + "/kernels/scale_impl.inc") +
         "\n#define KGB_CHEAT_ENTRY extern \"C\" int kgb_test_scale(const kgb_tensor* x, double alpha, kgb_tensor* out, "
         "kgb_stream stream)\n" +
         expand_cheat_include(dir + "/cheats/" + (file.find('/') == std::string::npos ? "sandbox/" + file : file));
}

kgb::EvalOptions check_only() {
  kgb::EvalOptions o;
  o.time = false;
  o.seed = 42;
  o.check_timeout_seconds = 10;
  return o;
}

struct Outcome {
  std::string outcome;  // outcome_name
  std::string rules;    // the findings' rules, space-separated
  std::string summary;
};

Outcome summarise(const kgb::Verdict& v) {
  Outcome o{std::string(kgb::outcome_name(v.outcome)), "", v.summary};
  for (const auto& f : v.findings) o.rules += f.rule + " ";
  return o;
}

Outcome evaluate_here(const std::string& file) { return summarise(kgb::evaluate(scale_task(), cpu(), candidate(file), check_only())); }

// The same evaluation in a child process running as an ordinary user (uid
// and gid 65534, no capabilities). nullopt when this tree or the compiler's
// files cannot be read by that user (the reason goes to the log).
std::optional<Outcome> evaluate_as_user(const kgb::Task& task, const std::string& source, const kgb::EvalOptions& options) {
  scale_task();
  cpu();
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    auto send = [&](const std::string& text) {
      const char* p = text.data();
      size_t left = text.size();
      while (left > 0) {
        ssize_t n = ::write(fds[1], p, left);
        if (n <= 0) break;
        p += n;
        left -= static_cast<size_t>(n);
      }
      ::_exit(0);
    };
    if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
      send("skip\ncannot become uid 65534: " + std::string(std::strerror(errno)));
    if (::access((std::string(KGB_TEST_DIR) + "/kernels/scale_impl.inc").c_str(), R_OK) != 0)
      send("skip\nthis source tree is not readable by uid 65534");
    ::setenv("TMPDIR", "/tmp", 1);
    ::setenv("HOME", "/tmp", 1);
    Outcome o = summarise(kgb::evaluate(task, cpu(), source, options));
    send(o.outcome + "\n" + o.rules + "\n" + o.summary);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::istringstream in(text);
  Outcome o;
  std::getline(in, o.outcome);
  std::getline(in, o.rules);
  std::getline(in, o.summary, '\0');
  if (o.outcome == "skip") {
    MESSAGE("not run as an ordinary user: " << o.rules);
    return std::nullopt;
  }
  return o;
}

const std::vector<std::string> kCheats = {
    "raw_bytes_process_vm_readv.cpp", "constructor_fork_helper.cpp", "preinit_raw_clone.cpp",
    "signal_every_process.cpp",       "renice_same_user.cpp",        "network_socket.cpp",
    "io_uring_bypass.cpp",            "int80_getppid.cpp",           "ptrace_parent.cpp",
};

// Whether this kernel has the 32-bit system-call entry at all: a child that
// issues `int 0x80` (getpid) outside any sandbox. Kernels built or booted
// without IA32 emulation answer with SIGSEGV.
bool kernel_has_int80_entry() {
  static const bool has = [] {
    const pid_t pid = ::fork();
    if (pid == 0) {
      long result = 0;
      __asm__ volatile("int $0x80" : "=a"(result) : "a"(20L) : "memory");
      ::_exit(result > 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return !(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
  }();
  return has;
}

void require_sandbox_reject(const Outcome& o, const std::string& file) {
  INFO(file << ": " << o.outcome << ": " << o.summary << " [" << o.rules << "]");
  if (file.rfind("int80_", 0) == 0 && !kernel_has_int80_entry()) {
    // No 32-bit entry on this kernel: the instruction faults before any
    // filter sees it, so the cheat dies without reaching a system call.
    MESSAGE(file << ": this kernel has no 32-bit system-call entry (int 0x80 faults outside the sandbox too)");
    CHECK(o.outcome == "runtime-error");
    CHECK(o.summary.find("Segmentation fault") != std::string::npos);
    return;
  }
  CHECK(o.outcome == "cheat-detected");
  CHECK(o.rules.find("sandbox-syscall") != std::string::npos);
}

}  // namespace

TEST_CASE("the runner filter is a small straight-line program") {
  auto f = kgb::SyscallFilter::for_runners();
  CHECK(f.instruction_count() > 40);
  CHECK(f.instruction_count() < 400);  // classic BPF jumps reach 255 ahead: blocks stay short
}

TEST_CASE("every sandbox cheat of the corpus dies with the rule named, started as this user") {
  for (const auto& file : kCheats) {
    SUBCASE(file.c_str()) { require_sandbox_reject(evaluate_here(file), file); }
  }
}

TEST_CASE("the legitimate look-alike passes: threads, OpenMP, signals and scheduling on itself") {
  Outcome o = evaluate_here("legit_threads_and_self.cpp");
  INFO(o.summary << " [" << o.rules << "]");
  CHECK(o.outcome == "passed");
}

TEST_CASE("started by an ordinary user, the sandbox holds the same: namespaces and filter" * doctest::test_suite("serial")) {
  if (::geteuid() != 0) {
    // Already an ordinary user: the cases above are this case.
    MESSAGE("running as uid " << ::geteuid() << ": covered by the cases above");
    return;
  }
  for (const std::string file : {"raw_bytes_process_vm_readv.cpp", "constructor_fork_helper.cpp", "signal_every_process.cpp",
                                 "renice_same_user.cpp", "network_socket.cpp", "ptrace_parent.cpp"}) {
    auto o = evaluate_as_user(scale_task(), candidate(file), check_only());
    if (!o) return;
    require_sandbox_reject(*o, file);
  }
  auto legit = evaluate_as_user(scale_task(), candidate("legit_threads_and_self.cpp"), check_only());
  REQUIRE(legit);
  INFO(legit->summary << " [" << legit->rules << "]");
  CHECK(legit->outcome == "passed");
}

// Results carried from an earlier call (cheats/carried/): the timed calls run
// on outputs re-poisoned before every call and on descriptors rebuilt before
// every call, so neither channel carries anything.
TEST_CASE("timed calls start from re-poisoned outputs and fresh descriptors" * doctest::test_suite("serial")) {
  kgb::EvalOptions o = check_only();
  o.time = true;
  o.time_budget_seconds = 0.2;
  for (const std::string file : {"carried/stale_output_sample.cpp", "carried/shrinking_descriptor.cpp"}) {
    auto v = kgb::evaluate(scale_task(), cpu(), candidate(file), o);
    INFO(file << ": " << kgb::outcome_name(v.outcome) << ": " << v.summary << "\nstderr: " << v.child_stderr);
    // Honest work every call: passes, and never found its earlier result.
    CHECK(v.outcome == kgb::Outcome::Passed);
    CHECK(v.child_stderr.find("stale-skip") == std::string::npos);
    CHECK(v.child_stderr.find("shrunk-descriptor-seen") == std::string::npos);
  }
}

// Timing that trusts the candidate's process (cheats/timing/): a forged
// standard-library clock and per-call times rewritten in the runner's memory
// both make the candidate look several times faster than the work it did;
// the parent's own clock around every block, less the overhead the baseline
// measured, is meant not to match (timing-unaccounted, a warning for now). The
// honest kernel and one that reads the clock for itself pass. The bound
// needs a baseline: these run on blas/saxpy (test/scale has none), the corpus
// wrapped around its bundled CPU solution.
const kgb::Task& saxpy_task() {
  static kgb::Task task = [] {
    auto t = kgb::load_task_file(kgb::tasks_root() / "blas" / "saxpy" / "spec.json");
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    return *t;
  }();
  return task;
}

std::string saxpy_candidate(const std::string& file) {
  std::string solution = *kgb::bundled_solution(saxpy_task(), "cpu.cpp");
  const std::string entry = "extern \"C\" int kgb_blas_saxpy(";
  solution.replace(solution.find(entry), entry.size(), "static int honest_saxpy(");
  return solution +
         "\n#define KGB_CHEAT_ENTRY extern \"C\" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* out, "
         "kgb_stream stream)\n#define scale_impl(x, alpha, out) honest_saxpy(alpha, x, out, stream)\n" +
         expand_cheat_include(std::string(KGB_TEST_DIR) + "/cheats/timing/" + file);
}

kgb::EvalOptions timed() {
  kgb::EvalOptions o = check_only();
  o.time = true;
  o.time_budget_seconds = 0.3;
  o.case_filter = "n_4M_inc2";
  return o;
}

// timing-unaccounted is a warning and not yet reliable on a loaded host
// (docs/integrity.md, Known gaps): the corpus's forgers are not evaluated
// here; the legitimate kernels must pass with the bound in place (the forged
// clock is lint's, tests/lint/lint_symbols_test.cpp).
void require_timed_pass(const Outcome& o, const std::string& file) {
  INFO(file << ": " << o.outcome << ": " << o.summary << " [" << o.rules << "]");
  CHECK(o.outcome == "passed");
}

TEST_CASE("timing cheats under the outside bound: the legitimate look-alikes pass, started as this user" * doctest::test_suite("serial")) {
  require_timed_pass(summarise(kgb::evaluate(saxpy_task(), cpu(), saxpy_candidate("legit_reads_clock.cpp"), timed())),
                     "legit_reads_clock.cpp");
  require_timed_pass(summarise(kgb::evaluate(saxpy_task(), cpu(), *kgb::bundled_solution(saxpy_task(), "cpu.cpp"), timed())),
                     "bundled solution");
}

TEST_CASE("timing cheats under the outside bound when an ordinary user starts kgb" * doctest::test_suite("serial")) {
  if (::geteuid() != 0) {
    MESSAGE("running as uid " << ::geteuid() << ": covered by the case above");
    return;
  }
  auto legit = evaluate_as_user(saxpy_task(), saxpy_candidate("legit_reads_clock.cpp"), timed());
  if (!legit) return;  // this tree is not readable by uid 65534 (the reason is in the log)
  require_timed_pass(*legit, "legit_reads_clock.cpp");
}
