#include "cluster_jobs.h"

#include <chrono>
#include <ctime>
#include <iostream>
#include <memory>
#include <random>

#include "exit_codes.h"

#ifdef KGB_HAVE_AGENT_LOOP
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "kgb/agent/config.h"
#include "kgb/agent/executor.h"
#endif

namespace kgb::cli {

void add_cluster_options(CLI::App* cmd, ClusterArgs& a) {
  cmd->add_option("--executor", a.executor, "where evaluations run: local (here) or slurm (default: [executor] kind "
                                             "of --config, else local)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--config,-c", a.config, "experiment configuration whose [executor] table describes the cluster")
      ->check(CLI::ExistingFile);
  cmd->add_option("--partition", a.partition, "slurm: partition for every platform [executor.partitions] does not name");
}

std::string placement_text(const jobs::JobReply& r) {
  std::string s = r.node.empty() ? "?" : r.node;
  std::string detail = r.partition;
  if (!r.job_id.empty()) detail += (detail.empty() ? "" : ", ") + std::string("job ") + r.job_id;
  if (r.attempt > 1) detail += (detail.empty() ? "" : ", ") + std::string("try ") + std::to_string(r.attempt);
  return detail.empty() ? s : s + " (" + detail + ")";
}

nlohmann::json placement_json(const jobs::JobReply& r) {
  return {{"executor", r.executor}, {"node", r.node},           {"partition", r.partition},
          {"job_id", r.job_id},     {"tries", r.attempt},       {"failures", r.failures},
          {"seconds", r.seconds}};
}

std::optional<ClusterArgs> cluster_for_command(const ClusterArgs& args, int& exit_code) {
  auto resolved = resolve_executor(args);
  if (resolved) return std::move(resolved.value());
  std::cerr << "error: " << resolved.error().message << "\n";
  exit_code = kExitUsage;
  return std::nullopt;
}

#ifndef KGB_HAVE_AGENT_LOOP

Result<ClusterArgs> resolve_executor(ClusterArgs a) {
  if (!a.executor.empty()) return a;
  if (!a.config.empty())
    return make_error("config.executor", "--config needs the agent loop, which this kgb was built without");
  a.executor = "local";
  return a;
}

Status run_on_cluster(std::vector<jobs::JobRequest>, const ClusterArgs&, const std::string&,
                      const std::function<void(size_t, const jobs::JobReply&)>&) {
  return make_error("config.executor", "this kgb was built without the agent loop, which holds the Slurm executor "
                                       "(-DKGB_BUILD_AGENT=ON -DKGB_WITH_AGENT_LOOP=ON)");
}

#else

namespace asio = boost::asio;

namespace {

}  // namespace

Result<ClusterArgs> resolve_executor(ClusterArgs a) {
  if (!a.executor.empty()) return a;
  a.executor = "local";
  if (a.config.empty()) return a;
  auto config = agent::load_config_file(a.config);
  if (!config) return config.error();
  a.executor = config->executor.kind;
  return a;
}

namespace {

Result<agent::ExecutorSettings> cluster_settings(const ClusterArgs& a) {
  agent::ExecutorSettings s;
  if (!a.config.empty()) {
    auto config = agent::load_config_file(a.config);
    if (!config) return config.error();
    s = config->executor;
  }
  s.kind = a.executor;
  if (!a.partition.empty()) s.partition = a.partition;
  return s;
}

std::string spool_name(const std::string& label) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::random_device rd;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(rd() & 0xffff));
  return label + "-" + stamp + "-" + suffix;
}

asio::awaitable<void> run_one(agent::JobExecutor* executor, jobs::JobRequest request, size_t index,
                              const std::function<void(size_t, const jobs::JobReply&)>* on_reply, size_t* left) {
  auto job = executor->run(std::move(request));  // built apart from the co_await (GCC 12 temporaries)
  auto reply = co_await std::move(job);
  if (reply) {
    (*on_reply)(index, *reply);
    executor->forget(reply->key);
  }
  --*left;
}

asio::awaitable<void> wait_all(agent::JobExecutor* executor, size_t* left, bool* finished, asio::io_context* io) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (*left > 0) {
    timer.expires_after(std::chrono::milliseconds(20));
    co_await timer.async_wait(asio::use_awaitable);
  }
  co_await executor->shutdown(true);
  *finished = true;
  io->stop();
}

}  // namespace

Status run_on_cluster(std::vector<jobs::JobRequest> requests, const ClusterArgs& args, const std::string& label,
                      const std::function<void(size_t, const jobs::JobReply&)>& on_reply) {
  auto found = cluster_settings(args);
  if (!found) return found.error();
  const agent::ExecutorSettings& settings = *found;
  for (auto& r : requests) r.partition = settings.partition_for(r.platform, r.kind);
  asio::io_context io;
  agent::SlurmExecutorOptions o;
  o.settings = settings;
  const std::string name = spool_name(label);
  o.spool = std::filesystem::absolute(std::filesystem::path(settings.work_dir.empty() ? "kgb-jobs" : settings.work_dir)) / name;
  o.job_name = "kgb-" + name;
  o.on_message = [](std::string_view level, const std::string& text) {
    if (level != "info") std::cerr << level << ": " << text << "\n";
  };
  auto executor = agent::make_slurm_executor(io.get_executor(), std::move(o));
  if (!executor) return executor.error();
  size_t left = requests.size();
  bool finished = false;
  for (size_t i = 0; i < requests.size(); ++i)
    asio::co_spawn(io, run_one(executor->get(), std::move(requests[i]), i, &on_reply, &left), asio::detached);
  asio::co_spawn(io, wait_all(executor->get(), &left, &finished, &io), asio::detached);
  io.run();
  executor->reset();
  return Ok{};
}

#endif

}  // namespace kgb::cli
