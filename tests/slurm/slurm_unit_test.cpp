// The Slurm executor's pure parts: command lines, squeue/sbatch output, the
// [executor] configuration, and the run store's executor records (schema 2,
// upgraded from schema 1).
#include <doctest/doctest.h>

#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "kgb/agent/config.h"
#include "kgb/agent/executor.h"
#include "kgb/store/run_store.h"
#include "temp_dir.h"

using namespace kgb;
using namespace kgb::agent;
namespace fs = std::filesystem;
using kgb::test::temp_dir;

namespace {

bool has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

void sql(const fs::path& db, const std::string& statements) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(h, statements.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(h);
  REQUIRE_MESSAGE(rc == SQLITE_OK, message);
}

}  // namespace

TEST_CASE("squeue lines become job states; only live states count as alive") {
  const std::string out =
      "101|RUNNING|gpu|node7|None\n"
      "102|PENDING|gpu||Resources\n"
      "103|CANCELLED by 0|cpu|node1|None\n"
      "104|TIMEOUT|cpu|node2|TimeLimit\r\n"
      "garbage line\n"
      "|RUNNING|x|y|z\n"
      "105_3|COMPLETING|cpu|node3|None\n";
  auto jobs = slurm::parse_squeue(out);
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[0].id == "101");
  CHECK(jobs[0].node == "node7");
  CHECK(jobs[0].alive());
  CHECK(jobs[1].alive());
  CHECK(jobs[1].reason == "Resources");
  CHECK(jobs[2].state == "CANCELLED");
  CHECK_FALSE(jobs[2].alive());
  CHECK_FALSE(jobs[3].alive());
  CHECK(jobs[3].reason == "TimeLimit");
  CHECK(jobs[4].id == "105_3");
  CHECK(jobs[4].alive());
  CHECK(slurm::parse_squeue("").empty());
}

TEST_CASE("why a job ended, for the record") {
  slurm::JobState j;
  j.state = "CANCELLED";
  j.node = "n1";
  CHECK(slurm::describe_end(j) == "CANCELLED: the job was cancelled on n1");
  j.state = "TIMEOUT";
  j.reason = "TimeLimit";
  CHECK(slurm::describe_end(j) == "TIMEOUT: the job reached its time limit on n1 (TimeLimit)");
  j.state = "NODE_FAIL";
  CHECK(slurm::describe_end(j).rfind("NODE_FAIL: the node failed", 0) == 0);
  CHECK(slurm::describe_end(slurm::JobState{}) == "the job is no longer known to Slurm");
}

TEST_CASE("sbatch --parsable output") {
  CHECK(*slurm::parse_sbatch_output("4242\n") == "4242");
  CHECK(*slurm::parse_sbatch_output("4242;cluster-a\n") == "4242");
  CHECK(*slurm::parse_sbatch_output("sbatch: warning: something\n17\n") == "17");
  CHECK(!slurm::parse_sbatch_output("").ok());
  CHECK(!slurm::parse_sbatch_output("sbatch: error: invalid partition specified: nope\n").ok());
}

TEST_CASE("the sbatch command carries the settings and the partition's own options") {
  ExecutorSettings s;
  s.kind = "slurm";
  s.account = "proj1";
  s.qos = "high";
  s.time_limit = "00:30:00";
  s.sbatch_options = {"--exclusive"};
  s.partition_options["gpu"] = {"--gres=gpu:1"};
  auto gpu = slurm::sbatch_command(s, "gpu", "kgb-run1", "/shared/spool/logs", "/shared/spool/worker.sh");
  CHECK(gpu.front() == "sbatch");
  CHECK(has(gpu, "--parsable"));
  CHECK(has(gpu, "--job-name=kgb-run1"));
  CHECK(has(gpu, "--output=/shared/spool/logs/%j.out"));
  CHECK(has(gpu, "--partition=gpu"));
  CHECK(has(gpu, "--account=proj1"));
  CHECK(has(gpu, "--qos=high"));
  CHECK(has(gpu, "--time=00:30:00"));
  CHECK(has(gpu, "--no-requeue"));
  CHECK(has(gpu, "--exclusive"));
  CHECK(has(gpu, "--gres=gpu:1"));
  // The script, then the queue it serves as its argument.
  CHECK(gpu[gpu.size() - 2] == "/shared/spool/worker.sh");
  CHECK(gpu.back() == "gpu");
  auto plain = slurm::sbatch_command(ExecutorSettings{}, "", "kgb-x", "/l", "/s");
  CHECK_FALSE(std::any_of(plain.begin(), plain.end(), [](const std::string& a) { return a.rfind("--partition", 0) == 0; }));
  CHECK_FALSE(has(plain, "--gres=gpu:1"));
  CHECK(plain.back() == "");
}

