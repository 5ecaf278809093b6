// The run store (DESIGN 3.8): one SQLite file in WAL mode holding runs, task
// attempts, iterations, LLM calls, tool calls, evaluations and the kernel
// sources they refer to (content-addressed by SHA-256).
//
// Resume contract. Every step of a task attempt (an LLM call, a tool call)
// is keyed by (attempt, iteration, step). A step is written as `running` when
// it starts and turned `done` in one transaction together with everything it
// produced (an evaluation, a kernel). A run killed at any point therefore
// holds only complete steps plus at most a few `running` rows; opening a new
// session marks those `interrupted` (kept as history, never replayed) and the
// loop re-executes exactly those steps. At most one `done` row exists per step
// key and table (enforced by unique partial indexes).
//
// All methods are for one thread at a time (the loop's I/O thread); several
// processes may read the file while one writes (WAL).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/result.h"

namespace kgb::store {

// Lower-case hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);
// UTC "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string utc_now();

struct TokenCounts {
  int64_t input = 0;          // every prompt token, cached ones included
  int64_t cached_input = 0;   // of input: read from the provider's cache
  int64_t cache_write = 0;    // of input: written to the provider's cache
  int64_t output = 0;         // every generated token, reasoning included
  int64_t reasoning = 0;      // of output
  int64_t total() const { return input + output; }
  TokenCounts& operator+=(const TokenCounts& o);
};

struct RunRecord {
  std::string id;
  std::string status = "running";  // running | interrupted | finished | failed
  std::string policy, provider, model, platform, tasks_glob;
  int samples = 1;
  nlohmann::json config = nlohmann::json::object();   // the effective configuration
  nlohmann::json prompts = nlohmann::json::object();  // template name -> text, as used
  std::string git_revision;
  nlohmann::json platform_facts = nlohmann::json::object();  // descriptor, host CPU, cores
  std::string kgb_version;
  uint64_t secret_seed = 0;  // input seed of the evaluations (never shown to a model)
  int sessions = 0;          // how many times the run was started or resumed
  double elapsed_seconds = 0;  // summed over sessions
  nlohmann::json summary = nlohmann::json::object();
  std::string created_at, updated_at;
};

struct AttemptRecord {
  int64_t id = 0;
  std::string run_id, task;
  int sample = 0;
  std::string status = "pending";  // pending | running | solved | failed | budget | abandoned | error
  std::string stop_reason;
  bool correct = false;
  int best_iteration = -1;
  std::string best_kernel;  // sha256
  double best_speedup = 0;
  int iterations = 0;
  TokenCounts tokens;
  double cost_usd = 0;
  double seconds = 0;  // the attempt's own LLM and tool time
  nlohmann::json result = nlohmann::json::object();
  std::string started_at, finished_at;

  bool finished() const { return status != "pending" && status != "running"; }
};

struct IterationRecord {
  int64_t id = 0;
  std::string run_id;
  int64_t attempt_id = 0;
  int index = 0;
  std::string conversation;  // which line of work inside the attempt ("", "seed-2", ...)
  std::string status = "running";  // running | done
  std::string outcome;       // passed | compile-error | wrong-result | no-code | ...
  bool correct = false;
  double speedup = 0;
  std::string kernel;        // sha256 of the extracted source, empty when none
  std::string feedback;      // the text the model gets next
  std::string error_signature;
  TokenCounts tokens;
  double cost_usd = 0;
  double llm_seconds = 0, tool_seconds = 0;
  nlohmann::json detail = nlohmann::json::object();
  std::string started_at, finished_at;
};

struct LlmCallRecord {
  int64_t id = 0;
  std::string run_id;
  int64_t attempt_id = 0;
  int iteration = 0, step = 0;
  std::string status = "running";  // running | done | interrupted | failed
  std::string provider, model;
  nlohmann::json request = nlohmann::json::object();  // messages, tools, sampling parameters
  std::string response_text, reasoning;
  nlohmann::json tool_calls = nlohmann::json::array();
  std::string finish_reason;
  TokenCounts tokens;
  // Where the counts come from: "reported" by the server, "estimated" (by the
  // server, which says so, or by the client when the server sent none or
  // zeros), "missing" (a failed call without usage; counted as 0), "agent"
  // (what an external agent's harness reported to kgb mcp-server).
  std::string usage_source;
  bool usage_estimated = false;  // usage_source == "estimated"
  std::optional<double> cost_usd;
  int64_t latency_ms = 0;
  int attempts = 0, retries = 0;
  std::string error_kind, error_message;
  int http_status = 0;
  int64_t max_output_tokens = 0;
  std::string started_at, finished_at;
};

struct EvaluationRecord {
  int64_t id = 0;
  std::string run_id;
  int64_t attempt_id = 0;
  int iteration = 0, step = 0;
  std::string kernel;   // sha256
  std::string purpose;  // run | profile | submit
  nlohmann::json options = nlohmann::json::object();
  std::string outcome, stage;
  bool passed = false;
  double speedup = 0;
  nlohmann::json verdict = nlohmann::json::object();
  double seconds = 0;
  std::string created_at;
  // Where it ran: the executor ("local", "slurm"), the node (host name), and
  // for Slurm the partition, the job id and the try that answered (1: the first).
  std::string executor = "local";
  std::string node, partition, job_id;
  int tries = 1;
};

// One try of an evaluation job on an executor (Slurm): queued, running on a
// job, done, failed with a reason (cancelled, timed out, node failure, ...) or
// withdrawn. Keyed by (run, key, try); later states update the same row.
struct ExecutorJobRecord {
  std::string run_id;
  std::string key;                 // the job key ("a12-i0-s1": attempt 12, iteration 0, step 1)
  std::optional<int64_t> attempt_id;
  std::optional<int> iteration, step;
  int try_index = 1;
  std::string executor = "slurm";
  std::string state;               // queued | running | done | failed | withdrawn
  std::string reason;
  std::string job_id, partition, node;
  std::string at;                  // when this state was reached (UTC); empty: now
  std::string queued_at, started_at, finished_at;  // read back
  double seconds = 0;              // done: the evaluation's own time on the node
};

struct ToolCallRecord {
  int64_t id = 0;
  std::string run_id;
  int64_t attempt_id = 0;
  int iteration = 0, step = 0;
  std::string status = "running";  // running | done | interrupted
  std::string tool;     // lint | compile | run | profile | submit
  std::string call_id;  // the model's id for native function calls
  nlohmann::json arguments = nlohmann::json::object();
  std::string kernel;   // sha256 of the source the tool ran on
  std::string outcome;
  bool ok = false;
  nlohmann::json result = nlohmann::json::object();  // the structured tool result
  int64_t evaluation_id = 0;  // 0: none
  int64_t duration_ms = 0;
  std::string started_at, finished_at;
};

// Totals of a run as recorded (every LLM call that reported usage counts,
// failed ones included).
struct RunTotals {
  TokenCounts tokens;
  int estimated_usage_calls = 0;  // LLM calls whose tokens are estimates
  int missing_usage_calls = 0;    // LLM calls without usage (failed ones)
  int agent_usage_calls = 0;      // usage an external agent reported (kgb mcp-server)
  double cost_usd = 0;
  int llm_calls = 0;
  int iterations = 0;
  int attempts = 0, finished_attempts = 0, solved_attempts = 0;
  int evaluations = 0;
};

enum class ExportFormat { Jsonl, Csv };

// Tables `export_table` knows: runs, attempts, iterations, llm_calls,
// tool_calls, evaluations, executor_jobs, kernels (kernels: those the run refers to).
const std::vector<std::string>& export_tables();

class RunStore {
 public:
  // Creates the file and the schema when missing; WAL, foreign keys on.
  static Result<std::unique_ptr<RunStore>> open(const std::filesystem::path& file);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  const std::filesystem::path& file() const;

