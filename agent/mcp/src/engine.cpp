// The run, the sessions and the attempts: what is written to the run store,
// when, and which budget stops what.
#include "engine.h"

#include <random>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "kgb/agent/config.h"
#include "kgb/agent/runner.h"
#include "kgb/paths.h"

namespace kgb::mcp {

namespace {

uint64_t random_u64() {
  std::random_device rd;
  const uint64_t v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return v ? v : 1;
}

json budget_json(const AttemptBudget& b) {
  json j;
  agent::to_json(j, b.limits);
  if (b.evaluations) j["evaluations"] = *b.evaluations;
  return j;
}

}  // namespace

bool supported_protocol_version(const std::string& v) {
  return v == kProtocolVersion || v == "2025-03-26" || v == "2024-11-05";
}

Engine::Engine(McpOptions options, asio::io_context& io) : options_(std::move(options)), io_(io) {}

Engine::~Engine() { join_pool(); }

void Engine::join_pool() {
  if (pool_) pool_->join();
}

Status Engine::load() {
  auto platform = load_platform(options_.platform);
  if (!platform) return platform.error();
  platform_ = std::move(platform.value());
  if (auto avail = check_availability(platform_); !avail.available)
    return make_error("platform.unavailable", "platform " + platform_.name + " is not available here: " + avail.reason);

  TaskLoadReport loaded = load_all_tasks(tasks_root());
  for (const auto& id : agent::match_task_ids(loaded.tasks, options_.tasks))
    for (auto& t : loaded.tasks)
      if (t.id == id) tasks_.push_back(std::move(t));
  if (tasks_.empty()) return make_error("mcp.no-tasks", "no task matches '" + options_.tasks + "' (see `kgb tasks`)");
  if (!options_.task.empty() && !find_task(options_.task))
    return make_error("mcp.unknown-task", "unknown task '" + options_.task + "' (not among the tasks matching '" + options_.tasks + "')");

  auto prompts = agent::PromptSet::load(options_.prompts_dir.empty() ? prompts_root() : std::filesystem::path(options_.prompts_dir));
  if (!prompts) return prompts.error();
  prompts_ = std::move(prompts.value());
  if (!prompts_.has("mcp/system")) return make_error("prompt.missing", "the prompt set has no 'mcp/system' template");

  auto store = store::RunStore::open(options_.store);
  if (!store) return store.error();
  store_ = std::move(store.value());
  run_id_ = options_.run_id.empty() ? agent::new_run_id() : options_.run_id;
  if (auto run = store_->load_run(run_id_)) {
    if (run->policy != "mcp")
      return make_error("mcp.run", "run " + run_id_ + " was recorded by `kgb run` (policy " + run->policy +
                                       "); MCP sessions record into a run of their own");
    if (run->platform != platform_.name)
      return make_error("mcp.run", "run " + run_id_ + " is on platform " + run->platform + ", not " + platform_.name);
    run_exists_ = true;
    secret_seed_ = run->secret_seed;
  } else if (run.error().code != "store.unknown-run") {
    return run.error();
  }

  agent::install_lint_hooks();
  tools_ = agent::make_harness_tools();
  // Nsight Compute profiles CUDA platforms; the others have no profiler in kgb_profile yet.
  tools_offered_ = tool_defs(platform_.backend == "cuda");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  host_ = agent::host_name();
  jobs_ = options_.evaluation.jobs > 0 ? options_.evaluation.jobs : cores;
  pool_ = std::make_unique<asio::thread_pool>(static_cast<size_t>(jobs_));
  job_slots_ = std::make_unique<agent::AsyncSemaphore>(io_.get_executor(), jobs_);
  device_slots_ = std::make_unique<agent::AsyncSemaphore>(io_.get_executor(), 1);
  return Ok{};
}

const Task* Engine::find_task(const std::string& id) const {
  for (const auto& t : tasks_)
    if (t.id == id) return &t;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Sessions

std::shared_ptr<Session> Engine::open_session(std::string transport, std::string id, std::string bound_task) {
  auto s = std::make_shared<Session>();
  s->transport = std::move(transport);
  s->id = std::move(id);
  s->bound_task = bound_task.empty() ? options_.task : std::move(bound_task);
  return s;
}

void Engine::close_session(Session& s, const std::string& reason) {
  if (s.closing) return;
  s.closing = reason;
  if (s.attempt && !s.attempt->end_reason) end_attempt(*s.attempt, reason);
}

void Engine::stop_accepting() {
  stopping_ = true;
  job_slots_->cancel_all();
  device_slots_->cancel_all();
}

asio::awaitable<void> Engine::drain() {
  asio::steady_timer timer(io_);
  while (in_flight_ > 0) {
    timer.expires_after(std::chrono::milliseconds(50));
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

void Engine::finish_run() {
  for (auto& a : attempts_)
    if (!a->end_reason) end_attempt(*a, "server-stopped");
  if (!run_started_) return;
  json summary = {{"attempts", attempts_.size()}};
  int solved = 0;
  for (const auto& a : attempts_) solved += a->record.correct ? 1 : 0;
  summary["solved"] = solved;
  const double seconds = std::chrono::duration<double>(Clock::now() - run_started_at_).count();
  if (auto s = store_->end_session(run_id_, "finished", seconds, summary); !s)
    std::fprintf(stderr, "kgb mcp-server: run store: %s\n", s.error().message.c_str());
}

// ---------------------------------------------------------------------------
// The run

Status Engine::ensure_run(const json& client_info) {
  if (run_started_) return Ok{};
  if (!run_exists_) {
    store::RunRecord run;
    run.id = run_id_;
    run.policy = "mcp";
    run.provider = "mcp";
    run.model = options_.agent;
    if (run.model.empty()) {
      run.model = client_info.value("name", "");
      if (const std::string v = client_info.value("version", ""); !v.empty()) run.model += " " + v;
      if (run.model.empty()) run.model = "external agent";
    }
    run.platform = platform_.name;
    run.tasks_glob = options_.tasks;
    run.samples = 1;
    // The evaluation and feedback settings in the loop's own format.
    agent::RunConfig loop_format;
    loop_format.evaluation = options_.evaluation;
    loop_format.feedback = options_.feedback;
    const json settings = agent::config_to_json(loop_format);
    run.config = {{"mcp",
                   {{"platform", platform_.name},
                    {"tasks", options_.tasks},
                    {"task", options_.task},
                    {"agent", options_.agent},
                    {"budget", budget_json(options_.budget)},
                    {"protocol_version", kProtocolVersion}}},
                  {"evaluation", settings["evaluation"]},
                  {"feedback", settings["feedback"]}};
    run.prompts = prompts_.to_json();
    run.git_revision = agent::git_revision();
    run.platform_facts = agent::platform_facts(platform_);
#ifdef KGB_VERSION
    run.kgb_version = KGB_VERSION;
#endif
    run.secret_seed = random_u64();
    if (auto s = store_->create_run(run); s) {
      secret_seed_ = run.secret_seed;
    } else {
      // Another server sharing the store created it first: join it.
      auto existing = store_->load_run(run_id_);
      if (!existing) return s.error();
      secret_seed_ = existing->secret_seed;
    }
    run_exists_ = true;
  }
  // Several servers may share a run; each counts as a session of it.
  if (auto s = store_->begin_session(run_id_); !s) return s.error();
  run_started_ = true;
  run_started_at_ = Clock::now();
  return Ok{};
}

Result<std::shared_ptr<Attempt>> Engine::open_attempt(Session& s, const std::string& task_id) {
  const Task* task = find_task(task_id);
  if (!task) return make_error("mcp.unknown-task", "unknown task '" + task_id + "' (see the list_tasks tool)");
  if (s.attempt && !s.attempt->end_reason)
    return make_error("mcp.attempt-open", "this session's attempt on " + s.attempt->record.task +
                                              " is still open: submit its kernel first (one attempt at a time per session)");
  if (stopping_) return make_error("mcp.stopping", "the server is stopping; no attempt can start");
  if (auto r = ensure_run(s.client_info); !r) return r.error();
  auto rec = store_->add_attempt(run_id_, task_id);
  if (!rec) return rec.error();
  if (auto m = store_->mark_attempt_running(rec->id); !m) return m.error();
  auto a = std::make_shared<Attempt>();
  a->record = std::move(rec.value());
  a->record.status = "running";
  a->record.started_at = store::utc_now();
  a->task = task;
  a->transport = s.transport;
  a->client = s.client_info;
  a->opened = a->idle_since = Clock::now();
  attempts_.push_back(a);
  s.attempt = a;
  return a;
}

// ---------------------------------------------------------------------------
// Iterations and tool calls

IterationState& Engine::iteration_for(Attempt& a, const std::string& source) {
  if (!a.iterations.empty() && a.iterations.back().source == source) return a.iterations.back();
  IterationState it;
  it.source = source;
  it.record.run_id = run_id_;
  it.record.attempt_id = a.record.id;
  it.record.index = static_cast<int>(a.iterations.size());
  it.record.status = "running";
  it.record.started_at = store::utc_now();
  if (!source.empty())
    if (auto sha = store_->put_kernel(source)) it.record.kernel = *sha;
  // The agent's own time (thinking, its model calls) before this kernel.
  it.record.detail = {{"agent_seconds", std::chrono::duration<double>(Clock::now() - a.idle_since).count()}};
  a.iterations.push_back(std::move(it));
  a.spend.iterations = static_cast<int>(a.iterations.size());
  save_iteration(a, a.iterations.back());
  return a.iterations.back();
}

void Engine::save_iteration(Attempt&, IterationState& it) {
  if (auto s = store_->save_iteration(it.record); !s)
    std::fprintf(stderr, "kgb mcp-server: run store: %s\n", s.error().message.c_str());
}

void Engine::record_call(Attempt& a, const std::string& tool, const json& arguments, const std::string& kernel_sha,
                         const std::string& outcome, bool ok, const json& result, double seconds) {
  const int iteration = a.current_iteration();
  write_call(a, iteration, a.next_step[iteration]++, tool, arguments, kernel_sha, outcome, ok, result, seconds);
}

void Engine::write_call(Attempt& a, int iteration, int step, const std::string& tool, const json& arguments,
                        const std::string& kernel_sha, const std::string& outcome, bool ok, const json& result,
                        double seconds) {
  auto rec = begin_call(a, iteration, step, tool, arguments, kernel_sha);
  if (!rec) {
    std::fprintf(stderr, "kgb mcp-server: run store: %s\n", rec.error().message.c_str());
    return;
  }
  finish_call(*rec, outcome, ok, result, seconds, std::nullopt);
}

Result<store::ToolCallRecord> Engine::begin_call(Attempt& a, int iteration, int step, const std::string& tool,
                                                 const json& arguments, const std::string& kernel_sha) {
  store::ToolCallRecord rec;
  rec.run_id = run_id_;
  rec.attempt_id = a.record.id;
  rec.iteration = iteration;
  rec.step = step;
  rec.tool = tool;
  rec.arguments = arguments;
  rec.kernel = kernel_sha;
  auto id = store_->begin_tool_call(rec);
  if (!id) return id.error();
  rec.id = *id;
  return rec;
}

void Engine::finish_call(store::ToolCallRecord& rec, const std::string& outcome, bool ok, const json& result,
                         double seconds, const std::optional<store::EvaluationRecord>& evaluation) {
  rec.status = "done";
  rec.outcome = outcome;
  rec.ok = ok;
  rec.result = result;
  rec.duration_ms = static_cast<int64_t>(seconds * 1000);
  if (auto s = store_->finish_tool_call(rec, evaluation); !s)
    std::fprintf(stderr, "kgb mcp-server: run store: %s\n", s.error().message.c_str());
}

// ---------------------------------------------------------------------------
// Budgets and the end of an attempt

std::optional<BudgetRefusal> Engine::budget_stop(const Attempt& a, bool new_kernel, bool evaluation) const {
  const AttemptBudget& b = options_.budget;
  agent::BudgetLimits limits = b.limits;
  limits.iterations.reset();  // kernels: checked below, only when the call brings a new one
  agent::Spend spend = a.spend;
  spend.wall_seconds = a.seconds();
  if (auto stop = agent::check_iteration(limits, spend, {}, {})) return BudgetRefusal{stop->reason(), stop->message};
  if (new_kernel && b.limits.iterations && static_cast<int>(a.iterations.size()) >= *b.limits.iterations)
    return BudgetRefusal{"budget:iterations", "kernels: " + std::to_string(a.iterations.size()) + " of " +
                                                  std::to_string(*b.limits.iterations) + " tried"};
  if (evaluation && b.evaluations && a.evaluations >= *b.evaluations)
    return BudgetRefusal{"budget:evaluations", "evaluations: " + std::to_string(a.evaluations) + " of " +
                                                   std::to_string(*b.evaluations) + " used"};
  return std::nullopt;
}

void Engine::end_attempt(Attempt& a, const std::string& reason, json detail) {
  if (a.end_reason) return;
  a.end_reason = reason;
  a.end_detail = std::move(detail);
  maybe_record_end(a);
}

void Engine::maybe_record_end(Attempt& a) {
  if (!a.end_reason || a.recorded || a.in_flight > 0) return;
  a.recorded = true;
  if (!a.closed) a.closed = Clock::now();
  store::AttemptRecord& r = a.record;
  // The submitted kernel is the attempt's result; without a submission, the
  // best kernel evaluated (as the loop's policies keep theirs).
  const std::optional<Candidate>& result = a.submitted ? a.submitted : a.best;
  const std::string& reason = *a.end_reason;
  r.correct = result && result->correct;
  r.status = r.correct                                                                      ? "solved"
             : reason.rfind("budget:", 0) == 0                                              ? "budget"
             : reason == "error"                                                            ? "error"
                                                                                            : "failed";
  r.stop_reason = reason;
  r.best_iteration = result ? result->iteration : -1;
  r.best_speedup = result ? result->speedup : 0;
  r.best_kernel.clear();
  if (result && !result->source.empty())
    if (auto sha = store_->put_kernel(result->source)) r.best_kernel = *sha;
  r.iterations = static_cast<int>(a.iterations.size());
  r.tokens.input = a.spend.input_tokens;
  r.tokens.cached_input = a.spend.cached_tokens;
  r.tokens.cache_write = a.spend.cache_write_tokens;
  r.tokens.output = a.spend.output_tokens;
  r.tokens.reasoning = a.spend.reasoning_tokens;
  r.cost_usd = a.spend.usd;
  r.seconds = a.seconds();
  r.result = {{"reason", reason},
              {"detail", a.end_detail},
              {"submitted", a.submitted.has_value()},
              {"transport", a.transport},
              {"client", a.client},
              {"evaluations", a.evaluations}};
  if (result) r.result["best_outcome"] = result->outcome;
  if (a.usage_reports > 0) r.result["agent_reported_usage"] = {{"reports", a.usage_reports}, {"reported_by", "agent"}};
  r.finished_at.clear();
  if (auto s = store_->finish_attempt(r); !s)
    std::fprintf(stderr, "kgb mcp-server: run store: %s\n", s.error().message.c_str());
  if (auto stored = store_->attempt(r.id)) r = std::move(stored.value());
}

json Engine::attempt_json(const Attempt& a) const {
  const AttemptBudget& b = options_.budget;
  auto used = [](auto value, const auto& limit) {
    json j = {{"used", value}};
    if (limit) j["limit"] = *limit;
    return j;
  };
  json j = {{"id", a.record.id},
            {"run_id", run_id_},
            {"task", a.record.task},
            {"sample", a.record.sample},
            {"platform", platform_.name},
            {"status", a.end_reason ? (a.recorded ? a.record.status : "ending") : "open"},
            {"kernels", used(static_cast<int>(a.iterations.size()), b.limits.iterations)},
            {"evaluations", used(a.evaluations, b.evaluations)},
            {"wall_seconds", used(a.seconds(), b.limits.wall_seconds)},
            {"tokens", used(a.spend.total_tokens(), b.limits.total_tokens)},
            {"usd", used(a.spend.usd, b.limits.usd)}};
  if (a.end_reason) j["end_reason"] = *a.end_reason;
  auto candidate = [](const Candidate& c) {
    return json{{"iteration", c.iteration}, {"outcome", c.outcome}, {"correct", c.correct}, {"speedup", c.speedup}};
  };
  if (a.best) j["best"] = candidate(*a.best);
  if (a.submitted) j["submitted"] = candidate(*a.submitted);
  return j;
}

}  // namespace kgb::mcp
