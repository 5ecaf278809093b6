// End-to-end evaluations of real candidate sources on the cpu-x86_64 platform:
// real g++, real child processes, real rlimits. Every misbehaving kernel must
// end in a verdict that names what went wrong.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "kgb/evaluator.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

const kgb::Task& scale_task() {
  static kgb::Task task = [] {
    auto t = kgb::load_task_file(std::string(KGB_TEST_DIR) + "/tasks/test/scale/spec.json");
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    return *t;
  }();
  return task;
}

const kgb::Platform& cpu() {
  static kgb::Platform p = [] {
    auto r = kgb::load_platform("cpu-x86_64");
    REQUIRE(r.ok());
    return *r;
  }();
  return p;
}

const std::string& impl() {
  static std::string s = read_file(std::string(KGB_TEST_DIR) + "/kernels/scale_impl.inc");
  return s;
}

const char* kDecl = "extern \"C\" int kgb_test_scale(const kgb_tensor* x, double alpha, kgb_tensor* out, kgb_stream stream)";

std::string kernel(const std::string& body) { return impl() + "\n" + kDecl + " {\n" + body + "\n}\n"; }

kgb::EvalOptions check_only() {
  kgb::EvalOptions o;
  o.time = false;
  o.seed = 42;
  o.check_timeout_seconds = 5;
  return o;
}

bool has_finding(const kgb::Verdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const kgb::Finding& f) { return f.rule == rule; });
}

std::string explain(const kgb::Verdict& v) {
  std::ostringstream os;
  os << kgb::outcome_name(v.outcome) << ": " << v.summary;
  for (const auto& f : v.findings) os << " [" << f.rule << "]";
  return os.str();
}

}  // namespace

