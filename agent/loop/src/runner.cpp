// The run: opens the store, starts or resumes the run record, schedules the
// unfinished task attempts over a bounded number of worker coroutines, and
// closes the session with a summary. See runner.h for the resource limits and
// the stop semantics.
#include "kgb/agent/runner.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "engine.h"
#include "kgb/llm/client.h"
#include "kgb/oracle/server.h"
#include "kgb/paths.h"
#include "kgb/process.h"
#ifdef KGB_LOOP_HAVE_LINT
#include "kgb/evaluator.h"
#include "kgb/lint.h"
#endif

namespace kgb::agent {

namespace asio = boost::asio;
using json = nlohmann::json;

void install_lint_hooks() {
#ifdef KGB_LOOP_HAVE_LINT
  static const bool installed = [] {
    set_default_eval_hooks(lint::eval_hooks());
    return true;
  }();
  (void)installed;
#endif
}

bool lint_hooks_built() {
#ifdef KGB_LOOP_HAVE_LINT
  return true;
#else
  return false;
#endif
}

json RunSummary::to_json() const {
  json s;
  agent::to_json(s, spend);
  return {{"run_id", run_id},
          {"status", status},
          {"error", error},
          {"store", store_file},
          {"attempts", attempts},
          {"attempts_finished", attempts_finished},
          {"attempts_solved", attempts_solved},
          {"tasks", tasks},
          {"tasks_solved", tasks_solved},
          {"iterations", iterations},
          {"evaluations", evaluations},
          {"llm_calls", llm_calls},
          {"llm_calls_usage_estimated", estimated_usage_calls},
          {"spend", s},
          {"session_seconds", session_seconds},
          {"total_seconds", total_seconds},
          {"interrupted_steps", interrupted_steps},
          {"tools", tool_stats}};
}

namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t random_seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return s ? s : 1;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

}  // namespace

std::string new_run_id() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(random_seed() & 0xffff));
  return std::string("run-") + stamp + "-" + suffix;
}

std::vector<std::string> match_task_ids(const std::vector<Task>& tasks, const std::string& globs) {
  std::vector<std::string> ids;
  std::stringstream ss(globs.empty() ? "*" : globs);
  std::string glob;
  std::set<std::string> seen;
  while (std::getline(ss, glob, ','))
    for (const auto& t : filter_tasks(tasks, trim(glob)))
      if (seen.insert(t.id).second) ids.push_back(t.id);
  return ids;
}

std::string git_revision() {
  const auto root = source_root();
  auto rev = run_command({"git", "-C", root.string(), "rev-parse", "--short=12", "HEAD"}, root, 10);
  if (!rev || !rev->status.exited || rev->status.code != 0) return "unknown";
  std::string out = trim(rev->output);
  auto dirty = run_command({"git", "-C", root.string(), "status", "--porcelain", "--untracked-files=no"}, root, 10);
  if (dirty && dirty->status.exited && dirty->status.code == 0 && !trim(dirty->output).empty()) out += "+dirty";
  return out;
}

json platform_facts(const Platform& platform) {
  json facts;
  std::ifstream in(platform.file);
  json descriptor = json::parse(in, nullptr, false);
  facts["descriptor"] = descriptor.is_discarded() ? json(platform.name) : descriptor;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      model = trim(line.substr(line.find(':') + 1));
      break;
    }
  utsname u{};
  uname(&u);
  facts["host"] = {{"cpu", model},
                   {"cores", std::thread::hardware_concurrency()},
                   {"system", std::string(u.sysname) + " " + u.release},
                   {"machine", u.machine}};
  return facts;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

