// The Slurm command lines the executor runs and the parsing of their output.
#include <sstream>

#include "kgb/agent/executor.h"

namespace kgb::agent {

std::string ExecutorSettings::partition_for(const std::string& platform, jobs::JobKind job) const {
  if ((job == jobs::JobKind::Lint || job == jobs::JobKind::Compile) && !compile_partition.empty()) return compile_partition;
  auto it = partitions.find(platform);
  return it != partitions.end() ? it->second : partition;
}

std::filesystem::path current_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("kgb") : p;
}

namespace slurm {

bool state_is_alive(std::string_view s) {
  // Every state in which the job may still run (or run again) its batch script.
  for (std::string_view alive : {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED",
                                 "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED",
                                 "RESV_DEL_HOLD", "SPECIAL_EXIT"})
    if (s == alive) return true;
  return false;
}

bool JobState::alive() const { return state_is_alive(state); }

std::string describe_end(const JobState& job) {
  const std::string& s = job.state;
  std::string what;
  if (s == "CANCELLED") what = "the job was cancelled";
  else if (s == "TIMEOUT") what = "the job reached its time limit";
  else if (s == "NODE_FAIL") what = "the node failed";
  else if (s == "PREEMPTED") what = "the job was preempted";
  else if (s == "OUT_OF_MEMORY") what = "the job ran out of memory";
  else if (s == "BOOT_FAIL") what = "the node failed to boot";
  else if (s == "DEADLINE") what = "the job reached its deadline";
  else if (s == "FAILED") what = "the job failed (non-zero exit of the worker)";
  else if (s == "COMPLETED") what = "the worker exited without answering";
  else if (s.empty()) return "the job is no longer known to Slurm";
  else what = "the job ended";
  std::string out = s + ": " + what;
  if (!job.node.empty()) out += " on " + job.node;
  if (!job.reason.empty() && job.reason != "None") out += " (" + job.reason + ")";
  return out;
}

std::vector<std::string> sbatch_command(const ExecutorSettings& s, const std::string& partition,
                                        const std::string& job_name, const std::filesystem::path& log_dir,
                                        const std::filesystem::path& script) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + job_name,
                                   "--output=" + (log_dir / "%j.out").string()};
  if (!partition.empty()) argv.push_back("--partition=" + partition);
  if (!s.account.empty()) argv.push_back("--account=" + s.account);
  if (!s.qos.empty()) argv.push_back("--qos=" + s.qos);
  if (!s.time_limit.empty()) argv.push_back("--time=" + s.time_limit);
  // The driver decides about retries: Slurm must not run a failed worker again.
  argv.push_back("--no-requeue");
  for (const auto& o : s.sbatch_options) argv.push_back(o);
  if (auto it = s.partition_options.find(partition); it != s.partition_options.end())
    for (const auto& o : it->second) argv.push_back(o);
  argv.push_back(script.string());
  argv.push_back(partition);  // $1 of the script: the queue the worker serves
  return argv;
}

std::vector<std::string> squeue_command(const std::string& job_name) {
  // -t all: ended jobs too, while the controller still knows them (MinJobAge).
  return {"squeue", "--noheader", "--states=all", "--name=" + job_name, "--format=%i|%T|%P|%N|%r"};
}

Result<std::string> parse_sbatch_output(std::string_view output) {
  std::string line;
  std::istringstream in{std::string(output)};
  std::string last;
  while (std::getline(in, line))
    if (!line.empty() && line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  const std::string id = last.substr(0, last.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789_") != std::string::npos)
    return make_error("slurm.sbatch", "sbatch did not print a job id: " + std::string(output.substr(0, 400)));
  return id;
}

std::vector<JobState> parse_squeue(std::string_view output) {
  std::vector<JobState> out;
  std::istringstream in{std::string(output)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string field;
    while (std::getline(ls, field, '|')) f.push_back(field);
    if (f.size() < 2 || f[0].empty() || f[0].find_first_not_of("0123456789_") != std::string::npos) continue;
    JobState j;
    j.id = f[0];
    j.state = f[1];
    // "CANCELLED by 0" in some versions.
    if (auto sp = j.state.find(' '); sp != std::string::npos) j.state.resize(sp);
    if (f.size() > 2) j.partition = f[2];
    if (f.size() > 3) j.node = f[3];
    if (f.size() > 4) j.reason = f[4];
    out.push_back(std::move(j));
  }
  return out;
}

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string worker_script(const std::filesystem::path& kgb, const std::filesystem::path& spool, const ExecutorSettings& s) {
  std::ostringstream os;
  os << "#!/bin/sh\n"
     << "# A kgb Slurm worker: serves the spool's queue of the partition given as $1\n"
     << "# (one evaluation at a time) until idle, stopped or its share is done.\n"
     << "exec " << shell_quote(kgb.string()) << " slurm-worker --spool " << shell_quote(spool.string())
     << " --partition \"$1\" --idle " << s.worker_idle_seconds << " --max-evaluations " << s.evaluations_per_job << "\n";
  return os.str();
}

}  // namespace slurm
}  // namespace kgb::agent
