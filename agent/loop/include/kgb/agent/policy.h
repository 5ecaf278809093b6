// Policies decide what an agent does for one task attempt (DESIGN 3.6). A
// policy is a coroutine over an AttemptContext: it opens iterations, asks the
// model (Iteration::chat) and calls tools (Iteration::tool), and returns why
// it stopped. It never touches the network, the harness or the store itself.
//
// Determinism and resume: every step is journaled under (attempt, iteration,
// step). When a killed run resumes, the policy runs again from the start and
// each step already recorded returns its recorded result at once (replayed =
// true); the first step not recorded is executed for real. So a policy must
// decide only from step results, its parameters and AttemptContext::seed(),
// never from clocks or global state, and must open iterations in a fixed order
// (for parallel work: open them all, then run them; see run_all()).
//
// Adding a policy: derive from Policy, register a factory with
// KGB_REGISTER_POLICY in any linked source file (examples/policies/ shows one).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "kgb/agent/budget.h"
#include "kgb/agent/config.h"
#include "kgb/agent/extract.h"
#include "kgb/agent/prompts.h"
#include "kgb/agent/tools.h"
#include "kgb/llm/types.h"
#include "kgb/platform.h"
#include "kgb/result.h"
#include "kgb/task.h"

namespace kgb::agent {

// Thrown out of a step when the run is stopping (Ctrl-C, a fatal provider
// error). The attempt stays unfinished and resumes from its last recorded
// step. Policies must let it pass (no catch (...) around steps).
class AttemptInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ChatResult {
  bool called = false;                // false: a budget refused the call (see `budget`)
  std::optional<BudgetStop> budget;
  bool ok = false;                    // a response arrived
  std::string text, reasoning;
  std::vector<llm::ToolCall> tool_calls;
  std::string finish_reason;          // stop | length | tool_calls | ...
  std::string error_kind, error_message;  // when !ok: the provider failure after retries
  Spend spend;                        // this call's tokens, dollars and seconds
  int64_t max_output_tokens = 0;      // the cap sent (after budget capping); 0: none
  bool replayed = false;

  bool cut_off() const { return finish_reason == "length"; }
};

// What an iteration ended with; written to the store.
struct IterationSummary {
  std::string outcome;          // passed | compile-error | wrong-result | no-code | truncated-code | llm-error | budget | ...
  std::string source;           // the kernel this iteration produced ("" when none)
  bool correct = false;
  double speedup = 0;
  std::string feedback;         // the message the model gets next ("" when none)
  std::string error_signature;
  nlohmann::json detail = nlohmann::json::object();  // policy-specific (seed, round, tool calls, ...)
};

struct KernelCandidate {
  int iteration = -1;
  std::string source;
  bool correct = false;
  double speedup = 0;
  std::string outcome;
};

class AttemptContext;

class Iteration {
 public:
  ~Iteration();
  Iteration(const Iteration&) = delete;
  Iteration& operator=(const Iteration&) = delete;

  int index() const;
  const std::string& conversation() const;
  // Checks the budgets, caps max_output_tokens to what remains, calls the
  // model and records the call. A refused call returns called = false.
  boost::asio::awaitable<ChatResult> chat(llm::ChatRequest request);
  // Runs a tool on a source and records it (with its evaluation).
  boost::asio::awaitable<ToolResult> tool(ToolKind kind, std::string source, std::string call_id = {},
                                          nlohmann::json arguments = nlohmann::json::object());
  // Ends the iteration; its spend is added by the context. Called once.
  void finish(IterationSummary summary);
  const Spend& spend() const;

  struct State;

