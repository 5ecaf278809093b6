// Resume after kill -9: `kgb run` is killed with SIGKILL at random points
// (mid-LLM-call, mid-evaluation, between steps) and resumed until it
// finishes. The final store must equal an uninterrupted run's: the same
// tasks solved with the same outcomes in the same order, the same number of
// LLM calls and evaluations, every attempt and iteration finished, no step
// done twice, no evaluation duplicated.
//
// Three models, each deciding from the request alone (the conversation it is
// sent), so a resumed run must end exactly as the uninterrupted one:
// - the oracle started in-process by `kgb run` (a fresh one in every
//   session), with refine and with tool-agent, killed a dozen times;
// - an external `kgb oracle-server` process that outlives the kills;
// - a scripted model in this test process.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "agent_fixtures.h"
#include "kgb/oracle/catalog.h"
#include "kgb/oracle/mutate.h"
#include "kgb/store/run_store.h"

using namespace kgb;
using namespace kgb::test;

namespace {

struct Child {
  pid_t pid = -1;
  int out_fd = -1;  // the child's stdout, when piped
};

Child spawn(const std::vector<std::string>& args, const std::string& log_file, bool pipe_stdout = false) {
  int fds[2] = {-1, -1};
  if (pipe_stdout) REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int log = open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (pipe_stdout) {
      dup2(fds[1], 1);
      close(fds[0]);
      close(fds[1]);
    } else {
      dup2(log, 1);
    }
    dup2(log, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Child c;
  c.pid = pid;
  if (pipe_stdout) {
    close(fds[1]);
    c.out_fd = fds[0];
  }
  return c;
}

// Waits up to `seconds`; returns the exit status, or nullopt if still running.
std::optional<int> wait_for(pid_t pid, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string read_line(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

// How `kgb run` is started: against a model at `url`, or (url empty) against
// the in-process oracle with faults; `extra` adds flags.
struct RunSpec {
  std::string url;
  std::string policy = "refine";
  std::string tasks = "blas/saxpy,vllm/silu_and_mul";
  std::vector<std::string> extra;
};

std::vector<std::string> run_args(const RunSpec& spec, const std::string& store, const std::string& run_id) {
  std::vector<std::string> args = {KGB_CLI_PATH, "run", "--policy", spec.policy, "--provider", "oracle", "--platform", "cpu-x86_64",
                                   "--tasks", spec.tasks, "--no-time", "--no-lint", "--jobs", "2", "--concurrency", "2",
                                   "--store", store, "--run-id", run_id, "--seed", "5", "--quiet"};
  if (!spec.url.empty()) {
    args.push_back("--base-url");
    args.push_back(spec.url);
  } else {
    for (const char* flag : {"--oracle-compile-errors", "1", "--oracle-wrong-results", "1", "--oracle-latency-ms", "50:400"})
      args.push_back(flag);
  }
  args.insert(args.end(), spec.extra.begin(), spec.extra.end());
  return args;
}

std::vector<nlohmann::json> export_rows(store::RunStore& db, const std::string& run, const std::string& table) {
  std::stringstream out;
  REQUIRE(db.export_table(run, table, store::ExportFormat::Jsonl, out).ok());
  std::vector<nlohmann::json> rows;
  std::string line;
  while (std::getline(out, line)) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

struct Facts {
  std::set<std::string> solved;
  std::map<std::string, int> iterations;
  std::map<std::string, std::vector<std::string>> outcomes;  // per task, in order
  int done_llm_calls = 0, evaluations = 0;
};

// Everything a finished run must satisfy; returns what is compared with the reference.
Facts check_consistent(store::RunStore& db, const std::string& run) {
  Facts f;
  auto rec = db.load_run(run);
  REQUIRE(rec.ok());
  CHECK(rec->status == "finished");
  for (auto rows = db.attempts(run); const auto& a : *rows) {
    CAPTURE(a.task);
    CHECK(a.finished());
    if (a.correct) f.solved.insert(a.task);
    const auto its = *db.iterations(a.id);
    f.iterations[a.task] = static_cast<int>(its.size());
    for (const auto& it : its) f.outcomes[a.task].push_back(it.outcome);
    CHECK(a.iterations == static_cast<int>(its.size()));
    for (size_t i = 0; i < its.size(); ++i) {
      CHECK(its[i].index == static_cast<int>(i));  // no gaps, no repeats
      CHECK(its[i].status == "done");
    }
  }
  // No step done twice, and one evaluation per evaluating tool call.
  std::set<std::tuple<int64_t, int, int>> done_llm, done_tools, evals;
  auto key = [](const nlohmann::json& c) {
    return std::make_tuple(c["attempt_id"].get<int64_t>(), c["iteration"].get<int>(), c["step"].get<int>());
  };
  for (const auto& c : export_rows(db, run, "llm_calls"))
    if (c["status"] == "done") CHECK(done_llm.insert(key(c)).second);
  int evaluating_tools = 0;
  std::set<int64_t> eval_ids;
  for (const auto& c : export_rows(db, run, "tool_calls")) {
    if (c["status"] != "done") continue;
    CHECK(done_tools.insert(key(c)).second);
    if (!c["evaluation_id"].is_null()) {
      ++evaluating_tools;
      CHECK(eval_ids.insert(c["evaluation_id"].get<int64_t>()).second);
    }
  }
  for (auto rows = db.evaluations(run); const auto& e : *rows) CHECK(evals.insert({e.attempt_id, e.iteration, e.step}).second);
  CHECK(static_cast<int>(evals.size()) == evaluating_tools);
  f.done_llm_calls = static_cast<int>(done_llm.size());
  f.evaluations = static_cast<int>(evals.size());
  return f;
}

// The uninterrupted run.
Facts reference_run(const RunSpec& spec, const std::string& dir, const std::string& log, double& seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  Child reference = spawn(run_args(spec, dir + "/reference.db", "reference"), log);
  auto status = wait_for(reference.pid, 600);
  REQUIRE(status.has_value());
  REQUIRE(WIFEXITED(*status));
  REQUIRE(WEXITSTATUS(*status) == 0);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto ref_db = store::RunStore::open(dir + "/reference.db");
  REQUIRE(ref_db.ok());
  const Facts expected = check_consistent(**ref_db, "reference");
  CHECK(expected.solved.size() == expected.iterations.size());
  MESSAGE("uninterrupted run: " << seconds << " s");
  return expected;
}

struct KilledRun {
  Facts facts;
  int kills = 0, interrupted_llm = 0, interrupted_tools = 0;
};

// Starts the run, kills it with SIGKILL at random moments (up to `kills`
// times, each session living at most `longest` seconds), resumes it until it
// finishes, checks the store is consistent.
KilledRun kill_and_resume(const RunSpec& spec, const std::string& dir, const std::string& log, unsigned seed, int kills,
                          double longest) {
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> when(0.05, std::max(0.3, longest));
  const std::string store = dir + "/kill-" + std::to_string(seed) + ".db";
  const std::string run_id = "kill-" + std::to_string(seed);
  const std::vector<std::string> start_args = run_args(spec, store, run_id);
  const std::vector<std::string> resume_args = {KGB_CLI_PATH, "run", "--resume", run_id, "--store", store, "--quiet"};
  KilledRun out;
  for (int session = 0;; ++session) {
    // A kill before the run record was written leaves nothing to resume: start again.
    bool recorded = false;
    if (std::filesystem::exists(store))
      if (auto db = store::RunStore::open(store); db.ok()) recorded = (*db)->load_run(run_id).ok();
    Child c = spawn(recorded ? resume_args : start_args, log);
    const bool may_kill = out.kills < kills;
    const double delay = when(rng);
    auto done = wait_for(c.pid, may_kill ? delay : 600);
    if (!done) {
      REQUIRE(may_kill);
      kill(c.pid, SIGKILL);
      done = wait_for(c.pid, 30);
      REQUIRE(done.has_value());
      if (WIFSIGNALED(*done)) {
        ++out.kills;
        continue;
      }
    }
    REQUIRE(WIFEXITED(*done));
    REQUIRE(WEXITSTATUS(*done) == 0);
    break;
  }
  auto db = store::RunStore::open(store);
  REQUIRE(db.ok());
  out.facts = check_consistent(**db, run_id);
  CHECK((*db)->load_run(run_id)->sessions <= out.kills + 1);
  // What the kills cut short is kept as history, never replayed.
  for (const auto& c : export_rows(**db, run_id, "llm_calls")) out.interrupted_llm += c["status"] == "interrupted";
  for (const auto& c : export_rows(**db, run_id, "tool_calls")) out.interrupted_tools += c["status"] == "interrupted";
  return out;
}

}  // namespace

namespace {

void expect_equal(const Facts& got, const Facts& expected) {
  CHECK(got.solved == expected.solved);
  CHECK(got.iterations == expected.iterations);
  CHECK(got.outcomes == expected.outcomes);
  CHECK(got.done_llm_calls == expected.done_llm_calls);
  CHECK(got.evaluations == expected.evaluations);
}

// The uninterrupted run, then `seeds.size()` runs killed `kills` times each.
void kill_many_times(const RunSpec& spec, const std::string& name, const std::vector<unsigned>& seeds, int kills,
                     const std::vector<std::string>& expected_outcomes) {
  const std::string dir = fresh_dir(name);
  const std::string log = dir + "/log.txt";
  double reference_seconds = 0;
  const Facts expected = reference_run(spec, dir, log, reference_seconds);
  for (const auto& [task, outcomes] : expected.outcomes) {
    CAPTURE(task);
    if (!expected_outcomes.empty()) CHECK(outcomes == expected_outcomes);
    CHECK(outcomes.size() >= 3);
    CHECK(outcomes.back() == "passed");
  }
  // Sessions short enough that `kills` of them cannot finish the work.
  const double longest = reference_seconds * 0.7 / kills;
  int total_kills = 0, interrupted = 0;
  for (const unsigned seed : seeds) {
    const KilledRun got = kill_and_resume(spec, dir, log, seed, kills, longest);
    total_kills += got.kills;
    interrupted += got.interrupted_llm + got.interrupted_tools;
    expect_equal(got.facts, expected);
  }
  CHECK(total_kills >= kills * static_cast<int>(seeds.size()) - 1);
  MESSAGE(name << ": " << total_kills << " kills cut " << interrupted << " step(s) short");
  CHECK(interrupted >= 1);
}

}  // namespace

TEST_CASE("kill -9 a dozen times against the in-process oracle (refine), resume, and the store equals an uninterrupted run's") {
  RunSpec spec;
  spec.tasks = "blas/saxpy,vllm/silu_and_mul,vllm/rms_norm";
  kill_many_times(spec, "resume-oracle-refine", {11u}, 12, {"compile-error", "wrong-result", "passed"});
}

TEST_CASE("kill -9 a dozen times against the in-process oracle (tool-agent, streamed), resume, and the store equals an uninterrupted run's") {
  RunSpec spec;
  spec.policy = "tool-agent";
  spec.extra = {"--stream"};
  // Seven turns per task (lint or compile catches draft 1, run catches draft 2,
  // then profile and submit); which tool catches draft 1 depends on whether
  // lint is built, so the outcomes are compared with the reference run's only.
  kill_many_times(spec, "resume-oracle-tools", {23u}, 12, {});
}

TEST_CASE("kill -9 at random points against an oracle server process, resume, and the store equals an uninterrupted run's") {
  const std::string dir = fresh_dir("resume-server");
  const std::string log = dir + "/log.txt";
  Child oracle = spawn({KGB_CLI_PATH, "oracle-server", "--port", "0", "--seed", "3", "--compile-error-attempts", "1",
                        "--wrong-result-attempts", "1", "--latency-ms", "50:400"},
                       log, true);
  const std::string banner = read_line(oracle.out_fd);
  const auto at = banner.find("http://");
  REQUIRE(at != std::string::npos);
  RunSpec spec;
  spec.url = banner.substr(at, banner.find(' ', at) - at);
  kill_many_times(spec, "resume-server-runs", {11u, 22u}, 3, {"compile-error", "wrong-result", "passed"});
  kill(oracle.pid, SIGTERM);
  wait_for(oracle.pid, 10);
}

TEST_CASE("kill -9 at random points against a scripted model without memory, resume, and the store equals an uninterrupted run's") {
  // The n-th reply of a conversation (n = the model's own replies in the
  // request, plus one): 1 does not compile, 2 computes a wrong result, 3 and
  // later are the bundled solution. Latency 50-400 ms, drawn from the body.
  auto catalog = oracle::make_bundled_catalog();
  ScriptedServer model([&](const RecordedRequest& request, int) {
    const auto body = nlohmann::json::parse(request.body);
    int replies_before = 0;
    std::string task;
    for (const auto& m : body["messages"]) {
      if (m["role"] == "assistant") ++replies_before;
      const std::string content = m.value("content", "");
      if (const auto t = content.find("Task: "); task.empty() && t != std::string::npos)
        task = content.substr(t + 6, content.find('\n', t) - t - 6);
    }
    auto target = catalog->find(task, "cpu-x86_64");
    if (!target) return openai_reply("I do not know that task.");
    std::string source = target->source;
    if (replies_before == 0) source = oracle::inject_compile_error(source, target->entry).source;
    if (replies_before == 1) source = oracle::inject_wrong_result(*target).value().source;
    Reply r = openai_reply(fenced(source));
    r.delay = std::chrono::milliseconds(50 + std::hash<std::string>{}(request.body) % 351);
    return r;
  });
  RunSpec spec;
  spec.url = model.base_url();
  kill_many_times(spec, "resume-scripted", {11u, 22u, 33u}, 3, {"compile-error", "wrong-result", "passed"});
}