namespace {

bool is_oracle(const ProviderSettings& p) { return p.name.rfind("oracle", 0) == 0; }

// An executor's job event as a row of executor_jobs; the key names the step.
void record_job_event(RunState& st, const JobEvent& e) {
  store::ExecutorJobRecord r;
  r.run_id = st.run_id;
  r.key = e.key;
  long long attempt = 0;
  int iteration = 0, step = 0;
  if (std::sscanf(e.key.c_str(), "a%lld-i%d-s%d", &attempt, &iteration, &step) == 3) {
    r.attempt_id = attempt;
    r.iteration = iteration;
    r.step = step;
  }
  r.try_index = e.attempt;
  r.executor = e.executor;
  r.state = e.state;
  r.reason = e.reason;
  r.job_id = e.job_id;
  r.partition = e.partition;
  r.node = e.node;
  r.at = e.at;
  r.seconds = e.seconds;
  if (auto s = st.store->record_executor_job(r); !s) st.message("error", "run store: " + s.error().message);
}

// The default model side: one kgb_llm client for the run's provider.
class LlmBackend final : public ChatBackend {
 public:
  LlmBackend(asio::any_io_executor ex, llm::ProviderConfig config, std::shared_ptr<const llm::PriceTable> prices,
             std::chrono::milliseconds timeout)
      : client_(std::move(ex), std::move(config), std::move(prices)), timeout_(timeout) {}

  asio::awaitable<llm::ChatOutcome> chat(llm::ChatRequest request, llm::CancelToken cancel) override {
    llm::CallOptions options;
    options.cancel = cancel;
    options.deadline = std::chrono::steady_clock::now() + timeout_;
    co_return co_await client_.chat(std::move(request), std::move(options));
  }

 private:
  llm::LlmClient client_;
  std::chrono::milliseconds timeout_;
};

Result<std::shared_ptr<llm::PriceTable>> price_table(const ProviderSettings& p) {
  auto table = llm::PriceTable::from_environment();
  if (!table) return table.error();
  auto prices = std::make_shared<llm::PriceTable>(std::move(table.value()));
  if (!p.prices_file.empty())
    if (auto s = prices->merge_file(p.prices_file); !s) return s.error();
  for (const auto& [model, tp] : p.prices) prices->set(model, {tp.input, tp.cached_input, tp.output, tp.cache_write});
  return prices;
}

Result<llm::ProviderConfig> provider_config(const ProviderSettings& p, const std::string& base_url) {
  auto preset = llm::provider_preset(p.name);
  if (!preset) return preset.error();
  llm::ProviderConfig c = std::move(preset.value());
  if (!base_url.empty()) llm::use_base_url(c, base_url);
  if (p.api_key_env) {
    c.api_key_env = *p.api_key_env;
    c.api_key_required = !p.api_key_env->empty();
  }
  c.retry.max_retries = p.retries;
  c.limits.requests_per_minute = p.requests_per_minute;
  c.limits.tokens_per_minute = p.tokens_per_minute;
  c.call_timeout = std::chrono::milliseconds(static_cast<int64_t>(p.timeout_seconds * 1000));
  return c;
}

std::string attempt_status(const std::optional<KernelCandidate>& best, const std::string& reason) {
  if (best && best->correct) return "solved";
  if (reason.rfind("budget:", 0) == 0 || reason.rfind("run-budget:", 0) == 0) return "budget";
  if (reason == "abandoned") return "abandoned";
  if (reason == "error" || reason == "prompt-error" || reason == "policy-error") return "error";
  return "failed";
}

struct Engine {
  RunState st;
  std::shared_ptr<Policy> policy_prototype;  // validated once; each attempt makes its own
  std::map<std::string, Task> tasks;
  std::deque<store::AttemptRecord> queue;
  int attempts_total = 0, attempts_done = 0, solved = 0, in_flight = 0;
  int workers_left = 0;
  asio::steady_timer* progress_timer = nullptr;
  asio::signal_set* signals = nullptr;

  Progress progress() const {
    Progress p;
    p.attempts_total = attempts_total;
    p.attempts_done = attempts_done;
    p.solved = solved;
    p.in_flight = in_flight;
    p.llm_in_flight = st.llm_in_flight;
    p.jobs_running = st.jobs_running;
    p.spend = st.run_spend_now();
    p.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.session_start).count();
    return p;
  }

