// The node side without a scheduler: `kgb slurm-worker` serving a spool as a
// real process (a real evaluation with g++ and the isolated runner), and
// `kgb eval-job` on good and bad job files.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kgb/jobs/job.h"
#include "kgb/jobs/spool.h"
#include "kgb/paths.h"
#include "kgb/process.h"
#include "temp_dir.h"

using namespace kgb;
using namespace kgb::jobs;
namespace fs = std::filesystem;
using kgb::test::temp_dir;

namespace {

std::string bundled(const std::string& task, const std::string& file) {
  std::ifstream in(source_root() / "benchmark" / "tasks" / task / "solutions" / file, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

JobRequest saxpy_request(const std::string& key, const std::string& source) {
  JobRequest r;
  r.key = key;
  r.kind = JobKind::Evaluate;
  r.task = "blas/saxpy";
  r.platform = "cpu-x86_64";
  r.source = source;
  r.options.time = false;
  r.options.lint = false;
  r.options.seeds_per_case = 1;
  r.options.seed = 11;
  r.partition = "cpu";
  return r;
}

CommandResult run_kgb(const std::vector<std::string>& args, double timeout = 300) {
  std::vector<std::string> argv = {KGB_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv, fs::temp_directory_path(), timeout);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("a worker takes the requests of its queue, answers each once and exits when idle") {
  Spool spool(temp_dir("worker-spool"));
  REQUIRE(spool.create().ok());
  const std::string good = bundled("blas/saxpy", "cpu.cpp");
  REQUIRE(spool.enqueue(saxpy_request("good", good)).ok());
  REQUIRE(spool.enqueue(saxpy_request("broken", "this is not C++")).ok());
  JobRequest unknown = saxpy_request("unknown-task", good);
  unknown.task = "blas/does-not-exist";
  REQUIRE(spool.enqueue(unknown).ok());
  JobRequest elsewhere = saxpy_request("other-queue", good);
  elsewhere.partition = "gpu";
  REQUIRE(spool.enqueue(elsewhere).ok());

  auto r = run_kgb({"slurm-worker", "--spool", spool.root().string(), "--partition", "cpu", "--job-id", "4242", "--idle", "0.5"});
  INFO(r.output);
  CHECK(r.status.exited);
  CHECK(r.status.code == 0);
  CHECK(r.output.find("exits after 3 evaluation(s)") != std::string::npos);

  auto reply = spool.read_reply("good");
  REQUIRE(reply.has_value());
  REQUIRE(reply->ok());
  const JobReply& g = **reply;
  CHECK(g.completed);
  CHECK(g.job_id == "4242");
  CHECK(g.executor == "slurm");
  CHECK(!g.node.empty());
  CHECK(g.partition == "cpu");
  CHECK(g.digest == saxpy_request("good", good).digest());
  CHECK(g.payload["outcome"] == "passed");
  CHECK(g.seconds > 0);

  auto broken = spool.read_reply("broken");
  REQUIRE(broken.has_value());
  CHECK((*broken)->completed);  // a failing kernel is data
  CHECK((*broken)->payload["outcome"] == "compile-error");

  auto lost = spool.read_reply("unknown-task");
  REQUIRE(lost.has_value());
  CHECK(!(*lost)->completed);
  CHECK((*lost)->error.find("unknown task blas/does-not-exist") != std::string::npos);

  // Not its queue: untouched.
  CHECK(!spool.read_reply("other-queue").has_value());
  auto snap = spool.snapshot();
  CHECK(snap.claimed.empty());
  REQUIRE(snap.queued.size() == 1);
  CHECK(snap.queued[0].second == "other-queue");

  // The ledger: one start and one end per evaluation.
  auto ledger = read_file(spool.ledger_file());
  REQUIRE(ledger.has_value());
  size_t starts = 0, pos = 0;
  while ((pos = ledger->find("start ", pos)) != std::string::npos) {
    ++starts;
    ++pos;
  }
  CHECK(starts == 3);
}

TEST_CASE("a worker stops at once when the spool says stop, and refuses what is not a spool") {
  Spool spool(temp_dir("worker-stop"));
  REQUIRE(spool.create().ok());
  REQUIRE(spool.enqueue(saxpy_request("k", "int x;")).ok());
  spool.request_stop();
  auto r = run_kgb({"slurm-worker", "--spool", spool.root().string(), "--partition", "cpu", "--job-id", "1", "--idle", "30"}, 20);
  CHECK(r.status.code == 0);
  CHECK(r.output.find("exits after 0 evaluation(s)") != std::string::npos);
  CHECK(spool.snapshot().queued.size() == 1);

  auto not_spool = run_kgb({"slurm-worker", "--spool", temp_dir("not-a-spool").string(), "--job-id", "1"}, 20);
  CHECK(not_spool.status.code == 3);
  CHECK(not_spool.output.find("not a kgb job spool") != std::string::npos);

  // Outside Slurm a worker needs its job id.
  auto no_id = run_command({"/usr/bin/env", "-u", "SLURM_JOB_ID", KGB_CLI_PATH, "slurm-worker", "--spool",
                            spool.root().string()},
                           fs::temp_directory_path(), 20);
  REQUIRE(no_id.ok());
  CHECK(no_id->status.code == 2);
}

TEST_CASE("kgb eval-job runs one job file and writes the reply; bad files are usage errors") {
  const fs::path dir = temp_dir("eval-job");
  const std::string good = bundled("blas/saxpy", "cpu.cpp");
  {
    std::ofstream out(dir / "job.json");
    out << to_json(saxpy_request("single", good)).dump();
  }
  auto r = run_kgb({"eval-job", (dir / "job.json").string(), "--out", (dir / "reply.json").string()});
  INFO(r.output);
  CHECK(r.status.code == 0);
  auto text = read_file(dir / "reply.json");
  REQUIRE(text.has_value());
  auto reply = reply_from_json(nlohmann::json::parse(*text));
  REQUIRE(reply.ok());
  CHECK(reply->completed);
  CHECK(reply->payload["outcome"] == "passed");

  {
    std::ofstream out(dir / "garbage.json");
    out << "{ not json";
  }
  CHECK(run_kgb({"eval-job", (dir / "garbage.json").string()}).status.code == 2);
  CHECK(run_kgb({"eval-job", (dir / "missing.json").string()}).status.code == 2);
  nlohmann::json tampered = to_json(saxpy_request("t", good));
  tampered["source"] = "int main() { return 0; }";
  {
    std::ofstream out(dir / "tampered.json");
    out << tampered.dump();
  }
  auto t = run_kgb({"eval-job", (dir / "tampered.json").string()});
  CHECK(t.status.code == 2);
  CHECK(t.output.find("digest") != std::string::npos);
}
