// Shared set-up for the agent tests: run configurations on the cpu-x86_64
// platform, an observer that records events, OpenAI-style replies for the
// scripted server, and the bundled solutions.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/agent/runner.h"
#include "kgb/store/run_store.h"
#include "scripted_server.h"

namespace kgb::test {

// A fresh folder for one test's store.
std::string fresh_dir(const std::string& name);

// Tasks blas/saxpy and vllm/silu_and_mul (or `tasks`), oracle provider with
// the given faults started in-process, correctness only, no lint, two jobs.
agent::RunConfig oracle_config(const std::string& store, const std::string& tasks, int compile_errors, int wrong_results);
// The same but talking to `base_url` (a scripted server) as model `model`.
agent::RunConfig scripted_config(const std::string& store, const std::string& tasks, const std::string& base_url,
                                 const std::string& model = "scripted");

class RecordingObserver : public agent::RunObserver {
 public:
  void on_iteration(const agent::IterationEvent& e) override;
  void on_attempt(const agent::AttemptEvent& e) override;
  void on_message(std::string_view level, std::string_view text) override;
  std::vector<agent::IterationEvent> iterations() const;
  std::vector<agent::AttemptEvent> attempts() const;
  std::vector<std::string> messages() const;
  // Outcomes of a task's iterations in order.
  std::vector<std::string> outcomes(const std::string& task, int sample = 0) const;

 private:
  mutable std::mutex mutex_;
  std::vector<agent::IterationEvent> iterations_;
  std::vector<agent::AttemptEvent> attempts_;
  std::vector<std::string> messages_;
};

// Runs to the end; fails the test when the run cannot start.
agent::RunSummary run_to_end(agent::RunOptions options);

// The one attempt of `task` (sample 0) and its iterations from the store.
store::AttemptRecord attempt_of(store::RunStore& db, const std::string& run_id, const std::string& task, int sample = 0);
std::vector<store::IterationRecord> iterations_of(store::RunStore& db, const std::string& run_id, const std::string& task,
                                                  int sample = 0);

// An OpenAI chat.completion body.
struct ScriptedUsage {
  int64_t prompt = 100, completion = 50, cached = 0, reasoning = 0;
};
Reply openai_reply(const std::string& text, const std::string& finish_reason = "stop", ScriptedUsage usage = {},
                   const nlohmann::json& tool_calls = nullptr);

// The bundled cpu solution of a task, in a fence.
std::string bundled_cpu_solution(const std::string& task_id);
std::string fenced(const std::string& code, const std::string& prose = "Here is the kernel.");

}  // namespace kgb::test