  asio::awaitable<void> run_attempt(store::AttemptRecord rec) {
    auto task_it = tasks.find(rec.task);
    if (task_it == tasks.end()) {
      rec.status = "error";
      rec.stop_reason = "unknown-task";
      rec.result = {{"reason", "unknown-task"}, {"error", "the task " + rec.task + " is not in this source tree"}};
      if (auto s = st.store->finish_attempt(rec); !s) throw std::runtime_error(s.error().message);
      ++attempts_done;
      co_return;
    }
    AttemptContext::Impl impl(st, task_it->second);
    impl.record = rec;
    impl.seed = splitmix(st.secret_seed ^ fnv1a(rec.task) ^ splitmix(static_cast<uint64_t>(rec.sample) + 1));
    impl.task_vars = task_variables(st.prompts, task_it->second, st.platform);
    auto recorded = st.store->iterations(rec.id);
    if (!recorded) throw std::runtime_error(recorded.error().message);
    for (const auto& it : *recorded) impl.recorded_iterations.insert(it.index);
    if (auto s = st.store->mark_attempt_running(rec.id); !s) throw std::runtime_error("run store: " + s.error().message);

    AttemptEnd end;
    auto policy = PolicyRegistry::global().make(st.config.policy, st.policy_params);
    if (!policy) {
      end = {"policy-error", {{"error", policy.error().message}}};
    } else {
      AttemptContext ctx(impl);
      try {
        end = co_await (*policy)->run(ctx);
      } catch (const AttemptInterrupted&) {
        co_return;  // stays running; the next session continues it
      } catch (const std::exception& e) {
        if (st.stopping && !st.stop_error.empty()) co_return;
        end = {"error", {{"error", e.what()}}};
      }
    }
    rec.status = attempt_status(impl.best, end.reason);
    rec.stop_reason = end.reason;
    rec.correct = impl.best && impl.best->correct;
    rec.best_iteration = impl.best ? impl.best->iteration : -1;
    rec.best_speedup = impl.best ? impl.best->speedup : 0;
    if (impl.best && !impl.best->source.empty())
      if (auto sha = st.store->put_kernel(impl.best->source)) rec.best_kernel = *sha;
    rec.iterations = impl.iterations_started;
    rec.tokens.input = impl.spend.input_tokens;
    rec.tokens.cached_input = impl.spend.cached_tokens;
    rec.tokens.cache_write = impl.spend.cache_write_tokens;
    rec.tokens.output = impl.spend.output_tokens;
    rec.tokens.reasoning = impl.spend.reasoning_tokens;
    rec.cost_usd = impl.spend.usd;
    rec.seconds = impl.spend.wall_seconds;
    rec.result = {{"reason", end.reason}, {"detail", end.detail}};
    if (impl.best) rec.result["best_outcome"] = impl.best->outcome;
    rec.finished_at.clear();
    if (auto s = st.store->finish_attempt(rec); !s) throw std::runtime_error("run store: " + s.error().message);
    ++attempts_done;
    if (rec.correct) ++solved;
    if (st.observer) {
      AttemptEvent e;
      e.run_id = st.run_id;
      e.task = rec.task;
      e.sample = rec.sample;
      e.status = rec.status;
      e.stop_reason = rec.stop_reason;
      e.iterations = rec.iterations;
      e.best_speedup = rec.best_speedup;
      e.spend = impl.spend;
      st.observer->on_attempt(e);
    }
  }

