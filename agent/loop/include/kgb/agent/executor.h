// Executors: where the evaluation jobs of a run (lint, compile, run, profile,
// submit) and of `kgb validate` / `kgb portability` are executed.
//
//   local  (the default) on this machine: the run's job pool, one timing job
//          per device, exactly as without an executor
//   slurm  on a Slurm cluster: the driver (model calls, the run store) stays
//          where it was started; each evaluation becomes a request in a spool
//          folder on the shared filesystem (kgb/jobs/spool.h), served by
//          long-lived worker jobs (`kgb slurm-worker`, one evaluation at a time)
//          submitted with sbatch to the partition of the evaluation's platform.
//          Replies come back through the same folder.
//
// Why workers and not one job (or one array element) per evaluation: on the
// single-node cluster of the tests a job takes about 3 s from sbatch to its
// first instruction, more than a CPU verdict takes; a worker pays that once and
// then picks up the next request within a poll interval (figures in
// docs/slurm.md, measured by tests/bench/slurm_bench.sh).
//
// Failure handling: a worker job that ends while holding a request (cancelled,
// timed out, node failure, killed) is noticed through squeue; the request goes
// back to the queue with the reason, up to `max_retries` times, then ends in a
// reply that says why. Every try is reported as a JobEvent (the loop records
// them in the run store). Requests are keyed by the step that made them, so a
// driver killed and restarted finds them where they are (queued, running on a
// job, answered) and waits for them instead of running them again.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "kgb/jobs/job.h"
#include "kgb/result.h"

namespace kgb::agent {

// [executor] of the experiment configuration.
struct ExecutorSettings {
  std::string kind = "local";  // local | slurm
  // Slurm.
  std::string work_dir;        // spool folders, on a filesystem the nodes share; default: <store>.jobs
  std::string kgb;             // the kgb the nodes run; default: this executable
  std::string partition;       // platforms not listed in `partitions`; empty: the cluster's default
  std::map<std::string, std::string> partitions;  // platform name -> partition
  std::string compile_partition;  // lint and compile tool calls; empty: the platform's partition
  std::string account, qos;
  std::string time_limit = "01:00:00";  // per worker job (sbatch --time)
  int max_jobs = 4;            // worker jobs in flight (pending and running), all partitions
  int max_retries = 2;         // tries after the first when a job ends without a reply
  double worker_idle_seconds = 30;  // a worker exits after this long without work
  int evaluations_per_job = 0;      // a worker exits after this many; 0: no limit
  std::vector<std::string> sbatch_options;  // added to every sbatch
  std::map<std::string, std::vector<std::string>> partition_options;  // partition -> more sbatch options
  double poll_seconds = 0.05;    // spool polling (driver and workers)
  double squeue_seconds = 1.0;   // job state polling

  bool is_slurm() const { return kind == "slurm"; }
  // The partition of a job: compile_partition for lint and compile, else the platform's.
  std::string partition_for(const std::string& platform, jobs::JobKind kind) const;
};

// The [executor] table (TOML turned JSON) read strictly; unknown keys are errors.
Result<ExecutorSettings> executor_settings_from_json(const nlohmann::json& table, const std::string& origin);
nlohmann::json executor_settings_to_json(const ExecutorSettings& settings);
Status validate_executor_settings(const ExecutorSettings& settings);

// What happened to one try of a job.
struct JobEvent {
  std::string key;
  int attempt = 1;
  std::string state;    // queued | running | done | failed | withdrawn
  std::string reason;   // failed, withdrawn, queued again: why
  std::string executor = "slurm";
  std::string job_id, partition, node;
  std::string at;       // UTC
  double seconds = 0;   // done: the evaluation's own time on the node
};

class JobExecutor {
 public:
  virtual ~JobExecutor() = default;
  // Runs (or re-attaches to) the job to its reply; nullopt when stop() took
  // it back before any worker had it.
  virtual boost::asio::awaitable<std::optional<jobs::JobReply>> run(jobs::JobRequest request) = 0;
  // The reply is recorded: its files may go.
  virtual void forget(const std::string& key) = 0;
  // No new work: queued requests are taken back (their run() returns nullopt),
  // requests on a worker finish.
  virtual void stop() = 0;
  // The session is over: workers are told to exit and pending ones cancelled;
  // `finished` also removes the requests and replies (they hold the secret seed).
  virtual boost::asio::awaitable<void> shutdown(bool finished) = 0;
  // Jobs queued or running now (for progress lines).
  virtual int in_flight() const = 0;
};

struct SlurmExecutorOptions {
  ExecutorSettings settings;
  std::filesystem::path spool;  // this run's folder under work_dir
  std::string job_name;         // every worker job of the run carries it (squeue -n)
  std::function<void(const JobEvent&)> on_event;
  std::function<void(std::string_view level, const std::string& text)> on_message;
};

// Checks sbatch, the partitions and the spool, adopts worker jobs of an
// earlier session (same job name), and starts watching.
Result<std::unique_ptr<JobExecutor>> make_slurm_executor(boost::asio::any_io_executor io, SlurmExecutorOptions options);

// The Slurm command lines and their output, as pure functions.
namespace slurm {

struct JobState {
  std::string id, state, partition, node, reason;
  bool alive() const;
};

bool state_is_alive(std::string_view state);
// Why a job that held a request ended: "CANCELLED: the job was cancelled", ...
std::string describe_end(const JobState& job);
std::vector<std::string> sbatch_command(const ExecutorSettings& settings, const std::string& partition,
                                        const std::string& job_name, const std::filesystem::path& log_dir,
                                        const std::filesystem::path& script);
std::vector<std::string> squeue_command(const std::string& job_name);
// `sbatch --parsable` prints "ID" or "ID;CLUSTER".
Result<std::string> parse_sbatch_output(std::string_view output);
// Lines "ID|STATE|PARTITION|NODES|REASON" (squeue -o "%i|%T|%P|%N|%r").
std::vector<JobState> parse_squeue(std::string_view output);
// The batch script every worker job runs: `kgb slurm-worker` on the spool.
std::string worker_script(const std::filesystem::path& kgb, const std::filesystem::path& spool,
                          const ExecutorSettings& settings);
// A single-quoted POSIX shell word.
std::string shell_quote(std::string_view text);

}  // namespace slurm

// This executable's path (/proc/self/exe).
std::filesystem::path current_executable();

}  // namespace kgb::agent
