// Lint as stage 1 of `kgb eval` and the symbol check after the compile,
// through the hooks the kgb executable installs (kgb::lint::eval_hooks()).
#include <doctest/doctest.h>

#include <algorithm>

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