TEST_CASE("the worker script quotes every path") {
  ExecutorSettings s;
  s.worker_idle_seconds = 12;
  s.evaluations_per_job = 50;
  const std::string script = slurm::worker_script("/opt/it's here/kgb", "/shared/a b", s);
  CHECK(script.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(script.find("exec '/opt/it'\\''s here/kgb' slurm-worker --spool '/shared/a b' --partition \"$1\" --idle 12 "
                    "--max-evaluations 50") != std::string::npos);
  CHECK(slurm::shell_quote("plain") == "'plain'");
  CHECK(slurm::shell_quote("") == "''");
}

TEST_CASE("[executor] is read strictly from the experiment file") {
  const char* toml = R"(
[executor]
kind = "slurm"
work_dir = "/shared/kgb-jobs"
partition = "cpu"
compile_partition = "cpu-small"
account = "proj1"
time_limit = "02:00:00"
max_jobs = 16
max_retries = 3
sbatch_options = ["--exclusive"]

[executor.partitions]
cuda-sm90 = "gpu-h100"
opencl-nvidia = "gpu-h100"

[executor.partition_options]
gpu-h100 = ["--gres=gpu:1", "--cpus-per-task=8"]
)";
  auto c = parse_config_toml(toml, "test.toml");
  INFO((c.ok() ? std::string() : c.error().message));
  REQUIRE(c.ok());
  const ExecutorSettings& e = c->executor;
  CHECK(e.is_slurm());
  CHECK(e.work_dir == "/shared/kgb-jobs");
  CHECK(e.max_jobs == 16);
  CHECK(e.max_retries == 3);
  CHECK(e.partitions.at("cuda-sm90") == "gpu-h100");
  CHECK(e.partition_options.at("gpu-h100").size() == 2);
  CHECK(e.partition_for("cuda-sm90", jobs::JobKind::Evaluate) == "gpu-h100");
  CHECK(e.partition_for("cuda-sm90", jobs::JobKind::Compile) == "cpu-small");
  CHECK(e.partition_for("cpu-x86_64", jobs::JobKind::Evaluate) == "cpu");

  // Recorded with the run and read back the same.
  auto again = config_from_json(config_to_json(*c));
  REQUIRE(again.ok());
  CHECK(executor_settings_to_json(again->executor) == executor_settings_to_json(e));

  // Without [executor] evaluations stay here.
  auto plain = parse_config_toml("[run]\nsamples = 1\n", "plain.toml");
  REQUIRE(plain.ok());
  CHECK(plain->executor.kind == "local");
}

TEST_CASE("mistakes in [executor] are errors that name the key") {
  auto error = [](const std::string& toml) {
    auto c = parse_config_toml(toml, "bad.toml");
    REQUIRE(!c.ok());
    return c.error().message;
  };
  CHECK(error("[executor]\nkind = \"kubernetes\"\n").find("executor.kind") != std::string::npos);
  CHECK(error("[executor]\nmax_job = 3\n").find("unknown key 'max_job'") != std::string::npos);
  CHECK(error("[executor]\nmax_jobs = 0\n").find("max_jobs") != std::string::npos);
  CHECK(error("[executor]\nmax_retries = -1\n").find("max_retries") != std::string::npos);
  CHECK(error("[executor.partitions]\ncuda-sm90 = 3\n").find("cuda-sm90") != std::string::npos);
  CHECK(error("[executor.partition_options]\ngpu = \"--gres=gpu:1\"\n").find("list of strings") != std::string::npos);
  CHECK(error("[executor]\nsbatch_options = \"--exclusive\"\n").find("sbatch_options") != std::string::npos);
}

TEST_CASE("executor tries are recorded one row per try; later states keep what earlier ones knew") {
  const fs::path dir = temp_dir("store-executor");
  auto db = store::RunStore::open(dir / "runs.db");
  REQUIRE(db.ok());
  store::RunRecord run;
  run.id = "r1";
  run.policy = run.provider = run.model = run.platform = run.tasks_glob = "x";
  REQUIRE((*db)->create_run(run).ok());
  store::ExecutorJobRecord j;
  j.run_id = "r1";
  j.key = "a1-i0-s1";
  j.attempt_id = 1;
  j.iteration = 0;
  j.step = 1;
  j.state = "queued";
  j.partition = "gpu";
  j.at = "2025-01-01T00:00:00.000Z";
  REQUIRE((*db)->record_executor_job(j).ok());
  j.state = "running";
  j.job_id = "77";
  j.node = "n3";
  j.partition = "";
  j.at = "2025-01-01T00:00:01.000Z";
  REQUIRE((*db)->record_executor_job(j).ok());
  j.state = "failed";
  j.reason = "CANCELLED: the job was cancelled on n3";
  j.job_id = "";
  j.at = "2025-01-01T00:00:02.000Z";
  REQUIRE((*db)->record_executor_job(j).ok());
  store::ExecutorJobRecord second = j;
  second.try_index = 2;
  second.state = "done";
  second.reason = "";
  second.job_id = "78";
  second.seconds = 1.25;
  REQUIRE((*db)->record_executor_job(second).ok());

  auto rows = *(*db)->executor_jobs("r1");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].state == "failed");
  CHECK(rows[0].job_id == "77");
  CHECK(rows[0].node == "n3");
  CHECK(rows[0].partition == "gpu");
  CHECK(rows[0].reason.find("CANCELLED") != std::string::npos);
  CHECK(rows[0].queued_at == "2025-01-01T00:00:00.000Z");
  CHECK(rows[0].started_at == "2025-01-01T00:00:01.000Z");
  CHECK(rows[0].finished_at == "2025-01-01T00:00:02.000Z");
  CHECK(rows[1].try_index == 2);
  CHECK(rows[1].seconds == doctest::Approx(1.25));
  CHECK(*rows[1].attempt_id == 1);

  std::ostringstream exported;
  REQUIRE((*db)->export_table("r1", "executor_jobs", store::ExportFormat::Jsonl, exported).ok());
  CHECK(exported.str().find("\"job_key\":\"a1-i0-s1\"") != std::string::npos);
}

