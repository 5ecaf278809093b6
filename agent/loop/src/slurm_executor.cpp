// The Slurm executor: requests in a spool folder, served by worker jobs it
// submits with sbatch and watches with squeue. See executor.h for the design;
// everything here runs on the caller's I/O thread except the file and command
// work, which goes to a helper thread and comes back with what it found.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "kgb/agent/executor.h"
#include "kgb/jobs/spool.h"
#include "kgb/process.h"

namespace kgb::agent {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using jobs::JobReply;
using jobs::JobRequest;
using jobs::Spool;
using SteadyClock = std::chrono::steady_clock;

namespace {

template <class R>
asio::awaitable<void> run_on_pool(std::shared_ptr<std::function<R()>> job, std::shared_ptr<std::optional<R>> out) {
  out->emplace((*job)());
  co_return;
}

// Runs `f` on the pool and resumes on the caller's executor with its value
// (which need not be default-constructible). No lambda coroutine: GCC 12
// mishandles lambdas that capture coroutine parameters. Callers build the
// awaitable in a statement of its own and then await the named object: GCC 12
// destroys closure temporaries of a co_await expression twice.
template <class R>
asio::awaitable<R> on_pool(asio::thread_pool& pool, std::function<R()> f) {
  auto job = std::make_shared<std::function<R()>>(std::move(f));
  auto out = std::make_shared<std::optional<R>>();
  co_await asio::co_spawn(pool, run_on_pool<R>(job, out), asio::use_awaitable);
  co_return std::move(**out);
}

Result<CommandResult> slurm_command(const std::vector<std::string>& argv, double timeout = 60) {
  return run_command(argv, fs::current_path(), timeout, 1 << 20);
}

std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  std::string line = nl == std::string::npos ? s : s.substr(0, nl);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// What the helper thread found in the spool (and the replies it read).
struct Scan {
  std::set<std::string> keys;  // the waiters when the scan began: only they are judged by it
  jobs::SpoolSnapshot snapshot;
  std::map<std::string, Result<JobReply>> replies;  // of the keys asked about
};

class SlurmExecutor final : public JobExecutor {
 public:
  SlurmExecutor(asio::any_io_executor io, SlurmExecutorOptions o)
      : io_(std::move(io)), o_(std::move(o)), spool_(o_.spool), tick_(io_), helper_(1) {}

  ~SlurmExecutor() override {
    helper_.join();
    if (lock_fd_ >= 0) ::close(lock_fd_);
  }

  Status start() {
    const auto& s = o_.settings;
    // The cluster: sbatch exists, every partition named exists.
    auto version = slurm_command({"sbatch", "--version"}, 30);
    if (!version || !version->status.exited || version->status.code != 0)
      return make_error("executor.slurm", "sbatch cannot be run here (is this a Slurm login node? is SLURM_CONF set?): " +
                                              (version ? first_line(version->output) : version.error().message));
    std::set<std::string> partitions;
    if (!s.partition.empty()) partitions.insert(s.partition);
    if (!s.compile_partition.empty()) partitions.insert(s.compile_partition);
    for (const auto& [platform, p] : s.partitions)
      if (!p.empty()) partitions.insert(p);
    for (const auto& p : partitions) {
      auto info = slurm_command({"sinfo", "--noheader", "--partition=" + p, "--format=%P"}, 30);
      if (!info || !info->status.exited || info->status.code != 0)
        return make_error("executor.slurm", "sinfo failed: " + (info ? first_line(info->output) : info.error().message));
      if (trimmed(info->output).empty())
        return make_error("executor.slurm", "the Slurm partition '" + p + "' does not exist (see sinfo)");
    }
    kgb_ = s.kgb.empty() ? current_executable() : fs::path(s.kgb);
    if (::access(kgb_.c_str(), X_OK) != 0)
      return make_error("executor.slurm", "the kgb for the nodes is not executable: " + kgb_.string());
    if (auto c = spool_.create(); !c) return make_error("executor.slurm", c.error().message);
    // One driver per spool: a second one would answer and clear requests under the first.
    const fs::path lock = spool_.root() / "driver.lock";
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0)
      return make_error("executor.slurm", "another kgb is driving the jobs of " + spool_.root().string() +
                                              " (it holds " + lock.string() + ")");
    std::error_code ec;
    fs::remove(spool_.root() / "stop", ec);  // a stop left by an earlier session
    script_ = spool_.root() / "worker.sh";
    if (auto w = jobs::write_file_atomic(script_, slurm::worker_script(kgb_, spool_.root(), s)); !w)
      return make_error("executor.slurm", w.error().message);
    ::chmod(script_.c_str(), 0700);
    // Workers of an earlier session of this run keep serving: adopt them.
    if (auto states = query_jobs()) {
      for (const auto& j : *states)
        if (j.alive()) {
          Worker w;
          w.state = j;
          w.seen = true;
          workers_[j.id] = w;
        }
      if (!workers_.empty())
        message("info", std::to_string(workers_.size()) + " Slurm worker job(s) of an earlier session are still there");
    } else {
      return make_error("executor.slurm", states.error().message);
    }
    asio::co_spawn(io_, monitor(), asio::detached);
    return Ok{};
  }