TEST_CASE("a correct kernel passes every dtype and layout, including empty and strided outputs") {
  auto v = kgb::evaluate(scale_task(), cpu(), kernel("return scale_impl(x, alpha, out);"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  // 6 cases x 10 dtypes x 2 seeds
  CHECK(v.cases.size() == 120);
  CHECK(std::all_of(v.cases.begin(), v.cases.end(), [](const kgb::CaseCheck& c) { return c.passed; }));
}

// Cases in the "serial" suite run with nothing beside them
// (kgb_core_evaluator_tests.serial, RUN_SERIAL): this one asserts iteration
// counts and the roofline.
TEST_CASE("a correct kernel is timed, re-checked and reported against the roofline" * doctest::test_suite("serial")) {
  auto o = check_only();
  o.time = true;
  o.time_budget_seconds = 0.2;
  o.case_filter = "*";
  auto v = kgb::evaluate(scale_task(), cpu(), kernel("return scale_impl(x, alpha, out);"), o);
  INFO(explain(v));
  REQUIRE(v.outcome == kgb::Outcome::Passed);
  REQUIRE(v.timings.size() == 1);
  CHECK(v.timings[0].candidate.iterations >= 10);
  CHECK(v.timings[0].candidate.median_us > 0);
  CHECK(v.timings[0].rechecked);
  CHECK(v.timings[0].floor_us > 0);
  CHECK(v.timings[0].roofline_fraction > 0);
  CHECK(v.timings[0].roofline_fraction < 1);
}

TEST_CASE("a compile error is parsed into diagnostics with line and column") {
  auto v = kgb::evaluate(scale_task(), cpu(), kernel("int y = undeclared_thing + 1;\n  return scale_impl(x, alpha, out);"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CompileError);
  CHECK(v.stage == kgb::Stage::Compile);
  auto err = std::find_if(v.diagnostics.begin(), v.diagnostics.end(), [](const kgb::Diagnostic& d) { return d.severity == "error"; });
  REQUIRE(err != v.diagnostics.end());
  CHECK(err->file == "candidate.cpp");
  CHECK(err->line > 50);
  CHECK(err->column > 0);
  CHECK(err->message.find("undeclared_thing") != std::string::npos);
}

TEST_CASE("a missing entry point is a link error, not a crash") {
  auto v = kgb::evaluate(scale_task(), cpu(), impl() + "\nextern \"C\" int kgb_test_scale_misnamed(void) { return 0; }\n", check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CompileError);
  CHECK_FALSE(v.diagnostics.empty());
}

TEST_CASE("a wrong kernel is reported with the index and both values") {
  auto v = kgb::evaluate(scale_task(), cpu(),
                         kernel("int rc = scale_impl(x, alpha, out);\n"
                                "  if (x->dtype == KGB_F32 && kgb_numel(x) > 3) ((float*)out->data)[2 * out->strides[1]] += 1.0f;\n"
                                "  return rc;"),
                         check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  auto bad = std::find_if(v.cases.begin(), v.cases.end(), [](const kgb::CaseCheck& c) { return !c.passed; });
  REQUIRE(bad != v.cases.end());
  CHECK(bad->dtype == "f32");
  CHECK(bad->status == "mismatch");
  CHECK(bad->first_bad_index == std::vector<int64_t>{0, 2});
  CHECK_FALSE(bad->expected.empty());
  CHECK_FALSE(bad->got.empty());
  CHECK(bad->expected != bad->got);
  CHECK(bad->max_abs_error == doctest::Approx(1.0).epsilon(0.01));
}

TEST_CASE("a crashing kernel ends in a runtime-error verdict naming the signal and the case") {
  auto v = kgb::evaluate(scale_task(), cpu(), kernel("*(volatile int*)0 = 1; return 0;"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::RuntimeError);
  CHECK(v.summary.find("signal 11") != std::string::npos);
  CHECK(v.summary.find("contiguous") != std::string::npos);
}

TEST_CASE("an infinite loop is killed at the deadline") {
  auto o = check_only();
  o.check_timeout_seconds = 1.5;
  auto start = std::chrono::steady_clock::now();
  auto v = kgb::evaluate(scale_task(), cpu(), kernel("for (volatile int i = 0;; ++i) {}\n  return 0;"), o);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Timeout);
  CHECK(seconds < 15);
}

TEST_CASE("a memory bomb hits the address-space limit and ends in a verdict") {
  kgb::Platform small = cpu();
  small.limits.address_space_mb = 512;  // the descriptor's limit, scaled down to keep the test quick
  auto o = check_only();
  o.check_timeout_seconds = 60;  // page faults are slow on a loaded 2-core machine
  auto v = kgb::evaluate(scale_task(), small,
                         "#include <stdlib.h>\n#include <string.h>\n" +
                             kernel("for (int i = 0; i < 4096; ++i) { void* p = malloc((size_t)1 << 27); if (!p) return 9; memset(p, 1, (size_t)1 << 27); }\n"
                                    "  return scale_impl(x, alpha, out);"),
                         o);
  INFO(explain(v));
  // malloc fails under RLIMIT_AS: the kernel sees NULL and reports it.
  CHECK(v.outcome == kgb::Outcome::RuntimeError);
  REQUIRE_FALSE(v.cases.empty());
  CHECK(v.cases.back().status == "kernel-error");
}

// The bomb fills its process limit (RLIMIT_NPROC, counted per uid). Started
// as root, each candidate has a uid of its own, so other runners keep theirs
// (next test); not root, every candidate shares this user's limit. It runs
// alone either way (the "serial" suite): it also saturates the CPUs.
TEST_CASE("a fork bomb is contained and cleaned up" * doctest::test_suite("serial")) {
  auto o = check_only();
  o.check_timeout_seconds = 2;
  auto v = kgb::evaluate(scale_task(), cpu(), "#include <unistd.h>\n" + kernel("for (;;) fork();\n  return 0;"), o);
  INFO(explain(v));
  // The syscall filter kills the runner at the first fork.
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "sandbox-syscall"));
  // Nothing of it survives: count processes still running this evaluation's
  // candidate binary, which lives in a folder named after this process
  // (kgb-eval-<pid>-...). Other tests and other users run candidates at the
  // same time; those do not count.
  std::ifstream probe("/proc/loadavg");
  CHECK(probe.good());
  const std::string ours = "/kgb-eval-" + std::to_string(::getpid()) + "-";
  int survivors = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream comm(e.path() / "comm");
    std::string name;
    if (!(comm >> name) || name != "candidate") continue;
    std::error_code ec;
    const std::string exe = std::filesystem::read_symlink(e.path() / "exe", ec).string();
    if (!ec && exe.find(ours) != std::string::npos) ++survivors;
  }
  CHECK(survivors == 0);
}

// Concurrent evaluations do not share a process limit: started as root, each
// candidate runs as a uid of its own, so a candidate that fills its
// RLIMIT_NPROC with threads leaves a candidate beside it free to start its
// own (with one shared uid, OpenMP and PoCL runners failed next to such a
// hog, or next to a fork bomb).
TEST_CASE("a candidate that fills its thread limit does not take the limit of one running beside it" * doctest::test_suite("serial")) {
  if (::geteuid() != 0) {
    MESSAGE("skipped: not root, so every candidate runs as this user and shares its process limit");
    return;
  }
  auto o = check_only();
  o.check_timeout_seconds = 20;
  o.case_filter = "one";  // one short case: the hog holds its threads for 5 s, then passes
  const std::string hog_kernel =
      "#include <pthread.h>\n#include <unistd.h>\nstatic void* hold(void* p) { sleep(6); return p; }\n" +
      kernel("static int held = 0;\n"
             "  if (!held) { pthread_t t; while (pthread_create(&t, 0, hold, 0) == 0) ++held; sleep(5); }\n"
             "  return scale_impl(x, alpha, out);");
  kgb::Verdict hog;
  std::thread hogger([&] { hog = kgb::evaluate(scale_task(), cpu(), hog_kernel, o); });
  std::this_thread::sleep_for(std::chrono::seconds(2));  // its compile, then it fills the limit
  const std::string threads_kernel =
      "#include <pthread.h>\nstatic void* idle(void* p) { return p; }\n" +
      kernel("pthread_t t[64]; int made = 0;\n"
             "  for (int i = 0; i < 64; ++i) if (pthread_create(&t[i], 0, idle, 0) == 0) ++made;\n"
             "  for (int i = 0; i < made; ++i) pthread_join(t[i], 0);\n"
             "  if (made < 64) return 7;\n"
             "  return scale_impl(x, alpha, out);");
  auto beside = kgb::evaluate(scale_task(), cpu(), threads_kernel, check_only());
  hogger.join();
  INFO("hog: " << explain(hog) << "\nbeside it: " << explain(beside));
  CHECK(beside.outcome == kgb::Outcome::Passed);
}

TEST_CASE("a kernel that writes its input is caught") {
  auto v = kgb::evaluate(scale_task(), cpu(),
                         kernel("int rc = scale_impl(x, alpha, out);\n"
                                "  if (kgb_numel(x) > 0) memset(x->data, 0, (size_t)kgb_dtype_size(x->dtype));\n  return rc;"),
                         check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "input-mutated"));
}

