// `--executor slurm` on a real single-node Slurm cluster started by this test
// in a temporary folder (scripts/slurm-local-cluster.sh: munged, slurmctld and
// slurmd as root, partitions `cpu` and `fake-gpu` on this host). The tests:
// a run on the cluster against the same run here, kgb validate and kgb
// portability on the cluster, a job cancelled mid-run (scancel), the driver
// killed with SIGKILL and resumed, Ctrl-C, and broken cluster settings; the
// daemons are shut down at the end. Where the daemons cannot start (not root, slurm-wlm
// or munge missing) every test says "slurm tests skipped: ..." and ctest
// reports them skipped.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "kgb/jobs/spool.h"
#include "kgb/process.h"
#include "kgb/store/run_store.h"
#include "temp_dir.h"

extern char** environ;

using namespace kgb;
namespace fs = std::filesystem;
using kgb::test::temp_dir;
using nlohmann::json;

namespace {

const std::string kScript = std::string(KGB_SOURCE_DIR) + "/scripts/slurm-local-cluster.sh";

std::string host() {
  auto r = run_command({"hostname", "-s"}, fs::temp_directory_path(), 10);
  std::string h = r ? r->output : "";
  while (!h.empty() && (h.back() == '\n' || h.back() == ' ')) h.pop_back();
  return h;
}

// The cluster of this test program: started by the first test that needs it,
// stopped by the last one (or at exit).
class Cluster {
 public:
  static Cluster& get() {
    static Cluster cluster;
    return cluster;
  }
  bool up() const { return up_; }
  const std::string& why_not() const { return why_not_; }
  const fs::path& dir() const { return dir_; }
  void stop() {
    if (!up_) return;
    (void)run_command({"bash", kScript, "stop", dir_.string()}, fs::temp_directory_path(), 120);
    up_ = false;
  }
  ~Cluster() { stop(); }

 private:
  Cluster() {
    dir_ = temp_dir("slurm-cluster");
    auto r = run_command({"bash", kScript, "start", dir_.string(), "cpu", "fake-gpu"}, fs::temp_directory_path(), 180);
    if (!r || !r->status.exited || r->status.code != 0) {
      why_not_ = r ? r->output : r.error().message;
      return;
    }
    ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);
    up_ = true;
  }
  fs::path dir_;
  bool up_ = false;
  std::string why_not_;
};

#define REQUIRE_CLUSTER()                                                              \
  do {                                                                                 \
    if (!Cluster::get().up()) {                                                        \
      MESSAGE("slurm tests skipped: " << Cluster::get().why_not());                    \
      return;                                                                          \
    }                                                                                  \
  } while (0)

CommandResult run_kgb(const std::vector<std::string>& args, double timeout = 600) {
  std::vector<std::string> argv = {KGB_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv, fs::temp_directory_path(), timeout, 4 << 20);
  REQUIRE(r.ok());
  return *r;
}

// `kgb` with its standard output alone parsed as JSON (diagnostics go to standard error).
json kgb_json(const std::vector<std::string>& args, int expected_code = 0) {
  std::vector<std::string> argv = {"bash", "-c", "exec \"$0\" \"$@\" 2>/dev/null", KGB_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv, fs::temp_directory_path(), 600, 4 << 20);
  REQUIRE(r.ok());
  INFO(r->output);
  REQUIRE(r->status.code == expected_code);
  auto j = json::parse(r->output, nullptr, false);
  REQUIRE(!j.is_discarded());
  return j;
}

