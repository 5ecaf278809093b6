// The OpenCL backend end to end on PoCL: real g++, real OpenCL runtime, real
// isolated runner processes. Broken kernels must end in the verdict that names
// the problem. (Every bundled OpenCL solution is evaluated on PoCL by the
// per-task tests validate.pocl.<source>.<name>, tests/validate.)
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// opencl-pocl as shipped. (A kernel cache shared across runs does not work:
// each sandboxed runner has a uid of its own, and PoCL's cache entries are
// private to the uid that wrote them, so a later runner failed to build.)
const kgb::Platform& pocl() {
  static kgb::Platform p = [] {
    auto r = kgb::load_platform("opencl-pocl");
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    return *r;
  }();
  return p;
}

const std::vector<kgb::Task>& tasks() {
  static std::vector<kgb::Task> all = kgb::load_all_tasks(kgb::tasks_root()).tasks;
  return all;
}

const kgb::Task& task(const std::string& id) {
  for (const auto& t : tasks())
    if (t.id == id) return t;
  REQUIRE_MESSAGE(false, "task " << id << " not found");
  return tasks().front();
}

kgb::EvalOptions check_only() {
  kgb::EvalOptions o;
  o.time = false;
  o.seed = 7;
  o.seeds_per_case = 1;
  o.check_timeout_seconds = 120;  // PoCL compiles each program on first use
  return o;
}

std::string explain(const kgb::Verdict& v) {
  std::ostringstream os;
  os << kgb::outcome_name(v.outcome) << ": " << v.summary;
  for (const auto& f : v.findings) os << " [" << f.rule << "]";
  if (!v.child_stderr.empty()) os << "\nstderr: " << v.child_stderr.substr(0, 2000);
  return os.str();
}

bool has_finding(const kgb::Verdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const kgb::Finding& f) { return f.rule == rule; });
}

std::string kernel_file(const std::string& name) { return read_file(std::filesystem::path(KGB_TEST_DIR) / "kernels" / name); }

}  // namespace

TEST_CASE("opencl-pocl is available and opencl-nvidia says why it is not") {
  auto a = kgb::check_availability(pocl());
  INFO(a.reason);
  CHECK(a.available);
  auto nvidia = kgb::load_platform("opencl-nvidia");
  REQUIRE(nvidia.ok());
  auto b = kgb::check_availability(*nvidia);
  if (!b.available) CHECK(b.reason.find("nvidia") != std::string::npos);
}

TEST_CASE("an OpenCL C build error becomes a compile error at the launcher line") {
  const std::string source = kernel_file("saxpy_build_error.cpp");
  int expected_line = 1;
  for (size_t at = 0; at < source.find("BUILD-ERROR-LINE"); ++at) expected_line += source[at] == '\n';
  kgb::Verdict v = kgb::evaluate(task("blas/saxpy"), pocl(), source, check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CompileError);
  auto error = std::find_if(v.diagnostics.begin(), v.diagnostics.end(),
                            [](const kgb::Diagnostic& d) { return d.severity == "error"; });
  REQUIRE(error != v.diagnostics.end());
  CHECK(error->file == "candidate.cpp");
  CHECK(error->line == expected_line);
  CHECK(error->column > 0);
  CHECK(error->message.find("xx") != std::string::npos);
}

