// The Slurm executor against the local one, and why it uses workers:
//   1. N evaluations (blas/saxpy, correctness only, one per task attempt of
//      `kgb run` against the oracle) with the local executor (--jobs P) and
//      with the Slurm executor (max_jobs P workers on partition `cpu`): wall
//      time, and the overhead Slurm adds per evaluation in lane-seconds,
//      (T_slurm - T_local) * P / N; then where that overhead goes, from the
//      workers' ledger and the run store: first worker start, the gap between
//      two evaluations on one worker, and how long the driver takes to see a
//      reply;
//   2. the alternatives the executor does not use, on K evaluations of the same
//      job file (`kgb eval-job`): one sbatch job per evaluation, and one job
//      array with an element per evaluation.
// It starts a single-node cluster with scripts/slurm-local-cluster.sh (or uses
// the one SLURM_CONF names).
// Part 1 is repeated R times, local and Slurm alternating, so that load from
// other work on the machine falls on both; medians are reported.
// Usage: kgb_bench_slurm [--evaluations N] [--alternatives K] [--lanes P] [--repeats R]
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/jobs/job.h"
#include "kgb/jobs/spool.h"
#include "kgb/paths.h"
#include "kgb/process.h"
#include "kgb/store/run_store.h"

using namespace kgb;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path temp_dir(const std::string& name) {
  std::string pattern = (fs::temp_directory_path() / ("kgb-bench-" + name + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) {
    std::perror("mkdtemp");
    std::exit(1);
  }
  return pattern;
}

// The cluster this benchmark started (stopped on every way out).
fs::path g_cluster;

void stop_cluster() {
  if (g_cluster.empty()) return;
  (void)run_command({"bash", (source_root() / "scripts" / "slurm-local-cluster.sh").string(), "stop", g_cluster.string()},
                    fs::temp_directory_path(), 120);
  g_cluster.clear();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "kgb_bench_slurm: %s\n", what.c_str());
  stop_cluster();
  std::exit(1);
}

CommandResult must_run(const std::vector<std::string>& argv, double timeout = 1200) {
  auto r = run_command(argv, fs::temp_directory_path(), timeout, 8 << 20);
  if (!r) die(r.error().message);
  if (!r->status.exited || r->status.code != 0) die(argv[0] + " " + (argv.size() > 1 ? argv[1] : "") + ": " + r->output);
  return *r;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// "YYYY-MM-DDTHH:MM:SS.mmmZ" -> seconds since the epoch.
double utc_seconds(const std::string& t) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &ms) != 7)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + ms / 1000.0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double run_seconds(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {KGB_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  const double start = now();
  auto r = must_run(argv);
  const double wall = now() - start;
  auto j = json::parse(r.output.substr(r.output.find('{')), nullptr, false);
  if (j.is_discarded() || j.value("status", "") != "finished") die("the run did not finish: " + r.output);
  return wall;
}

// Waits until `count` files exist in `dir`; returns when the last appeared.
double wait_files(const fs::path& dir, size_t count, double timeout) {
  const double until = now() + timeout;
  while (now() < until) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") ++n;
    if (n >= count) return now();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  die("timed out waiting for " + std::to_string(count) + " replies in " + dir.string());
}

}  // namespace

