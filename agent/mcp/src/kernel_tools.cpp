// The tools that take a kernel source: lint, compile, evaluate, profile,
// submit. They run the loop's tool backend (kgb::evaluate, compile_candidate,
// the lint hook) on the pool, under the same slots as the loop: compile and
// check jobs up to the pool's size, one timing job at a time, and on a CPU
// platform a timing job holds every slot so nothing else runs beside it.
#include <sstream>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "engine.h"
#include "kgb/profile.h"
#include "kgb/verdict.h"

namespace kgb::mcp {

namespace {

using namespace std::chrono_literals;

// One blocking tool run, with copies of everything it needs: it executes on a
// pool thread while the coroutine that asked for it waits.
struct KernelJob {
  agent::ToolKind kind = agent::ToolKind::Run;
  std::string source;
  const Task* task = nullptr;
  const Platform* platform = nullptr;
  EvalOptions options;
  agent::FeedbackSettings limits;
  std::shared_ptr<agent::ToolBackend> tools;
  std::string case_filter;  // profile
};

// Run on the pool and resume on the caller's executor. Not coroutines
// themselves: GCC 12 mishandles lambdas that capture coroutine parameters, so
// the job travels in a shared_ptr captured outside any coroutine.
asio::awaitable<agent::ToolResult> offload_tool(asio::thread_pool& pool, std::shared_ptr<const KernelJob> job) {
  return asio::co_spawn(
      pool,
      [job]() -> asio::awaitable<agent::ToolResult> {
        co_return agent::run_tool(*job->tools, job->kind, job->source, *job->task, *job->platform, job->options, job->limits);
      },
      asio::use_awaitable);
}

asio::awaitable<profile::ProfileResult> offload_profile(asio::thread_pool& pool, std::shared_ptr<const KernelJob> job) {
  return asio::co_spawn(
      pool,
      [job]() -> asio::awaitable<profile::ProfileResult> {
        profile::ProfileOptions po;
        po.case_filter = job->case_filter;
        co_return profile::profile_candidate(*job->task, *job->platform, job->source, po);
      },
      asio::use_awaitable);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Progress notifications while a tool runs, for clients that asked for them
// (a progress token): they reset the client's request timeout.
struct Heartbeat {
  explicit Heartbeat(asio::any_io_executor ex) : timer(std::move(ex)) {}
  asio::steady_timer timer;
  bool done = false;
};

asio::awaitable<void> beat(std::shared_ptr<Heartbeat> hb, Notify notify, json token, std::string tool, double interval) {
  const auto start = Clock::now();
  int n = 0;
  while (!hb->done) {
    hb->timer.expires_after(std::chrono::milliseconds(static_cast<int64_t>(interval * 1000)));
    co_await hb->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (hb->done) break;
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    notify(jsonrpc::notification("notifications/progress", {{"progressToken", token},
                                                            {"progress", ++n},
                                                            {"message", tool + ": running for " + fixed(seconds, 1) + " s"}}));
  }
}

bool better(const Candidate& c, const std::optional<Candidate>& best) {
  return !best || (c.correct && !best->correct) || (c.correct == best->correct && c.speedup > best->speedup);
}

// One line on where the attempt stands, for the model.
std::string attempt_line(const json& a) {
  std::ostringstream os;
  os << "attempt: " << a.value("status", "") << ", " << a["evaluations"].value("used", 0) << " evaluation(s)";
  if (a["evaluations"].contains("limit")) os << " of " << a["evaluations"]["limit"].get<int>();
  os << ", " << fixed(a["wall_seconds"].value("used", 0.0), 0) << " s";
  if (a["wall_seconds"].contains("limit")) os << " of " << fixed(a["wall_seconds"]["limit"].get<double>(), 0) << " s";
  if (a.contains("end_reason")) os << " (ended: " << a["end_reason"].get<std::string>() << ")";
  return os.str();
}

std::string profile_text(const profile::ProfileResult& r) {
  std::ostringstream os;
  if (!r.profiled_case.empty()) os << "case: " << r.profiled_case << "\n";
  for (const auto& k : r.kernels) {
    os << "kernel " << k.id << " " << k.name << ": " << fixed(k.duration_us, 2) << " us, DRAM " << fixed(k.dram_throughput_pct, 1)
       << "%, SM " << fixed(k.sm_throughput_pct, 1) << "%, occupancy " << fixed(k.achieved_occupancy_pct, 1) << "%";
    for (const auto& [reason, value] : k.top_stalls) os << ", stall " << reason << " " << fixed(value, 2);
    os << "\n";
  }
  if (!r.kernels.empty()) os << "total: " << fixed(r.total_duration_us, 2) << " us over " << r.kernels.size() << " launch(es)\n";
  for (const auto& d : r.diagnostics)
    if (d.severity == "error" || d.severity == "fatal") os << d.severity << ": " << d.message << "\n";
  for (const auto& w : r.warnings) os << "warning: " << w << "\n";
  if (!r.error.empty()) os << "error: " << r.error << "\n";
  return os.str();
}

}  // namespace

asio::awaitable<json> Engine::tool_kernel(std::shared_ptr<Session> s, std::string tool, json args, Notify notify,
                                          json progress_token) {
  std::shared_ptr<Attempt> a = s->attempt;
  if (!a) co_return tool_error(tool + ": no attempt is open in this session: call start_attempt with a task first");
  if (a->end_reason)
    co_return tool_error(tool + ": the attempt on " + a->record.task + " has ended (" + *a->end_reason +
                         "); call start_attempt to open another");
  if (stopping_) co_return tool_error(tool + ": the server is stopping; nothing new is evaluated");
  const ToolDef* def = find_tool_def(tools_offered_, tool);
  const std::string source = args["source"].get<std::string>();
  json recorded_args = args;
  if (source.size() > kMaxSourceBytes) {
    recorded_args["source"] = "(not recorded: " + std::to_string(source.size()) + " bytes)";
    record_call(*a, tool, recorded_args, "", "source-too-large", false, json::object(), 0);
    co_return tool_error(tool + ": the source is " + std::to_string(source.size()) + " bytes; the limit is " +
                         std::to_string(kMaxSourceBytes) + " bytes");
  }
  const bool new_kernel = a->iterations.empty() || a->iterations.back().source != source;
  if (auto refusal = budget_stop(*a, new_kernel, def->evaluation)) {
    recorded_args["source"] = "(not recorded: refused)";
    record_call(*a, tool, recorded_args, "", "budget", false, {{"reason", refusal->reason}, {"message", refusal->message}}, 0);
    end_attempt(*a, refusal->reason, {{"message", refusal->message}});
    std::string result_note = "no correct kernel";
    if (a->best)
      result_note = "its best kernel so far (" + a->best->outcome +
                    (a->best->speedup > 0 ? ", " + fixed(a->best->speedup, 2) + "x" : std::string()) + ")";
    co_return tool_error(tool + ": budget exhausted (" + refusal->message + "): the attempt on " + a->record.task +
                         " has ended with " + result_note + "; nothing more is evaluated in it");
  }

  // The call belongs to the kernel's iteration from here on.
  const int index = iteration_for(*a, source).record.index;
  const int step = a->next_step[index]++;
  const std::string sha = a->iterations[static_cast<size_t>(index)].record.kernel;
  recorded_args["source"] = "sha256:" + sha;
  if (def->evaluation) ++a->evaluations;
  ++a->in_flight;
  ++in_flight_;
  // Until the call is recorded; then the attempt may end (a submit, a session closed meanwhile).
  struct InFlight {
    Engine& e;
    Attempt& a;
    bool held = true;
    void release() {
      if (!held) return;
      held = false;
      --a.in_flight;
      --e.in_flight_;
      if (a.in_flight == 0) a.idle_since = Clock::now();
      e.maybe_record_end(a);
    }
    ~InFlight() { release(); }
  } in_flight_guard{*this, *a};

  const bool correctness_only = args.value("correctness_only", false);
  const agent::ToolKind kind = tool == "lint"       ? agent::ToolKind::Lint
                               : tool == "compile"  ? agent::ToolKind::Compile
                               : tool == "submit"   ? agent::ToolKind::Submit
                               : correctness_only   ? agent::ToolKind::Run
                                                    : agent::ToolKind::Profile;
  const EvalOptions options = agent::eval_options_for(kind, options_.evaluation, secret_seed_);
  const bool timing = tool == "profile" || (options.time && platform_.has("time"));

  // Slots: the device for timing, and on a CPU platform every job slot with it.
  std::vector<agent::SemaphoreUnit> units;
  bool granted = true;
  if (timing) {
    granted = co_await device_slots_->acquire();
    if (granted) units.emplace_back(device_slots_.get());
  }
  const int slots = timing && platform_.backend == "cpu" ? jobs_ : 1;
  for (int i = 0; granted && i < slots; ++i) {
    granted = co_await job_slots_->acquire();
    if (granted) units.emplace_back(job_slots_.get());
  }
  if (!granted) {
    write_call(*a, index, step, tool, recorded_args, sha, "server-stopping", false, json::object(), 0);
    co_return tool_error(tool + ": the server is stopping; the kernel was not evaluated");
  }

  auto row = begin_call(*a, index, step, tool, recorded_args, sha);
  if (!row) co_return tool_error(tool + ": run store: " + row.error().message);
  store::ToolCallRecord rec = std::move(row.value());

  std::shared_ptr<Heartbeat> heartbeat;
  if (!progress_token.is_null() && notify) {
    heartbeat = std::make_shared<Heartbeat>(io_.get_executor());
    asio::co_spawn(io_, beat(heartbeat, notify, progress_token, tool, std::max(0.05, options_.progress_seconds)), asio::detached);
  }
  const auto started = Clock::now();
  auto job = std::make_shared<KernelJob>();
  job->kind = kind;
  job->source = source;
  job->task = a->task;
  job->platform = &platform_;
  job->options = options;
  job->limits = options_.feedback;
  job->tools = tools_;
  job->case_filter = args.value("case", std::string());
  agent::ToolResult result;
  std::optional<profile::ProfileResult> profiled;
  if (tool == "profile") profiled = co_await offload_profile(*pool_, job);
  else result = co_await offload_tool(*pool_, job);
  if (heartbeat) {
    heartbeat->done = true;
    heartbeat->timer.cancel();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  units.clear();

  // The outcome, as the store and the model see it.
  json structured;
  std::string text;
  bool is_error = false;
  std::optional<store::EvaluationRecord> evaluation;
  if (profiled) {
    const profile::ProfileResult& p = *profiled;
    result.kind = agent::ToolKind::Profile;
    result.outcome = !p.compiled ? "compile-error" : !p.error.empty() ? "profile-error" : "profiled";
    result.ok = p.ok();
    result.summary = !p.compiled       ? "the candidate does not compile"
                     : !p.error.empty() ? p.error
                                        : std::to_string(p.kernels.size()) + " kernel launch(es) profiled";
    json pj;
    profile::to_json(pj, p);
    result.data = pj;
    is_error = result.outcome == "profile-error";
    text = "tool: profile\noutcome: " + result.outcome + "\nsummary: " + result.summary + "\n" + profile_text(p);
    structured = {{"tool", tool}, {"outcome", result.outcome}, {"ok", result.ok}, {"summary", result.summary}, {"profile", pj}};
  } else {
    text = agent::format_tool_result(result, options_.feedback);
    // The loop names its tools run/profile; the agent called this one by its MCP name.
    text = "tool: " + tool + text.substr(std::min(text.size(), text.find('\n')));
    structured = {{"tool", tool},          {"outcome", result.outcome}, {"ok", result.ok},
                  {"correct", result.correct}, {"stage", result.stage},   {"summary", result.summary},
                  {"speedup", result.speedup}, {"result", result.data}};
    is_error = result.outcome == "infra-error";
    if (result.verdict) {
      json vj;
      to_json(vj, *result.verdict);
      structured["verdict"] = vj;
      store::EvaluationRecord e;
      e.run_id = run_id_;
      e.attempt_id = a->record.id;
      e.iteration = index;
      e.step = step;
      e.kernel = sha;
      e.purpose = tool;
      e.options = agent::eval_options_json(options);
      e.outcome = result.outcome;
      e.stage = result.stage;
      e.passed = result.correct;
      e.speedup = result.speedup;
      e.verdict = std::move(vj);
      e.seconds = result.verdict->total_seconds;
      e.executor = "local";  // the server's own pool
      e.node = host_;
      evaluation = std::move(e);
    }
  }
  result.seconds = seconds;
  result.kernel = sha;
  finish_call(rec, result.outcome, result.ok, result.to_json(), seconds, evaluation);

  IterationState& it = a->iterations[static_cast<size_t>(index)];
  it.tool_calls.push_back({{"tool", tool}, {"outcome", result.outcome}});
  if (evaluation) {
    ++it.evaluations;
    if (!result.correct) ++it.failed_evaluations;
    const Candidate c{index, source, result.correct, result.speedup, result.outcome};
    if (better(c, a->best)) a->best = c;
    if (tool == "submit") a->submitted = c;
  }
  store::IterationRecord& ir = it.record;
  ir.status = "done";
  ir.outcome = result.outcome;
  ir.correct = it.evaluations > 0 && it.failed_evaluations == 0;
  if (result.speedup > 0) ir.speedup = result.speedup;
  ir.tool_seconds += seconds;
  ir.feedback = text;
  ir.error_signature = result.correct || result.ok ? "" : agent::error_signature(result);
  ir.detail["summary"] = result.summary;
  ir.detail["tool_calls"] = it.tool_calls;
  ir.finished_at = store::utc_now();
  save_iteration(*a, it);

  if (tool == "submit") end_attempt(*a, "submitted", {{"outcome", result.outcome}});
  in_flight_guard.release();
  structured["attempt"] = attempt_json(*a);
  text += "\n" + attempt_line(structured["attempt"]);
  json out = tool_ok(text, std::move(structured));
  out["isError"] = is_error;
  co_return out;
}

}  // namespace kgb::mcp
