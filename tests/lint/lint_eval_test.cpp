// Lint as stage 1 of `kgb eval` and the symbol check after the compile,
// through the hooks the kgb executable installs (kgb::lint::eval_hooks()).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "kgb/evaluator.h"
#include "kgb/lint.h"
#include "kgb/paths.h"
#include "kgb/process.h"

namespace {

using namespace kgb;

bool has_rule(const std::vector<Finding>& findings, const std::string& rule, const std::string& severity) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return f.rule == rule && f.severity == severity; });
}

struct Fixture {
  Task task;
  Platform platform;
};

Fixture saxpy_on_cpu() {
  auto platform = load_platform("cpu-x86_64");
  REQUIRE_MESSAGE(platform.ok(), (platform.ok() ? "" : platform.error().message));
  auto task = load_task_file(tasks_root() / "blas" / "saxpy" / "spec.json");
  REQUIRE_MESSAGE(task.ok(), (task.ok() ? "" : task.error().message));
  return {*task, *platform};
}

// The task's entry point with a body; `prefix` goes before it.
std::string with_body(const Task& task, const std::string& prefix, const std::string& body) {
  std::string declaration = entry_declaration(task);
  REQUIRE(!declaration.empty());
  REQUIRE(declaration.back() == ';');
  declaration.pop_back();
  return "#include \"kgb_kernel.h\"\n" + prefix + "\n" + declaration + " {\n" + body + "\n}\n";
}

}  // namespace

TEST_CASE("a rejecting lint finding ends the evaluation before the compile") {
  const Fixture f = saxpy_on_cpu();
  const std::string source = with_body(f.task, "#include <cstdlib>\nstatic float* g_previous_result;",
                                       "  if (std::getenv(\"KGB_CACHE\")) return g_previous_result != nullptr;\n"
                                       "  return 0;");
  EvalOptions options;
  options.time = false;
  options.seed = 1;
  const Verdict verdict = evaluate(f.task, f.platform, source, options, lint::eval_hooks());
  INFO(verdict.summary);
  CHECK(verdict.outcome == Outcome::LintRejected);
  CHECK(verdict.stage == Stage::Lint);
  CHECK(verdict.compile_seconds == 0);
  CHECK(verdict.lint_seconds > 0);
  CHECK(has_rule(verdict.findings, "mutable-global-state", "reject"));
  CHECK(has_rule(verdict.findings, "process-escape", "reject"));
  CHECK(verdict.summary.find("lint rejected the source") != std::string::npos);
  for (const auto& finding : verdict.findings) CHECK(finding.message.find("Fix: ") != std::string::npos);

  // With lint switched off the same source reaches the compile stage.
  options.lint = false;
  const Verdict unchecked = evaluate(f.task, f.platform, source, options, lint::eval_hooks());
  CHECK(unchecked.stage != Stage::Lint);
  CHECK_FALSE(has_rule(unchecked.findings, "mutable-global-state", "reject"));
}

TEST_CASE("a clean source passes lint and goes on to the compile") {
  const Fixture f = saxpy_on_cpu();
  const std::string source =
      with_body(f.task, "", "  (void)alpha; (void)x; (void)y; (void)stream;\n  return 0;");
  EvalOptions options;
  options.time = false;
  options.seed = 1;
  const Verdict verdict = evaluate(f.task, f.platform, source, options, lint::eval_hooks());
  INFO(verdict.summary);
  CHECK(verdict.stage != Stage::Lint);
  CHECK(verdict.outcome != Outcome::LintRejected);
  CHECK_FALSE(has_rule(verdict.findings, "entry-signature", "reject"));
}

TEST_CASE("the symbol check after the compile catches what the source rules do not know") {
  const Fixture f = saxpy_on_cpu();
  // Neither name is on a source rule's list, and both are declared by hand:
  // only the object's undefined symbols show them.
  const std::string source = with_body(f.task, "extern \"C\" int getpid();\nextern \"C\" int sched_yield();",
                                       "  (void)alpha; (void)x; (void)y; (void)stream;\n"
                                       "  sched_yield();\n  return getpid() == 1;");
  lint::LintRequest request;
  request.source = source;
  request.file_name = "candidate.cpp";
  request.task = &f.task;
  request.platform = &f.platform;
  const lint::LintReport report = lint::lint(request);
  CHECK(report.infra_error.empty());
  CHECK_FALSE(report.rejected());

  TempDir work("kgb-lint-eval");
  const CompileOutput compiled = compile_candidate(f.task, f.platform, source, work.path(), lint::eval_hooks());
  REQUIRE_MESSAGE(compiled.infra_error.empty(), compiled.infra_error);
  REQUIRE_FALSE(compiled.object.empty());
  std::string shown;
  for (const auto& finding : compiled.findings) shown += finding.rule + " " + finding.location + "\n";
  INFO(shown);
  const auto names = [&](const std::string& symbol) {
    return std::any_of(compiled.findings.begin(), compiled.findings.end(), [&](const Finding& finding) {
      return finding.rule == "symbol-allowlist" && finding.severity == "reject" &&
             finding.location.find(symbol) != std::string::npos;
    });
  };
  CHECK(names("getpid"));
  CHECK(names("sched_yield"));
  CHECK(compiled.findings.size() == 2);
}

