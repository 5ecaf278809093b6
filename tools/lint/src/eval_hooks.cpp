#include "kgb/lint.h"

#include "kgb/evaluator.h"

namespace kgb::lint {

EvalHooks eval_hooks() {
  EvalHooks hooks;
  hooks.lint = [](const std::string& source, const Task& task, const Platform& platform) {
    LintRequest request;
    request.source = source;
    request.file_name = "candidate." + (platform.source_extension.empty() ? std::string("cpp") : platform.source_extension);
    request.language = language_for(platform);
    request.task = &task;
    request.platform = &platform;
    const LintReport report = lint(request);
    LintOutcome outcome;
    outcome.diagnostics = report.diagnostics;
    outcome.findings = report.verdict_findings();
    outcome.parse_ok = report.parse_ok;
    if (!report.infra_error.empty()) {
      outcome.findings.push_back({"lint-unavailable", "L1", "warn", "the static checks did not run: " + report.infra_error,
                                  request.file_name});
      outcome.parse_ok = true;
    }
    return outcome;
  };
  hooks.symbol_check = [](const std::filesystem::path& object, const Platform& platform) {
    return check_object_symbols(object, platform);
  };
  return hooks;
}

}  // namespace kgb::lint
