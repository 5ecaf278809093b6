// `--executor slurm` for the commands outside the agent loop (kgb validate,
// kgb portability): their evaluations as jobs on the Slurm executor. Always
// built; without the agent loop (and its executor) asking for slurm is an error.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "kgb/jobs/job.h"
#include "kgb/result.h"

namespace kgb::cli {

struct ClusterArgs {
  std::string executor;   // local | slurm; empty: [executor] kind of --config, else local
  std::string config;     // experiment file: its [executor] table
  std::string partition;  // overrides [executor] partition
  bool slurm() const { return executor == "slurm"; }
};

void add_cluster_options(CLI::App* cmd, ClusterArgs& args);
// The arguments with `executor` settled when --executor was not given (from
// --config's [executor] kind); errors for a configuration that cannot be read.
Result<ClusterArgs> resolve_executor(ClusterArgs args);
// The same for a command: a configuration that cannot be read is printed and
// sets the usage exit code.
std::optional<ClusterArgs> cluster_for_command(const ClusterArgs& args, int& exit_code);

// Runs the requests on the Slurm executor described by [executor] of
// --config and --partition (which also give each request its partition), in
// a spool of their own under work_dir that keeps only the ledger and the
// workers' logs at the end. `on_reply` is called in completion order with the
// request's index. Errors are for a cluster that cannot be used (no sbatch,
// an unknown partition, a bad configuration).
Status run_on_cluster(std::vector<jobs::JobRequest> requests, const ClusterArgs& args, const std::string& label,
                      const std::function<void(size_t, const jobs::JobReply&)>& on_reply);

// "node (partition, job N, try 2)" for tables, and the same as JSON.
std::string placement_text(const jobs::JobReply& reply);
nlohmann::json placement_json(const jobs::JobReply& reply);

}  // namespace kgb::cli
