#include "agent_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "kgb/paths.h"
#include "kgb/task.h"

namespace kgb::test {

std::string fresh_dir(const std::string& name) {
  const std::string dir = temp_directory("kgb-agent-" + name);
  std::filesystem::create_directories(dir);
  return dir;
}

agent::RunConfig oracle_config(const std::string& store, const std::string& tasks, int compile_errors, int wrong_results) {
  agent::RunConfig c;
  c.store = store;
  c.platform = "cpu-x86_64";
  c.tasks = tasks;
  c.concurrency = 2;
  c.seed = 7;
  c.provider.name = "oracle";
  c.oracle.compile_error_attempts = compile_errors;
  c.oracle.wrong_result_attempts = wrong_results;
  c.evaluation.lint = false;
  c.evaluation.time = false;
  c.evaluation.baseline = false;
  c.evaluation.seeds_per_case = 1;
  c.evaluation.jobs = 2;
  return c;
}

agent::RunConfig scripted_config(const std::string& store, const std::string& tasks, const std::string& base_url,
                                 const std::string& model) {
  agent::RunConfig c = oracle_config(store, tasks, 0, 0);
  c.provider.base_url = base_url;
  c.provider.model = model;
  c.provider.retries = 0;
  c.provider.timeout_seconds = 30;
  c.concurrency = 1;
  return c;
}

void RecordingObserver::on_iteration(const agent::IterationEvent& e) {
  std::lock_guard lock(mutex_);
  iterations_.push_back(e);
}
void RecordingObserver::on_attempt(const agent::AttemptEvent& e) {
  std::lock_guard lock(mutex_);
  attempts_.push_back(e);
}
void RecordingObserver::on_message(std::string_view level, std::string_view text) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::string(level) + ": " + std::string(text));
}
std::vector<agent::IterationEvent> RecordingObserver::iterations() const {
  std::lock_guard lock(mutex_);
  return iterations_;
}
std::vector<agent::AttemptEvent> RecordingObserver::attempts() const {
  std::lock_guard lock(mutex_);
  return attempts_;
}
std::vector<std::string> RecordingObserver::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}
std::vector<std::string> RecordingObserver::outcomes(const std::string& task, int sample) const {
  std::lock_guard lock(mutex_);
  std::vector<agent::IterationEvent> mine;
  for (const auto& e : iterations_)
    if (e.task == task && e.sample == sample) mine.push_back(e);
  std::sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  std::vector<std::string> out;
  for (const auto& e : mine) out.push_back(e.outcome);
  return out;
}

agent::RunSummary run_to_end(agent::RunOptions options) {
  options.handle_signals = false;
  auto result = agent::execute_run(std::move(options));
  if (!result) FAIL("the run did not start: " << result.error().message);
  return *result;
}

store::AttemptRecord attempt_of(store::RunStore& db, const std::string& run_id, const std::string& task, int sample) {
  for (auto rows = db.attempts(run_id); const auto& a : *rows)
    if (a.task == task && a.sample == sample) return a;
  FAIL("no attempt for " << task);
  return {};
}

std::vector<store::IterationRecord> iterations_of(store::RunStore& db, const std::string& run_id, const std::string& task,
                                                  int sample) {
  return *db.iterations(attempt_of(db, run_id, task, sample).id);
}

Reply openai_reply(const std::string& text, const std::string& finish_reason, ScriptedUsage usage,
                   const nlohmann::json& tool_calls) {
  nlohmann::json message = {{"role", "assistant"}, {"content", text}};
  if (!tool_calls.is_null()) message["tool_calls"] = tool_calls;
  nlohmann::json body = {
      {"id", "chatcmpl-test"},
      {"object", "chat.completion"},
      {"model", "scripted"},
      {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish_reason}}}},
      {"usage",
       {{"prompt_tokens", usage.prompt},
        {"completion_tokens", usage.completion},
        {"total_tokens", usage.prompt + usage.completion},
        {"prompt_tokens_details", {{"cached_tokens", usage.cached}}},
        {"completion_tokens_details", {{"reasoning_tokens", usage.reasoning}}}}}};
  return Reply::json(200, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string bundled_cpu_solution(const std::string& task_id) {
  auto report = load_all_tasks(tasks_root());
  for (const auto& t : report.tasks)
    if (t.id == task_id) {
      auto source = bundled_solution(t, "cpu.cpp");
      REQUIRE(source.ok());
      return *source;
    }
  FAIL("no task " << task_id);
  return {};
}

std::string fenced(const std::string& code, const std::string& prose) { return prose + "\n\n```cpp\n" + code + "```\n"; }

}  // namespace kgb::test
