// The MCP server's state and the protocol behind both transports: the run,
// the tasks, the evaluation slots, the sessions and their attempts. Everything
// here lives on the server's one I/O thread; blocking tool work runs on the
// pool and comes back to that thread before it changes anything.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <nlohmann/json.hpp>

#include "kgb/agent/async_semaphore.h"
#include "kgb/agent/prompts.h"
#include "kgb/agent/tools.h"
#include "catalog.h"
#include "kgb/mcp/jsonrpc.h"
#include "kgb/mcp/server.h"
#include "kgb/mcp/usage.h"
#include "kgb/platform.h"
#include "kgb/store/run_store.h"
#include "kgb/task.h"

namespace kgb::mcp {

namespace asio = boost::asio;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The revision this server implements, and older ones whose clients it serves
// the same way (their messages are a subset).
inline constexpr const char* kProtocolVersion = "2025-06-18";
bool supported_protocol_version(const std::string& version);

// Sends one message (a notification) to the client of the request being
// handled, while it is handled. No-op where the transport cannot (a plain JSON
// HTTP answer).
using Notify = std::function<void(const json& message)>;

// A kernel the attempt evaluated: the best so far, or the submitted one.
struct Candidate {
  int iteration = -1;
  std::string source;
  bool correct = false;
  double speedup = 0;
  std::string outcome;
};

// An iteration of an MCP attempt is one kernel source: consecutive tool calls
// on the same source share it, a different source opens the next one.
struct IterationState {
  store::IterationRecord record;
  std::string source;
  int evaluations = 0, failed_evaluations = 0;
  json tool_calls = json::array();  // {tool, outcome} in call order
};

struct Attempt {
  store::AttemptRecord record;
  const Task* task = nullptr;
  std::string transport;
  json client = json::object();  // the session's clientInfo
  Clock::time_point opened;
  Clock::time_point idle_since;  // end of the last tool call (agent time runs from here)
  std::vector<IterationState> iterations;
  std::map<int, int> next_step;  // per iteration index; calls before the first kernel use index 0
  agent::Spend spend;            // agent-reported tokens and dollars
  int evaluations = 0;
  int in_flight = 0;
  int usage_reports = 0;
  std::optional<Candidate> best, submitted;
  std::optional<std::string> end_reason;  // set: no more tool calls
  json end_detail = json::object();
  bool recorded = false;                  // its end is in the store
  std::optional<Clock::time_point> closed;  // when it really ended (its last tool call recorded)

  double seconds() const { return std::chrono::duration<double>(closed.value_or(Clock::now()) - opened).count(); }
  int current_iteration() const { return iterations.empty() ? 0 : static_cast<int>(iterations.size()) - 1; }
};

// tools/call results: text for the model, structured content for programs.
json text_content(std::string text);
json tool_ok(std::string text, json structured);
json tool_error(std::string message);

struct Session {
  std::string id;
  std::string transport;  // stdio | http
  bool initialized = false;
  std::string protocol_version;
  json client_info = json::object();
  std::string bound_task;                // opened at initialize
  std::shared_ptr<Attempt> attempt;      // the open one, or the last one
  std::set<std::string> cancelled;       // request ids the client cancelled (serialized)
  int in_flight = 0;                     // requests being handled
  std::optional<std::string> closing;    // set once the session ends: why
  Clock::time_point last_seen = Clock::now();
};

// Why a tool call is refused by a budget: the reason recorded with the
// attempt ("budget:wall-time", "budget:evaluations", ...) and a sentence.
struct BudgetRefusal {
  std::string reason, message;
};

class Engine {
 public:
  Engine(McpOptions options, asio::io_context& io);
  ~Engine();

  Status load();
  const McpOptions& options() const { return options_; }
  const std::string& run_id() const { return run_id_; }

  std::shared_ptr<Session> open_session(std::string transport, std::string id, std::string bound_task);
  // One classified message of a session: the response to send, or nothing
  // (notifications, responses, cancelled requests).
  asio::awaitable<std::optional<json>> handle(std::shared_ptr<Session> session, jsonrpc::Message message, Notify notify);
  // The session ends: no more requests; its attempt ends once the tool calls
  // in flight are recorded.
  void close_session(Session& session, const std::string& reason);