  // Runs.
  Status create_run(const RunRecord& run);
  Result<RunRecord> load_run(const std::string& id);
  // Reads report a failed SQLite step as an error (code "store.read", naming
  // the file and SQLite's message); "nothing there" is an empty list or nullopt.
  Result<std::vector<RunRecord>> list_runs();
  // Starts a session of the run: counts it, sets status `running`, and turns
  // every `running` step and iteration left by a killed process into
  // `interrupted`. Returns how many steps were interrupted.
  Result<int> begin_session(const std::string& run_id);
  Status end_session(const std::string& run_id, const std::string& status, double session_seconds,
                     const nlohmann::json& summary);

  // Task attempts.
  Result<int64_t> ensure_attempt(const std::string& run_id, const std::string& task, int sample);
  // A new attempt on `task` with the next free sample number, chosen and
  // inserted in one statement so that processes sharing the file never get
  // the same sample.
  Result<AttemptRecord> add_attempt(const std::string& run_id, const std::string& task);
  Result<std::vector<AttemptRecord>> attempts(const std::string& run_id);
  Result<AttemptRecord> attempt(int64_t id);
  Status mark_attempt_running(int64_t id);
  // Fails when no attempt has `attempt.id` (nothing would be recorded).
  Status finish_attempt(const AttemptRecord& attempt);

  // Iterations: written when they start and again when they end (by key).
  Status save_iteration(const IterationRecord& iteration);
  Result<std::vector<IterationRecord>> iterations(int64_t attempt_id);

  // LLM calls.
  Result<int64_t> begin_llm_call(const LlmCallRecord& call);
  // `call.status` must be done, failed or interrupted.
  Status finish_llm_call(const LlmCallRecord& call);
  Result<std::optional<LlmCallRecord>> find_llm_call(int64_t attempt_id, int iteration, int step);  // the done one

  // Tool calls, with the evaluation they produced (if any) in the same transaction.
  Result<int64_t> begin_tool_call(const ToolCallRecord& call);
  Status finish_tool_call(ToolCallRecord call, const std::optional<EvaluationRecord>& evaluation);
  Result<std::optional<ToolCallRecord>> find_tool_call(int64_t attempt_id, int iteration, int step);  // the done one
  Result<std::optional<EvaluationRecord>> evaluation(int64_t id);
  Result<std::vector<EvaluationRecord>> evaluations(const std::string& run_id);

  // Executor jobs (one row per try).
  Status record_executor_job(const ExecutorJobRecord& job);
  Result<std::vector<ExecutorJobRecord>> executor_jobs(const std::string& run_id);

  // Kernel sources, content-addressed. Storing the same text twice is a no-op.
  Result<std::string> put_kernel(std::string_view source);
  Result<std::optional<std::string>> kernel(const std::string& sha256);

  Result<RunTotals> totals(const std::string& run_id);

  // Rows of one table of a run, as JSON lines or CSV with a header line.
  Status export_table(const std::string& run_id, const std::string& table, ExportFormat format, std::ostream& out);

  struct Impl;

 private:
  explicit RunStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kgb::store
