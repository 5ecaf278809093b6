// The configuration of a run: what `kgb run` flags and the TOML experiment
// file set. The effective configuration is recorded with the run as JSON, and
// `kgb run --resume` reads it back from there (flags do not change a run
// already started, except how many attempts are in flight).
//
// TOML layout (every key optional; see examples/experiment.toml):
//   [run]        policy, platform, tasks, task_ids, samples, concurrency, seed, store, prompts, id
//   [provider]   name, model, base_url, api_key_env, max_concurrent, requests_per_minute,
//                tokens_per_minute, temperature, max_output_tokens, stream, timeout_seconds,
//                retries, prices, reasoning_effort, thinking_budget, session_header,
//                extra (a table of provider-specific request fields: top_k, logit_bias, ...)
//   [prices."<model>"]  input, cached_input, output, cache_write (dollars per million tokens)
//   [oracle]     compile_error_attempts, wrong_result_attempts, latency_ms ("MS" or "MIN:MAX"),
//                seed, fail_429, fail_500, fail_mid_stream, fail_truncate, threads
//   [evaluation] lint, time, baseline, seeds_per_case, time_budget_seconds,
//                timing_pairs, check_timeout_seconds, jobs, cases, profile_below
//   [feedback]   max_diagnostics, max_cases, max_findings, max_chars, max_line_chars
//   [budget.attempt] and [budget.run]: tokens, input_tokens, output_tokens, reasoning_tokens,
//                cached_tokens, usd, iterations, wall_seconds
//   [policy.<name>]  the policy's own parameters (see `kgb run --list-policies`)
//   [executor]   kind (local | slurm), work_dir, kgb, partition, compile_partition, account,
//                qos, time_limit, max_jobs, max_retries, worker_idle_seconds,
//                evaluations_per_job, sbatch_options, poll_seconds, squeue_seconds
//   [executor.partitions]         platform name = partition
//   [executor.partition_options]  partition = [extra sbatch options]
// Unknown keys are errors, so a typo never silently runs the wrong experiment.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/agent/budget.h"
#include "kgb/agent/executor.h"
#include "kgb/result.h"

namespace kgb::agent {

struct ProviderSettings {
  std::string name = "oracle";   // a preset of kgb_llm: openai, anthropic, oracle, vllm, ...
  std::string model;             // empty: "oracle" for the oracle, an error otherwise
  std::string base_url;          // empty: the preset's (the oracle: started in-process)
  std::optional<std::string> api_key_env;
  int max_concurrent = 0;        // LLM requests in flight; 0: the run's concurrency
  double requests_per_minute = 0;
  double tokens_per_minute = 0;
  std::optional<double> temperature;
  int64_t max_output_tokens = 8192;
  bool stream = false;
  double timeout_seconds = 600;  // one call, retries included
  int retries = 4;
  std::string prices_file;
  std::map<std::string, TokenPrices> prices;  // [prices."model"]: added over the defaults
  std::string reasoning_effort;
  std::optional<int64_t> thinking_budget;
  // Send X-KGB-Session (one per conversation), a label for a server's logs;
  // default: on for the oracle only.
  std::optional<bool> session_header;
  // Provider-specific request fields merged into every request body last
  // (top_k, logit_bias, chat_template_kwargs, reasoning options, ...).
  nlohmann::json extra = nlohmann::json::object();
};

struct OracleSettings {
  int compile_error_attempts = 0;
  int wrong_result_attempts = 0;
  int64_t latency_min_ms = 0, latency_max_ms = 0;
  uint64_t seed = 1;
  double fail_429 = 0, fail_500 = 0, fail_mid_stream = 0, fail_truncate = 0;
  int threads = 1;
};

struct EvaluationSettings {
  bool lint = true;       // the lint stage (when kgb_lint is built)
  bool time = true;       // profile correct kernels against the baseline
  bool baseline = true;
  int seeds_per_case = 2;
  double time_budget_seconds = 1.0;
  // Interleaved candidate/baseline blocks per performance case (EvalOptions::
  // timing_pairs); each block pays its own warm-up, so 1 is the cheapest and
  // the least robust on a shared host.
  int timing_pairs = 6;
  double check_timeout_seconds = 20;
  int jobs = 0;           // compile/evaluate jobs at once; 0: the cores of this machine
  std::string cases;      // glob on case names; empty: all
  // A correct kernel whose speedup is below this gets the platform profiler's
  // summary in its profile result (kgb/profile.h: what limits it, with
  // numbers); 0: never profile.
  double profile_below = 1.0;
};

struct FeedbackSettings {
  int max_diagnostics = 5;
  int max_cases = 3;
  int max_findings = 5;
  int64_t max_chars = 4000;      // whole feedback message
  int64_t max_line_chars = 300;  // one diagnostic or message line
};

struct RunConfig {
  std::string run_id;            // empty: generated
  std::string policy = "refine";
  // [policy.<name>] tables by policy name; the selected policy reads its own.
  nlohmann::json policies = nlohmann::json::object();
  std::string platform = "cpu-x86_64";
  std::string tasks = "*";       // glob(s), comma-separated
  std::vector<std::string> task_ids;  // resolved from `tasks` when the run starts (recorded)
  int samples = 1;               // independent attempts per task
  int concurrency = 4;           // attempts in flight
  uint64_t seed = 0;             // 0: drawn once and recorded
  std::string store = "kgb-runs.db";
  std::string prompts_dir;       // empty: the source tree's prompts/
  ProviderSettings provider;
  OracleSettings oracle;
  EvaluationSettings evaluation;
  FeedbackSettings feedback;
  BudgetLimits attempt_budget;
  BudgetLimits run_budget;
  ExecutorSettings executor;     // where evaluations run (default: here)

  // The selected policy's parameters (an empty object when none are given).
  nlohmann::json policy_params() const;
};

// `origin` names the text in error messages (a file name).
Result<RunConfig> parse_config_toml(std::string_view text, std::string_view origin, RunConfig base = {});
Result<RunConfig> load_config_file(const std::filesystem::path& file, RunConfig base = {});

nlohmann::json config_to_json(const RunConfig& config);
Result<RunConfig> config_from_json(const nlohmann::json& j);

// Checks values that no parser can (positive counts, known sections).
Status validate_config(const RunConfig& config);

}  // namespace kgb::agent
