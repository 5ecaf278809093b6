// The journaled steps of a task attempt: LLM calls and tool calls are looked
// up in the store first (a resumed run replays them), executed otherwise, and
// recorded as they start and as they end.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sstream>
#include <vector>

#include "engine.h"
#include "kgb/llm/provider.h"

namespace kgb::agent {

namespace asio = boost::asio;
using json = nlohmann::json;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool is_valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

// Replies may hold any bytes; JSON text must stay valid UTF-8.
std::string valid_utf8(const std::string& s) {
  if (is_valid_utf8(s)) return s;
  json j = s;
  const std::string dumped = j.dump(-1, ' ', false, json::error_handler_t::replace);
  return json::parse(dumped).get<std::string>();
}

json message_json(const llm::Message& m) {
  json j = {{"role", llm::to_string(m.role)}, {"content", valid_utf8(m.content)}};
  if (!m.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& c : m.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", valid_utf8(c.arguments)}});
    j["tool_calls"] = calls;
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  return j;
}

json request_json(const llm::ChatRequest& r) {
  json j = {{"model", r.model}, {"system", r.system}, {"stream", r.stream}};
  json messages = json::array();
  for (const auto& m : r.messages) messages.push_back(message_json(m));
  j["messages"] = messages;
  if (!r.tools.empty()) {
    json tools = json::array();
    for (const auto& t : r.tools) tools.push_back(t.name);
    j["tools"] = tools;
  }
  if (r.temperature) j["temperature"] = *r.temperature;
  if (r.max_output_tokens) j["max_output_tokens"] = *r.max_output_tokens;
  if (r.seed) j["seed"] = *r.seed;
  if (!r.reasoning_effort.empty()) j["reasoning_effort"] = r.reasoning_effort;
  if (r.thinking_budget) j["thinking_budget"] = *r.thinking_budget;
  if (r.extra.is_object() && !r.extra.empty()) j["extra"] = r.extra;
  return j;
}

Spend spend_of(const store::TokenCounts& t, std::optional<double> cost, double seconds) {
  Spend s;
  s.input_tokens = t.input;
  s.cached_tokens = t.cached_input;
  s.cache_write_tokens = t.cache_write;
  s.output_tokens = t.output;
  s.reasoning_tokens = t.reasoning;
  s.usd = cost.value_or(0);
  s.wall_seconds = seconds;
  s.llm_calls = 1;
  return s;
}

ChatResult chat_from_record(const store::LlmCallRecord& rec) {
  ChatResult r;
  r.called = true;
  r.ok = rec.error_kind.empty();
  r.text = rec.response_text;
  r.reasoning = rec.reasoning;
  r.finish_reason = rec.finish_reason;
  if (rec.tool_calls.is_array())
    for (const auto& c : rec.tool_calls)
      r.tool_calls.push_back({c.value("id", ""), c.value("name", ""), c.value("arguments", "")});
  r.error_kind = rec.error_kind;
  r.error_message = rec.error_message;
  r.spend = spend_of(rec.tokens, rec.cost_usd, static_cast<double>(rec.latency_ms) / 1000.0);
  r.max_output_tokens = rec.max_output_tokens;
  r.replayed = true;
  return r;
}

Spend reservation(int64_t prompt, std::optional<int64_t> cap) {
  Spend s;
  s.input_tokens = prompt;
  s.output_tokens = cap.value_or(0);
  return s;
}

void subtract(Spend& from, const Spend& what) {
  from.input_tokens -= what.input_tokens;
  from.output_tokens -= what.output_tokens;
}

// One blocking tool run, with copies of everything it needs: it executes on a
// pool thread while the coroutine that asked for it waits.
struct ToolJob {
  ToolKind kind;
  std::string source;
  const Task* task;
  const Platform* platform;
  EvalOptions options;
  FeedbackSettings limits;
  std::shared_ptr<ToolBackend> tools;
  double profile_below = 0;  // EvaluationSettings::profile_below

  ToolResult operator()() const {
    ToolResult r = run_tool(*tools, kind, source, *task, *platform, options, limits);
    if (kind != ToolKind::Profile) return r;
    try {
      add_profiler_summary(r, *tools, source, *task, *platform, profile_below);
    } catch (const std::exception& e) {
      r.data["profiler_error"] = e.what();  // the verdict stands; the profile is extra
    }
    return r;
  }
};

// Runs the job on the pool and resumes on the caller's executor. Not a
// coroutine itself: GCC 12 mishandles lambdas that capture coroutine
// parameters, so the job travels in a shared_ptr captured outside any coroutine.
asio::awaitable<ToolResult> offload(asio::thread_pool& pool, std::shared_ptr<const ToolJob> job) {
  return asio::co_spawn(
      pool, [job]() -> asio::awaitable<ToolResult> { co_return (*job)(); }, asio::use_awaitable);
}

// Where an evaluation ran, for its row in the store.
struct Placement {
  std::string executor = "local";
  std::string node, partition, job_id;
  int tries = 1;
};

// Stable across sessions: a resumed run asks for the same step again.
std::string job_key(int64_t attempt_id, int iteration, int step) {
  return "a" + std::to_string(attempt_id) + "-i" + std::to_string(iteration) + "-s" + std::to_string(step);
}

// The tool as a job on the run's executor. The tool call is recorded as
// started before the job is queued; when the run stops before a worker took
// the job it stays `running` and is redone by the next session.
asio::awaitable<ToolResult> run_on_cluster(RunState& run, const Task& task, ToolKind kind, const std::string& source,
                                           const EvalOptions& options, store::ToolCallRecord& rec, Placement& where) {
  auto id = run.store->begin_tool_call(rec);
  if (!id) throw std::runtime_error("run store: " + id.error().message);
  rec.id = *id;
  jobs::JobRequest request;
  request.key = job_key(rec.attempt_id, rec.iteration, rec.step);
  request.kind = job_kind_for(kind);
  request.task = task.id;
  request.platform = run.platform.name;
  request.source = source;
  request.options = options;
  request.partition = run.config.executor.partition_for(run.platform.name, request.kind);
  ++run.jobs_running;
  std::optional<jobs::JobReply> reply;
  try {
    auto job = run.cluster->run(std::move(request));  // built apart from the co_await (GCC 12 temporaries)
    reply = co_await std::move(job);
  } catch (...) {
    --run.jobs_running;
    throw;
  }
  --run.jobs_running;
  if (!reply) throw AttemptInterrupted("the run is stopping");
  ToolResult result = reply_result(kind, *reply, task, run.platform, run.config.feedback);
  result.seconds = reply->seconds;
  where.executor = reply->executor.empty() ? run.config.executor.kind : reply->executor;
  where.node = reply->node;
  where.partition = reply->partition;
  where.job_id = reply->job_id;
  where.tries = reply->attempt;
  co_return result;
}

}  // namespace

// ---------------------------------------------------------------------------
// RunState

Spend RunState::run_spend_now() const {
  Spend s = run_spend;
  s.wall_seconds = previous_seconds + seconds_since(session_start);
  return s;
}

void RunState::request_stop(const std::string& why, bool fatal) {
  if (fatal && stop_error.empty()) stop_error = why;
  if (stopping) return;
  stopping = true;
  cancel.cancel();
  if (llm_slots) llm_slots->cancel_all();
  if (device_slots) device_slots->cancel_all();
  if (job_slots) job_slots->cancel_all();
  if (cluster) cluster->stop();
  message(fatal ? "error" : "info", why);
}

void RunState::message(std::string_view level, const std::string& text) const {
  if (observer) observer->on_message(level, text);
}

// ---------------------------------------------------------------------------
// Iteration

Iteration::Iteration(std::unique_ptr<State> state) : state_(std::move(state)) {}
Iteration::~Iteration() = default;

int Iteration::index() const { return state_->index; }
const std::string& Iteration::conversation() const { return state_->conversation; }
const Spend& Iteration::spend() const { return state_->spend; }

namespace {

void account(Iteration::State& st, const Spend& s, bool replayed, bool llm) {
  st.spend += s;
  (llm ? st.llm_seconds : st.tool_seconds) += s.wall_seconds;
  ++(replayed ? st.replayed_steps : st.fresh_steps);
  st.attempt.spend += s;
  if (!replayed) {
    Spend run_part = s;
    run_part.iterations = 0;
    st.attempt.run.run_spend += run_part;
  }
}

// A step whose record cannot be read must not run again as if new (it may be
// paid for already): the whole run stops, and the attempt stays for a later session.
template <typename T>
T recorded_or_stop(RunState& run, Result<T> read) {
  if (!read) {
    run.request_stop("the run stopped: " + read.error().message, true);
    throw AttemptInterrupted(read.error().message);
  }
  return std::move(read.value());
}

}  // namespace

asio::awaitable<ChatResult> Iteration::chat(llm::ChatRequest request) {
  State& st = *state_;
  AttemptContext::Impl& a = st.attempt;
  RunState& run = a.run;
  const int step = st.next_step++;
  if (auto rec = recorded_or_stop(run, run.store->find_llm_call(a.record.id, st.index, step))) {
    ChatResult r = chat_from_record(*rec);
    account(st, r.spend, true, true);
    co_return r;
  }
  if (run.stopping) throw AttemptInterrupted("the run is stopping");

  const int64_t estimate = llm::estimate_prompt_tokens(request);
  Spend attempt_view = a.spend;
  attempt_view += a.reserved;
  Spend run_view = run.run_spend_now();
  run_view += run.run_reserved;
  const CallAllowance allowance = allow_call(run.config.attempt_budget, attempt_view, run.config.run_budget, run_view,
                                             estimate, request.max_output_tokens, run.prices);
  if (allowance.stop) {
    ChatResult r;
    r.budget = allowance.stop;
    co_return r;
  }
  request.max_output_tokens = allowance.max_output_tokens;
  if (run.session_header)
    request.headers.push_back({"X-KGB-Session", run.run_id + "/" + a.task.id + "/" + std::to_string(a.record.sample) + "/" +
                                                    (st.conversation.empty() ? "main" : st.conversation)});

  const Spend reserved = reservation(estimate, allowance.max_output_tokens);
  a.reserved += reserved;
  run.run_reserved += reserved;
  struct Unreserve {
    AttemptContext::Impl& a;
    Spend r;
    ~Unreserve() {
      subtract(a.reserved, r);
      subtract(a.run.run_reserved, r);
    }
  } unreserve{a, reserved};

  if (!co_await run.llm_slots->acquire()) throw AttemptInterrupted("the run is stopping");
  SemaphoreUnit slot(run.llm_slots.get());
  if (run.stopping) throw AttemptInterrupted("the run is stopping");

  store::LlmCallRecord rec;
  rec.run_id = run.run_id;
  rec.attempt_id = a.record.id;
  rec.iteration = st.index;
  rec.step = step;
  rec.provider = run.config.provider.name;
  rec.model = request.model;
  rec.request = request_json(request);
  rec.max_output_tokens = request.max_output_tokens.value_or(0);
  auto id = run.store->begin_llm_call(rec);
  if (!id) throw std::runtime_error("run store: " + id.error().message);
  rec.id = *id;

  ++run.llm_in_flight;
  llm::ChatOutcome outcome;
  try {
    outcome = co_await run.chat->chat(std::move(request), run.cancel);
  } catch (...) {
    --run.llm_in_flight;
    throw;
  }
  --run.llm_in_flight;
  slot.reset();

  rec.latency_ms = outcome.stats.elapsed.count();
  rec.attempts = outcome.stats.attempts;
  rec.retries = outcome.stats.retries;
  const llm::Usage& u = outcome.usage;
  rec.tokens.input = u.input_tokens;
  rec.tokens.cached_input = u.cached_input_tokens;
  rec.tokens.cache_write = u.cache_write_tokens;
  rec.tokens.output = u.output_tokens;
  rec.tokens.reasoning = u.reasoning_tokens;
  rec.cost_usd = outcome.cost_usd;
  // A server that sends no usage, or zeros for a real exchange (some gateways
  // do), must not make the call free: the client's estimate stands in, and
  // budgets and reports see it marked as such.
  if (u.reported && u.input_tokens > 0) {
    rec.usage_source = u.estimated ? "estimated" : "reported";
  } else if (outcome.response) {
    rec.usage_source = "estimated";
    rec.tokens = {};
    rec.tokens.input = estimate;
    rec.tokens.output = llm::estimate_reply_tokens(*outcome.response);
    if (run.prices)
      rec.cost_usd = (static_cast<double>(rec.tokens.input) * run.prices->input +
                      static_cast<double>(rec.tokens.output) * run.prices->output) / 1e6;
  } else {
    rec.usage_source = "missing";  // a failed call without usage: what it cost is unknown
  }
  rec.usage_estimated = rec.usage_source == "estimated";
  if (outcome.response) {
    const auto& resp = *outcome.response;
    rec.response_text = resp.text;
    rec.reasoning = resp.reasoning;
    rec.finish_reason = resp.finish_reason;
    json calls = json::array();
    for (const auto& c : resp.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
    rec.tool_calls = calls;
    rec.http_status = 200;
  } else if (outcome.error) {
    const auto& e = *outcome.error;
    rec.error_kind = std::string(llm::to_string(e.kind));
    rec.error_message = e.message.empty() ? "(no message)" : e.message;
    rec.http_status = e.http_status;
  }
  const bool cancelled = outcome.error && outcome.error->kind == llm::ErrorKind::Cancelled;
  // A missing key, an empty account or refused credentials fail every call alike: stop the run.
  const bool fatal = outcome.error && (outcome.error->kind == llm::ErrorKind::Config || outcome.error->kind == llm::ErrorKind::Quota ||
                                       (outcome.error->kind == llm::ErrorKind::HttpStatus &&
                                        (outcome.error->http_status == 401 || outcome.error->http_status == 403)));
  rec.status = cancelled ? "interrupted" : fatal ? "failed" : "done";
  if (auto s = run.store->finish_llm_call(rec); !s) throw std::runtime_error("run store: " + s.error().message);
  // Tokens of a failed call were billed all the same.
  const Spend spent = spend_of(rec.tokens, rec.cost_usd, static_cast<double>(rec.latency_ms) / 1000.0);
  if (cancelled) {
    run.run_spend += spent;
    throw AttemptInterrupted("the LLM call was cancelled");
  }
  if (fatal) {
    run.run_spend += spent;
    run.request_stop("the provider refused the run (" + rec.error_kind + "): " + rec.error_message, true);
    throw AttemptInterrupted("fatal provider error");
  }
  ChatResult r = chat_from_record(rec);
  r.replayed = false;
  account(st, r.spend, false, true);
  co_return r;
}

asio::awaitable<ToolResult> Iteration::tool(ToolKind kind, std::string source, std::string call_id, json arguments) {
  State& st = *state_;
  AttemptContext::Impl& a = st.attempt;
  RunState& run = a.run;
  const int step = st.next_step++;
  if (auto rec = recorded_or_stop(run, run.store->find_tool_call(a.record.id, st.index, step))) {
    ToolResult r = ToolResult::from_json(rec->result);
    r.replayed = true;
    if (rec->evaluation_id)
      if (auto ev = recorded_or_stop(run, run.store->evaluation(rec->evaluation_id))) {
        Verdict v;
        try {
          from_json(ev->verdict, v);
          r.verdict = std::move(v);
        } catch (const std::exception&) {
          // An unreadable verdict keeps the structured result, which is what policies use.
        }
      }
    Spend s;
    s.wall_seconds = r.seconds;
    account(st, s, true, false);
    co_return r;
  }
  if (run.stopping) throw AttemptInterrupted("the run is stopping");

  auto sha = run.store->put_kernel(source);
  if (!sha) throw std::runtime_error("run store: " + sha.error().message);
  const EvalOptions options = eval_options_for(kind, run.config.evaluation, run.secret_seed);
  store::ToolCallRecord rec;
  rec.run_id = run.run_id;
  rec.attempt_id = a.record.id;
  rec.iteration = st.index;
  rec.step = step;
  rec.tool = std::string(tool_name(kind));
  rec.call_id = call_id;
  rec.arguments = arguments.is_object() ? arguments : json::object();
  if (rec.arguments.contains("source")) rec.arguments["source"] = "sha256:" + *sha;  // stored once, in kernels
  rec.kernel = *sha;
  ToolResult result;
  Placement where;
  if (run.cluster) {
    result = co_await run_on_cluster(run, a.task, kind, source, options, rec, where);
  } else {
    const bool timing = options.time && run.platform.has("time");
    SemaphoreUnit device;
    if (timing) {
      if (!co_await run.device_slots->acquire()) throw AttemptInterrupted("the run is stopping");
      device = SemaphoreUnit(run.device_slots.get());
    }
    // On a CPU platform the device is the host's cores: a timing job takes every
    // job slot, so no compile or check of another attempt runs while it times.
    // Timing jobs are one at a time (the device slot), so taking the slots one
    // by one cannot deadlock; FIFO waiting puts it ahead of later jobs.
    const int slots = timing && run.platform.backend == "cpu" ? run.jobs : 1;
    std::vector<SemaphoreUnit> job_units;
    for (int i = 0; i < slots; ++i) {
      if (!co_await run.job_slots->acquire()) throw AttemptInterrupted("the run is stopping");
      job_units.emplace_back(run.job_slots.get());
    }
    if (run.stopping) throw AttemptInterrupted("the run is stopping");

    auto id = run.store->begin_tool_call(rec);
    if (!id) throw std::runtime_error("run store: " + id.error().message);
    rec.id = *id;

    auto tool_job = std::make_shared<ToolJob>();
    tool_job->kind = kind;
    tool_job->source = source;
    tool_job->task = &a.task;
    tool_job->platform = &run.platform;
    tool_job->options = options;
    tool_job->limits = run.config.feedback;
    tool_job->tools = run.tools;
    tool_job->profile_below = run.config.evaluation.profile_below;
    ++run.jobs_running;
    const auto started = std::chrono::steady_clock::now();
    result = co_await offload(*run.pool, std::move(tool_job));
    --run.jobs_running;
    result.seconds = seconds_since(started);
    where.node = run.host;
  }
  result.kernel = *sha;

  rec.status = "done";
  rec.outcome = result.outcome;
  rec.ok = result.ok;
  rec.result = result.to_json();
  rec.duration_ms = static_cast<int64_t>(result.seconds * 1000);
  std::optional<store::EvaluationRecord> evaluation;
  if (result.verdict) {
    store::EvaluationRecord e;
    e.run_id = run.run_id;
    e.attempt_id = a.record.id;
    e.iteration = st.index;
    e.step = step;
    e.kernel = *sha;
    e.purpose = rec.tool;
    e.options = eval_options_json(options);
    e.outcome = result.outcome;
    e.stage = result.stage;
    e.passed = result.correct;
    e.speedup = result.speedup;
    json vj;
    to_json(vj, *result.verdict);
    e.verdict = vj;
    e.seconds = result.verdict->total_seconds;
    e.executor = where.executor;
    e.node = where.node;
    e.partition = where.partition;
    e.job_id = where.job_id;
    e.tries = where.tries;
    evaluation = std::move(e);
  }
  if (auto s = run.store->finish_tool_call(rec, evaluation); !s) throw std::runtime_error("run store: " + s.error().message);
  if (run.cluster) run.cluster->forget(job_key(a.record.id, st.index, step));
  Spend s;
  s.wall_seconds = result.seconds;
  account(st, s, false, false);
  co_return result;
}

void Iteration::finish(IterationSummary summary) {
  State& st = *state_;
  if (st.finished) return;
  st.finished = true;
  AttemptContext::Impl& a = st.attempt;
  RunState& run = a.run;
  a.last_outcome = summary.outcome;
  store::IterationRecord rec;
  rec.run_id = run.run_id;
  rec.attempt_id = a.record.id;
  rec.index = st.index;
  rec.conversation = st.conversation;
  rec.status = "done";
  rec.outcome = summary.outcome;
  rec.correct = summary.correct;
  rec.speedup = summary.speedup;
  if (!summary.source.empty())
    if (auto sha = run.store->put_kernel(summary.source)) rec.kernel = *sha;
  rec.feedback = valid_utf8(summary.feedback);
  rec.error_signature = valid_utf8(summary.error_signature);
  rec.tokens.input = st.spend.input_tokens;
  rec.tokens.cached_input = st.spend.cached_tokens;
  rec.tokens.cache_write = st.spend.cache_write_tokens;
  rec.tokens.output = st.spend.output_tokens;
  rec.tokens.reasoning = st.spend.reasoning_tokens;
  rec.cost_usd = st.spend.usd;
  rec.detail = summary.detail;
  rec.started_at = st.started_at;
  rec.finished_at = store::utc_now();
  rec.llm_seconds = st.llm_seconds;
  rec.tool_seconds = st.tool_seconds;
  if (auto s = run.store->save_iteration(rec); !s) run.message("error", "run store: " + s.error().message);
  if (run.observer) {
    IterationEvent e;
    e.run_id = run.run_id;
    e.task = a.task.id;
    e.sample = a.record.sample;
    e.index = st.index;
    e.conversation = st.conversation;
    e.outcome = summary.outcome;
    const auto nl = summary.feedback.find('\n');
    e.summary = summary.detail.value("summary", summary.feedback.substr(0, nl));
    e.correct = summary.correct;
    e.speedup = summary.speedup;
    e.spend = st.spend;
    e.replayed = st.replayed_steps > 0 && st.fresh_steps == 0;
    run.observer->on_iteration(e);
  }
}

// ---------------------------------------------------------------------------
// AttemptContext

AttemptContext::AttemptContext(Impl& impl) : impl_(impl) {}

const Task& AttemptContext::task() const { return impl_.task; }
const Platform& AttemptContext::platform() const { return impl_.run.platform; }
const RunConfig& AttemptContext::config() const { return impl_.run.config; }
const json& AttemptContext::params() const { return impl_.run.policy_params; }
const PromptSet& AttemptContext::prompts() const { return impl_.run.prompts; }
const TemplateVars& AttemptContext::task_vars() const { return impl_.task_vars; }
int AttemptContext::sample() const { return impl_.record.sample; }
uint64_t AttemptContext::seed() const { return impl_.seed; }
const std::string& AttemptContext::task_id() const { return impl_.task.id; }
const Spend& AttemptContext::spend() const { return impl_.spend; }
int AttemptContext::iterations_started() const { return impl_.iterations_started; }

std::optional<BudgetStop> AttemptContext::budget_stop() const {
  return check_iteration(impl_.run.config.attempt_budget, impl_.spend, impl_.run.config.run_budget, impl_.run.run_spend_now());
}

std::unique_ptr<Iteration> AttemptContext::begin_iteration(std::string conversation) {
  auto state = std::make_unique<Iteration::State>(impl_);
  state->index = impl_.iterations_started++;
  state->conversation = std::move(conversation);
  state->started_at = store::utc_now();
  impl_.spend.iterations += 1;
  // A new iteration (not one a previous session wrote) counts for the run too.
  const bool recorded = impl_.recorded_iterations.count(state->index) > 0;
  if (!recorded) {
    impl_.run.run_spend.iterations += 1;
    store::IterationRecord rec;
    rec.run_id = impl_.run.run_id;
    rec.attempt_id = impl_.record.id;
    rec.index = state->index;
    rec.conversation = state->conversation;
    rec.status = "running";
    rec.started_at = state->started_at;
    if (auto s = impl_.run.store->save_iteration(rec); !s) impl_.run.message("error", "run store: " + s.error().message);
  }
  return std::unique_ptr<Iteration>(new Iteration(std::move(state)));
}

void AttemptContext::offer(const KernelCandidate& c) {
  auto& best = impl_.best;
  const bool better = !best || (c.correct && !best->correct) || (c.correct == best->correct && c.speedup > best->speedup);
  if (better) best = c;
}

const std::optional<KernelCandidate>& AttemptContext::best() const { return impl_.best; }

Result<std::string> AttemptContext::render(const std::string& name, const TemplateVars& extra) const {
  TemplateVars vars = impl_.task_vars;
  for (const auto& [k, v] : extra) vars[k] = v;
  return impl_.run.prompts.render(name, vars);
}

Result<std::vector<llm::Message>> AttemptContext::opening_messages() const {
  auto system = render("system");
  if (!system) return system.error();
  auto task = render("task");
  if (!task) return task.error();
  return std::vector<llm::Message>{llm::Message::system(*system), llm::Message::user(*task)};
}

llm::ChatRequest AttemptContext::make_request(std::vector<llm::Message> messages) const {
  const auto& p = impl_.run.config.provider;
  llm::ChatRequest r;
  r.model = p.model.empty() ? "oracle" : p.model;
  for (auto& m : messages) {
    if (m.role == llm::Role::System) r.system += (r.system.empty() ? "" : "\n\n") + m.content;
    else r.messages.push_back(std::move(m));
  }
  r.temperature = p.temperature;
  if (p.max_output_tokens > 0) r.max_output_tokens = p.max_output_tokens;
  r.stream = p.stream;
  r.reasoning_effort = p.reasoning_effort;
  r.thinking_budget = p.thinking_budget;
  r.extra = p.extra;
  return r;
}

ExtractedCode AttemptContext::extract(const ChatResult& reply) const {
  ExtractOptions o;
  o.entry = impl_.task.entry;
  o.language = fence_tag(impl_.run.platform);
  o.reply_was_cut = reply.cut_off();
  return extract_code(reply.text, o);
}

std::string AttemptContext::feedback(const ToolResult& result, const TemplateVars& extra) const {
  TemplateVars vars = extra;
  vars["result"] = format_tool_result(result, impl_.run.config.feedback);
  vars["outcome"] = result.outcome;
  vars["stage"] = result.stage;
  vars["summary"] = result.summary;
  vars["error_signature"] = error_signature(result);
  if (result.speedup > 0) {
    std::ostringstream os;
    os << result.speedup;
    vars["speedup"] = os.str();
  }
  if (result.data.contains("roofline_fraction")) {
    std::ostringstream os;
    os << 100.0 * result.data.value("roofline_fraction", 0.0);
    vars["roofline"] = os.str();
  }
  auto text = render(feedback_template_for(result), vars);
  return text ? *text : vars["result"];
}

std::string AttemptContext::feedback(const ExtractedCode& code, const TemplateVars& extra) const {
  TemplateVars vars = extra;
  vars["outcome"] = std::string(extract_status_name(code.status));
  vars["note"] = code.note;
  auto text = render(code.status == ExtractStatus::Truncated ? "feedback/truncated" : "feedback/no_code", vars);
  return text ? *text : code.note;
}

asio::awaitable<KernelCheck> AttemptContext::check_kernel(Iteration& iteration, const std::string& source) {
  KernelCheck kc;
  kc.run = co_await iteration.tool(ToolKind::Run, source);
  if (kc.run.correct && impl_.run.config.evaluation.time && impl_.run.platform.has("time"))
    kc.profile = co_await iteration.tool(ToolKind::Profile, source);
  offer({iteration.index(), source, kc.correct(), kc.speedup(), kc.last().outcome});
  co_return kc;
}

asio::awaitable<void> AttemptContext::run_all(std::vector<std::function<asio::awaitable<void>()>> jobs) {
  if (jobs.empty()) co_return;
  auto executor = co_await asio::this_coro::executor;
  struct Shared {
    explicit Shared(asio::any_io_executor ex, size_t n) : left(n), timer(ex, std::chrono::steady_clock::time_point::max()) {}
    size_t left;
    std::exception_ptr first;
    asio::steady_timer timer;
  };
  auto shared = std::make_shared<Shared>(executor, jobs.size());
  for (auto& job : jobs)
    asio::co_spawn(executor, job(), [shared](std::exception_ptr e) {
      if (e && !shared->first) shared->first = e;
      if (--shared->left == 0) shared->timer.cancel();
    });
  if (shared->left > 0) co_await shared->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  if (shared->first) std::rethrow_exception(shared->first);
}

}  // namespace kgb::agent
