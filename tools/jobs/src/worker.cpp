#include "kgb/jobs/worker.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"

namespace kgb::jobs {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

NodePlacement placement_from_environment() {
  NodePlacement p;
  p.node = env("SLURMD_NODENAME");
  if (p.node.empty()) p.node = host_name();
  p.partition = env("SLURM_JOB_PARTITION");
  p.job_id = env("SLURM_JOB_ID");
  return p;
}

JobRunner::JobRunner() = default;

const Task* JobRunner::find_task(const std::string& id) {
  if (!tasks_loaded_) {
    tasks_loaded_ = true;
    TaskLoadReport report = load_all_tasks(tasks_root());
    for (auto& t : report.tasks) tasks_.emplace(t.id, std::move(t));
    if (tasks_.empty()) tasks_error_ = "no task could be loaded from " + tasks_root().string();
  }
  auto it = tasks_.find(id);
  return it == tasks_.end() ? nullptr : &it->second;
}

JobReply JobRunner::run(const JobRequest& request, const NodePlacement& where) {
  JobReply reply;
  reply.key = request.key;
  reply.digest = request.digest();
  reply.kind = request.kind;
  reply.executor = where.executor;
  reply.node = where.node;
  reply.partition = where.partition.empty() ? request.partition : where.partition;
  reply.job_id = where.job_id;
  reply.attempt = request.attempt;
  reply.failures = request.failures;
  reply.started_at = utc_timestamp();
  const auto started = std::chrono::steady_clock::now();
  auto finish = [&]() -> JobReply {
    reply.finished_at = utc_timestamp();
    reply.seconds = seconds_since(started);
    return reply;
  };
  try {
    const Task* task = find_task(request.task);
    if (!task) {
      reply.error = "unknown task " + request.task + " on node " + where.node +
                    (tasks_error_.empty() ? "" : " (" + tasks_error_ + ")");
      return finish();
    }
    auto platform = load_platform(request.platform);
    if (!platform) {
      reply.error = "on node " + where.node + ": " + platform.error().message;
      return finish();
    }
    if (auto avail = check_availability(*platform); !avail.available) {
      reply.error = "platform " + platform->name + " is not available on node " + where.node + ": " + avail.reason;
      return finish();
    }
    switch (request.kind) {
      case JobKind::Lint: {
        const auto& hooks = default_eval_hooks();
        const bool available = static_cast<bool>(hooks.lint);
        reply.payload = lint_json(available ? hooks.lint(request.source, *task, *platform) : LintOutcome{}, available);
        break;
      }
      case JobKind::Compile: {
        TempDir dir("kgb-compile");
        reply.payload = compile_json(compile_candidate(*task, *platform, request.source, dir.path(), default_eval_hooks()));
        break;
      }
      case JobKind::Evaluate: reply.payload = evaluate(*task, *platform, request.source, request.options); break;
      case JobKind::Validate: reply.payload = validation_json(validate_task(*task, *platform, request.options)); break;
    }
    reply.completed = true;
  } catch (const std::exception& e) {
    reply.completed = false;
    reply.error = std::string("the evaluation failed on node ") + where.node + ": " + e.what();
  }
  return finish();
}

Result<int> run_worker(const WorkerOptions& o) {
  if (o.where.job_id.empty()) return make_error("worker.usage", "a worker needs its job id (SLURM_JOB_ID or --job-id)");
  Spool spool(o.spool);
  if (!std::filesystem::is_directory(o.spool / "queue"))
    return make_error("worker.spool", o.spool.string() + " is not a kgb job spool (no queue/ folder)");
  JobRunner runner;
  int done = 0;
  auto idle_since = std::chrono::steady_clock::now();
  const auto poll = std::chrono::duration<double>(o.poll_seconds);
  while (!spool.stop_requested()) {
    auto taken = spool.claim_next(o.partition, o.where.job_id);
    if (!taken) {
      if (seconds_since(idle_since) >= o.idle_seconds) break;
      std::this_thread::sleep_for(poll);
      continue;
    }
    const JobRequest& request = taken->request;
    spool.append_ledger("start " + request.key + " job=" + o.where.job_id + " node=" + o.where.node +
                        " attempt=" + std::to_string(request.attempt) + " at=" + utc_timestamp());
    JobReply reply = runner.run(request, o.where);
    auto written = spool.write_reply(reply);
    spool.append_ledger("end " + request.key + " job=" + o.where.job_id + " " +
                        (written ? (reply.completed ? "completed" : "error") : "unwritten") + " seconds=" +
                        std::to_string(reply.seconds) + " at=" + utc_timestamp());
    if (!written) return written.error();  // the claim stays: the driver sees the job end and retries
    spool.release(taken->claim);
    ++done;
    idle_since = std::chrono::steady_clock::now();
    if (o.max_evaluations > 0 && done >= o.max_evaluations) break;
  }
  return done;
}

}  // namespace kgb::jobs
