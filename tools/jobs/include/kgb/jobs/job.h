// Evaluation jobs as files: what one evaluation is (a request) and what came
// of it (a reply), as JSON, so an evaluation can run on another machine that
// shares a filesystem with the one that asked for it (a Slurm node). The
// request carries everything the node needs (task and platform by name, the
// source, the evaluation options, the run's secret input seed); the node
// answers with the verdict JSON (or the lint, compile or validation record)
// and where it ran. Part of the evaluation half: no agent, no SQLite.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/evaluator.h"
#include "kgb/result.h"

namespace kgb::jobs {

enum class JobKind {
  Lint,      // the lint hook alone: LintOutcome
  Compile,   // compile and link alone: CompileOutput
  Evaluate,  // kgb::evaluate: Verdict
  Validate,  // kgb::validate_task (reference sanity, bundled solution): TaskValidation
};
std::string_view job_kind_name(JobKind kind);
std::optional<JobKind> job_kind_from_name(std::string_view name);

// Keys name files: letters, digits, '.', '_' and '-' only, at most 200 characters.
bool valid_job_key(std::string_view key);
// A key made valid: every other character becomes '_' (for task ids like "aten/softmax").
std::string sanitize_job_key(std::string_view text);

struct JobRequest {
  std::string key;        // unique in its spool; stable across restarts of the driver
  JobKind kind = JobKind::Evaluate;
  std::string task;       // task id
  std::string platform;   // platform name
  std::string source;     // the candidate; empty for Validate
  EvalOptions options;    // keep_dir is not sent
  std::string partition;  // where it should run; empty: the scheduler's default
  int attempt = 1;        // which try this is (1: the first)
  std::vector<std::string> failures;  // why the earlier tries ended without a reply
  std::string queued_at;  // UTC, when the first try was queued

  // A fingerprint of what is evaluated (kind, task, platform, source, options):
  // a reply is taken for a request only when both carry the same one.
  std::string digest() const;
};

struct JobReply {
  std::string key, digest;
  JobKind kind = JobKind::Evaluate;
  bool completed = false;   // the evaluation ran to its end: `payload` holds its record
  std::string error;        // why not, when not (unknown task, platform unavailable on the node, ...)
  nlohmann::json payload = nlohmann::json::object();
  // Where and when it ran.
  std::string executor;     // "slurm", "local"
  std::string node, partition, job_id;
  int attempt = 1;
  std::vector<std::string> failures;  // earlier tries, as in the request
  std::string started_at, finished_at;  // UTC
  double seconds = 0;       // the evaluation itself, on the node
};

nlohmann::json to_json(const JobRequest& request);
Result<JobRequest> request_from_json(const nlohmann::json& j);
nlohmann::json to_json(const JobReply& reply);
Result<JobReply> reply_from_json(const nlohmann::json& j);

nlohmann::json eval_options_json(const EvalOptions& options);  // the seed included
EvalOptions eval_options_from_json(const nlohmann::json& j);

// Payloads.
nlohmann::json lint_json(const LintOutcome& outcome, bool available);
LintOutcome lint_from_json(const nlohmann::json& j);
nlohmann::json compile_json(const CompileOutput& output);  // paths are the node's: left out
CompileOutput compile_from_json(const nlohmann::json& j);
nlohmann::json validation_json(const TaskValidation& validation);
TaskValidation validation_from_json(const nlohmann::json& j);

// UTC "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string utc_timestamp();

}  // namespace kgb::jobs