TEST_CASE("a kernel that leaves the poisoned output untouched is caught") {
  auto v = kgb::evaluate(scale_task(), cpu(), kernel("return 0;"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(has_finding(v, "output-untouched"));
}

TEST_CASE("writing outside the output view is caught") {
  auto v = kgb::evaluate(scale_task(), cpu(),
                         kernel("int rc = scale_impl(x, alpha, out);\n"
                                "  if (out->strides[1] > 1 && kgb_numel(out) > 0) memset((char*)out->data + kgb_dtype_size(out->dtype), 0, 1);\n"
                                "  return rc;"),
                         check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "wrote-outside-output"));
}

TEST_CASE("a kernel returning an error code is a runtime error with the code") {
  auto v = kgb::evaluate(scale_task(), cpu(), kernel("return x->dtype == KGB_C128 ? KGB_ERR_UNSUPPORTED : scale_impl(x, alpha, out);"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::RuntimeError);
  auto bad = std::find_if(v.cases.begin(), v.cases.end(), [](const kgb::CaseCheck& c) { return !c.passed; });
  REQUIRE(bad != v.cases.end());
  CHECK(bad->dtype == "c128");
  CHECK(bad->message.find("returned 1") != std::string::npos);
}

TEST_CASE("a nondeterministic kernel is caught by the repeat call") {
  auto v = kgb::evaluate(scale_task(), cpu(),
                         kernel("static int calls = 0; ++calls;\n"
                                "  int rc = scale_impl(x, alpha, out);\n"
                                "  if (x->dtype == KGB_F64 && kgb_numel(out) > 0 && calls % 2 == 0) { double* o = (double*)out->data; *o = *o * (1 + 1e-12); }\n"
                                "  return rc;"),
                         check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "nondeterministic"));
}

TEST_CASE("a kernel that replays a cached result is caught by rotating inputs while timing" * doctest::test_suite("serial")) {
  auto o = check_only();
  o.time = true;
  o.time_budget_seconds = 0.2;
  // The hack only kicks in on the large performance case: correctness passes.
  auto v = kgb::evaluate(scale_task(), cpu(),
                         "#include <stdlib.h>\n" +
                             kernel("static float* cache = 0;\n"
                                    "  if (kgb_numel(x) < 1000000) return scale_impl(x, alpha, out);\n"
                                    "  size_t bytes = (size_t)kgb_numel(x) * 4;\n"
                                    "  if (!cache) { cache = (float*)malloc(bytes); int rc = scale_impl(x, alpha, out); memcpy(cache, out->data, bytes); return rc; }\n"
                                    "  memcpy(out->data, cache, bytes); return 0;"),
                         o);
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "timed-output-wrong"));
}