  asio::awaitable<std::optional<JobReply>> run(JobRequest request) override {
    auto w = std::make_shared<Waiter>(io_);
    w->request = std::move(request);
    w->digest = w->request.digest();
    const std::string key = w->request.key;
    waiting_[key] = w;
    if (stopping_) {
      waiting_.erase(key);
      co_return std::nullopt;
    }
    // Re-attach: an answer, a claim or a queued request of an earlier session counts.
    const Spool spool = spool_;
    const JobRequest req = w->request;
    const std::string digest = w->digest;
    // The answer is "answered", "claimed:N", "queued:N" (N: the try found) or
    // "enqueued"; "error:..." when the request could not be written.
    std::function<std::string()> find_or_enqueue = [spool, req, digest]() -> std::string {
      if (auto reply = spool.read_reply(req.key)) {
        if (*reply && (*reply)->digest == digest) return "answered";
        spool.forget(req.key);  // another evaluation's, or damaged: run it again
      }
      const auto snap = spool.snapshot();
      for (const auto& c : snap.claimed)
        if (c.key == req.key) {
          auto held = spool.read_claim(c);
          return "claimed:" + std::to_string(held ? held->attempt : 1);
        }
      for (const auto& [part, k] : snap.queued)
        if (k == req.key) {
          auto queued = jobs::read_request(spool.queued_file(part, k));
          return "queued:" + std::to_string(queued ? queued->attempt : 1);
        }
      JobRequest first = req;
      first.attempt = 1;
      first.queued_at = jobs::utc_timestamp();
      if (auto s = spool.enqueue(first); !s) return "error:" + s.error().message;
      return "enqueued";
    };
    auto find_or_enqueue_run = on_pool<std::string>(helper_, std::move(find_or_enqueue));
    auto found = co_await std::move(find_or_enqueue_run);
    if (found.rfind("error:", 0) == 0) {
      waiting_.erase(key);
      JobReply failed = failure_reply(w->request, "the job request could not be written: " + found.substr(6));
      co_return failed;
    }
    if (const auto colon = found.find(':'); colon != std::string::npos) w->request.attempt = std::stoi(found.substr(colon + 1));
    if (found == "enqueued") event(w->request.key, 1, "queued", "", "", w->request.partition, "");
    else message("info", "re-attached to evaluation " + key + " (" + found.substr(0, found.find(':')) + " in an earlier session)");
    kick();
    if (!w->done) co_await w->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    waiting_.erase(key);
    co_return std::move(w->reply);
  }

  void forget(const std::string& key) override {
    const Spool spool = spool_;
    asio::post(helper_, [spool, key] { spool.forget(key); });
  }

