// The loop's shared state and the context handed to policies. Everything in
// here is touched only from the run's I/O thread; blocking tool work runs on
// the job pool and comes back to that thread before it changes anything.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "kgb/agent/executor.h"
#include "kgb/agent/policy.h"
#include "kgb/agent/runner.h"
#include "kgb/llm/pricing.h"
#include "kgb/store/run_store.h"
#include "async_semaphore.h"

namespace kgb::agent {

struct RunState {
  boost::asio::io_context* io = nullptr;
  boost::asio::thread_pool* pool = nullptr;
  store::RunStore* store = nullptr;
  RunConfig config;
  nlohmann::json policy_params;
  std::string run_id;
  uint64_t secret_seed = 0;
  Platform platform;
  PromptSet prompts;
  std::shared_ptr<ToolBackend> tools;
  ChatBackend* chat = nullptr;
  RunObserver* observer = nullptr;
  std::optional<TokenPrices> prices;
  bool session_header = false;

  std::unique_ptr<AsyncSemaphore> llm_slots;     // LLM requests per provider
  std::unique_ptr<AsyncSemaphore> device_slots;  // timing jobs on the device
  std::unique_ptr<AsyncSemaphore> job_slots;     // compile/evaluate jobs (= pool threads)
  int jobs = 1;                                  // units of job_slots
  // Evaluations elsewhere (Slurm); null: on the pool above, as always.
  std::unique_ptr<JobExecutor> cluster;
  std::string host;                              // where local evaluations run

  Spend run_spend;           // recorded, all sessions (wall_seconds: previous sessions)
  Spend run_reserved;        // calls in flight: prompt estimate + output cap
  std::chrono::steady_clock::time_point session_start;
  double previous_seconds = 0;

  bool stopping = false;
  std::string stop_error;    // a fatal provider error that stopped the run
  llm::CancelToken cancel;   // cancels LLM calls in flight
  int llm_in_flight = 0, jobs_running = 0;

  Spend run_spend_now() const;  // with this session's wall time
  void request_stop(const std::string& why, bool fatal);
  void message(std::string_view level, const std::string& text) const;
};

struct AttemptContext::Impl {
  RunState& run;
  const Task& task;
  store::AttemptRecord record;
  uint64_t seed = 0;
  TemplateVars task_vars;
  Spend spend;             // the attempt's, replayed steps included
  Spend reserved;          // this attempt's calls in flight
  int iterations_started = 0;
  std::set<int> recorded_iterations;  // iteration rows a previous session wrote
  std::optional<KernelCandidate> best;
  std::string last_outcome;

  Impl(RunState& r, const Task& t) : run(r), task(t) {}
};

struct Iteration::State {
  AttemptContext::Impl& attempt;
  int index = 0;
  std::string conversation;
  int next_step = 0;
  Spend spend;
  double llm_seconds = 0, tool_seconds = 0;
  int replayed_steps = 0, fresh_steps = 0;
  bool finished = false;
  std::string started_at;

  explicit State(AttemptContext::Impl& a) : attempt(a) {}
};

}  // namespace kgb::agent
