// The node side of the Slurm executor: `kgb eval-job` runs the evaluation a
// job file describes and writes the reply (the verdict JSON and where it ran);
// `kgb slurm-worker` is what each Slurm job of the executor runs: it takes
// requests of its partition from the spool one at a time. Both belong to the
// evaluation half (no agent, no SQLite): a GPU node needs only this kgb.
#include "job_commands.h"

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "kgb/jobs/spool.h"
#include "kgb/jobs/worker.h"

namespace kgb::cli {
namespace {

using nlohmann::json;

struct EvalJobArgs {
  std::string file, out;
};

int eval_job(const EvalJobArgs& a) {
  auto text = jobs::read_file(a.file);
  if (!text) {
    std::cerr << "kgb eval-job: cannot read " << a.file << "\n";
    return kExitUsage;
  }
  auto j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) {
    std::cerr << "kgb eval-job: " << a.file << " is not JSON\n";
    return kExitUsage;
  }
  auto request = jobs::request_from_json(j);
  if (!request) {
    std::cerr << "kgb eval-job: " << a.file << ": " << request.error().message << "\n";
    return kExitUsage;
  }
  jobs::NodePlacement where = jobs::placement_from_environment();
  if (where.job_id.empty()) where.executor = "local";
  jobs::JobRunner runner;
  const jobs::JobReply reply = runner.run(*request, where);
  const std::string out = jobs::to_json(reply).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  if (a.out.empty()) {
    std::cout << out;
  } else if (auto s = jobs::write_file_atomic(a.out, out); !s) {
    std::cerr << "kgb eval-job: " << s.error().message << "\n";
    return kExitInfrastructure;
  }
  if (!reply.completed) {
    std::cerr << "kgb eval-job: " << reply.error << "\n";
    return kExitInfrastructure;
  }
  return kExitOk;
}

struct WorkerArgs {
  std::string spool, partition, job_id;
  double idle = 30;
  int max_evaluations = 0;
};

int slurm_worker(const WorkerArgs& a) {
  jobs::WorkerOptions o;
  o.spool = a.spool;
  o.partition = a.partition;
  o.where = jobs::placement_from_environment();
  if (!a.job_id.empty()) o.where.job_id = a.job_id;
  o.idle_seconds = a.idle;
  o.max_evaluations = a.max_evaluations;
  std::cerr << "kgb slurm-worker: job " << o.where.job_id << " on " << o.where.node << " serves partition '"
            << a.partition << "' of " << a.spool << "\n";
  auto done = jobs::run_worker(o);
  if (!done) {
    std::cerr << "kgb slurm-worker: " << done.error().message << "\n";
    return done.error().code == "worker.usage" ? kExitUsage : kExitInfrastructure;
  }
  std::cerr << "kgb slurm-worker: job " << o.where.job_id << " exits after " << *done << " evaluation(s)\n";
  return kExitOk;
}

}  // namespace

void add_job_commands(CLI::App& app, int& exit_code) {
  {
    auto args = std::make_shared<EvalJobArgs>();
    auto* cmd = app.add_subcommand("eval-job", "run the evaluation a job file describes and print (or write) the reply "
                                               "JSON: the verdict and where it ran");
    cmd->add_option("file", args->file, "job request (JSON, as the Slurm executor writes them)")->required();
    cmd->add_option("--out,-o", args->out, "write the reply here (atomically) instead of standard output");
    cmd->callback([args, &exit_code] { exit_code = eval_job(*args); });
  }
  {
    auto args = std::make_shared<WorkerArgs>();
    auto* cmd = app.add_subcommand("slurm-worker", "serve a job spool inside a Slurm job: take the partition's "
                                                   "requests one at a time and write their replies");
    cmd->add_option("--spool", args->spool, "the spool folder (shared with the driver)")->required();
    cmd->add_option("--partition", args->partition, "the queue it serves (empty: the default partition)");
    cmd->add_option("--job-id", args->job_id, "the job id (default: SLURM_JOB_ID)");
    cmd->add_option("--idle", args->idle, "exit after this many seconds without work")->capture_default_str();
    cmd->add_option("--max-evaluations", args->max_evaluations, "exit after this many evaluations (0: no limit)")
        ->capture_default_str();
    cmd->callback([args, &exit_code] { exit_code = slurm_worker(*args); });
  }
}

}  // namespace kgb::cli