 private:
  friend class AttemptContext;
  explicit Iteration(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The correctness run of a kernel, then its profile when it is correct and
// timing is on.
struct KernelCheck {
  ToolResult run;
  std::optional<ToolResult> profile;
  bool correct() const { return run.correct && (!profile || profile->correct); }
  double speedup() const { return profile ? profile->speedup : 0; }
  const ToolResult& last() const { return profile ? *profile : run; }
};

class AttemptContext {
 public:
  struct Impl;
  explicit AttemptContext(Impl& impl);

  const Task& task() const;
  const Platform& platform() const;
  const RunConfig& config() const;
  const nlohmann::json& params() const;  // the policy's resolved parameters
  const PromptSet& prompts() const;
  const TemplateVars& task_vars() const;
  int sample() const;
  uint64_t seed() const;  // per attempt, stable across resumes
  const std::string& task_id() const;

  // Whether another iteration may start (iterations, and any budget spent).
  std::optional<BudgetStop> budget_stop() const;
  // Opens the next iteration. `conversation` names a line of work inside the
  // attempt (a seed of parallel-refine); the oracle counts attempts per conversation.
  std::unique_ptr<Iteration> begin_iteration(std::string conversation = {});
  const Spend& spend() const;
  int iterations_started() const;

  // Best-so-far: correct beats incorrect, then higher speedup, then earlier.
  void offer(const KernelCandidate& candidate);
  const std::optional<KernelCandidate>& best() const;

  // Helpers every policy needs.
  Result<std::string> render(const std::string& template_name, const TemplateVars& extra = {}) const;
  // [system prompt, task prompt] as messages.
  Result<std::vector<llm::Message>> opening_messages() const;
  // A request with the run's model, sampling settings and output cap.
  llm::ChatRequest make_request(std::vector<llm::Message> messages) const;
  ExtractedCode extract(const ChatResult& reply) const;
  // Feedback text for a tool result (through its feedback template).
  std::string feedback(const ToolResult& result, const TemplateVars& extra = {}) const;
  // Feedback for a reply without usable code (no_code / truncated templates).
  std::string feedback(const ExtractedCode& code, const TemplateVars& extra = {}) const;
  // run, then profile when correct and timing is on; offers the kernel as a candidate.
  boost::asio::awaitable<KernelCheck> check_kernel(Iteration& iteration, const std::string& source);
  // Runs jobs concurrently on the attempt's executor and waits for all. The
  // first exception (e.g. AttemptInterrupted) is rethrown after all finished.
  boost::asio::awaitable<void> run_all(std::vector<std::function<boost::asio::awaitable<void>()>> jobs);

 private:
  Impl& impl_;
};

// Why a policy stopped. Reasons in use: correct, target-speedup, max-iterations,
// rounds-done, samples-done, abandoned, no-progress, llm-error, submitted,
// budget:<kind>, run-budget:<kind> (BudgetStop::reason()).
struct AttemptEnd {
  std::string reason;
  nlohmann::json detail = nlohmann::json::object();
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual boost::asio::awaitable<AttemptEnd> run(AttemptContext& ctx) = 0;
};

struct PolicyInfo {
  std::string name;
  std::string description;
  nlohmann::json defaults = nlohmann::json::object();  // every parameter with its default
  std::function<Result<std::unique_ptr<Policy>>(const nlohmann::json& params)> make;
};

class PolicyRegistry {
 public:
  // Holds the built-in policies (sample, refine, parallel-refine, tool-agent)
  // and every one registered with KGB_REGISTER_POLICY.
  static PolicyRegistry& global();
  void add(PolicyInfo info);  // replaces a policy of the same name
  const PolicyInfo* find(const std::string& name) const;
  std::vector<const PolicyInfo*> list() const;
  // The defaults overlaid with `given`; unknown keys and wrongly typed values are errors.
  Result<nlohmann::json> resolve_params(const std::string& name, const nlohmann::json& given) const;
  Result<std::unique_ptr<Policy>> make(const std::string& name, const nlohmann::json& resolved_params) const;

 private:
  PolicyRegistry();
  std::vector<PolicyInfo> policies_;
};

struct PolicyRegistrar {
  explicit PolicyRegistrar(PolicyInfo info) { PolicyRegistry::global().add(std::move(info)); }
};

}  // namespace kgb::agent

// KGB_REGISTER_POLICY(identifier, PolicyInfo{...}): registers at static
// initialisation. Put it in a source file compiled into the executable (an
// object in a static library is dropped when nothing refers to it).
#define KGB_REGISTER_POLICY(identifier, ...) \
  static ::kgb::agent::PolicyRegistrar kgb_policy_registrar_##identifier { __VA_ARGS__ }