TEST_CASE("a schema-1 store is upgraded in place: evaluations gain where they ran") {
  const fs::path dir = temp_dir("store-upgrade");
  const fs::path file = dir / "runs.db";
  {
    auto db = store::RunStore::open(file);
    REQUIRE(db.ok());
    store::RunRecord run;
    run.id = "old";
    run.policy = run.provider = run.model = run.platform = run.tasks_glob = "x";
    REQUIRE((*db)->create_run(run).ok());
  }
  // Make it what schema 1 wrote: no placement columns, no executor_jobs.
  sql(file,
      "ALTER TABLE evaluations DROP COLUMN executor; ALTER TABLE evaluations DROP COLUMN node; "
      "ALTER TABLE evaluations DROP COLUMN partition_name; ALTER TABLE evaluations DROP COLUMN job_id; "
      "ALTER TABLE evaluations DROP COLUMN tries; DROP TABLE executor_jobs; "
      "UPDATE meta SET value = '1' WHERE key = 'schema_version';");
  auto db = store::RunStore::open(file);
  INFO((db.ok() ? std::string() : db.error().message));
  REQUIRE(db.ok());
  REQUIRE((*db)->load_run("old").ok());
  CHECK((*db)->executor_jobs("old")->empty());
  // The upgraded table takes an evaluation with its placement.
  auto attempt = (*db)->ensure_attempt("old", "blas/saxpy", 0);
  REQUIRE(attempt.ok());
  auto sha = (*db)->put_kernel("int x;");
  REQUIRE(sha.ok());
  store::ToolCallRecord call;
  call.run_id = "old";
  call.attempt_id = *attempt;
  call.tool = "run";
  call.kernel = *sha;
  auto call_id = (*db)->begin_tool_call(call);
  REQUIRE(call_id.ok());
  call.id = *call_id;
  call.status = "done";
  store::EvaluationRecord e;
  e.run_id = "old";
  e.attempt_id = *attempt;
  e.kernel = *sha;
  e.purpose = "run";
  e.executor = "slurm";
  e.node = "n9";
  e.partition = "gpu";
  e.job_id = "314";
  e.tries = 2;
  REQUIRE((*db)->finish_tool_call(call, e).ok());
  auto evaluations = *(*db)->evaluations("old");
  REQUIRE(evaluations.size() == 1);
  CHECK(evaluations[0].executor == "slurm");
  CHECK(evaluations[0].node == "n9");
  CHECK(evaluations[0].partition == "gpu");
  CHECK(evaluations[0].job_id == "314");
  CHECK(evaluations[0].tries == 2);
  // A store from a newer kgb is refused, not rewritten.
  db.value().reset();
  sql(file, "UPDATE meta SET value = '99' WHERE key = 'schema_version';");
  auto newer = store::RunStore::open(file);
  REQUIRE(!newer.ok());
  CHECK(newer.error().message.find("schema 99") != std::string::npos);
}

TEST_CASE("the sample cluster configuration of examples/ is valid") {
  auto c = load_config_file(std::string(KGB_SOURCE_DIR) + "/examples/slurm.toml");
  INFO((c.ok() ? std::string() : c.error().message));
  REQUIRE(c.ok());
  CHECK(c->executor.is_slurm());
  CHECK(c->executor.partition_for("cuda-sm90", jobs::JobKind::Evaluate) == "gpu-h100");
  CHECK(c->executor.partition_for("cpu-x86_64", jobs::JobKind::Evaluate) == "cpu");
  CHECK(c->executor.partition_options.at("gpu-h100").front() == "--gres=gpu:1");
  CHECK(validate_config(*c).ok());
}