int main(int argc, char** argv) {
  int evaluations = 100, alternatives = 20, lanes = 2, repeats = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--evaluations") evaluations = std::stoi(argv[i + 1]);
    else if (a == "--alternatives") alternatives = std::stoi(argv[i + 1]);
    else if (a == "--lanes") lanes = std::stoi(argv[i + 1]);
    else if (a == "--repeats") repeats = std::max(1, std::stoi(argv[i + 1]));
    else die("unknown option " + a);
  }
  const fs::path dir = temp_dir("slurm");
  if (!std::getenv("SLURM_CONF")) {
    const fs::path cluster = temp_dir("cluster");  // its own: munge must reach it, and `dir` is private
    auto r = run_command({"bash", (source_root() / "scripts" / "slurm-local-cluster.sh").string(), "start", cluster.string(), "cpu"},
                         dir, 180);
    if (!r || r->status.code != 0) {
      std::printf("no Slurm cluster here: %s\n", r ? r->output.c_str() : r.error().message.c_str());
      return 0;
    }
    ::setenv("SLURM_CONF", (cluster / "slurm.conf").c_str(), 1);
    g_cluster = cluster;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("Slurm executor benchmark: %d evaluations of blas/saxpy (correctness only), %d lanes; scratch %s\n\n",
              evaluations, lanes, dir.c_str());

  // 1. kgb run, local and on Slurm.
  const fs::path store = dir / "runs.db";
  const std::vector<std::string> common = {"run", "--policy", "refine", "--provider", "oracle", "--platform", "cpu-x86_64",
                                           "--tasks", "blas/saxpy", "--samples", std::to_string(evaluations), "--max-iters",
                                           "1", "--concurrency", std::to_string(4 * lanes), "--no-time", "--no-lint",
                                           "--seeds", "1", "--seed", "7", "--store", store.string(), "--quiet"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = common;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const fs::path config = dir / "cluster.toml";
  std::ofstream(config) << "[executor]\nkind = \"slurm\"\nmax_jobs = " << lanes
                        << "\nworker_idle_seconds = 10\n[executor.partitions]\ncpu-x86_64 = \"cpu\"\n";
  std::vector<double> walls_local, walls_slurm, evals_local, evals_slurm;
  auto db_open = store::RunStore::open(store);
  if (!db_open) die(db_open.error().message);
  auto& db = **db_open;
  auto mean_evaluation = [&](const std::string& run) {
    const auto list = *db.evaluations(run);
    if (static_cast<int>(list.size()) != evaluations)
      die("expected " + std::to_string(evaluations) + " evaluations in " + run + ", got " + std::to_string(list.size()));
    double sum = 0;
    for (const auto& e : list) sum += e.seconds;
    return sum / evaluations;
  };
  std::string last_slurm;
  for (int r = 0; r < repeats; ++r) {
    const std::string local_id = "local-" + std::to_string(r), slurm_id = "slurm-" + std::to_string(r);
    walls_local.push_back(run_seconds(with({"--run-id", local_id, "--jobs", std::to_string(lanes)})));
    evals_local.push_back(mean_evaluation(local_id));
    walls_slurm.push_back(run_seconds(with({"--run-id", slurm_id, "--config", config.string()})));
    evals_slurm.push_back(mean_evaluation(slurm_id));
    last_slurm = slurm_id;
    std::printf("repeat %d: local %.1f s (evaluation %.2f s), slurm %.1f s (evaluation %.2f s)\n", r + 1, walls_local.back(),
                evals_local.back(), walls_slurm.back(), evals_slurm.back());
  }
  const double t_local = median(walls_local), t_slurm = median(walls_slurm);
  const double lane_local = t_local * lanes / evaluations, lane_slurm = t_slurm * lanes / evaluations;

  // Where the overhead goes: the ledger has the node's start and end of each
  // evaluation; executor_jobs has when the driver queued it and saw the reply.
  struct Node {
    std::string job;
    double start = 0, end = 0;
  };
  std::map<std::string, Node> on_node;
  std::istringstream ledger(jobs::read_file(fs::path(store.string() + ".jobs") / last_slurm / "ledger").value_or(""));
  std::string line;
  while (std::getline(ledger, line)) {
    std::istringstream words(line);
    std::string verb, key, word;
    words >> verb >> key;
    Node& n = on_node[key];
    while (words >> word) {
      if (word.rfind("job=", 0) == 0) n.job = word.substr(4);
      if (word.rfind("at=", 0) == 0) (verb == "start" ? n.start : n.end) = utc_seconds(word.substr(3));
    }
  }
  double first_queued = 1e300, first_start = 1e300;
  std::vector<double> seen_after_end;
  for (auto rows = db.executor_jobs(last_slurm); const auto& j : *rows) {
    if (!j.queued_at.empty()) first_queued = std::min(first_queued, utc_seconds(j.queued_at));
    auto n = on_node.find(j.key);
    if (n == on_node.end()) continue;
    first_start = std::min(first_start, n->second.start);
    if (j.state == "done" && !j.finished_at.empty()) seen_after_end.push_back(utc_seconds(j.finished_at) - n->second.end);
  }
  std::map<std::string, std::vector<Node>> by_job;
  for (const auto& [key, n] : on_node) by_job[n.job].push_back(n);
  std::vector<double> gaps;
  for (auto& [job, list] : by_job) {
    std::sort(list.begin(), list.end(), [](const Node& a, const Node& b) { return a.start < b.start; });
    for (size_t i = 1; i < list.size(); ++i) gaps.push_back(list[i].start - list[i - 1].end);
  }

  std::printf("\n%-44s %10s %10s\n", "kgb run, N evaluations (medians)", "local", "slurm");
  std::printf("%-44s %9.1fs %9.1fs\n", "wall time", t_local, t_slurm);
  std::printf("%-44s %9.2fs %9.2fs\n", "wall time x lanes / N (lane-s per evaluation)", lane_local, lane_slurm);
  std::printf("%-44s %9.2fs %9.2fs\n", "evaluation itself (mean, from the verdicts)", median(evals_local), median(evals_slurm));
  std::printf("%-44s %10s %9.2fs\n", "overhead added by Slurm per evaluation", "", lane_slurm - lane_local);
  std::printf("%-44s %10s %10zu\n", "worker jobs used (last repeat)", "", by_job.size());
  std::printf("%-44s %10s %9.2fs\n", "first request queued -> first started", "", first_start - first_queued);
  std::printf("%-44s %10s %9.3fs\n", "gap between evaluations on a worker (median)", "", median(gaps));
  std::printf("%-44s %10s %9.3fs\n", "reply written -> seen by the driver (median)", "", median(seen_after_end));

  // 2. The alternatives: a job per evaluation, and a job array.
  const fs::path request_file = dir / "request.json";
  {
    jobs::JobRequest r;
    r.key = "bench";
    r.task = "blas/saxpy";
    r.platform = "cpu-x86_64";
    r.source = jobs::read_file(source_root() / "benchmark/tasks/blas/saxpy/solutions/cpu.cpp").value_or("");
    r.options.time = false;
    r.options.lint = false;
    r.options.seeds_per_case = 1;
    r.options.seed = 7;
    std::ofstream(request_file) << jobs::to_json(r).dump();
  }
  const std::string kgb = KGB_CLI_PATH;
  const fs::path per_job = dir / "per-job", array = dir / "array";
  fs::create_directories(per_job);
  fs::create_directories(array);
  double start = now();
  for (int i = 0; i < alternatives; ++i)
    must_run({"sbatch", "--parsable", "--partition=cpu", "--output=/dev/null", "--job-name=kgb-bench-per-job",
              "--wrap=exec " + kgb + " eval-job " + request_file.string() + " --out " + (per_job / (std::to_string(i) + ".json")).string()});
  const double t_per_job = wait_files(per_job, static_cast<size_t>(alternatives), 3600) - start;
  start = now();
  must_run({"sbatch", "--parsable", "--partition=cpu", "--output=/dev/null", "--job-name=kgb-bench-array",
            "--array=0-" + std::to_string(alternatives - 1),
            "--wrap=exec " + kgb + " eval-job " + request_file.string() + " --out " + array.string() + "/$SLURM_ARRAY_TASK_ID.json"});
  const double t_array = wait_files(array, static_cast<size_t>(alternatives), 3600) - start;
  std::printf("\n%-44s %10s %10s %10s\n", "K evaluations of one job file", "workers", "job each", "array");
  std::printf("%-44s %9.2fs %9.2fs %9.2fs\n", "lane-s per evaluation", lane_slurm, t_per_job * lanes / alternatives,
              t_array * lanes / alternatives);
  std::printf("%-44s %9.2fs %9.2fs %9.2fs\n", "overhead per evaluation over local", lane_slurm - lane_local,
              t_per_job * lanes / alternatives - lane_local, t_array * lanes / alternatives - lane_local);
  std::printf("(K = %d; workers and local from part 1)\n", alternatives);

  stop_cluster();
  return 0;
}