  asio::awaitable<void> worker() {
    while (!st.stopping && !queue.empty()) {
      store::AttemptRecord rec = std::move(queue.front());
      queue.pop_front();
      // A spent run budget ends the attempts that have not started.
      if (auto stop = check_iteration({}, {}, st.config.run_budget, st.run_spend_now()); stop && rec.status == "pending") {
        rec.status = "budget";
        rec.stop_reason = stop->reason();
        rec.result = {{"reason", stop->reason()}, {"detail", {{"message", stop->message}, {"started", false}}}};
        if (auto s = st.store->finish_attempt(rec); !s) {
          st.request_stop("the run stopped: " + s.error().message, true);
          break;
        }
        ++attempts_done;
        continue;
      }
      ++in_flight;
      try {
        co_await run_attempt(std::move(rec));
      } catch (const std::exception& e) {
        st.request_stop(std::string("the run stopped: ") + e.what(), true);
      }
      --in_flight;
      if (st.observer) st.observer->on_progress(progress());
    }
    if (--workers_left == 0) {
      if (st.cluster) co_await st.cluster->shutdown(attempts_done == attempts_total);
      if (progress_timer) progress_timer->cancel();
      if (signals) signals->cancel();
      st.io->stop();  // pooled HTTP connections and timers must not keep the loop alive
    }
  }

  asio::awaitable<void> report_progress() {
    while (workers_left > 0) {
      progress_timer->expires_after(std::chrono::seconds(1));
      co_await progress_timer->async_wait(asio::as_tuple(asio::use_awaitable));
      if (workers_left > 0 && st.observer) st.observer->on_progress(progress());
    }
  }
};

}  // namespace