// Issue 19, class 7: the cross toolchains turn atomics into library calls
// (aarch64's outline atomics __aarch64_*, riscv64's libatomic __atomic_*); a
// legitimate kernel using OpenMP reductions, `omp atomic` and std::atomic
// must pass lint and the symbol check on every CPU platform, qemu ones included.
namespace {

const char* const kAtomicDotPrefix = "#include <atomic>\n#include <cstdint>";

const char* const kAtomicDotBody = R"(  (void)stream;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  const float* yp = static_cast<const float*>(y->data);
  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += double(xp[i * incx]) * yp[i * incy];
  double atomic_sum = 0.0;
  std::atomic<int64_t> visited{0};
  std::atomic<int16_t> small_counter{0};
  std::atomic<int8_t> flag{0};
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    const double term = double(xp[i * incx]) * yp[i * incy];
#pragma omp atomic
    atomic_sum += term;
    visited.fetch_add(1, std::memory_order_relaxed);
    small_counter.fetch_add(1);
    flag.exchange(1);
  }
  if (visited.load() != n || (n > 0 && flag.load() != 1)) return KGB_ERR_INVALID;
  (void)small_counter;
  *static_cast<float*>(result->data) = static_cast<float>(sum + 0.0 * atomic_sum);
  return KGB_OK;)";

void check_atomics_pass_on(const std::string& name) {
  auto platform = load_platform(name);
  REQUIRE_MESSAGE(platform.ok(), (platform.ok() ? "" : platform.error().message));
  const auto available = check_availability(*platform);
  if (!available.available) {
    MESSAGE(name << " skipped: " << available.reason);
    return;
  }
  auto task = load_task_file(tasks_root() / "blas" / "sdot" / "spec.json");
  REQUIRE_MESSAGE(task.ok(), (task.ok() ? "" : task.error().message));
  const std::string source = with_body(*task, kAtomicDotPrefix, kAtomicDotBody);
  EvalOptions options;
  options.time = false;
  options.seed = 3;
  options.seeds_per_case = 1;
  options.check_timeout_seconds = 300;
  const Verdict verdict = evaluate(*task, *platform, source, options, lint::eval_hooks());
  INFO(name << ": " << outcome_name(verdict.outcome) << ": " << verdict.summary << "\n" << verdict.child_stderr);
  std::string findings;
  for (const auto& f : verdict.findings) findings += f.rule + " " + f.severity + ": " + f.message + "\n";
  INFO(findings);
  CHECK(verdict.outcome == Outcome::Passed);
  CHECK(std::none_of(verdict.findings.begin(), verdict.findings.end(),
                     [](const Finding& f) { return f.severity == "reject"; }));
}

}  // namespace

TEST_CASE("OpenMP reductions and atomics pass on cpu-aarch64 (outline atomics) under qemu") {
  check_atomics_pass_on("cpu-aarch64");
}

TEST_CASE("OpenMP reductions and atomics pass on cpu-riscv64 (libatomic) under qemu") {
  check_atomics_pass_on("cpu-riscv64");
}

TEST_CASE("a foreign symbol is still rejected on the cross platforms") {
  for (const std::string name : {"cpu-aarch64", "cpu-riscv64"}) {
    CAPTURE(name);
    auto platform = load_platform(name);
    REQUIRE_MESSAGE(platform.ok(), (platform.ok() ? "" : platform.error().message));
    if (!check_availability(*platform).available) {
      MESSAGE(name << " skipped: cross toolchain or qemu missing");
      continue;
    }
    TempDir dir("kgb-lint-cross");
    const auto source_path = dir.path() / "foreign.cpp";
    // An asm label hides the name from the source rules; the object still names it.
    std::ofstream(source_path) << "#include <atomic>\n"
                                  "extern \"C\" int hidden_pid() asm(\"getpid\");\n"
                                  "extern \"C\" int kgb_probe(std::atomic<long>* c) {\n"
                                  "  c->fetch_add(1);\n"
                                  "  return hidden_pid();\n"
                                  "}\n";
    const auto object = dir.path() / "foreign.o";
    auto compiled = run_command({platform->compile_command.front(), "-std=c++17", "-O2", "-fPIC", "-c", source_path.string(),
                                 "-o", object.string()},
                                dir.path(), 120);
    REQUIRE(compiled);
    REQUIRE_MESSAGE((compiled->status.exited && compiled->status.code == 0), compiled->output);
    const auto findings = lint::check_object_symbols(object, *platform);
    const auto rejected = [&](const std::string& symbol) {
      return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
        return f.rule == "symbol-allowlist" && f.location.find(symbol) != std::string::npos;
      });
    };
    CHECK(rejected("getpid"));
    CHECK_FALSE(rejected("__aarch64_"));
    CHECK_FALSE(rejected("__atomic_"));
  }
}