TEST_CASE("a write past the end of a tensor's storage is caught by the guard zones") {
  kgb::Verdict v = kgb::evaluate(task("blas/saxpy"), pocl(), kernel_file("saxpy_out_of_bounds.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::RuntimeError);
  CHECK(v.summary.find("out-of-bounds write") != std::string::npos);
}

TEST_CASE("a call that computes on the host and writes the result into the output buffer is rejected") {
  // No kernel either; the host write into y's buffer is seen first.
  kgb::Verdict v = kgb::evaluate(task("blas/saxpy"), pocl(), kernel_file("saxpy_host_compute.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "host-device-access"));
}

TEST_CASE("outputs computed on the host through a map or a sub-buffer write are rejected, with a kernel beside them") {
  for (const char* file : {"saxpy_mapped_output.cpp", "saxpy_subbuffer_write.cpp"}) {
    CAPTURE(file);
    kgb::Verdict v = kgb::evaluate(task("blas/saxpy"), pocl(), kernel_file(file), check_only());
    INFO(explain(v));
    CHECK(v.outcome == kgb::Outcome::CheatDetected);
    CHECK(has_finding(v, "host-device-access"));
    CHECK(v.summary.find("device allocation #") != std::string::npos);
  }
}

TEST_CASE("a kernel enqueued on a queue of the candidate's own is rejected") {
  kgb::Verdict v = kgb::evaluate(task("blas/saxpy"), pocl(), kernel_file("saxpy_own_queue.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "foreign-queue"));
}

TEST_CASE("reading an input back to the host is allowed (aten/item's bundled solution)") {
  const kgb::Task& item = task("aten/item");
  kgb::Verdict v = kgb::evaluate(item, pocl(), *kgb::bundled_solution(item, "opencl.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
}

TEST_CASE("an in-place list the reference leaves as it came needs no device work, and only then") {
  // blas/sgemv_batched's n0_leaves_y and m0_leaves_y_op_t cases: BLAS returns
  // at once when m or n is 0, so the bundled solution enqueues nothing there.
  const std::string solution = read_file(kgb::tasks_root() / "blas" / "sgemv_batched" / "solutions" / "opencl.cpp");
  kgb::Verdict v = kgb::evaluate(task("blas/sgemv_batched"), pocl(), solution, check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK_FALSE(has_finding(v, "no-device-work"));

  kgb::Verdict idle = kgb::evaluate(task("blas/sgemv_batched"), pocl(), kernel_file("sgemv_batched_does_nothing.cpp"), check_only());
  INFO(explain(idle));
  CHECK(idle.outcome != kgb::Outcome::Passed);
  CHECK(has_finding(idle, "no-device-work"));
}

TEST_CASE("a wrong kernel is a wrong result") {
  kgb::Verdict v = kgb::evaluate(task("blas/saxpy"), pocl(), kernel_file("saxpy_wrong.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  auto bad = std::find_if(v.cases.begin(), v.cases.end(), [](const kgb::CaseCheck& c) { return !c.passed; });
  REQUIRE(bad != v.cases.end());
  CHECK(bad->status == "mismatch");
}

// Asserts iteration counts and host-versus-device medians: the "serial" suite,
// run by ctest with nothing beside it (kgb_opencl_tests.serial, RUN_SERIAL).
TEST_CASE("a correct OpenCL kernel is timed with device events next to its baseline" * doctest::test_suite("serial")) {
  kgb::EvalOptions o = check_only();
  o.time = true;
  o.time_budget_seconds = 0.3;
  o.case_filter = "n_4M_inc2";
  kgb::Verdict v = kgb::evaluate(task("blas/saxpy"), pocl(), *kgb::bundled_solution(task("blas/saxpy"), "opencl.cpp"), o);
  INFO(explain(v));
  REQUIRE(v.timings.size() == 1);
  const auto& t = v.timings[0];
  CHECK(t.candidate.iterations >= 3);
  CHECK(t.candidate.median_us > 0);
  CHECK(t.candidate_host.median_us >= t.candidate.median_us * 0.5);
  CHECK(t.rechecked);
  CHECK(t.baseline.has_value());
  CHECK_FALSE(t.baseline_kind.empty());
  // A loaded 2-core machine can make the host clock look slow; the verdict
  // itself is only asserted when the hybrid check is quiet.
  if (!has_finding(v, "hybrid-timing-mismatch")) CHECK(v.outcome == kgb::Outcome::Passed);
}

// Host work between device commands is not device time: a result computed on
// the host and published by a device copy passes the check (right values,
// device work present, no harness buffer written from the host) and is caught
// when timed, where the host clock far exceeds the commands' own time.
TEST_CASE("a host-computed result published by a copy and a no-op kernel fails the hybrid timing check" *
          doctest::test_suite("serial")) {
  kgb::Verdict checked = kgb::evaluate(task("blas/saxpy"), pocl(), kernel_file("saxpy_host_publish.cpp"), check_only());
  INFO(explain(checked));
  CHECK(checked.outcome == kgb::Outcome::Passed);

  kgb::EvalOptions o = check_only();
  o.time = true;
  o.time_budget_seconds = 0.3;
  o.case_filter = "n_4M_inc2";
  kgb::Verdict timed = kgb::evaluate(task("blas/saxpy"), pocl(), kernel_file("saxpy_host_publish.cpp"), o);
  INFO(explain(timed));
  CHECK(timed.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(timed, "hybrid-timing-mismatch"));
}
