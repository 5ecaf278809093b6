#include "mcp_commands.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "kgb/mcp/server.h"
#include "kgb/mcp/usage.h"
#include "kgb/store/run_store.h"

namespace kgb::cli {
namespace {

struct ServerArgs {
  mcp::McpOptions o;
  bool http = false;
  std::string token_env, info_file;
  int64_t budget_tokens = 0;
  double budget_usd = 0, wall_time = 0;
  int max_iters = 0, max_evaluations = 0, jobs = 0, seeds = 0, timing_pairs = 0;
  double time_budget = 0;
  bool no_time = false, no_lint = false, no_baseline = false;
  bool json = false;  // refused: see run_server
};

int exit_code_for(const Error& e) {
  const bool infra = e.code == "platform.unavailable" || e.code.rfind("store.", 0) == 0 || e.code == "mcp.listen";
  return infra ? kExitInfrastructure : kExitUsage;
}

// Written once the server listens, then renamed into place, so a script that
// polls for the file never reads half of it.
bool write_info_file(const std::string& path, const nlohmann::json& info) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) return false;
    out << info.dump(2) << "\n";
    if (!out) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

int run_server(CLI::App& cmd, ServerArgs& a) {
  if (a.json) {
    // The --json contract (one document on stdout) cannot hold for a server:
    // over stdio its stdout is the protocol stream itself.
    std::cerr << "error: kgb mcp-server takes no --json: over stdio its stdout carries the JSON-RPC messages (and "
                 "nothing else); over HTTP, --info-file FILE receives the URL, port, run id and pid as JSON once it "
                 "listens\n";
    return kExitUsage;
  }
  auto given = [&](const char* name) { return cmd.get_option(name)->count() > 0; };
  mcp::McpOptions& o = a.o;
  if (given("--budget-tokens")) o.budget.limits.total_tokens = a.budget_tokens;
  if (given("--budget-usd")) o.budget.limits.usd = a.budget_usd;
  if (given("--wall-time")) o.budget.limits.wall_seconds = a.wall_time;
  if (given("--max-iters")) o.budget.limits.iterations = a.max_iters;
  if (given("--max-evaluations")) o.budget.evaluations = a.max_evaluations;
  if (given("--jobs")) o.evaluation.jobs = a.jobs;
  if (given("--seeds")) o.evaluation.seeds_per_case = a.seeds;
  if (given("--time-budget")) o.evaluation.time_budget_seconds = a.time_budget;
  if (given("--timing-pairs")) o.evaluation.timing_pairs = a.timing_pairs;
  if (a.no_time) o.evaluation.time = false;
  if (a.no_lint) o.evaluation.lint = false;
  if (a.no_baseline) o.evaluation.baseline = false;
  if (!a.token_env.empty()) {
    const char* token = std::getenv(a.token_env.c_str());
    if (!token || !*token) {
      std::cerr << "kgb mcp-server: --token-env " << a.token_env << ": the variable is not set or empty\n";
      return kExitUsage;
    }
    o.bearer_token = token;
  }
  if (a.http && o.bearer_token.empty() && o.host != "127.0.0.1" && o.host != "::1" && o.host != "localhost")
    std::cerr << "kgb mcp-server: warning: listening on " << o.host << " without a bearer token (--token-env)\n";

  auto server = mcp::McpServer::create(o);
  if (!server) {
    std::cerr << "kgb mcp-server: " << server.error().message << "\n";
    return exit_code_for(server.error());
  }
  if (!a.http) {
    std::cerr << "kgb mcp-server: run " << (*server)->run_id() << " on " << o.platform << ", store " << o.store
              << " (stdio)\n";
    if (auto s = (*server)->serve_stdio(STDIN_FILENO, STDOUT_FILENO); !s) {
      std::cerr << "kgb mcp-server: " << s.error().message << "\n";
      return kExitInfrastructure;
    }
    return kExitOk;
  }
  auto port = (*server)->start_http();
  if (!port) {
    std::cerr << "kgb mcp-server: " << port.error().message << "\n";
    return exit_code_for(port.error());
  }
  std::cout << "kgb mcp-server: listening on " << (*server)->url() << " (run " << (*server)->run_id() << ", platform "
            << o.platform << ", store " << o.store << ")" << std::endl;
  if (!a.info_file.empty() &&
      !write_info_file(a.info_file, {{"url", (*server)->url()},
                                     {"port", *port},
                                     {"run_id", (*server)->run_id()},
                                     {"store", o.store},
                                     {"platform", o.platform},
                                     {"pid", ::getpid()}})) {
    std::cerr << "kgb mcp-server: cannot write " << a.info_file << "\n";
    (*server)->stop();
    (*server)->wait();
    return kExitUsage;
  }
  (*server)->wait();
  return kExitOk;
}

struct UsageArgs {
  std::string store = "kgb-runs.db", run, task, file = "-";
  int64_t attempt = 0;
  int sample = -1;
  bool json = false;
};

int import_usage(const UsageArgs& a) {
  std::string text;
  if (a.file == "-") {
    std::ostringstream in;
    in << std::cin.rdbuf();
    text = in.str();
  } else {
    std::ifstream in(a.file, std::ios::binary);
    if (!in) {
      std::cerr << "kgb mcp-usage: cannot read " << a.file << "\n";
      return kExitUsage;
    }
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  auto usage = mcp::parse_reported_usage_text(text);
  if (!usage) {
    std::cerr << "kgb mcp-usage: " << (a.file == "-" ? "stdin" : a.file) << ": " << usage.error().message << "\n";
    return kExitUsage;
  }
  if (!std::filesystem::exists(a.store)) {
    std::cerr << "kgb mcp-usage: no run store at " << a.store << "\n";
    return kExitUsage;
  }
  auto db = store::RunStore::open(a.store);
  if (!db) {
    std::cerr << "kgb mcp-usage: " << db.error().message << "\n";
    return kExitInfrastructure;
  }
  int64_t attempt_id = a.attempt;
  if (attempt_id == 0) {
    if (a.run.empty() || a.task.empty()) {
      std::cerr << "kgb mcp-usage: name the attempt: --attempt ID, or --run RUN --task TASK [--sample N]\n";
      return kExitUsage;
    }
    if (auto run = (*db)->load_run(a.run); !run) {
      std::cerr << "kgb mcp-usage: " << run.error().message << "\n";
      return kExitUsage;
    }
    const store::AttemptRecord* chosen = nullptr;
    const auto attempts = (*db)->attempts(a.run);
    if (!attempts) {
      std::cerr << "kgb mcp-usage: " << attempts.error().message << "\n";
      return kExitInfrastructure;
    }
    for (const auto& at : *attempts)
      if (at.task == a.task && (a.sample < 0 ? (!chosen || at.sample > chosen->sample) : at.sample == a.sample)) chosen = &at;
    if (!chosen) {
      std::cerr << "kgb mcp-usage: run " << a.run << " has no attempt on " << a.task
                << (a.sample >= 0 ? " with sample " + std::to_string(a.sample) : std::string()) << "\n";
      return kExitUsage;
    }
    attempt_id = chosen->id;
  }
  auto recorded = mcp::record_reported_usage(**db, attempt_id, *usage, "import", usage->raw);
  if (!recorded) {
    std::cerr << "kgb mcp-usage: " << recorded.error().message << "\n";
    return recorded.error().code.rfind("store.", 0) == 0 && recorded.error().code != "store.unknown-attempt" ? kExitInfrastructure
                                                                                                             : kExitUsage;
  }
  if (a.json) {
    const store::TokenCounts& t = recorded->attempt_tokens;
    const nlohmann::json doc = {
        {"attempt_id", attempt_id},
        {"iteration", recorded->iteration},
        {"step", recorded->step},
        {"recorded", mcp::reported_usage_json(*usage)},
        {"attempt", {{"input_tokens", t.input},
                     {"cached_input_tokens", t.cached_input},
                     {"cache_write_tokens", t.cache_write},
                     {"output_tokens", t.output},
                     {"reasoning_tokens", t.reasoning},
                     {"total_tokens", t.total()},
                     {"cost_usd", recorded->attempt_cost_usd}}}};
    std::cout << doc.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "recorded " << usage->tokens.total() << " tokens (reported by the agent";
  if (usage->cost_usd) std::cout << ", $" << *usage->cost_usd;
  std::cout << ") on attempt " << attempt_id << ", iteration " << recorded->iteration + 1 << "; the attempt has "
            << recorded->attempt_tokens.total() << " tokens in all\n";
  return kExitOk;
}

}  // namespace

void add_mcp_commands(CLI::App& app, int& exit_code) {
  {
    auto a = std::make_shared<ServerArgs>();
    auto* cmd = app.add_subcommand("mcp-server", "serve the benchmark's tools to external agents over MCP (stdio or HTTP)");
    mcp::McpOptions& o = a->o;
    cmd->add_flag("--http", a->http, "serve Streamable HTTP on --host/--port instead of stdio");
    cmd->add_option("--host", o.host, "HTTP: address to listen on")->capture_default_str();
    cmd->add_option("--port", o.port, "HTTP: port (0: any free port, printed at start)")->capture_default_str();
    cmd->add_option("--token-env", a->token_env, "HTTP: require this environment variable's value as bearer token");
    cmd->add_option("--allow-origin", o.allowed_origins, "HTTP: a browser origin allowed besides loopback ones");
    cmd->add_option("--session-idle", o.session_idle_seconds, "HTTP: seconds after which an unused session ends")->capture_default_str();
    cmd->add_option("--max-sessions", o.max_sessions, "HTTP: sessions at once")->capture_default_str();
    cmd->add_option("--request-timeout", o.request_timeout_seconds, "HTTP: seconds to receive a request on a new connection")
        ->capture_default_str();
    cmd->add_option("--progress-interval", o.progress_seconds, "seconds between progress notifications of a running tool")
        ->capture_default_str();
    cmd->add_option("--info-file", a->info_file, "HTTP: write the URL, run id and pid here (JSON) once listening");
    cmd->add_option("--store", o.store, "run store (SQLite)")->capture_default_str();
    cmd->add_option("--run", o.run_id, "record into this run (created when missing; several servers may share one)");
    cmd->add_option("--agent", o.agent, "the agent's name for reports (default: the first client's name and version)");
    cmd->add_option("--platform,-p", o.platform, "platform name")->capture_default_str();
    cmd->add_option("--tasks", o.tasks, "tasks sessions may work on: id glob(s), comma-separated")->capture_default_str();
    cmd->add_option("--task", o.task, "every session opens an attempt on this task when it starts");
    cmd->add_option("--prompts", o.prompts_dir, "prompt templates folder (default: the source tree's prompts/)");
    cmd->add_option("--budget-tokens", a->budget_tokens, "per attempt: tokens the agent reports, at most");
    cmd->add_option("--budget-usd", a->budget_usd, "per attempt: dollars the agent reports, at most");
    cmd->add_option("--wall-time", a->wall_time, "per attempt: seconds from its start");
    cmd->add_option("--max-iters", a->max_iters, "per attempt: distinct kernels tried");
    cmd->add_option("--max-evaluations", a->max_evaluations, "per attempt: evaluate, profile and submit calls");
    cmd->add_option("--time-budget", a->time_budget, "seconds of timed calls per performance case");
    cmd->add_option("--timing-pairs", a->timing_pairs, "interleaved candidate/baseline blocks per performance case (default 6)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--seeds", a->seeds, "input seeds per correctness case");
    cmd->add_option("--cases", o.evaluation.cases, "only cases whose name matches this glob");
    cmd->add_option("--jobs", a->jobs, "compile and check jobs at once (default: the cores)");
    cmd->add_flag("--no-time", a->no_time, "check correctness only, never time");
    cmd->add_flag("--no-lint", a->no_lint, "skip the static checks in evaluations");
    cmd->add_flag("--no-baseline", a->no_baseline, "do not time the baseline");
    cmd->add_flag("--json", a->json, "refused with the reason: stdout is the protocol's (see --info-file)");
    cmd->callback([cmd, a, &exit_code] { exit_code = run_server(*cmd, *a); });
  }
  {
    auto a = std::make_shared<UsageArgs>();
    auto* cmd = app.add_subcommand("mcp-usage",
                                   "attach token usage an agent's harness reported (its usage JSON) to an attempt, marked "
                                   "as reported by the agent");
    cmd->add_option("--store", a->store, "run store")->capture_default_str();
    cmd->add_option("--attempt", a->attempt, "attempt id");
    cmd->add_option("--run", a->run, "run id (with --task)");
    cmd->add_option("--task", a->task, "task id (with --run): its last attempt unless --sample");
    cmd->add_option("--sample", a->sample, "sample number of the attempt (with --run and --task)");
    cmd->add_option("--file", a->file, "usage JSON or JSON lines (- : stdin)")->capture_default_str();
    cmd->add_flag("--json", a->json, "print what was recorded as one JSON object");
    cmd->callback([a, &exit_code] { exit_code = import_usage(*a); });
  }
}

}  // namespace kgb::cli