Result<RunSummary> execute_run(RunOptions o) {
  install_lint_hooks();
  auto opened = store::RunStore::open(o.config.store);
  if (!opened) return opened.error();
  store::RunStore& db = **opened;

  Engine engine;
  RunState& st = engine.st;
  st.store = &db;
  st.observer = o.observer;
  st.tools = o.tools ? o.tools : std::shared_ptr<ToolBackend>(make_harness_tools());
  store::RunRecord run;
  const bool resumed = o.resume.has_value();
  const std::string store_file = o.config.store;

  if (resumed) {
    auto rec = db.load_run(*o.resume);
    if (!rec) return rec.error();
    run = std::move(rec.value());
    if (run.policy == "mcp")
      return make_error("run.not-resumable", "run " + run.id +
                                                 " was recorded by kgb mcp-server: its sessions cannot be resumed "
                                                 "(`kgb mcp-server --run " + run.id + "` records more attempts into it)");
    auto cfg = config_from_json(run.config);
    if (!cfg) return make_error(cfg.error().code, "run " + run.id + ": " + cfg.error().message);
    st.config = std::move(cfg.value());
    st.config.store = store_file;
    if (o.concurrency) st.config.concurrency = *o.concurrency;
    auto prompts = PromptSet::from_json(run.prompts);
    if (!prompts) return make_error(prompts.error().code, "run " + run.id + ": " + prompts.error().message);
    st.prompts = std::move(prompts.value());
    st.policy_params = st.config.policy_params();
    st.secret_seed = run.secret_seed;
    st.run_id = run.id;
  } else {
    st.config = o.config;
    if (auto s = validate_config(st.config); !s) return s.error();
    auto params = PolicyRegistry::global().resolve_params(st.config.policy, st.config.policy_params());
    if (!params) return params.error();
    st.policy_params = *params;
    st.config.policies[st.config.policy] = *params;  // recorded with every default filled in
    auto prompts = PromptSet::load(st.config.prompts_dir.empty() ? prompts_root() : std::filesystem::path(st.config.prompts_dir));
    if (!prompts) return prompts.error();
    st.prompts = std::move(prompts.value());
    if (st.config.seed == 0) st.config.seed = random_seed();
    st.secret_seed = splitmix(st.config.seed);
    st.run_id = st.config.run_id.empty() ? new_run_id() : st.config.run_id;
    st.config.run_id = st.run_id;
  }

  if (o.executor) st.config.executor.kind = *o.executor;
  if (o.partition) st.config.executor.partition = *o.partition;
  auto platform = load_platform(st.config.platform);
  if (!platform) return platform.error();
  st.platform = std::move(platform.value());
  // On a cluster the nodes have the platform; each evaluation says so when one does not.
  if (!st.config.executor.is_slurm())
    if (auto avail = check_availability(st.platform); !avail.available)
      return make_error("platform.unavailable", "platform " + st.platform.name + " is not available here: " + avail.reason);
  if (auto policy = PolicyRegistry::global().make(st.config.policy, st.policy_params); !policy) return policy.error();

  // Tasks: resolved from the glob once, then the recorded list is authoritative.
  TaskLoadReport loaded = load_all_tasks(tasks_root());
  for (auto& t : loaded.tasks) engine.tasks.emplace(t.id, t);
  if (!resumed) {
    if (st.config.task_ids.empty()) st.config.task_ids = match_task_ids(loaded.tasks, st.config.tasks);
    // Only tasks this platform has a way to be solved on are worth a run.
    if (st.config.task_ids.empty())
      return make_error("run.no-tasks", "no task matches '" + st.config.tasks + "' under " + tasks_root().string());
    for (const auto& id : st.config.task_ids)
      if (!engine.tasks.count(id)) return make_error("run.unknown-task", "unknown task " + id);
    run.id = st.run_id;
    run.policy = st.config.policy;
    run.provider = st.config.provider.name;
    run.model = st.config.provider.model.empty() ? (is_oracle(st.config.provider) ? "oracle" : "") : st.config.provider.model;
    if (run.model.empty()) return make_error("config.invalid", "--model is required for provider " + st.config.provider.name);
    st.config.provider.model = run.model;
    run.platform = st.platform.name;
    run.tasks_glob = st.config.tasks;
    run.samples = st.config.samples;
    run.config = config_to_json(st.config);
    run.prompts = st.prompts.to_json();
    run.git_revision = git_revision();
    run.platform_facts = platform_facts(st.platform);
#ifdef KGB_VERSION
    run.kgb_version = KGB_VERSION;
#endif
    run.secret_seed = st.secret_seed;
    if (auto s = db.create_run(run); !s) return s.error();
  }
  // Idempotent: a run killed between creating its record and its attempts gets them now.
  for (const auto& id : st.config.task_ids)
    for (int sample = 0; sample < st.config.samples; ++sample)
      if (auto a = db.ensure_attempt(st.run_id, id, sample); !a) return a.error();

  // The executor before the session: a cluster that cannot be used leaves the run as it was.
  asio::io_context io;
  st.io = &io;
  // The executor's timers belong to `io`: it must go first.
  struct ClusterReset {
    RunState& st;
    ~ClusterReset() { st.cluster.reset(); }
  } cluster_reset{st};
  if (st.config.executor.is_slurm()) {
    SlurmExecutorOptions so;
    so.settings = st.config.executor;
    const std::filesystem::path work =
        so.settings.work_dir.empty() ? std::filesystem::path(store_file + ".jobs") : std::filesystem::path(so.settings.work_dir);
    so.spool = std::filesystem::absolute(work) / st.run_id;
    so.job_name = "kgb-" + st.run_id;
    so.on_message = [&st](std::string_view level, const std::string& text) { st.message(level, text); };
    so.on_event = [&st](const JobEvent& e) { record_job_event(st, e); };
    auto cluster = make_slurm_executor(io.get_executor(), std::move(so));
    if (!cluster) return cluster.error();
    st.cluster = std::move(cluster.value());
  }
  auto session = db.begin_session(st.run_id);
  if (!session)
    return make_error(session.error().code, "run store " + db.file().string() + ": cannot start a session of run '" +
                                                 st.run_id + "': " + session.error().message);
  RunSummary summary;
  summary.run_id = st.run_id;
  summary.store_file = store_file;
  summary.interrupted_steps = *session;

  // Prices for money budgets and costs.
  auto prices = price_table(st.config.provider);
  if (!prices) return prices.error();
  if (auto mp = (*prices)->find(st.config.provider.model))
    st.prices = TokenPrices{mp->input, mp->cached_input, mp->output, mp->cache_write};
  st.session_header = st.config.provider.session_header.value_or(is_oracle(st.config.provider));

  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = st.config.evaluation.jobs > 0 ? st.config.evaluation.jobs : cores;
  asio::thread_pool pool(static_cast<size_t>(jobs));
  st.pool = &pool;
  st.llm_slots = std::make_unique<AsyncSemaphore>(io.get_executor(), st.config.provider.max_concurrent > 0
                                                                          ? st.config.provider.max_concurrent
                                                                          : st.config.concurrency);
  st.device_slots = std::make_unique<AsyncSemaphore>(io.get_executor(), 1);
  st.job_slots = std::make_unique<AsyncSemaphore>(io.get_executor(), jobs);
  st.jobs = jobs;
  st.host = host_name();

  // The in-process oracle: a real HTTP server on an ephemeral port.
  std::unique_ptr<oracle::OracleServer> oracle_server;
  std::string base_url = st.config.provider.base_url;
  if (is_oracle(st.config.provider) && base_url.empty() && !o.chat) {
    oracle::OracleOptions oo;
    oo.host = "127.0.0.1";
    oo.port = 0;
    oo.seed = st.config.oracle.seed;
    oo.compile_error_attempts = st.config.oracle.compile_error_attempts;
    oo.wrong_result_attempts = st.config.oracle.wrong_result_attempts;
    oo.latency_min = std::chrono::milliseconds(st.config.oracle.latency_min_ms);
    oo.latency_max = std::chrono::milliseconds(st.config.oracle.latency_max_ms);
    oo.faults = {st.config.oracle.fail_429, st.config.oracle.fail_500, st.config.oracle.fail_mid_stream,
                 st.config.oracle.fail_truncate};
    oo.threads = std::max(1, st.config.oracle.threads);
    oo.model = st.config.provider.model;
    oracle_server = std::make_unique<oracle::OracleServer>(oo, oracle::make_bundled_catalog());
    auto port = oracle_server->start();
    if (!port) return port.error();
    base_url = oracle_server->base_url();
    summary.oracle_url = base_url;
  }
  std::unique_ptr<ChatBackend> chat;
  if (o.chat) {
    auto made = o.chat(io.get_executor(), st.config);
    if (!made) return made.error();
    chat = std::move(made.value());
  } else {
    auto pc = provider_config(st.config.provider, base_url);
    if (!pc) return pc.error();
    chat = std::make_unique<LlmBackend>(io.get_executor(), std::move(pc.value()), *prices,
                                        std::chrono::milliseconds(static_cast<int64_t>(st.config.provider.timeout_seconds * 1000)));
  }
  st.chat = chat.get();

  if (!st.prices && st.config.attempt_budget.usd.has_value())
    st.message("warning", "no price is known for model " + st.config.provider.model +
                              ": the money budget counts only what the provider reports");

  // A failed read stops the session here: an empty queue or a zeroed budget
  // would silently redo or skip work.
  auto read_before = db.totals(st.run_id);
  if (!read_before) return read_before.error();
  const store::RunTotals& before = *read_before;
  st.run_spend.input_tokens = before.tokens.input;
  st.run_spend.cached_tokens = before.tokens.cached_input;
  st.run_spend.cache_write_tokens = before.tokens.cache_write;
  st.run_spend.output_tokens = before.tokens.output;
  st.run_spend.reasoning_tokens = before.tokens.reasoning;
  st.run_spend.usd = before.cost_usd;
  st.run_spend.llm_calls = before.llm_calls;
  st.run_spend.iterations = before.iterations;
  st.previous_seconds = run.elapsed_seconds;
  st.session_start = std::chrono::steady_clock::now();

  auto recorded_attempts = db.attempts(st.run_id);
  if (!recorded_attempts) return recorded_attempts.error();
  for (auto& a : *recorded_attempts) {
    ++engine.attempts_total;
    if (a.finished()) {
      ++engine.attempts_done;
      if (a.correct) ++engine.solved;
    } else {
      engine.queue.push_back(std::move(a));
    }
  }
  if (st.observer) st.observer->on_start(st.run_id, resumed, engine.attempts_total, static_cast<int>(engine.queue.size()));
  if (*session > 0)
    st.message("info", std::to_string(*session) + " step(s) were in flight when the previous session ended; they run again");

  asio::signal_set signals(io);
  int signal_count = 0;
  std::function<void()> wait_signal = [&] {
    signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      if (++signal_count > 1) std::_Exit(130);  // everything finished is already committed
      st.request_stop("interrupted: evaluations in flight finish and are recorded; interrupt again to quit at once", false);
      wait_signal();
    });
  };
  if (o.handle_signals) {
    signals.add(SIGINT);
    signals.add(SIGTERM);
    wait_signal();
    engine.signals = &signals;
  }
  uint64_t stop_handle = 0;
  if (o.stop)
    stop_handle = o.stop->on_cancel([&io, &st] { asio::post(io, [&st] { st.request_stop("stop requested", false); }); });

  asio::steady_timer progress_timer(io);
  engine.progress_timer = &progress_timer;
  const int workers = std::max(1, std::min(st.config.concurrency, static_cast<int>(engine.queue.size())));
  engine.workers_left = engine.queue.empty() ? 0 : workers;
  if (!engine.queue.empty()) {
    for (int i = 0; i < workers; ++i)
      asio::co_spawn(io, engine.worker(), [&](std::exception_ptr e) {
        if (e) {
          try {
            std::rethrow_exception(e);
          } catch (const std::exception& x) {
            st.request_stop(std::string("internal error: ") + x.what(), true);
          }
        }
      });
    asio::co_spawn(io, engine.report_progress(), asio::detached);
    io.run();
  }
  if (o.stop) o.stop->remove(stop_handle);
  pool.join();
  chat.reset();
  if (oracle_server) oracle_server->stop();

  auto read_after = db.totals(st.run_id);
  if (!read_after) return read_after.error();
  const store::RunTotals& after = *read_after;
  summary.session_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.session_start).count();
  summary.total_seconds = st.previous_seconds + summary.session_seconds;
  summary.attempts = after.attempts;
  summary.attempts_finished = after.finished_attempts;
  summary.attempts_solved = after.solved_attempts;
  summary.iterations = after.iterations;
  summary.evaluations = after.evaluations;
  summary.llm_calls = after.llm_calls;
  summary.estimated_usage_calls = after.estimated_usage_calls;
  summary.spend = st.run_spend;
  summary.spend.input_tokens = after.tokens.input;
  summary.spend.cached_tokens = after.tokens.cached_input;
  summary.spend.cache_write_tokens = after.tokens.cache_write;
  summary.spend.output_tokens = after.tokens.output;
  summary.spend.reasoning_tokens = after.tokens.reasoning;
  summary.spend.usd = after.cost_usd;
  summary.spend.llm_calls = after.llm_calls;
  summary.spend.iterations = after.iterations;
  summary.spend.wall_seconds = summary.total_seconds;
  summary.tool_stats = st.tools->stats();
  std::set<std::string> tasks, solved_tasks;
  auto final_attempts = db.attempts(st.run_id);
  if (!final_attempts) return final_attempts.error();
  for (const auto& a : *final_attempts) {
    tasks.insert(a.task);
    if (a.correct) solved_tasks.insert(a.task);
  }
  summary.tasks = static_cast<int>(tasks.size());
  summary.tasks_solved = static_cast<int>(solved_tasks.size());
  summary.error = st.stop_error;
  summary.status = summary.attempts_finished == summary.attempts ? "finished"
                   : !st.stop_error.empty()                      ? "failed"
                                                                 : "interrupted";
  json summary_json = summary.to_json();
  if (auto s = db.end_session(st.run_id, summary.status, summary.session_seconds, summary_json); !s) return s.error();
  return summary;
}

}  // namespace kgb::agent