TEST_CASE("a kernel flooding stdout is captured with a cap and still judged") {
  auto v = kgb::evaluate(scale_task(), cpu(),
                         "#include <stdio.h>\n" + kernel("for (int i = 0; i < 20000; ++i) printf(\"noise line %d\\n\", i);\n  return scale_impl(x, alpha, out);"),
                         check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(v.child_stdout.size() < 10000);
  CHECK(v.child_stdout.find("noise line") != std::string::npos);
}

// Network access is not merely unreachable (own network namespace) but
// forbidden: a socket of any network family kills the runner (see
// sandbox_test.cpp and cheats/sandbox/network_socket.cpp).
TEST_CASE("the kernel runs as an unprivileged user in a PID namespace of its own when started as root") {
  auto v = kgb::evaluate(scale_task(), cpu(),
                         "#include <stdio.h>\n#include <unistd.h>\n" +
                             kernel("static int reported = 0;\n"
                                    "  if (!reported) { reported = 1;\n"
                                    "    fprintf(stderr, \"uid=%d pid=%d ppid=%d\\n\", (int)getuid(), (int)getpid(), (int)getppid()); }\n"
                                    "  return scale_impl(x, alpha, out);"),
                         check_only());
  INFO(explain(v));
  REQUIRE(v.outcome == kgb::Outcome::Passed);
  if (geteuid() == 0) {
    // An unprivileged uid of its own, from the sandbox range (2^30 + [0, 2^20)).
    const auto at = v.child_stderr.find("uid=");
    REQUIRE(at != std::string::npos);
    const long long uid = std::stoll(v.child_stderr.substr(at + 4));
    CHECK(uid >= (1ll << 30));
    CHECK(uid < (1ll << 30) + (1ll << 20));
  }
  // Pid 1 of its own namespace, the harness outside it (ppid 0), as root and,
  // through a user namespace, as an ordinary user.
  CHECK(v.child_stderr.find("pid=1 ppid=0") != std::string::npos);
}
