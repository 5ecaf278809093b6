// What a report reads from the run store, as plain structs: no SQLite, no
// JSON, no store types. The loader (loader.h) fills them; tests may build them
// by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kgb::report {

struct TokenUse {
  int64_t input = 0;        // every prompt token, cached ones included
  int64_t cached_input = 0; // of input: read from the provider's cache
  int64_t cache_write = 0;  // of input: written to the provider's cache
  int64_t output = 0;       // every generated token, reasoning included
  int64_t reasoning = 0;    // of output

  int64_t total() const { return input + output; }
  int64_t uncached_input() const { return input - cached_input; }
  int64_t visible_output() const { return output - reasoning; }
  TokenUse& operator+=(const TokenUse& o);
};

// Where the wall time of a task went. LLM: the latency of its LLM calls.
// lint / compile / run / profile: the harness stages inside its tool calls
// (run = the correctness check, profile = the timing loop, lint and compile of
// every evaluation included); other: tool time outside those stages (process
// start-up, input generation, reference outputs).
struct TimeSplit {
  double llm = 0, lint = 0, compile = 0, run = 0, profile = 0, other = 0;
  double total() const { return llm + lint + compile + run + profile + other; }
  TimeSplit& operator+=(const TimeSplit& o);
};

struct CaseTime {
  std::string name, dtype;
  double candidate_us = 0;
  std::optional<double> baseline_us;
  std::string baseline_kind;
  double roofline_fraction = 0;
  // The harness's paired speedup and its 95% interval (0: not recorded, as
  // in records from before paired timing), and whether it flagged the case.
  double speedup = 0, speedup_low = 0, speedup_high = 0;
  bool unstable = false;
};

struct Evaluation {
  std::string purpose;  // run | profile | submit
  std::string outcome, stage, summary;
  bool passed = false;
  double speedup = 0;   // as the harness reported it (0: not timed)
  std::vector<CaseTime> cases;  // timed performance cases
  std::vector<std::string> rejections;  // rules of rejecting findings
  double lint_seconds = 0, compile_seconds = 0, check_seconds = 0, time_seconds = 0, total_seconds = 0;
  // Where it ran: executor (local, slurm), node, and on Slurm the partition,
  // the job id and the try that answered.
  std::string executor = "local", node, partition, job_id;
  int tries = 1;
};

// A try of an evaluation job on an executor that did not answer (cancelled,
// timed out, node failure, ...), from the executor_jobs table.
struct FailedTry {
  std::string key;      // the evaluation's job key (attempt, iteration, step)
  int try_index = 1;
  std::string reason, job_id, partition, node;
};

struct ToolCall {
  std::string tool;  // lint | compile | run | profile | submit
  std::string outcome;
  bool ok = false;
  double seconds = 0;
  std::optional<size_t> evaluation;  // index into Iteration::evaluations
};

struct Iteration {
  int index = 0;               // 0-based
  std::string conversation;    // line of work inside the attempt ("", "sample-2", ...)
  bool finished = false;       // false: left running by an interrupted session
  std::string outcome;         // passed | compile-error | wrong-result | no-code | ...
  bool correct = false;        // the kernel passed every correctness case and anti-cheating layer
  double speedup = 0;
  TokenUse tokens;
  double cost_usd = 0;
  double llm_seconds = 0, tool_seconds = 0;
  std::string summary;         // one line: what happened
  std::string feedback;        // the text the model got next
  std::string kernel_sha;      // the extracted source, empty when none
  std::vector<Evaluation> evaluations;
  std::vector<ToolCall> tool_calls;
  int llm_calls = 0;
};

struct Attempt {
  std::string task;
  int sample = 0;
  std::string status;        // pending | running | solved | failed | budget | abandoned | error
  std::string stop_reason;
  bool correct = false;
  int best_iteration = -1;
  std::string best_kernel_sha;
  std::string best_kernel;   // its source
  TokenUse tokens;
  double cost_usd = 0;
  double seconds = 0;        // the attempt's own LLM and tool time
  TimeSplit time;
  std::vector<Iteration> iterations;
};

struct Run {
  std::string id, status, policy, provider, model, platform, tasks_glob, created_at, git_revision, kgb_version;
  int samples = 1;
  double elapsed_seconds = 0;
  TokenUse tokens;           // every LLM call that reported usage, failed ones included
  double cost_usd = 0;
  int llm_calls = 0;
  int estimated_usage_calls = 0;  // calls whose tokens are estimates (server- or client-side)
  int missing_usage_calls = 0;    // failed calls without usage (counted as 0)
  int agent_usage_calls = 0;      // usage reports of an external agent (MCP runs)
  std::vector<Attempt> attempts;
  std::vector<FailedTry> failed_tries;
};

// The source of a task id ("blas/saxpy" -> "blas").
std::string task_source(const std::string& task);

}  // namespace kgb::report
