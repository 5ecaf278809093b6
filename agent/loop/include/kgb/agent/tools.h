// The tools an agent calls on a candidate source, each returning a structured
// result (DESIGN 3.6):
//   lint     the static checks (parse errors, anti-cheating rules)
//   compile  the platform's compile and link commands, parsed diagnostics
//   run      correctness: per-case pass/fail, max abs/rel error, first mismatching
//            index with expected and got (lint and compile included)
//   profile  run, then timing: median time per performance case, speedup against
//            the baseline, fraction of the roofline floor
//   submit   the final evaluation of the tool agent (profile when timing is on)
// Results are kept compact (the first N diagnostics, cases and findings, with
// counts of what was left out) and become feedback text through templates.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kgb/agent/config.h"
#include "kgb/evaluator.h"
#include "kgb/jobs/job.h"
#include "kgb/platform.h"
#include "kgb/task.h"
#include "kgb/verdict.h"

namespace kgb::agent {

enum class ToolKind { Lint, Compile, Run, Profile, Submit };
std::string_view tool_name(ToolKind kind);
std::optional<ToolKind> tool_from_name(std::string_view name);

struct ToolResult {
  ToolKind kind = ToolKind::Run;
  bool ok = false;           // lint clean / compiled / every case passed (and timed, for profile)
  bool correct = false;      // run, profile, submit: the kernel passed every correctness case
  std::string outcome;       // clean | rejected | unavailable | compiled | compile-error | passed | wrong-result | ...
  std::string stage;         // lint | compile | check | time | done
  std::string summary;       // one line
  double speedup = 0;        // geometric mean over performance cases (profile, submit)
  nlohmann::json data = nlohmann::json::object();  // the structured result, capped
  std::optional<Verdict> verdict;  // run, profile, submit
  double seconds = 0;        // tool time (what budgets count)
  bool replayed = false;     // read back from the store on resume
  std::string kernel;        // sha256 of the source

  nlohmann::json to_json() const;  // everything but the verdict (stored separately)
  static ToolResult from_json(const nlohmann::json& j);
};

// The blocking implementations; the loop runs them on its job pool, several
// at once, so they must be thread-safe.
class ToolBackend {
 public:
  virtual ~ToolBackend() = default;
  virtual bool lint_available() const = 0;
  virtual LintOutcome lint(const std::string& source, const Task& task, const Platform& platform) = 0;
  virtual CompileOutput compile(const std::string& source, const Task& task, const Platform& platform) = 0;
  virtual Verdict evaluate(const std::string& source, const Task& task, const Platform& platform,
                           const EvalOptions& options) = 0;
  // Counters the backend keeps over its lifetime (e.g. reference reuse); empty
  // when it keeps none.
  virtual nlohmann::json stats() const { return nlohmann::json::object(); }
};

// kgb::evaluate, kgb::compile_candidate and the installed lint hook. One per
// run: the references of performance cases (same seed for every candidate of
// the run) are built once and reused, up to `reference_cache_bytes`.
std::unique_ptr<ToolBackend> make_harness_tools(uint64_t reference_cache_bytes = 1ull << 30);

// Evaluation options for a tool under the run's settings; `seed` is the
// run's secret input seed (the same inputs for every candidate of a run).
EvalOptions eval_options_for(ToolKind kind, const EvaluationSettings& settings, uint64_t seed);

ToolResult lint_result(const LintOutcome& outcome, bool available, const FeedbackSettings& limits);
ToolResult compile_result(const CompileOutput& output, const FeedbackSettings& limits);
ToolResult verdict_result(ToolKind kind, const Verdict& verdict, const FeedbackSettings& limits);

// The job a tool becomes on an executor (lint, compile, evaluate).
jobs::JobKind job_kind_for(ToolKind kind);
// A tool result from an executor's reply; a reply without a completed
// evaluation becomes an infra-error verdict that says why.
ToolResult reply_result(ToolKind kind, const jobs::JobReply& reply, const Task& task, const Platform& platform,
                        const FeedbackSettings& limits);

// The result as compact "key: value" lines: the first N diagnostics, cases and
// findings, "[N more ... not shown]" where some were left out, every line
// capped and the whole text capped at max_chars ("[feedback truncated ...]").
std::string format_tool_result(const ToolResult& result, const FeedbackSettings& limits);

// The feedback template for a result: feedback/lint, feedback/compile,
// feedback/check, feedback/runtime, feedback/cheat, feedback/infra, feedback/passed.
std::string feedback_template_for(const ToolResult& result);

// A short, stable description of what went wrong, used to notice the same
// error coming back after a fix ("compile: 'foo' was not declared in this scope").
std::string error_signature(const ToolResult& result);

}  // namespace kgb::agent
