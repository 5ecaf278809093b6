// A run: every task attempt of a configuration, many in flight at once on
// Asio coroutines (one I/O thread), with bounded concurrency per resource:
//   attempts in flight       RunConfig::concurrency
//   LLM requests             ProviderSettings::max_concurrent (per provider)
//   compile/evaluate jobs    EvaluationSettings::jobs (default: the cores), on a thread pool
//   timing jobs              one per device (the platform), so timings never overlap;
//                            on a CPU platform a timing job also takes every job slot
// With the Slurm executor (config.executor) evaluations run as jobs on the
// cluster instead (kgb/agent/executor.h): the limits are the executor's.
// Everything is recorded in the run store as it happens; a run killed at any
// point resumes with execute_run(resume = id). SIGINT/SIGTERM (or `stop`)
// stop it cleanly: no new steps start, LLM calls in flight are cancelled,
// evaluations in flight finish and are recorded; a second signal exits at once.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "kgb/agent/budget.h"
#include "kgb/agent/config.h"
#include "kgb/agent/tools.h"
#include "kgb/llm/cancel.h"
#include "kgb/llm/types.h"
#include "kgb/result.h"

namespace kgb::llm {
struct CallOptions;
}

namespace kgb::agent {

// The model side, replaceable in tests and benchmarks. The default is a
// kgb_llm client for the run's provider.
class ChatBackend {
 public:
  virtual ~ChatBackend() = default;
  virtual boost::asio::awaitable<llm::ChatOutcome> chat(llm::ChatRequest request, llm::CancelToken cancel) = 0;
};
using ChatBackendFactory =
    std::function<Result<std::unique_ptr<ChatBackend>>(boost::asio::any_io_executor executor, const RunConfig& config)>;

struct IterationEvent {
  std::string run_id, task;
  int sample = 0;
  int index = 0;
  std::string conversation;
  std::string outcome;
  std::string summary;   // the first line of the feedback, or what happened
  bool correct = false;
  double speedup = 0;
  Spend spend;
  bool replayed = false;
};

struct AttemptEvent {
  std::string run_id, task;
  int sample = 0;
  std::string status;       // solved | failed | budget | abandoned | error
  std::string stop_reason;
  int iterations = 0;
  double best_speedup = 0;
  Spend spend;
};

struct Progress {
  int attempts_total = 0, attempts_done = 0, solved = 0, in_flight = 0;
  int llm_in_flight = 0, jobs_running = 0;
  Spend spend;            // the run's, all sessions
  double elapsed_seconds = 0;  // this session
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_start(const std::string& run_id, bool resumed, int attempts_total, int attempts_left) {}
  virtual void on_iteration(const IterationEvent& event) {}
  virtual void on_attempt(const AttemptEvent& event) {}
  virtual void on_progress(const Progress& progress) {}
  virtual void on_message(std::string_view level, std::string_view text) {}
};

struct RunSummary {
  std::string run_id;
  std::string status;      // finished | interrupted | failed
  std::string error;       // why, when failed or interrupted by a fatal provider error
  std::string store_file;
  int attempts = 0, attempts_finished = 0, attempts_solved = 0;
  int tasks = 0, tasks_solved = 0;
  int iterations = 0, evaluations = 0, llm_calls = 0;
  int estimated_usage_calls = 0;  // calls whose tokens are estimates (the server's or the client's)
  Spend spend;             // all sessions
  double session_seconds = 0, total_seconds = 0;
  int interrupted_steps = 0;  // steps found in flight from a killed session
  std::string oracle_url;     // the in-process oracle, when one was started
  nlohmann::json tool_stats = nlohmann::json::object();  // the tool backend's counters (reference reuse)

  nlohmann::json to_json() const;
};

struct RunOptions {
  RunConfig config;                    // a new run (ignored when resuming, except below)
  std::optional<std::string> resume;   // run id in config.store
  std::optional<int> concurrency;      // overrides the recorded concurrency on resume
  std::optional<std::string> executor; // local | slurm: overrides the configuration (and, on resume, the record)
  std::optional<std::string> partition;  // the executor's default partition, likewise
  std::shared_ptr<ToolBackend> tools;  // default: make_harness_tools()
  ChatBackendFactory chat;             // default: kgb_llm (and the in-process oracle)
  RunObserver* observer = nullptr;
  bool handle_signals = true;          // SIGINT/SIGTERM stop the run cleanly
  std::optional<llm::CancelToken> stop;  // cancel() stops the run cleanly, from any thread
};

// Runs (or resumes) to the end or until stopped. Errors are for runs that
// cannot start (bad configuration, unknown platform, unreadable store).
Result<RunSummary> execute_run(RunOptions options);

// Installs kgb_lint's lint and symbol-check hooks as the harness defaults when
// this build has them (no-op otherwise). execute_run() calls it.
void install_lint_hooks();
bool lint_hooks_built();

}  // namespace kgb::agent
