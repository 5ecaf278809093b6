// The node side of an evaluation job: run one request (`kgb eval-job`), or
// serve a spool as a long-lived worker inside one scheduler job (`kgb
// slurm-worker`), taking requests of its partition one at a time until it has
// been idle for a while, was asked to stop, or did its share.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "kgb/jobs/job.h"
#include "kgb/jobs/spool.h"
#include "kgb/task.h"

namespace kgb::jobs {

// Where this process runs: the node name, the partition and the job id from
// the scheduler's environment (SLURMD_NODENAME, SLURM_JOB_PARTITION,
// SLURM_JOB_ID), else the host name and empty fields.
struct NodePlacement {
  std::string executor = "slurm";
  std::string node, partition, job_id;
};
NodePlacement placement_from_environment();

// Runs requests on this machine. Tasks are loaded once per executor.
class JobRunner {
 public:
  JobRunner();
  // Never throws: every failure is a reply with completed = false.
  JobReply run(const JobRequest& request, const NodePlacement& where);

 private:
  const Task* find_task(const std::string& id);
  std::map<std::string, Task> tasks_;
  bool tasks_loaded_ = false;
  std::string tasks_error_;
};

struct WorkerOptions {
  std::filesystem::path spool;
  std::string partition;          // the queue it serves ("" = the default partition)
  NodePlacement where;            // job_id must be set
  double idle_seconds = 30;       // exit after this long without work
  int max_evaluations = 0;        // exit after this many; 0: no limit
  double poll_seconds = 0.05;
};

// Returns the number of evaluations done; an error when the spool is unusable.
Result<int> run_worker(const WorkerOptions& options);

}  // namespace kgb::jobs