// `kgb` in the background, its output in a file.
pid_t start_kgb(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> all = {KGB_CLI_PATH};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, KGB_CLI_PATH, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

int wait_exit(pid_t pid, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      FAIL("kgb did not finish in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const fs::path& file) { return jobs::read_file(file).value_or(""); }

// Waits until `ready` or the time is up.
bool wait_until(const std::function<bool()>& ready, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ready();
}

// The experiment file for the cluster: platform cpu-x86_64 on `fake-gpu`.
fs::path cluster_config(const fs::path& dir, const std::string& extra = "") {
  const fs::path file = dir / "cluster.toml";
  std::ofstream out(file);
  out << "[executor]\nkind = \"slurm\"\nmax_jobs = 2\nworker_idle_seconds = 5\n" << extra
      << "\n[executor.partitions]\ncpu-x86_64 = \"fake-gpu\"\n";
  return file;
}

std::vector<std::string> run_args(const std::string& run_id, const fs::path& store, const std::string& tasks,
                                  int compile_errors = 1) {
  return {"run", "--policy", "refine", "--provider", "oracle", "--platform", "cpu-x86_64", "--tasks", tasks,
          "--no-time", "--no-lint", "--seeds", "1", "--seed", "5", "--store", store.string(), "--run-id", run_id,
          "--oracle-compile-errors", std::to_string(compile_errors), "--quiet"};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

std::unique_ptr<store::RunStore> open_store(const fs::path& file) {
  auto db = store::RunStore::open(file);
  REQUIRE(db.ok());
  return std::move(db.value());
}

// Outcomes of every iteration, by task, in order.
std::map<std::string, std::vector<std::string>> trajectories(store::RunStore& db, const std::string& run) {
  std::map<std::string, std::vector<std::string>> out;
  for (auto rows = db.attempts(run); const auto& a : *rows)
    for (auto its = db.iterations(a.id); const auto& it : *its) out[a.task].push_back(it.outcome);
  return out;
}

// The keys the ledger says were started, with how many times.
std::map<std::string, int> ledger_starts(const fs::path& spool) {
  std::map<std::string, int> starts;
  std::istringstream in(read_text(spool / "ledger"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string verb, key;
    words >> verb >> key;
    if (verb == "start") ++starts[key];
  }
  return starts;
}

// No job of the run is alive any more (workers exit or are cancelled at the end).
bool no_live_jobs(const std::string& job_name) {
  auto r = run_command({"squeue", "--noheader", "--name=" + job_name, "--format=%i %T"}, fs::temp_directory_path(), 30);
  return r && r->status.code == 0 && r->output.find_first_not_of(" \n") == std::string::npos;
}

}  // namespace

TEST_CASE("a run on the cluster equals the same run here, and says where each evaluation ran") {
  REQUIRE_CLUSTER();
  const fs::path dir = temp_dir("slurm-run");
  const fs::path store = dir / "runs.db";
  const std::string tasks = "blas/saxpy,vllm/silu_and_mul,aten/add";
  auto local = run_kgb(run_args("here", store, tasks));
  INFO(local.output);
  REQUIRE(local.status.code == 0);
  auto cluster = run_kgb(with(run_args("there", store, tasks), {"--config", cluster_config(dir).string()}));
  INFO(cluster.output);
  REQUIRE(cluster.status.code == 0);

  auto db = open_store(store);
  CHECK(trajectories(*db, "there") == trajectories(*db, "here"));
  const auto here = *db->evaluations("here");
  const auto there = *db->evaluations("there");
  REQUIRE(here.size() == there.size());
  REQUIRE(here.size() >= 6);  // a compile error and a fix per task
  // The same evaluation outcome at every step (attempts are matched by task).
  auto by_step = [&](const std::string& run, const std::vector<store::EvaluationRecord>& evaluations) {
    std::map<int64_t, std::string> task_of;
    for (auto rows = db->attempts(run); const auto& a : *rows) task_of[a.id] = a.task;
    std::map<std::string, std::string> out;
    for (const auto& e : evaluations)
      out[task_of[e.attempt_id] + "/" + std::to_string(e.iteration) + "/" + std::to_string(e.step)] = e.outcome;
    return out;
  };
  CHECK(by_step("there", there) == by_step("here", here));
  const std::string node = host();
  std::set<std::string> jobs;
  for (const auto& e : here) {
    CHECK(e.executor == "local");
    CHECK(e.node == node);
  }
  for (const auto& e : there) {
    CHECK(e.executor == "slurm");
    CHECK(e.partition == "fake-gpu");
    CHECK(e.node == node);
    CHECK(!e.job_id.empty());
    CHECK(e.tries == 1);
    jobs.insert(e.job_id);
  }
  // Workers take several evaluations each: fewer jobs than evaluations.
  CHECK(jobs.size() < there.size());
  // Every evaluation has its executor record, done on the first try.
  std::map<std::string, std::string> states;
  for (auto rows = db->executor_jobs("there"); const auto& j : *rows) states[j.key + "#" + std::to_string(j.try_index)] = j.state;
  CHECK(states.size() == there.size());
  for (const auto& [key, state] : states) CHECK_MESSAGE(state == "done", key);
  CHECK(db->executor_jobs("here")->empty());

  // The workers are gone once the run is over, and the requests (they hold the seed) too.
  CHECK(wait_until([] { return no_live_jobs("kgb-there"); }, 30));
  const fs::path spool = fs::path(store.string() + ".jobs") / "there";
  CHECK(!fs::exists(spool / "queue"));
  CHECK(fs::exists(spool / "ledger"));

  // The report says where.
  const json r = kgb_json({"report", "there", "--store", store.string(), "--format", "json"});
  const json& placement = r["runs"][0]["placement"];
  REQUIRE(placement.size() == 1);
  CHECK(placement[0]["executor"] == "slurm");
  CHECK(placement[0]["partition"] == "fake-gpu");
  CHECK(placement[0]["evaluations"] == there.size());
  auto text = run_kgb({"report", "there", "--store", store.string()});
  CHECK(text.output.find("Where evaluations ran") != std::string::npos);
}

TEST_CASE("kgb validate and kgb portability run their evaluations on the partitions") {
  REQUIRE_CLUSTER();
  const std::vector<std::string> validate = {"validate", "--platform", "cpu-x86_64", "--tasks",
                                             "blas/saxpy,blas/sgemm,vllm/rms_norm,vllm/silu_and_mul", "--no-time", "--seeds", "1", "--json"};
  const json h = kgb_json(validate);
  const fs::path dir = temp_dir("slurm-validate");
  const json t = kgb_json(with(validate, {"--executor", "slurm", "--partition", "cpu", "--config",
                                          cluster_config(dir, "work_dir = \"" + (dir / "jobs").string() + "\"\n").string()}));
  REQUIRE(h.size() == t.size());
  REQUIRE(h.size() == 4);
  for (size_t i = 0; i < h.size(); ++i) {
    CHECK(t[i]["task"] == h[i]["task"]);
    CHECK(t[i]["passed"] == h[i]["passed"]);
    CHECK(t[i]["placement"]["executor"] == "slurm");
    // [executor.partitions] names cpu-x86_64: that wins over --partition.
    CHECK(t[i]["placement"]["partition"] == "fake-gpu");
    CHECK(t[i]["placement"]["job_id"] != "");
  }
  // Without a table for the platform, --partition decides.
  const json c = kgb_json({"validate", "--platform", "cpu-x86_64", "--tasks", "blas/saxpy", "--no-time", "--seeds", "1",
                           "--json", "--executor", "slurm", "--partition", "cpu"});
  CHECK(c[0]["placement"]["partition"] == "cpu");

  const json p = kgb_json({"portability", "--platforms", "cpu-x86_64", "--tasks", "blas/saxpy,blas/sgemm", "--no-time", "--json",
                           "--executor", "slurm", "--partition", "fake-gpu"});
  CHECK(p["correct_on_all"] == 2);
  for (const auto& row : p["tasks"]) {
    const json& cell = row["platforms"]["cpu-x86_64"];
    CHECK(cell["passed"] == true);
    CHECK(cell["placement"]["partition"] == "fake-gpu");
  }
}

TEST_CASE("a job cancelled mid-run is recorded with its reason and its evaluation runs again") {
  REQUIRE_CLUSTER();
  const fs::path dir = temp_dir("slurm-cancel");
  const fs::path store = dir / "runs.db";
  const fs::path spool = fs::path(store.string() + ".jobs") / "cancel";
  const pid_t driver = start_kgb(with(run_args("cancel", store, "aten/*,blas/*", 0), {"--config", cluster_config(dir).string()}),
                                 dir / "driver.log");
  // The first evaluation a worker takes: cancel the worker's job under it.
  std::optional<jobs::SpoolClaim> victim;
  REQUIRE(wait_until(
      [&] {
        auto claimed = jobs::Spool(spool).snapshot().claimed;
        if (!claimed.empty()) victim = claimed.front();
        return victim.has_value();
      },
      120));
  auto cancel = run_command({"scancel", victim->job_id}, fs::temp_directory_path(), 30);
  REQUIRE(cancel.ok());
  CHECK(cancel->status.code == 0);
  const int code = wait_exit(driver, 600);
  INFO(read_text(dir / "driver.log"));
  REQUIRE(code == 0);

  auto db = open_store(store);
  std::vector<store::ExecutorJobRecord> tries;
  for (auto rows = db->executor_jobs("cancel"); const auto& j : *rows)
    if (j.key == victim->key) tries.push_back(j);
  REQUIRE(tries.size() == 2);
  CHECK(tries[0].try_index == 1);
  CHECK(tries[0].state == "failed");
  CHECK(tries[0].job_id == victim->job_id);
  CHECK(tries[0].reason.find("CANCELLED") != std::string::npos);
  CHECK(tries[1].try_index == 2);
  CHECK(tries[1].state == "done");
  CHECK(tries[1].job_id != victim->job_id);
  // One evaluation in the store, from the second try; every attempt finished.
  int with_victim = 0;
  for (auto rows = db->evaluations("cancel"); const auto& e : *rows)
    if ("a" + std::to_string(e.attempt_id) + "-i" + std::to_string(e.iteration) + "-s" + std::to_string(e.step) == victim->key) {
      ++with_victim;
      CHECK(e.tries == 2);
    }
  CHECK(with_victim == 1);
  for (auto rows = db->attempts("cancel"); const auto& a : *rows) CHECK_MESSAGE(a.finished(), a.task);
  CHECK(ledger_starts(spool)[victim->key] == 2);

  const json r = kgb_json({"report", "cancel", "--store", store.string(), "--format", "json"});
  REQUIRE(r["runs"][0]["failed_tries"].size() >= 1);
  CHECK(r["runs"][0]["failed_tries"][0]["reason"].get<std::string>().find("CANCELLED") != std::string::npos);
}

TEST_CASE("kgb run --resume after SIGKILL of the driver re-attaches: nothing lost, nothing run twice") {
  REQUIRE_CLUSTER();
  const fs::path dir = temp_dir("slurm-kill");
  const fs::path store = dir / "runs.db";
  const fs::path spool = fs::path(store.string() + ".jobs") / "killed";
  const fs::path config = cluster_config(dir);
  const pid_t driver = start_kgb(with(run_args("killed", store, "aten/*,blas/*"), {"--config", config.string()}), dir / "first.log");
  // Kill it while a worker holds an evaluation and others wait in the queue.
  REQUIRE(wait_until(
      [&] {
        auto snap = jobs::Spool(spool).snapshot();
        return !snap.claimed.empty() && !snap.queued.empty();
      },
      120));
  ::kill(driver, SIGKILL);
  waitpid(driver, nullptr, 0);

  auto resumed = run_kgb({"run", "--resume", "killed", "--store", store.string()});
  INFO(read_text(dir / "first.log"));
  INFO(resumed.output);
  REQUIRE(resumed.status.code == 0);
  CHECK(resumed.output.find("re-attached to evaluation") != std::string::npos);

  auto db = open_store(store);
  for (auto rows = db->attempts("killed"); const auto& a : *rows) CHECK_MESSAGE(a.finished(), a.task);
  const auto evaluations = *db->evaluations("killed");
  const auto starts = ledger_starts(spool);
  // Each evaluation ran exactly once on the cluster, and each run produced one evaluation.
  CHECK(starts.size() == evaluations.size());
  for (const auto& [key, n] : starts) CHECK_MESSAGE(n == 1, key);
  for (const auto& e : evaluations) {
    const std::string key = "a" + std::to_string(e.attempt_id) + "-i" + std::to_string(e.iteration) + "-s" + std::to_string(e.step);
    CHECK_MESSAGE(starts.count(key) == 1, key);
    CHECK(e.tries == 1);
  }
  CHECK(wait_until([] { return no_live_jobs("kgb-killed"); }, 30));
}

TEST_CASE("Ctrl-C: the evaluation on a worker finishes and is recorded, queued ones are taken back") {
  REQUIRE_CLUSTER();
  const fs::path dir = temp_dir("slurm-interrupt");
  const fs::path store = dir / "runs.db";
  const fs::path spool = fs::path(store.string() + ".jobs") / "interrupted";
  const pid_t driver =
      start_kgb(with(run_args("interrupted", store, "aten/*,blas/*", 0), {"--config", cluster_config(dir).string()}), dir / "first.log");
  std::optional<jobs::SpoolClaim> running;
  REQUIRE(wait_until(
      [&] {
        auto snap = jobs::Spool(spool).snapshot();
        if (!snap.claimed.empty() && !snap.queued.empty()) running = snap.claimed.front();
        return running.has_value();
      },
      120));
  ::kill(driver, SIGINT);
  const int code = wait_exit(driver, 300);
  INFO(read_text(dir / "first.log"));
  CHECK(code == 130);
  {
    auto db = open_store(store);
    bool recorded = false;
    for (auto rows = db->evaluations("interrupted"); const auto& e : *rows)
      recorded = recorded || "a" + std::to_string(e.attempt_id) + "-i" + std::to_string(e.iteration) + "-s" +
                                     std::to_string(e.step) == running->key;
    CHECK_MESSAGE(recorded, "the evaluation " << running->key << " was on a worker: it finishes and is recorded");
    bool withdrawn = false;
    for (auto rows = db->executor_jobs("interrupted"); const auto& j : *rows) withdrawn = withdrawn || j.state == "withdrawn";
    CHECK(withdrawn);
  }
  const auto snap = jobs::Spool(spool).snapshot();
  CHECK(snap.queued.empty());
  CHECK(snap.claimed.empty());
  CHECK(wait_until([] { return no_live_jobs("kgb-interrupted"); }, 30));

  // The next session finishes the run without evaluating anything twice.
  auto resumed = run_kgb({"run", "--resume", "interrupted", "--store", store.string()});
  INFO(resumed.output);
  REQUIRE(resumed.status.code == 0);
  auto db = open_store(store);
  const auto starts = ledger_starts(spool);
  CHECK(starts.size() == db->evaluations("interrupted")->size());
  for (const auto& [key, n] : starts) CHECK_MESSAGE(n == 1, key);
}

TEST_CASE("broken cluster settings: an unknown partition, and workers that cannot run") {
  REQUIRE_CLUSTER();
  const fs::path dir = temp_dir("slurm-broken");
  const fs::path store = dir / "runs.db";
  auto unknown = run_kgb(with(run_args("nowhere", store, "blas/saxpy"), {"--executor", "slurm", "--partition", "no-such-partition"}));
  CHECK(unknown.status.code == 3);
  CHECK(unknown.output.find("partition 'no-such-partition' does not exist") != std::string::npos);

  // A "kgb" on the nodes that exits at once: three workers end without work,
  // then the evaluation ends with that reason instead of jobs being submitted forever.
  auto dead = run_kgb(with(run_args("dead-workers", store, "blas/saxpy", 0),
                       {"--max-iters", "1", "--config", cluster_config(dir, "kgb = \"/bin/true\"\n").string()}),
                  300);
  INFO(dead.output);
  CHECK(dead.status.code == 0);
  auto db = open_store(store);
  const auto evaluations = *db->evaluations("dead-workers");
  REQUIRE(evaluations.size() == 1);
  CHECK(evaluations[0].outcome == "infra-error");
  CHECK(evaluations[0].verdict.value("summary", "").find("ended without taking work") != std::string::npos);
  CHECK(wait_until([] { return no_live_jobs("kgb-dead-workers"); }, 30));

  // Two drivers for one run: the second is refused.
  const fs::path spool = fs::path(store.string() + ".jobs") / "dead-workers";
  fs::create_directories(spool);
  const int lock = ::open((spool / "driver.lock").c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(lock >= 0);
  REQUIRE(::flock(lock, LOCK_EX) == 0);
  auto second = run_kgb({"run", "--resume", "dead-workers", "--store", store.string()});
  ::close(lock);
  CHECK(second.status.code == 3);
  CHECK(second.output.find("another kgb is driving") != std::string::npos);
}

TEST_CASE("the cluster shuts down") {
  REQUIRE_CLUSTER();
  const fs::path dir = Cluster::get().dir();
  std::vector<pid_t> pids;
  for (const char* f : {"slurmctld.pid", "slurmd.pid", "munge/munged.pid"}) {
    const std::string text = read_text(dir / f);
    if (!text.empty()) pids.push_back(static_cast<pid_t>(std::stol(text)));
  }
  CHECK(pids.size() == 3);
  Cluster::get().stop();
  for (pid_t pid : pids) CHECK(wait_until([pid] { return ::kill(pid, 0) != 0; }, 15));
}
