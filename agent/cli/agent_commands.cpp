// The agent commands: run (start or resume), export, runs.
#include "agent_commands.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "kgb/agent/config.h"
#include "kgb/agent/policy.h"
#include "kgb/agent/runner.h"
#include "kgb/llm/provider.h"
#include "kgb/store/run_store.h"

namespace kgb::cli {
namespace {

using nlohmann::json;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string tokens(int64_t n) {
  if (n >= 10'000'000) return fixed(static_cast<double>(n) / 1e6, 1) + "M";
  if (n >= 10'000) return fixed(static_cast<double>(n) / 1e3, 1) + "k";
  return std::to_string(n);
}

std::string duration(double s) {
  if (s < 60) return fixed(s, 1) + " s";
  const int total = static_cast<int>(s);
  if (total < 3600) return std::to_string(total / 60) + "m" + (total % 60 < 10 ? "0" : "") + std::to_string(total % 60) + "s";
  return std::to_string(total / 3600) + "h" + (total / 60 % 60 < 10 ? "0" : "") + std::to_string(total / 60 % 60) + "m";
}

std::string money(double usd) { return "$" + fixed(usd, usd < 1 ? 4 : 2); }

// Iteration and attempt lines, and on a terminal a status line kept at the
// bottom (tasks done/solved, tokens, cost, elapsed).
class ConsoleObserver final : public agent::RunObserver {
 public:
  // `out`: where the lines go (standard error when standard output carries JSON).
  ConsoleObserver(bool tty, bool quiet, std::ostream& out) : tty_(tty), quiet_(quiet), out_(out) {}

  void on_start(const std::string& run_id, bool resumed, int total, int left) override {
    line(std::string(resumed ? "resuming " : "starting ") + run_id + ": " + std::to_string(left) + " of " +
         std::to_string(total) + " task attempt(s) to run");
  }

  void on_iteration(const agent::IterationEvent& e) override {
    if (quiet_) return;
    std::string text = "[" + e.task + " #" + std::to_string(e.sample) + "] iteration " + std::to_string(e.index + 1);
    if (!e.conversation.empty()) text += " (" + e.conversation + ")";
    text += ": " + e.outcome;
    if (e.correct && e.speedup > 0) text += ", " + fixed(e.speedup, 2) + "x";
    if (!e.summary.empty()) text += " | " + (e.summary.size() > 140 ? e.summary.substr(0, 140) + "..." : e.summary);
    if (e.replayed) text += " (recorded earlier)";
    line(text);
  }

  void on_attempt(const agent::AttemptEvent& e) override {
    std::string text = "[" + e.task + " #" + std::to_string(e.sample) + "] " + e.status + " after " +
                       std::to_string(e.iterations) + " iteration(s) (" + e.stop_reason + ")";
    if (e.best_speedup > 0) text += ", best " + fixed(e.best_speedup, 2) + "x";
    text += ", " + tokens(e.spend.total_tokens()) + " tokens";
    if (e.spend.usd > 0) text += ", " + money(e.spend.usd);
    line(text);
  }

  void on_progress(const agent::Progress& p) override {
    last_ = p;
    have_progress_ = true;
    if (tty_) {
      draw_status();
    } else if (p.elapsed_seconds - last_plain_ >= 30) {
      last_plain_ = p.elapsed_seconds;
      out_ << "progress: " << status_text(p) << std::endl;
    }
  }

  void on_message(std::string_view level, std::string_view text) override {
    line(std::string(level) + ": " + std::string(text));
  }

  void finish() {
    if (tty_ && have_progress_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  static std::string status_text(const agent::Progress& p) {
    return std::to_string(p.attempts_done) + "/" + std::to_string(p.attempts_total) + " done, " + std::to_string(p.solved) +
           " solved, " + std::to_string(p.in_flight) + " in flight | tokens " + tokens(p.spend.input_tokens) + " in, " +
           tokens(p.spend.output_tokens) + " out | " + money(p.spend.usd) + " | " + duration(p.elapsed_seconds);
  }
  void draw_status() { std::cerr << "\r\033[K" << status_text(last_) << std::flush; }
  void line(const std::string& text) {
    if (tty_ && have_progress_) std::cerr << "\r\033[K" << std::flush;
    out_ << text << std::endl;
    if (tty_ && have_progress_) draw_status();
  }

  bool tty_, quiet_;
  std::ostream& out_;
  agent::Progress last_;
  bool have_progress_ = false;
  double last_plain_ = 0;
};

struct RunArgs {
  std::string config_file, resume, policy, provider, model, base_url, platform, tasks, store, run_id, prompts;
  std::string api_key_env, oracle_latency, cases, executor, partition;
  std::vector<std::string> params, extra;
  int samples = 0, concurrency = 0, max_iters = 0, jobs = 0, seeds = 0, oracle_compile_errors = -1, oracle_wrong_results = -1;
  int timing_pairs = 0;
  int64_t budget_tokens = 0, run_budget_tokens = 0, max_output_tokens = 0;
  double budget_usd = -1, run_budget_usd = -1, wall_time = 0, run_wall_time = 0, temperature = -1, time_budget = 0;
  uint64_t seed = 0;
  bool no_time = false, no_lint = false, no_baseline = false, stream = false, json = false, quiet = false;
  bool list_policies = false;
};

std::optional<json> parse_param_value(const std::string& text) {
  auto j = json::parse(text, nullptr, false);
  if (!j.is_discarded()) return j;
  return json(text);  // a bare word is a string
}

int list_policies() {
  for (const auto* p : agent::PolicyRegistry::global().list()) {
    std::cout << p->name << ": " << p->description << "\n";
    for (const auto& [k, v] : p->defaults.items()) std::cout << "    " << k << " = " << v.dump() << "\n";
  }
  return kExitOk;
}

int run_command(CLI::App& cmd, RunArgs& a) {
  if (a.list_policies) return list_policies();
  auto given = [&](const char* name) { return cmd.get_option(name)->count() > 0; };
  agent::RunOptions options;
  agent::RunConfig& c = options.config;
  if (!a.config_file.empty()) {
    auto loaded = agent::load_config_file(a.config_file);
    if (!loaded) {
      std::cerr << "kgb run: " << loaded.error().message << "\n";
      return kExitUsage;
    }
    c = std::move(loaded.value());
  }
  if (given("--store")) c.store = a.store;
  if (given("--executor")) options.executor = a.executor;
  if (given("--partition")) options.partition = a.partition;
  if (!a.resume.empty()) {
    options.resume = a.resume;
    if (given("--concurrency")) options.concurrency = a.concurrency;
    for (const char* flag : {"--policy", "--provider", "--model", "--platform", "--tasks", "--samples", "--budget-tokens",
                             "--budget-usd", "--max-iters", "--wall-time", "--run-budget-tokens", "--run-budget-usd",
                             "--run-wall-time", "--param", "--time-budget", "--timing-pairs", "--seeds", "--cases", "--no-time", "--no-lint",
                             "--no-baseline", "--seed", "--oracle-compile-errors", "--oracle-wrong-results", "--extra"})
      if (given(flag))
        std::cerr << "kgb run: note: " << flag << " is ignored when resuming (the run keeps its recorded configuration)\n";
  } else {
    if (given("--policy")) c.policy = a.policy;
    if (given("--provider")) c.provider.name = a.provider;
    if (given("--model")) c.provider.model = a.model;
    if (given("--base-url")) c.provider.base_url = a.base_url;
    if (given("--api-key-env")) c.provider.api_key_env = a.api_key_env;
    if (given("--platform")) c.platform = a.platform;
    if (given("--tasks")) c.tasks = a.tasks;
    if (given("--samples")) c.samples = a.samples;
    if (given("--concurrency")) c.concurrency = a.concurrency;
    if (given("--run-id")) c.run_id = a.run_id;
    if (given("--seed")) c.seed = a.seed;
    if (given("--prompts")) c.prompts_dir = a.prompts;
    if (given("--jobs")) c.evaluation.jobs = a.jobs;
    if (given("--temperature")) c.provider.temperature = a.temperature;
    if (given("--max-output-tokens")) c.provider.max_output_tokens = a.max_output_tokens;
    if (a.stream) c.provider.stream = true;
    if (a.no_time) c.evaluation.time = false;
    if (a.no_lint) c.evaluation.lint = false;
    if (a.no_baseline) c.evaluation.baseline = false;
    if (given("--time-budget")) c.evaluation.time_budget_seconds = a.time_budget;
    if (given("--timing-pairs")) c.evaluation.timing_pairs = a.timing_pairs;
    if (given("--seeds")) c.evaluation.seeds_per_case = a.seeds;
    if (given("--cases")) c.evaluation.cases = a.cases;
    if (given("--budget-tokens")) c.attempt_budget.total_tokens = a.budget_tokens;
    if (given("--budget-usd")) c.attempt_budget.usd = a.budget_usd;
    if (given("--max-iters")) c.attempt_budget.iterations = a.max_iters;
    if (given("--wall-time")) c.attempt_budget.wall_seconds = a.wall_time;
    if (given("--run-budget-tokens")) c.run_budget.total_tokens = a.run_budget_tokens;
    if (given("--run-budget-usd")) c.run_budget.usd = a.run_budget_usd;
    if (given("--run-wall-time")) c.run_budget.wall_seconds = a.run_wall_time;
    if (given("--oracle-compile-errors")) c.oracle.compile_error_attempts = a.oracle_compile_errors;
    if (given("--oracle-wrong-results")) c.oracle.wrong_result_attempts = a.oracle_wrong_results;
    if (given("--oracle-latency-ms")) {
      try {
        const auto colon = a.oracle_latency.find(':');
        c.oracle.latency_min_ms = std::stoll(a.oracle_latency.substr(0, colon));
        c.oracle.latency_max_ms = colon == std::string::npos ? c.oracle.latency_min_ms : std::stoll(a.oracle_latency.substr(colon + 1));
      } catch (const std::exception&) {
        std::cerr << "kgb run: --oracle-latency-ms takes MS or MIN:MAX\n";
        return kExitUsage;
      }
    }
    for (const auto& field : a.extra)
      if (auto added = llm::add_extra_field(c.provider.extra, field); !added) {
        std::cerr << "kgb run: --extra: " << added.error().message << "\n";
        return kExitUsage;
      }
    for (const auto& kv : a.params) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "kgb run: --param takes NAME=VALUE (e.g. target_speedup=1.5)\n";
        return kExitUsage;
      }
      json params = c.policy_params();
      params[kv.substr(0, eq)] = *parse_param_value(kv.substr(eq + 1));
      c.policies[c.policy] = params;
    }
  }

  const bool tty = isatty(STDERR_FILENO) && isatty(STDOUT_FILENO) && !a.json;
  ConsoleObserver observer(tty, a.quiet || a.json, a.json ? std::cerr : std::cout);
  options.observer = &observer;
  const std::string store_file = options.config.store;
  auto result = agent::execute_run(std::move(options));
  observer.finish();
  if (!result) {
    // A store failure always names the file, whichever layer reported it.
    const bool unnamed_store_error = result.error().code.rfind("store.", 0) == 0 &&
                                     result.error().message.find(store_file) == std::string::npos;
    std::cerr << "kgb run: " << (unnamed_store_error ? "run store " + store_file + ": " : "") << result.error().message << "\n";
    const std::string& code = result.error().code;
    const bool usage = code.rfind("config.", 0) == 0 || code.rfind("policy.", 0) == 0 || code.rfind("prompt.", 0) == 0 ||
                       code.rfind("run.", 0) == 0 || code == "store.unknown-run" || code.rfind("platform.", 0) == 0 ||
                       code.rfind("llm.", 0) == 0;
    return usage ? kExitUsage : kExitInfrastructure;
  }
  const agent::RunSummary& s = *result;
  if (a.json) {
    std::cout << s.to_json().dump(2) << "\n";
  } else {
    std::cout << "\n== run " << s.run_id << " " << s.status << (s.error.empty() ? "" : ": " + s.error) << "\n"
              << "solved:      " << s.tasks_solved << " of " << s.tasks << " task(s) (" << s.attempts_solved << " of "
              << s.attempts << " attempt(s); " << s.attempts_finished << " finished)\n"
              << "iterations:  " << s.iterations << " (" << s.llm_calls << " LLM call(s), " << s.evaluations
              << " evaluation(s))\n"
              << "tokens:      " << tokens(s.spend.input_tokens) << " input (" << tokens(s.spend.cached_tokens)
              << " cached), " << tokens(s.spend.output_tokens) << " output (" << tokens(s.spend.reasoning_tokens)
              << " reasoning), " << tokens(s.spend.total_tokens()) << " total"
              << (s.estimated_usage_calls > 0 ? " (estimated for " + std::to_string(s.estimated_usage_calls) + " of " +
                                                    std::to_string(s.llm_calls) + " calls)"
                                              : std::string())
              << "\n"
              << "cost:        " << money(s.spend.usd) << "\n"
              << "time:        " << duration(s.session_seconds) << " this session, " << duration(s.total_seconds) << " in all\n"
              << "store:       " << s.store_file << "  (kgb export " << s.run_id << " --store " << s.store_file
              << " --format jsonl)\n";
    if (s.status == "interrupted")
      std::cout << "resume with: kgb run --resume " << s.run_id << " --store " << s.store_file << "\n";
  }
  if (s.status == "finished") return kExitOk;
  if (s.status == "interrupted") return kExitInterrupted;
  return kExitInfrastructure;
}

struct ExportArgs {
  std::string run, format = "jsonl", table = "attempts", store = "kgb-runs.db", output;
};

int export_command(const ExportArgs& a) {
  if (!std::filesystem::exists(a.store)) {
    std::cerr << "kgb export: no run store at " << a.store << "\n";
    return kExitUsage;
  }
  auto db = store::RunStore::open(a.store);
  if (!db) {
    std::cerr << "kgb export: " << db.error().message << "\n";
    return kExitInfrastructure;
  }
  const auto format = a.format == "csv" ? store::ExportFormat::Csv : store::ExportFormat::Jsonl;
  std::vector<std::string> tables = {a.table};
  if (a.table == "all") {
    if (format == store::ExportFormat::Csv) {
      std::cerr << "kgb export: --table all needs --format jsonl (CSV holds one table)\n";
      return kExitUsage;
    }
    tables = store::export_tables();
  }
  std::ofstream file;
  if (!a.output.empty()) {
    file.open(a.output, std::ios::binary);
    if (!file) {
      std::cerr << "kgb export: cannot write " << a.output << "\n";
      return kExitInfrastructure;
    }
  }
  std::ostream& out = a.output.empty() ? std::cout : file;
  for (const auto& t : tables) {
    std::ostringstream buffer;
    auto s = (*db)->export_table(a.run, t, format, buffer);
    if (!s) {
      std::cerr << "kgb export: " << s.error().message << "\n";
      return s.error().code == "store.unknown-run" || s.error().code == "store.export" ? kExitUsage : kExitInfrastructure;
    }
    if (tables.size() == 1) {
      out << buffer.str();
    } else {
      // One stream of all tables: every line names its table.
      std::istringstream lines(buffer.str());
      std::string line;
      while (std::getline(lines, line)) {
        auto j = json::parse(line, nullptr, false);
        if (j.is_discarded()) continue;
        json tagged = {{"table", t}};
        tagged.update(j);
        out << tagged.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
      }
    }
  }
  return kExitOk;
}

int runs_command(const std::string& store_file, bool as_json) {
  if (!std::filesystem::exists(store_file)) {
    std::cerr << "kgb runs: no run store at " << store_file << "\n";
    return kExitUsage;
  }
  auto db = store::RunStore::open(store_file);
  if (!db) {
    std::cerr << "kgb runs: " << db.error().message << "\n";
    return kExitInfrastructure;
  }
  json list = json::array();
  const auto runs = (*db)->list_runs();
  if (!runs) {
    std::cerr << "kgb runs: " << runs.error().message << "\n";
    return kExitInfrastructure;
  }
  for (const auto& r : *runs) {
    const auto read_totals = (*db)->totals(r.id);
    if (!read_totals) {
      std::cerr << "kgb runs: " << read_totals.error().message << "\n";
      return kExitInfrastructure;
    }
    const store::RunTotals& t = *read_totals;
    if (as_json) {
      list.push_back({{"id", r.id}, {"status", r.status}, {"policy", r.policy}, {"provider", r.provider}, {"model", r.model},
                      {"platform", r.platform}, {"attempts", t.attempts}, {"finished", t.finished_attempts},
                      {"solved", t.solved_attempts}, {"iterations", t.iterations}, {"tokens", t.tokens.total()},
                      {"cost_usd", t.cost_usd}, {"created_at", r.created_at}, {"git_revision", r.git_revision}});
    } else {
      std::cout << r.id << "  " << r.status << "  " << r.policy << " " << r.provider << "/" << r.model << " on " << r.platform
                << "  solved " << t.solved_attempts << "/" << t.attempts << " (" << t.finished_attempts << " finished), "
                << t.iterations << " iterations, " << tokens(t.tokens.total()) << " tokens, " << money(t.cost_usd) << ", "
                << r.created_at << "\n";
    }
  }
  if (as_json) std::cout << list.dump(2) << "\n";
  return kExitOk;
}

}  // namespace

void add_agent_commands(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "run an agent policy over tasks with an LLM, recording everything (resumable)");
  auto& a = *args;
  run->add_option("--config,-c", a.config_file, "experiment configuration (TOML); flags override it")->check(CLI::ExistingFile);
  run->add_option("--resume", a.resume, "continue a run of the store by its id");
  run->add_option("--policy", a.policy, "sample | refine | parallel-refine | tool-agent | ... (--list-policies)");
  run->add_option("--provider", a.provider, "openai | anthropic | oracle | vllm | ollama | ... (kgb_llm presets)");
  run->add_option("--model", a.model, "model name (default for the oracle: oracle)");
  run->add_option("--base-url", a.base_url, "API base URL up to the version; for the oracle: use a running server");
  run->add_option("--api-key-env", a.api_key_env, "environment variable holding the API key");
  run->add_option("--platform,-p", a.platform, "platform name (default cpu-x86_64)");
  run->add_option("--tasks,-t", a.tasks, "task id glob(s), comma-separated (default: all)");
  run->add_option("--samples,-k", a.samples, "independent attempts per task")->check(CLI::PositiveNumber);
  run->add_option("--budget-tokens", a.budget_tokens, "total tokens per task attempt")->check(CLI::NonNegativeNumber);
  run->add_option("--budget-usd", a.budget_usd, "US dollars per task attempt")->check(CLI::NonNegativeNumber);
  run->add_option("--max-iters", a.max_iters, "iterations per task attempt")->check(CLI::NonNegativeNumber);
  run->add_option("--wall-time", a.wall_time, "seconds of LLM and tool time per task attempt")->check(CLI::NonNegativeNumber);
  run->add_option("--run-budget-tokens", a.run_budget_tokens, "total tokens for the whole run")->check(CLI::NonNegativeNumber);
  run->add_option("--run-budget-usd", a.run_budget_usd, "US dollars for the whole run")->check(CLI::NonNegativeNumber);
  run->add_option("--run-wall-time", a.run_wall_time, "wall-clock seconds for the whole run")->check(CLI::NonNegativeNumber);
  run->add_option("--concurrency,-j", a.concurrency, "task attempts in flight (default 4)")->check(CLI::PositiveNumber);
  run->add_option("--jobs", a.jobs, "compile/evaluate jobs at once (default: the cores)")->check(CLI::NonNegativeNumber);
  run->add_option("--store", a.store, "run store file (SQLite; default kgb-runs.db)");
  run->add_option("--executor", a.executor, "where evaluations run: local (default) or slurm ([executor] in the config)")
      ->check(CLI::IsMember({"local", "slurm"}));
  run->add_option("--partition", a.partition, "slurm: the partition of platforms [executor.partitions] does not name");
  run->add_option("--run-id", a.run_id, "id of the new run (default: generated)");
  run->add_option("--seed", a.seed, "seed of the run's inputs and choices (default: random, recorded)");
  run->add_option("--prompts", a.prompts, "prompt template folder (default: the source tree's prompts/)");
  run->add_option("--param", a.params, "policy parameter NAME=VALUE (repeatable; see --list-policies)");
  run->add_option("--temperature", a.temperature, "sampling temperature (policies may set their own)");
  run->add_option("--max-output-tokens", a.max_output_tokens, "output cap per call (budgets may lower it)");
  run->add_option("--extra", a.extra,
                  "provider-specific request field NAME=VALUE, VALUE as JSON or a bare word (repeatable; e.g. top_k=40)");
  run->add_flag("--stream", a.stream, "stream replies (SSE)");
  run->add_flag("--no-time", a.no_time, "check correctness only (no profiling)");
  run->add_flag("--no-lint", a.no_lint, "skip the static checks");
  run->add_flag("--no-baseline", a.no_baseline, "do not time the baseline");
  run->add_option("--time-budget", a.time_budget, "seconds of timed iterations per performance case (default 1)")
      ->check(CLI::PositiveNumber);
  run->add_option("--timing-pairs", a.timing_pairs,
                  "interleaved candidate/baseline blocks per performance case (default 6; 1 is cheapest)")
      ->check(CLI::PositiveNumber);
  run->add_option("--seeds", a.seeds, "input seeds per correctness case (default 2)")->check(CLI::PositiveNumber);
  run->add_option("--cases", a.cases, "only cases whose name matches this glob");
  run->add_option("--oracle-compile-errors", a.oracle_compile_errors, "in-process oracle: first K answers per task fail to compile")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--oracle-wrong-results", a.oracle_wrong_results, "in-process oracle: next K answers compute a wrong result")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--oracle-latency-ms", a.oracle_latency, "in-process oracle: delay per answer, MS or MIN:MAX");
  run->add_flag("--json", a.json, "print the summary as JSON (no progress lines)");
  run->add_flag("--quiet,-q", a.quiet, "no iteration lines");
  run->add_flag("--list-policies", a.list_policies, "list the policies and their parameters");
  run->callback([args, run, &exit_code] { exit_code = run_command(*run, *args); });

  auto ex = std::make_shared<ExportArgs>();
  CLI::App* exp = app.add_subcommand("export", "write a run's records as JSON lines or CSV");
  exp->add_option("run", ex->run, "run id")->required();
  exp->add_option("--format,-f", ex->format, "jsonl | csv")->check(CLI::IsMember({"jsonl", "csv"}))->capture_default_str();
  std::string tables = "all";
  for (const auto& t : store::export_tables()) tables += " | " + t;
  exp->add_option("--table", ex->table, tables)->capture_default_str();
  exp->add_option("--store", ex->store, "run store file")->capture_default_str();
  exp->add_option("--output,-o", ex->output, "write to this file instead of standard output");
  exp->callback([ex, &exit_code] { exit_code = export_command(*ex); });

  auto runs_store = std::make_shared<std::string>("kgb-runs.db");
  auto runs_json = std::make_shared<bool>(false);
  CLI::App* runs = app.add_subcommand("runs", "list the runs of a run store");
  runs->add_option("--store", *runs_store, "run store file")->capture_default_str();
  runs->add_flag("--json", *runs_json, "print JSON");
  runs->callback([runs_store, runs_json, &exit_code] { exit_code = runs_command(*runs_store, *runs_json); });
}

}  // namespace kgb::cli