  // Stops new tool calls (they are refused) and wakes those waiting for a slot.
  void stop_accepting();
  bool stopping() const { return stopping_; }
  int tool_calls_in_flight() const { return in_flight_; }
  // Waits until no tool call is in flight.
  asio::awaitable<void> drain();
  // Ends the run's session in the store (when the server recorded anything).
  void finish_run();
  // Waits for the pool's threads to finish (before the loop is destroyed).
  void join_pool();

 private:
  // Protocol methods.
  Result<json> initialize(Session& s, const json& params);
  json list_tools() const;
  json list_resources() const;
  json list_resource_templates() const;
  Result<json> read_resource(const json& params) const;
  json list_prompts() const;
  Result<json> get_prompt(const Session& s, const json& params) const;
  // The whole JSON-RPC response to a tools/call request.
  asio::awaitable<json> call_tool(std::shared_ptr<Session> s, json id, json params, Notify notify);

  // Tools.
  json tool_list_tasks(const json& args) const;
  json tool_show_task(const Session& s, const json& args) const;
  json tool_start_attempt(Session& s, const json& args);
  json tool_attempt_status(const Session& s);
  json tool_report_usage(Session& s, const json& args);
  asio::awaitable<json> tool_kernel(std::shared_ptr<Session> s, std::string tool, json args, Notify notify,
                                    json progress_token);

  // Run and attempts.
  Status ensure_run(const json& client_info);
  Result<std::shared_ptr<Attempt>> open_attempt(Session& s, const std::string& task_id);
  IterationState& iteration_for(Attempt& a, const std::string& source);
  void save_iteration(Attempt& a, IterationState& it);
  // A tool call that ran nothing on the pool (browsing, a refusal), written
  // done at once under the next step of the attempt's current iteration.
  void record_call(Attempt& a, const std::string& tool, const json& arguments, const std::string& kernel_sha,
                   const std::string& outcome, bool ok, const json& result, double seconds);
  void write_call(Attempt& a, int iteration, int step, const std::string& tool, const json& arguments,
                  const std::string& kernel_sha, const std::string& outcome, bool ok, const json& result, double seconds);
  // A tool call written `running` as it starts, and `done` (with its evaluation) as it ends.
  Result<store::ToolCallRecord> begin_call(Attempt& a, int iteration, int step, const std::string& tool,
                                           const json& arguments, const std::string& kernel_sha);
  void finish_call(store::ToolCallRecord& rec, const std::string& outcome, bool ok, const json& result, double seconds,
                   const std::optional<store::EvaluationRecord>& evaluation);
  std::optional<BudgetRefusal> budget_stop(const Attempt& a, bool new_kernel, bool evaluation) const;
  void end_attempt(Attempt& a, const std::string& reason, json detail = json::object());
  void maybe_record_end(Attempt& a);
  json attempt_json(const Attempt& a) const;
  const Task* find_task(const std::string& id) const;

  McpOptions options_;
  asio::io_context& io_;
  std::unique_ptr<asio::thread_pool> pool_;
  std::unique_ptr<store::RunStore> store_;
  Platform platform_;
  std::vector<Task> tasks_;  // the tasks sessions may work on
  std::vector<ToolDef> tools_offered_;
  agent::PromptSet prompts_;
  std::shared_ptr<agent::ToolBackend> tools_;
  std::unique_ptr<agent::AsyncSemaphore> job_slots_, device_slots_;
  int jobs_ = 1;
  std::string host_;  // evaluations run here (the store's evaluations.node)

  std::string run_id_;
  bool run_exists_ = false;   // in the store already (created by us or by another server)
  bool run_started_ = false;  // this server began a session of it
  uint64_t secret_seed_ = 0;
  Clock::time_point run_started_at_;

  std::vector<std::shared_ptr<Attempt>> attempts_;  // every attempt this server opened
  bool stopping_ = false;
  int in_flight_ = 0;
};

}  // namespace kgb::mcp