  void stop() override {
    if (stopping_) return;
    stopping_ = true;
    // Take back what no worker holds yet; what a worker holds finishes.
    std::vector<std::pair<std::string, std::string>> queued;
    for (auto& [key, w] : waiting_)
      if (!w->done && w->state != "running") queued.emplace_back(key, w->request.partition);
    asio::co_spawn(io_, withdraw(std::move(queued)), asio::detached);
  }

  asio::awaitable<void> shutdown(bool finished) override {
    stopping_ = true;
    shut_down_ = true;
    tick_.cancel();
    // The monitor must be gone before the caller stops the I/O context.
    while (monitor_running_) {
      asio::steady_timer wait(io_, std::chrono::milliseconds(5));
      co_await wait.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    // Running workers see the stop file and exit within a poll; pending ones are cancelled.
    std::vector<std::string> cancel;
    for (const auto& [id, w] : workers_)
      if (worker_alive(w) && (!w.seen || w.state.state == "PENDING")) cancel.push_back(id);
    const Spool spool = spool_;
    std::function<int()> stop_workers = [spool, cancel, finished] {
      spool.request_stop();
      if (!cancel.empty()) {
        std::vector<std::string> argv = {"scancel"};
        argv.insert(argv.end(), cancel.begin(), cancel.end());
        (void)slurm_command(argv, 60);
      }
      if (finished) spool.clear_requests();
      return 0;
    };
    auto stop_workers_run = on_pool<int>(helper_, std::move(stop_workers));
    co_await std::move(stop_workers_run);
  }

  int in_flight() const override { return static_cast<int>(waiting_.size()); }

 private:
  struct Waiter {
    explicit Waiter(asio::any_io_executor ex) : timer(ex, SteadyClock::time_point::max()) {}
    JobRequest request;
    std::string digest;
    std::string state = "queued";  // queued | running
    std::string job_id;
    bool done = false;
    std::optional<JobReply> reply;
    asio::steady_timer timer;
  };
  struct Worker {
    slurm::JobState state;
    std::string queue;  // the partition folder it serves, when this session submitted it
    SteadyClock::time_point submitted = SteadyClock::now();
    bool seen = false;    // squeue has listed it at least once
    bool worked = false;  // it took at least one request
    bool ended = false;   // its end has been dealt with
  };

  asio::awaitable<void> withdraw(std::vector<std::pair<std::string, std::string>> queued) {
    const Spool spool = spool_;
    std::function<std::vector<std::string>()> take_back = [spool, queued] {
      std::vector<std::string> out;
      for (const auto& [key, part] : queued)
        if (spool.withdraw(key, part)) out.push_back(key);
      return out;
    };
    auto take_back_run = on_pool<std::vector<std::string>>(helper_, std::move(take_back));
    auto withdrawn = co_await std::move(take_back_run);
    for (const auto& key : withdrawn) {
      auto it = waiting_.find(key);
      if (it == waiting_.end()) continue;
      event(key, it->second->request.attempt, "withdrawn", "the run is stopping", "", it->second->request.partition, "");
      finish(*it->second, std::nullopt);
    }
  }

  void message(std::string_view level, const std::string& text) const {
    if (o_.on_message) o_.on_message(level, text);
  }

  void event(const std::string& key, int attempt, std::string state, std::string reason, std::string job_id,
             std::string partition, std::string node, double seconds = 0) const {
    if (!o_.on_event) return;
    JobEvent e;
    e.key = key;
    e.attempt = attempt;
    e.state = std::move(state);
    e.reason = std::move(reason);
    e.job_id = std::move(job_id);
    e.partition = std::move(partition);
    e.node = std::move(node);
    e.at = jobs::utc_timestamp();
    e.seconds = seconds;
    o_.on_event(e);
  }

  static JobReply failure_reply(const JobRequest& r, const std::string& error) {
    JobReply reply;
    reply.key = r.key;
    reply.digest = r.digest();
    reply.kind = r.kind;
    reply.completed = false;
    reply.error = error;
    reply.executor = "slurm";
    reply.partition = r.partition;
    reply.attempt = r.attempt;
    reply.failures = r.failures;
    reply.started_at = reply.finished_at = jobs::utc_timestamp();
    return reply;
  }

  void finish(Waiter& w, std::optional<JobReply> reply) {
    if (w.done) return;
    w.done = true;
    w.reply = std::move(reply);
    w.timer.cancel();
  }

  bool worker_alive(const Worker& w) const {
    if (w.seen) return w.state.alive();
    // Just submitted and not listed yet: give squeue time to catch up.
    return SteadyClock::now() - w.submitted < std::chrono::seconds(30);
  }

  Result<std::vector<slurm::JobState>> query_jobs() const {
    auto out = slurm_command(slurm::squeue_command(o_.job_name), 60);
    if (!out) return out.error();
    if (!out->status.exited || out->status.code != 0)
      return make_error("executor.slurm", "squeue failed: " + first_line(out->output));
    return slurm::parse_squeue(out->output);
  }

  void kick() { tick_.cancel(); }

  asio::awaitable<void> monitor() {
    monitor_running_ = true;
    auto last_squeue = SteadyClock::time_point{};
    while (!shut_down_) {
      std::vector<std::string> keys;
      for (const auto& [key, w] : waiting_) keys.push_back(key);
      const Spool spool = spool_;
      std::function<Scan()> scan_spool = [spool, keys] {
        Scan s;
        s.keys.insert(keys.begin(), keys.end());
        s.snapshot = spool.snapshot();
        std::set<std::string> have(s.snapshot.results.begin(), s.snapshot.results.end());
        for (const auto& key : keys)
          if (have.count(key))
            if (auto r = spool.read_reply(key)) s.replies.emplace(key, std::move(*r));
        return s;
      };
      auto scan_spool_run = on_pool<Scan>(helper_, std::move(scan_spool));
      Scan scan = co_await std::move(scan_spool_run);
      if (shut_down_) break;
      if (SteadyClock::now() - last_squeue >= std::chrono::duration<double>(o_.settings.squeue_seconds)) {
        last_squeue = SteadyClock::now();
        std::function<Result<std::vector<slurm::JobState>>()> list_jobs = [this] { return query_jobs(); };
        auto list_jobs_run = on_pool<Result<std::vector<slurm::JobState>>>(helper_, std::move(list_jobs));
        auto states = co_await std::move(list_jobs_run);
        if (states) {
          squeue_failures_ = 0;
          std::set<std::string> listed;
          for (const auto& j : *states) {
            listed.insert(j.id);
            auto& w = workers_[j.id];
            w.state = j;
            w.seen = true;
          }
          // A job we knew that the controller no longer lists has ended long ago.
          for (auto& [id, w] : workers_)
            if (w.seen && !listed.count(id) && w.state.alive()) w.state.state = "";
        } else if (++squeue_failures_ == 3) {
          message("warning", states.error().message + " (job states are kept as last seen)");
        }
      }
      if (shut_down_) break;
      co_await apply(scan);
      if (shut_down_) break;
      tick_.expires_after(std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(o_.settings.poll_seconds)));
      co_await tick_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    // Not in a destructor: a frame destroyed with the I/O context must not touch this object.
    monitor_running_ = false;
  }

  asio::awaitable<void> apply(const Scan& scan) {
    const auto& snap = scan.snapshot;
    std::map<std::string, const jobs::SpoolClaim*> claim_of;
    for (const auto& c : snap.claimed) claim_of[c.key] = &c;
    std::set<std::string> queued_keys;
    std::map<std::string, int> queued_per_folder;
    for (const auto& [folder, key] : snap.queued) {
      queued_keys.insert(key);
      ++queued_per_folder[folder];
    }
    std::set<std::string> answered(snap.results.begin(), snap.results.end());

    std::vector<JobRequest> lost;  // no file anywhere: enqueue again
    for (auto& [key, wp] : waiting_) {
      Waiter& w = *wp;
      if (w.done || !scan.keys.count(key)) continue;
      if (auto r = scan.replies.find(key); r != scan.replies.end()) {
        if (r->second && r->second->digest == w.digest) {
          const JobReply& reply = *r->second;
          event(key, reply.attempt, reply.completed ? "done" : "failed", reply.completed ? "" : reply.error,
                reply.job_id, reply.partition, reply.node, reply.seconds);
          finish(w, reply);
          continue;
        }
        // Damaged, or another evaluation's: drop it and run this one.
        message("warning", "the reply of " + key + " does not belong to this request; it runs again");
        lost.push_back(w.request);
        continue;
      }
      if (auto c = claim_of.find(key); c != claim_of.end()) {
        if (w.state != "running" || w.job_id != c->second->job_id) {
          w.state = "running";
          w.job_id = c->second->job_id;
          const auto it = workers_.find(w.job_id);
          event(key, w.request.attempt, "running", "", w.job_id,
                it != workers_.end() ? it->second.state.partition : w.request.partition,
                it != workers_.end() ? it->second.state.node : "");
        }
        continue;
      }
      if (queued_keys.count(key)) {
        w.state = "queued";
        continue;
      }
      // Answered but not read yet: next tick. Stopping: stop() is taking requests back.
      if (!answered.count(key) && !stopping_) lost.push_back(w.request);
    }

    for (const auto& c : snap.claimed)
      if (auto it = workers_.find(c.job_id); it != workers_.end()) it->second.worked = true;
    for (const auto& [key, reply] : scan.replies)
      if (reply)
        if (auto it = workers_.find(reply->job_id); it != workers_.end()) it->second.worked = true;

    // Claims held by jobs that have ended: the try failed.
    std::vector<std::pair<jobs::SpoolClaim, std::string>> failed;
    for (const auto& c : snap.claimed) {
      auto it = workers_.find(c.job_id);
      if (it == workers_.end()) {
        // A job this session never submitted nor saw: adopt it until squeue says otherwise.
        Worker w;
        w.submitted = SteadyClock::now();
        workers_[c.job_id] = w;
        continue;
      }
      if (!worker_alive(it->second)) failed.emplace_back(c, slurm::describe_end(it->second.state));
    }

    if (!lost.empty() || !failed.empty()) {
      const Spool spool = spool_;
      const int max_tries = o_.settings.max_retries + 1;
      struct Outcome {
        std::string key, reason, job_id, partition;
        int attempt = 1;
        bool gave_up = false, requeued = false, answered = false;
      };
      std::function<std::vector<Outcome>()> settle_failures = [spool, lost, failed, max_tries] {
        std::vector<Outcome> out;
        for (const auto& r : lost) {
          JobRequest again = r;
          if (spool.enqueue(again)) out.push_back({r.key, "the request was lost; queued again", "", r.partition, r.attempt, false, true});
        }
        for (const auto& [claim, reason] : failed) {
          // The worker may have answered just before it ended.
          if (auto reply = spool.read_reply(claim.key); reply && *reply) {
            spool.release(claim);
            out.push_back({claim.key, "", claim.job_id, "", 0, false, false, true});
            continue;
          }
          auto request = spool.read_claim(claim);
          if (!request) {
            spool.release(claim);
            continue;
          }
          JobRequest next = *request;
          next.failures.push_back("try " + std::to_string(next.attempt) + " (job " + claim.job_id + "): " + reason);
          Outcome o{claim.key, reason, claim.job_id, next.partition, next.attempt};
          if (next.attempt >= max_tries) {
            JobReply reply = failure_reply(next, "the evaluation job failed " + std::to_string(next.attempt) +
                                                     " time(s); last: " + reason);
            reply.job_id = claim.job_id;
            if (spool.write_reply(reply)) spool.release(claim);
            o.gave_up = true;
          } else {
            next.attempt += 1;
            if (spool.requeue(claim, next)) o.requeued = true;
          }
          out.push_back(o);
        }
        return out;
      };
      auto settle_failures_run = on_pool<std::vector<Outcome>>(helper_, std::move(settle_failures));
      auto outcomes = co_await std::move(settle_failures_run);
      for (const auto& o : outcomes) {
        if (o.answered) continue;
        if (o.job_id.empty()) {
          message("warning", "evaluation " + o.key + ": " + o.reason);
          continue;
        }
        event(o.key, o.attempt, "failed", o.reason, o.job_id, o.partition, workers_[o.job_id].state.node);
        if (o.requeued) {
          message("warning", "evaluation " + o.key + " try " + std::to_string(o.attempt) + " failed (" + o.reason +
                                 "); queued again");
          event(o.key, o.attempt + 1, "queued", "retry after: " + o.reason, "", o.partition, "");
          if (auto it = waiting_.find(o.key); it != waiting_.end()) {
            it->second->state = "queued";
            it->second->request.attempt = o.attempt + 1;
            // No worker will be started now: the next session re-attaches to the queued request.
            if (stopping_) finish(*it->second, std::nullopt);
          }
          ++queued_per_folder[Spool::partition_folder(o.partition)];
        } else if (o.gave_up) {
          message("warning", "evaluation " + o.key + " gave up after " + std::to_string(o.attempt) + " tries: " + o.reason);
        }
      }
    }
    co_await check_worker_ends(queued_per_folder);
    if (!stopping_) co_await provide_workers(snap, queued_per_folder);
  }

  // Workers that end without taking any request while requests wait for them
  // are broken (the kgb on the nodes cannot start, a stop file, a bad option):
  // after three in a row for a queue its requests end with the reason and the
  // last worker's log, instead of submitting workers forever.
  asio::awaitable<void> check_worker_ends(const std::map<std::string, int>& queued) {
    std::vector<std::pair<std::string, std::string>> broken;  // (queue, job id)
    for (auto& [id, w] : workers_) {
      if (w.ended || worker_alive(w)) continue;
      w.ended = true;
      const std::string queue = w.queue.empty() ? Spool::partition_folder(w.state.partition) : w.queue;
      if (w.worked) {
        idle_ends_[queue] = 0;
        continue;
      }
      auto q = queued.find(queue);
      if (q == queued.end() || q->second == 0) continue;
      if (++idle_ends_[queue] >= 3) broken.emplace_back(queue, id);
    }
    for (const auto& [queue, id] : broken) {
      idle_ends_[queue] = 0;
      const std::string end = slurm::describe_end(workers_[id].state);
      const fs::path log = spool_.logs_dir() / (id + ".out");
      std::function<std::string()> read_log = [log] {
        auto text = jobs::read_file(log).value_or("");
        if (text.size() > 400) text = "..." + text.substr(text.size() - 400);
        return text;
      };
      auto read_log_run = on_pool<std::string>(helper_, std::move(read_log));
      std::string tail = co_await std::move(read_log_run);
      while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
      const std::string why = "3 worker jobs in a row ended without taking work (last: job " + id + ", " + end + ")" +
                              (tail.empty() ? "" : "; its output: " + tail);
      message("error", "queue " + queue + ": " + why);
      co_await give_up_queue(queue, why);
    }
  }

  // Enough workers for what is queued, within max_jobs: each queued request of
  // a partition needs a pending or idle worker there.
  asio::awaitable<void> provide_workers(const jobs::SpoolSnapshot& snap, const std::map<std::string, int>& queued) {
    if (queued.empty()) co_return;
    std::set<std::string> busy;
    for (const auto& c : snap.claimed) busy.insert(c.job_id);
    int alive_total = 0;
    std::map<std::string, int> free_per_folder;
    for (const auto& [id, w] : workers_) {
      if (!worker_alive(w)) continue;
      ++alive_total;
      const std::string queue = w.queue.empty() ? Spool::partition_folder(w.state.partition) : w.queue;
      if (!busy.count(id)) ++free_per_folder[queue];
    }
    std::vector<std::string> to_submit;
    for (const auto& [folder, count] : queued) {
      int need = count - free_per_folder[folder];
      while (need-- > 0 && alive_total + static_cast<int>(to_submit.size()) < o_.settings.max_jobs)
        to_submit.push_back(folder == "_default" ? "" : folder);
    }
    if (to_submit.empty() || SteadyClock::now() < next_submit_) co_return;
    const auto settings = o_.settings;
    const auto name = o_.job_name;
    const auto logs = spool_.logs_dir();
    const auto script = script_;
    std::function<std::vector<std::pair<std::string, Result<std::string>>>()> submit = [=] {
      std::vector<std::pair<std::string, Result<std::string>>> out;
      for (const auto& partition : to_submit) {
        auto r = slurm_command(slurm::sbatch_command(settings, partition, name, logs, script), 60);
        if (!r) out.emplace_back(partition, r.error());
        else if (!r->status.exited || r->status.code != 0)
          out.emplace_back(partition, make_error("slurm.sbatch", "sbatch failed: " + trimmed(r->output)));
        else out.emplace_back(partition, slurm::parse_sbatch_output(r->output));
      }
      return out;
    };
    auto submit_run = on_pool<std::vector<std::pair<std::string, Result<std::string>>>>(helper_, std::move(submit));
    auto submitted = co_await std::move(submit_run);
    for (auto& [partition, id] : submitted) {
      if (id) {
        Worker w;
        w.state.id = *id;
        w.state.state = "PENDING";
        w.state.partition = partition;
        w.queue = Spool::partition_folder(partition);
        workers_[*id] = w;
        sbatch_failures_ = 0;
        continue;
      }
      ++sbatch_failures_;
      next_submit_ = SteadyClock::now() + std::chrono::seconds(std::min(30, 1 << std::min(sbatch_failures_, 5)));
      message("warning", id.error().message);
      if (sbatch_failures_ >= 3) co_await give_up_queue(Spool::partition_folder(partition), id.error().message);
    }
  }

  // No worker can serve a queue: every request waiting in it ends with the reason.
  asio::awaitable<void> give_up_queue(const std::string& queue, const std::string& why) {
    const Spool spool = spool_;
    std::function<int()> fail_queued = [spool, queue, why] {
      int failed = 0;
      for (const auto& [folder, key] : spool.snapshot().queued) {
        if (folder != queue) continue;
        auto request = jobs::read_request(spool.queued_file(folder, key));
        if (!request || !spool.withdraw(key, request->partition)) continue;
        if (spool.write_reply(failure_reply(*request, "no worker could serve the queue: " + why))) ++failed;
      }
      return failed;
    };
    auto fail_queued_run = on_pool<int>(helper_, std::move(fail_queued));
    co_await std::move(fail_queued_run);
  }

  asio::any_io_executor io_;
  SlurmExecutorOptions o_;
  Spool spool_;
  fs::path kgb_, script_;
  asio::steady_timer tick_;
  asio::thread_pool helper_;
  std::map<std::string, std::shared_ptr<Waiter>> waiting_;
  std::map<std::string, Worker> workers_;
  std::map<std::string, int> idle_ends_;  // per queue: workers in a row that ended without work
  SteadyClock::time_point next_submit_{};
  int sbatch_failures_ = 0, squeue_failures_ = 0;
  int lock_fd_ = -1;
  bool stopping_ = false, shut_down_ = false, monitor_running_ = false;
};

}  // namespace

Result<std::unique_ptr<JobExecutor>> make_slurm_executor(asio::any_io_executor io, SlurmExecutorOptions options) {
  auto executor = std::make_unique<SlurmExecutor>(std::move(io), std::move(options));
  if (auto s = executor->start(); !s) return s.error();
  return std::unique_ptr<JobExecutor>(std::move(executor));
}

}  // namespace kgb::agent
