#include "kgb/evaluator.h"
#include "kgb/host_memory.h"

#include <algorithm>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <numeric>
#include <optional>
#include <set>
#include <random>
#include <sstream>
#include <thread>
#include <type_traits>
#include <utility>
#include <condition_variable>
#include <mutex>
#include <stop_token>

#include <sys/mman.h>
#include <unistd.h>

#include "kgb/case.h"
#include "kgb/compile_cache.h"
#include "kgb/paired_speedup.h"
#include "kgb/timing_bound.h"
#include "kgb/timing_lock.h"
#include "kgb/roofline.h"
#include "kgb/runner_rules.h"
#include "kgb/paths.h"
#include "kgb/process.h"
#include "kgb/wire.h"

namespace kgb {
namespace {

EvalHooks& hooks_storage() {
  static EvalHooks hooks;
  return hooks;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t derive_seed(uint64_t run_seed, const std::string& what) {
  return splitmix64(run_seed ^ wire::hash_bytes(what.data(), what.size()));
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string cap(const std::string& s, size_t limit = 4096) {
  if (s.size() <= limit) return s;
  return s.substr(0, limit) + "\n[... " + std::to_string(s.size() - limit) + " more bytes cut]";
}

std::string substitute(const std::string& arg, const std::map<std::string, std::string>& values) {
  std::string out = arg;
  for (const auto& [key, value] : values) {
    std::string token = "{" + key + "}";
    for (size_t pos = out.find(token); pos != std::string::npos; pos = out.find(token, pos + value.size()))
      out.replace(pos, token.size(), value);
  }
  return out;
}

// Last-level cache size of this host, for the flush buffer (2x, at least 8 MiB).
int64_t flush_bytes_for_host() {
  int64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string s;
    if (!(f >> s)) continue;
    int64_t v = std::atoll(s.c_str());
    if (!s.empty() && (s.back() == 'K' || s.back() == 'k')) v <<= 10;
    if (!s.empty() && (s.back() == 'M' || s.back() == 'm')) v <<= 20;
    largest = std::max(largest, v);
  }
  // Capped: beyond a few hundred MB the flush costs more than it clears.
  return std::clamp<int64_t>(2 * largest, 8 << 20, 256 << 20);
}

struct Stats {
  double median = 0, q1 = 0, q3 = 0, mean = 0, rse = 0;
};

double quantile(std::vector<double> sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] * (1 - frac) + sorted[hi] * frac;
}

Timing timing_of(const std::vector<double>& times) {
  Timing t;
  if (times.empty()) return t;
  std::vector<double> s = times;
  std::sort(s.begin(), s.end());
  t.median_us = quantile(s, 0.5);
  t.iqr_us = quantile(s, 0.75) - quantile(s, 0.25);
  t.mean_us = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  double var = 0;
  for (double x : s) var += (x - t.mean_us) * (x - t.mean_us);
  if (s.size() > 1) var /= static_cast<double>(s.size() - 1);
  t.rse = t.mean_us > 0 ? std::sqrt(var / static_cast<double>(s.size())) / t.mean_us : 0;
  t.iterations = static_cast<int64_t>(s.size());
  return t;
}

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// KGB_TRACE=1: where the harness's own time goes, on stderr (read once).
bool tracing_enabled() {
  static const bool enabled = std::getenv("KGB_TRACE") != nullptr;
  return enabled;
}

void copy_in_parallel(std::byte* to, std::span<const std::byte> from) {
  constexpr size_t kLine = 64;  // parallel_chunks' chunks of 64 KiB lines: 4 MiB per task
  parallel_chunks(static_cast<int64_t>((from.size() + kLine - 1) / kLine), [&](int64_t first, int64_t last) {
    const size_t begin = static_cast<size_t>(first) * kLine, end = std::min(from.size(), static_cast<size_t>(last) * kLine);
    std::memcpy(to + begin, from.data() + begin, end - begin);
  });
}

// Outputs leave the arena in parallel, into memory advised for huge pages.
void copy_out_in_parallel(std::vector<std::byte>& to, std::span<const std::byte> from) {
  to = wire::large_bytes(from.size());
  copy_in_parallel(to.data(), from);
}

// One write per 4 KiB page, spread over the cores: the page faults of a fresh
// shared mapping run in parallel instead of one after another.
void touch_pages_in_parallel(std::byte* base, size_t bytes) {
  constexpr size_t kLine = 64, kPage = 4096;  // chunks of 64 Ki lines: 4 MiB per task, as above
  parallel_chunks(static_cast<int64_t>((bytes + kLine - 1) / kLine), [&](int64_t first, int64_t last) {
    const size_t end = std::min(bytes, static_cast<size_t>(last) * kLine);
    for (size_t at = static_cast<size_t>(first) * kLine; at < end; at += kPage) base[at] = std::byte{0};
  });
}

// A runner process (candidate or baseline) and the conversation with it.
class RunnerSession {
 public:
  RunnerSession(const Platform& platform, std::filesystem::path executable, std::filesystem::path work_dir)
      : platform_(platform), executable_(std::move(executable)), work_dir_(std::move(work_dir)) {}
  ~RunnerSession() {
    child_.reset();  // the runner goes first, then its shared memory
    if (arena_map_) ::munmap(arena_map_, arena_size_);
    if (arena_fd_ >= 0) ::close(arena_fd_);
  }
  RunnerSession(const RunnerSession&) = delete;
  RunnerSession& operator=(const RunnerSession&) = delete;

  // Starts the runner and says hello. An Error means infrastructure trouble or
  // a runner that died at start-up (the caller decides which).
  Result<wire::Ready> start(const wire::Hello& greeting, double timeout) {
    if (auto launched = launch(); !launched) return launched.error();
    return hello(greeting, timeout);
  }

  // The two halves of start(): a runner sets its device up before it reads
  // the hello, so launching early overlaps that (a CUDA context, library
  // loading) with other work.
  Status launch() {
    SpawnOptions opts;
    opts.argv = platform_.emulator;
    opts.argv.push_back(executable_.string());
    std::map<std::string, std::string> env{{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                           {"HOME", work_dir_.string()},
                                           {"TMPDIR", work_dir_.string()},
                                           {"LANG", "C"}};
    for (const auto& [k, v] : platform_.environment) env[k] = v;
    opts.environment = env;
    opts.working_dir = work_dir_;
    opts.isolate = true;
    // KGB_SYSCALL_FILTER=off: a diagnostic for a driver that needs a call
    // the filter forbids (docs/sandbox.md); never for verdicts of record.
    static const bool filter_off = [] {
      const char* v = std::getenv("KGB_SYSCALL_FILTER");
      return v != nullptr && std::string_view(v) == "off";
    }();
    opts.syscall_filter = !filter_off;
    opts.protocol_pipes = true;
    opts.capture_limit = static_cast<size_t>(platform_.limits.output_capture_bytes);
    opts.limits = ProcessLimits{platform_.limits.address_space_mb, platform_.limits.cpu_seconds,
                                platform_.limits.processes, platform_.limits.file_size_mb, platform_.limits.open_files};
    // Shared memory for large jobs; without it (no memfd) everything goes through the pipe.
    arena_fd_ = ::memfd_create("kgb-arena", MFD_CLOEXEC);
    opts.shared_memory_fd = arena_fd_;
    auto child = ChildProcess::spawn(opts);
    if (!child) return child.error();
    child_ = std::move(*child);
    return Ok{};
  }

  Result<wire::Ready> hello(const wire::Hello& greeting, double timeout) {
    if (!child_) return make_error("child.spawn", "the runner was not started");
    auto sent = child_->send(wire::MessageType::Hello, wire::encode_hello(greeting), deadline_after(timeout));
    if (!sent) return sent.error();
    auto reply = child_->receive(deadline_after(timeout), 1 << 20);
    if (!reply) return reply.error();
    wire::Ready ready;
    if (reply->first != wire::MessageType::Ready || !wire::decode_ready(reply->second, ready))
      return make_error("child.protocol", "the runner answered hello with something else");
    return ready;
  }

  Result<wire::JobResult> run(const wire::Job& job, double timeout, size_t result_limit, double* wall_seconds) {
    auto start = Clock::now();
    auto deadline = deadline_after(timeout);
    // Large arrays go through the shared memory: copied once, in parallel,
    // instead of several times through the pipe.
    wire::Job to_send = job;  // spans only
    wire::ArenaLayout layout;
    if (auto l = place_in_arena(job)) {
      layout = *l;
      to_send.arena_bytes = layout.total();
    }
    auto placed = Clock::now();
    const wire::EncodedJob encoded = wire::encode_job_pieces(to_send);
    auto sent = child_->send(wire::MessageType::Job, encoded.pieces, deadline);
    if (!sent) return sent.error();
    auto reply = child_->receive(deadline, result_limit + (1 << 20));
    auto replied = Clock::now();
    if (wall_seconds) *wall_seconds = std::chrono::duration<double>(replied - start).count();
    if (!reply) return reply.error();
    wire::JobResult result;
    std::span<const std::byte> arena;
    if (to_send.arena_bytes > 0) arena = {arena_map_, arena_size_};
    if (reply->first != wire::MessageType::Result ||
        !wire::decode_result(reply->second, result, result_limit, arena, layout.outputs_begin, copy_out_in_parallel))
      return make_error("child.protocol", "the runner's result is malformed");
    if (tracing_enabled())
      std::fprintf(stderr, "kgb-trace            job: arena %.3f s, runner %.3f s (of which in the job %.3f s), read back %.3f s\n",
                   seconds_between(start, placed), seconds_between(placed, replied), result.child_seconds,
                   seconds_between(replied, Clock::now()));
    return result;
  }

  ExitStatus finish(double timeout) {
    if (!child_) return {};
    if (!child_->exit_status()) {
      (void)child_->send(wire::MessageType::Bye, std::vector<std::byte>{}, deadline_after(1));  // it may be gone already
      child_->close_input();
    }
    return child_->wait(deadline_after(timeout));
  }

  ExitStatus kill_now() {
    if (!child_) return {};
    child_->kill();
    return child_->wait(deadline_after(5));
  }

  void suspend() {
    if (child_) child_->suspend();
  }
  void resume() {
    if (child_) child_->resume();
  }

  std::string out() const { return child_ ? child_->stdout_text() : ""; }
  std::string err() const { return child_ ? child_->stderr_text() : ""; }

 private:
  const Platform& platform_;
  std::filesystem::path executable_, work_dir_;
  std::unique_ptr<ChildProcess> child_;
  int arena_fd_ = -1;
  std::byte* arena_map_ = nullptr;
  size_t arena_size_ = 0;

  // Copies the job's arrays into the arena (grown as needed) and returns
  // where they are; nullopt when the job is small or there is no arena.
  std::optional<wire::ArenaLayout> place_in_arena(const wire::Job& job) {
    constexpr uint64_t kWorthIt = 1 << 20;
    if (arena_fd_ < 0) return std::nullopt;
    wire::ArenaLayout layout = wire::arena_layout(job);
    if (layout.outputs_begin < kWorthIt) return std::nullopt;  // inputs (aligned) below 1 MiB
    if (layout.total() > arena_size_) {
      if (arena_map_) ::munmap(arena_map_, arena_size_);
      arena_map_ = nullptr;
      arena_size_ = 0;
      if (::ftruncate(arena_fd_, static_cast<off_t>(layout.total())) != 0) return std::nullopt;
      void* p = ::mmap(nullptr, layout.total(), PROT_READ | PROT_WRITE, MAP_SHARED, arena_fd_, 0);
      if (p == MAP_FAILED) return std::nullopt;
      arena_map_ = static_cast<std::byte*>(p);
      arena_size_ = layout.total();
      // The pages are allocated here, on every core, rather than one fault
      // at a time in the runner; the runner then maps them populated.
      touch_pages_in_parallel(arena_map_, arena_size_);
    }
    for (size_t s = 0; s < job.sets.size(); ++s)
      for (size_t p = 0; p < job.sets[s].size(); ++p)
        if (!job.sets[s][p].empty()) copy_in_parallel(arena_map_ + layout.inputs[s][p], job.sets[s][p]);
    return layout;
  }
};

// Stops another runner for as long as one is being timed: its idle threads
// (an OpenMP or OpenBLAS pool still spinning after its last job) would take
// cores from the timed loop, and a candidate's stray threads or device work
// must not slow the baseline.
class SuspendedWhileTiming {
 public:
  explicit SuspendedWhileTiming(RunnerSession* other) : other_(other) {
    if (other_) other_->suspend();
  }
  ~SuspendedWhileTiming() {
    if (other_) other_->resume();
  }
  SuspendedWhileTiming(const SuspendedWhileTiming&) = delete;
  SuspendedWhileTiming& operator=(const SuspendedWhileTiming&) = delete;

 private:
  RunnerSession* other_;
};

size_t result_limit_for(const wire::Job& job) {
  size_t per_set = 0;
  for (const auto& p : job.params) per_set += p.returned_bytes();
  return per_set * std::max<size_t>(job.sets.size(), 1) + 64 * 1024 * 1024;
}

// A tensor with an instance tensor's geometry and the given storage bytes
// (the sent bytes when the runner's answer has the wrong size, which then
// fails the check).
HostTensor with_bytes(const HostTensor& sent, std::vector<std::byte>& bytes, bool move) {
  HostTensor t(sent.dtype(), sent.sizes(), sent.strides(), 0, sent.offset());
  if (bytes.size() != sent.storage().size()) t.storage() = sent.storage();
  else if (move) t.storage() = std::move(bytes);
  else t.storage() = bytes;
  return t;
}

// What the kernel produced for one input set of a result: written tensors
// and lists rebuilt from the returned bytes (moved when `move`, which spares
// a copy of every large output of a timed case), view descriptors and host
// scalars. Inputs are not included: checks read them from the instance.
CaseOutputs outputs_from(const Task& entry, const CaseInstance& inst, wire::JobResult& r, size_t set, bool move) {
  CaseOutputs out;
  auto& bytes = r.outputs[set];
  size_t scalar_index = 0;
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const Param& p = entry.params[i];
    if (p.kind == ParamKind::ScalarOutput) {
      if (set < r.scalars.size() && scalar_index < r.scalars[set].size()) out.scalars[p.name] = r.scalars[set][scalar_index];
      ++scalar_index;
      continue;
    }
    if (!p.is_written() || i >= bytes.size()) continue;
    if (p.kind == ParamKind::Tensor) {
      if (inst.none.count(p.name)) continue;
      if (p.role == TensorRole::View && p.alias == AliasRule::Required) continue;
      if (p.role == TensorRole::Scratch && !p.scratch_zero_after) continue;
      out.tensors.emplace(p.name, with_bytes(inst.tensors.at(p.name), bytes[i], move));
    } else if (p.role != TensorRole::View) {
      const ListInstance& list = inst.lists.at(p.name);
      auto& items = out.lists[p.name];
      const bool complete = bytes[i].size() == list.allocation_bytes;
      for (size_t k = 0; k < list.items.size(); ++k) {
        if (!list.items[k]) {
          items.emplace_back(std::nullopt);
          continue;
        }
        const HostTensor& sent = *list.items[k];
        HostTensor t(sent.dtype(), sent.sizes(), sent.strides(), 0, sent.offset());
        t.storage() = sent.storage();
        if (complete)
          std::memcpy(t.storage().data(), bytes[i].data() + list.byte_offsets[k], t.storage().size());
        items.emplace_back(std::move(t));
      }
    }
  }
  if (set < r.views.size()) {
    for (const wire::ViewReport& v : r.views[set]) {
      if (v.param < 0 || v.param >= static_cast<int>(entry.params.size())) continue;
      ViewObservation o;
      o.where = v.unchanged ? ViewObservation::Where::Unchanged
                : v.holder < 0 ? ViewObservation::Where::Outside
                               : ViewObservation::Where::Alias;
      o.alias_param = v.holder;
      o.misaligned = v.misaligned != 0;
      o.reported_storage_offset = v.reported_storage_offset;
      o.view.sizes.assign(v.sizes, v.sizes + v.rank);
      o.view.strides.assign(v.strides, v.strides + v.rank);
      o.view.storage_offset = v.element_offset;
      const std::string& name = entry.params[v.param].name;
      if (v.item < 0) {
        out.observed_views[name] = o;
      } else {
        auto& items = out.observed_list_views[name];
        if (items.size() <= static_cast<size_t>(v.item)) items.resize(v.item + 1);
        items[v.item] = o;
      }
    }
  }
  return out;
}

bool view_all_poison(const HostTensor& t, uint8_t poison) {
  if (t.numel() == 0) return false;
  int32_t size = dtype_size(t.dtype());
  OffsetWalker w(t, 0);
  for (int64_t i = 0; i < t.numel(); ++i, w.next()) {
    const std::byte* e = t.data() + w.offset() * size;
    for (int32_t b = 0; b < size; ++b)
      if (static_cast<uint8_t>(e[b]) != poison) return false;
  }
  return true;
}

// Elements of the storage outside the view must still hold the poison.
int64_t gap_writes(const HostTensor& t, uint8_t poison) {
  int64_t n = t.storage_elements();
  if (n == t.numel()) return 0;
  int32_t size = dtype_size(t.dtype());
  const std::vector<char> in_view = storage_in_view(t);
  int64_t written = 0;
  const std::byte* base = t.storage().data();
  for (int64_t e = 0; e < n; ++e) {
    if (in_view[static_cast<size_t>(e)]) continue;
    for (int32_t b = 0; b < size; ++b)
      if (static_cast<uint8_t>(base[e * size + b]) != poison) {
        ++written;
        break;
      }
  }
  return written;
}

// Elements of an in-place tensor's storage outside its view must keep the
// bytes they were sent with (padding, skipped elements of a stepped view).
int64_t gap_changes(const HostTensor& after, const HostTensor& sent) {
  if (after.storage().size() != sent.storage().size()) return 0;
  const int64_t n = after.storage_elements();
  if (n == after.numel()) return 0;
  const int32_t size = dtype_size(after.dtype());
  const std::vector<char> in_view = storage_in_view(after);
  int64_t changed = 0;
  for (int64_t e = 0; e < n; ++e)
    if (!in_view[static_cast<size_t>(e)] &&
        std::memcmp(after.storage().data() + e * size, sent.storage().data() + e * size, static_cast<size_t>(size)) != 0)
      ++changed;
  return changed;
}

void add_finding(Verdict& v, std::string rule, std::string layer, std::string severity, std::string message,
                 std::string location) {
  for (const auto& f : v.findings)
    if (f.rule == rule && f.location == location) return;
  v.findings.push_back({std::move(rule), std::move(layer), std::move(severity), std::move(message), std::move(location)});
}

// A timing block as the outside bound sees it: the parent's wall time with
// the reported event series and host series.
struct BoundedBlock {
  BlockFigures events, host;
};

BoundedBlock bounded_block(const wire::JobResult& r, double wall) {
  return {BlockFigures{wall, r.times_us, r.loop_seconds, r.warmup_seconds},
          BlockFigures{wall, r.host_times_us, r.loop_seconds, r.warmup_seconds}};
}

// L3 outside bound: the candidate's per-call figures come from its own
// process; the parent's clock around each block, less the harness overhead
// the trusted baseline measured in the same pair, must be what they add up
// to (kgb/timing_bound.h, docs/integrity.md). On devices both the event and
// the host series must fit. Without a baseline nothing measures the
// overhead: the blocks are then only held to the parent's wall time
// (timing-inconsistent).
void check_timing_bound(Verdict& v, const std::string& label, uint32_t max_iterations, bool device_events,
                        const std::vector<BoundedBlock>& candidate, const std::vector<BoundedBlock>& baseline) {
  for (size_t k = 0; k < candidate.size(); ++k) {
    const size_t calls = candidate[k].events.times_us.size(), host_figures = candidate[k].host.times_us.size();
    if (calls > max_iterations || calls != host_figures) {
      add_finding(v, "timing-unaccounted", "L3", "reject",
                  "timing block " + std::to_string(k + 1) + " reported " + std::to_string(calls) + " call times and " +
                      std::to_string(host_figures) + " host times; the job allowed at most " +
                      std::to_string(max_iterations) + " calls, one figure of each per call",
                  label);
      return;
    }
  }
  if (baseline.size() != candidate.size() || candidate.empty()) return;
  for (bool host : {false, true}) {
    if (host && !device_events) continue;  // on CPUs both series are the host clock
    std::vector<BlockBound> blocks;
    for (size_t k = 0; k < candidate.size(); ++k) {
      blocks.push_back(host ? bound_block(candidate[k].host, baseline[k].host) : bound_block(candidate[k].events, baseline[k].events));
      if (tracing_enabled())
        std::fprintf(stderr, "kgb-trace            bound of block %zu%s: wall %.4f s, reported %.4f s, explained %.4f s, slack %.4f s\n",
                     k + 1, host ? " (host times)" : "", blocks.back().wall_s, blocks.back().reported_s, blocks.back().explained_s,
                     blocks.back().allowed_s);
    }
    const BlockBound median = median_block(blocks);
    // A warning, not a reject: on a loaded CPU host an honest OpenMP kernel's
    // threads slow the harness's restores and flushes beyond what the
    // baseline's overhead predicts, by as much as a forger hides
    // (docs/integrity.md, Known gaps).
    if (median.exceeded()) {
      add_finding(v, "timing-unaccounted", "L3", "warn",
                  std::string("the median timing block") + (host ? " (host times)" : "") + ": " + median.describe() +
                      ": the runner's reported figures are not what the parent measured",
                  label);
      return;
    }
  }
}

bool has_reject(const Verdict& v) {
  return std::any_of(v.findings.begin(), v.findings.end(), [](const Finding& f) { return f.severity == "reject"; });
}

// A device error the runner raised for an integrity rule it checks itself
// (wire::runner_error_rule: a host write into a harness buffer, a command on
// another queue) ends the evaluation as that rule's reject finding.
bool runner_rule_violation(Verdict& v, RunnerSession& runner, const std::string& error, const std::string& label) {
  const std::string_view rule = wire::runner_error_rule(error);
  if (rule.empty()) return false;
  runner.finish(5);
  add_finding(v, std::string(rule), "L2", "reject", error.substr(rule.size() + 2), label);
  v.outcome = Outcome::CheatDetected;
  v.summary = std::string(rule) + " (" + label + "): " + error.substr(rule.size() + 2);
  v.child_stdout = cap(runner.out());
  v.child_stderr = cap(runner.err());
  return true;
}

// Outcome of a runner failing mid-job: timeout or crash, with the case named.
void runner_failed(Verdict& v, RunnerSession& runner, const Error& error, const std::string& label, CaseCheck* check) {
  ExitStatus st = error.code == "child.timeout" ? runner.kill_now() : runner.finish(5);
  if (error.code == "child.timeout") st.timed_out = true;
  v.child_stdout = cap(runner.out());
  v.child_stderr = cap(runner.err());
  if (st.timed_out) {
    v.outcome = Outcome::Timeout;
    v.summary = "timed out on case " + label + "; the runner and everything it started were killed";
  } else if (st.signal == SIGSYS) {
    // The seccomp filter killed the process (kgb/syscall_filter.h): no
    // candidate code path reaches SIGSYS otherwise.
    v.outcome = Outcome::CheatDetected;
    v.summary = "the kernel's process made a system call the sandbox forbids (case " + label + ") and was killed";
    add_finding(v, "sandbox-syscall", "L2", "reject",
                "a forbidden system call: another process's memory or scheduling (ptrace, process_vm_readv, kill, "
                "affinity), a new process, a network socket, io_uring, namespaces or mounts, or another system-call "
                "ABI; the kernel killed the runner (SIGSYS)",
                label);
  } else {
    v.outcome = Outcome::RuntimeError;
    v.summary = "the kernel's process died on case " + label + ": " + st.describe();
    if (error.code == "child.protocol") v.summary = "the runner's answer was corrupted on case " + label + ": " + error.message;
  }
  if (check) {
    check->passed = false;
    check->status = st.timed_out ? "timeout" : "crash";
    check->message = v.summary;
    v.cases.push_back(*check);
  }
}



bool case_selected(const EvalOptions& options, const Case& c) {
  return options.case_filter.empty() || glob_match(options.case_filter, c.name);
}

// Whether a platform times a performance case: devices time every case, CPU
// platforms (and OpenCL on a CPU) only those marked "cpu".
bool timed_here(const Platform& platform, const Case& c) { return c.cpu || !platform.has("cpu_device"); }

bool output_rule_ignored(const Task& entry, const std::string& name) {
  auto it = entry.output_rules.find(name);
  return it != entry.output_rules.end() && it->second.mode == OutputRule::Mode::None;
}

std::string entry_label(const Task& entry, const std::string& rest) {
  return entry.is_overload ? entry.overload + ":" + rest : rest;
}

}  // namespace

CaseOutputs case_outputs_from(const Task& entry, const CaseInstance& inst, wire::JobResult& result, size_t set, bool move) {
  return outputs_from(entry, inst, result, set, move);
}

wire::Hello make_hello(const Task& task) {
  wire::Hello hello;
  hello.task_id = task.id;
  for (const Task* e : task.entries()) {
    wire::EntrySignature sig;
    sig.key = e->key();
    sig.upstream_name = e->upstream_name;
    sig.overload = e->overload;
    for (const auto& p : e->params) {
      wire::SignatureParam sp;
      sp.name = p.name;
      sp.optional = p.optional;
      sp.role = static_cast<uint8_t>(p.role);
      sp.scalar_type = static_cast<uint8_t>(p.scalar_type);
      switch (p.kind) {
        case ParamKind::Tensor: sp.kind = static_cast<uint8_t>(wire::ArgKind::Tensor); break;
        case ParamKind::TensorList: sp.kind = static_cast<uint8_t>(wire::ArgKind::List); break;
        case ParamKind::ScalarOutput: sp.kind = static_cast<uint8_t>(wire::ArgKind::ScalarOut); break;
        case ParamKind::Scalar:
          sp.kind = static_cast<uint8_t>(p.optional                              ? wire::ArgKind::OptScalar
                                         : p.scalar_type == ScalarType::IntList ? wire::ArgKind::IntList
                                                                                : wire::ArgKind::Scalar);
          break;
      }
      for (const auto& [name, number] : p.enum_values) {
        sp.enum_names.push_back(name);
        sp.enum_numbers.push_back(number);
      }
      sig.params.push_back(std::move(sp));
    }
    hello.entries.push_back(std::move(sig));
  }
  return hello;
}

wire::Job make_job(const Task& entry, const std::vector<const CaseInstance*>& sets, wire::JobMode mode, uint8_t poison) {
  wire::Job job;
  job.mode = mode;
  job.poison = poison;
  job.key = entry.key();
  const CaseInstance& first = *sets.front();
  auto describe = [](const HostTensor& t, wire::Role role) {
    wire::TensorDesc d;
    d.dtype = static_cast<int32_t>(t.dtype());
    d.rank = t.rank();
    for (int i = 0; i < t.rank(); ++i) {
      d.sizes[i] = t.sizes()[i];
      d.strides[i] = t.strides()[i];
    }
    d.storage_elements = t.storage_elements();
    d.offset = t.offset();
    d.role = static_cast<uint8_t>(role);
    d.flags = t.flags();
    return d;
  };
  auto role_of = [](TensorRole r) {
    switch (r) {
      case TensorRole::Input: return wire::Role::Input;
      case TensorRole::Output: return wire::Role::Output;
      case TensorRole::InOut: return wire::Role::InOut;
      case TensorRole::View: return wire::Role::View;
      case TensorRole::Scratch: return wire::Role::Scratch;
    }
    return wire::Role::Input;
  };
  for (const auto& p : entry.params) {
    wire::ParamDesc d;
    switch (p.kind) {
      case ParamKind::Tensor: {
        if (first.none.count(p.name)) {
          d.kind = wire::ArgKind::None;
          break;
        }
        const HostTensor& t = first.tensors.at(p.name);
        d.kind = wire::ArgKind::Tensor;
        d.tensor = describe(t, role_of(p.role));
        d.tensor.host_resident = p.host_resident;
        d.tensor.zero_init = p.scratch_zero_init;
        d.tensor.returned = (p.role == TensorRole::Output || p.role == TensorRole::InOut ||
                             (p.role == TensorRole::View && p.alias != AliasRule::Required) ||
                             (p.role == TensorRole::Scratch && p.scratch_zero_after));
        if (auto a = first.aliases.find(p.name); a != first.aliases.end()) d.tensor.lives_on = entry.param_index(a->second);
        break;
      }
      case ParamKind::TensorList: {
        const ListInstance& list = first.lists.at(p.name);
        d.kind = wire::ArgKind::List;
        d.list.role = static_cast<uint8_t>(role_of(p.role));
        d.list.pointer_array = p.pointer_array;
        d.list.allocation_bytes = list.allocation_bytes;
        for (size_t k = 0; k < list.items.size(); ++k) {
          wire::ListItemDesc item;
          if (list.items[k]) {
            item.tensor = describe(*list.items[k], role_of(p.role));
            item.byte_offset = p.role == TensorRole::View ? 0 : list.byte_offsets[k];
          }
          if (list.items[k] && p.role == TensorRole::View) item.byte_offset = 0;
          d.list.items.push_back(item);
        }
        if (!list.items.empty() && list.items.front()) d.list.dtype = static_cast<int32_t>(list.items.front()->dtype());
        break;
      }
      case ParamKind::ScalarOutput: d.kind = wire::ArgKind::ScalarOut; break;
      case ParamKind::Scalar: {
        const ScalarValue& v = first.scalars.at(p.name);
        if (p.scalar_type == ScalarType::IntList) {
          d.kind = wire::ArgKind::IntList;
          d.int_list = v.list;
          break;
        }
        d.kind = p.optional ? wire::ArgKind::OptScalar : wire::ArgKind::Scalar;
        d.none = v.none();
        switch (p.scalar_type) {
          case ScalarType::Float64:
            d.value.f = v.kind == ScalarValue::Kind::Float ? v.f : static_cast<double>(v.i);
            d.opt = wire::OptKind::F64;
            break;
          case ScalarType::Complex: d.value.c = {v.c.real(), v.c.imag()}; break;
          case ScalarType::AtenScalar: {
            kgb_scalar s{};
            if (v.kind == ScalarValue::Kind::Bool) s.dtype = KGB_BOOL, s.v.i = v.i;
            else if (v.kind == ScalarValue::Kind::Float) s.dtype = KGB_F64, s.v.f = v.f;
            else if (v.kind == ScalarValue::Kind::Complex) s.dtype = KGB_C128, s.v.c = {v.c.real(), v.c.imag()};
            else s.dtype = KGB_I64, s.v.i = v.i;
            d.value.s = s;
            d.opt = wire::OptKind::AtenScalar;
            break;
          }
          case ScalarType::Bool: case ScalarType::Enum:
            d.value.i = v.i;
            d.opt = wire::OptKind::Int;
            break;
          default:
            d.value.i = v.kind == ScalarValue::Kind::Float ? static_cast<int64_t>(std::llround(v.f)) : v.i;
            d.opt = wire::OptKind::I64;
            break;
        }
        break;
      }
    }
    job.params.push_back(std::move(d));
  }
  for (const CaseInstance* inst : sets) {
    std::vector<std::span<const std::byte>> set;
    for (size_t i = 0; i < entry.params.size(); ++i) {
      const auto& p = entry.params[i];
      if (!job.params[i].sends_bytes()) {
        set.emplace_back();
      } else if (p.kind == ParamKind::Tensor) {
        set.emplace_back(inst->tensors.at(p.name).storage());
      } else {
        set.emplace_back(inst->lists.at(p.name).packed);
      }
    }
    job.sets.push_back(std::move(set));
  }
  return job;
}

void set_default_eval_hooks(EvalHooks hooks) { hooks_storage() = std::move(hooks); }
const EvalHooks& default_eval_hooks() { return hooks_storage(); }

std::string generate_glue(const Task& task) {
  std::ostringstream os;
  os << "// Generated: adapts the entry points of " << task.id << " to the runner's uniform call.\n"
     << "#include <string.h>\n#include \"kgb_runner_abi.h\"\n\n";
  const auto entries = task.entries();
  for (size_t e = 0; e < entries.size(); ++e) {
    const Task& entry = *entries[e];
    os << entry_declaration(entry) << "\n\n"
       << "static int kgb_glue_invoke_" << e << "(const kgb_arg* a, int32_t n, kgb_stream stream) {\n"
       << "  if (n != " << entry.params.size() << ") return KGB_ERR_INVALID;\n"
       << "  (void)a;\n  return " << entry.entry << "(";
    for (size_t i = 0; i < entry.params.size(); ++i) os << entry_argument(entry.params[i], "a[" + std::to_string(i) + "]") << ", ";
    os << "stream);\n}\n\n";
  }
  os << "extern \"C\" kgb_invoke_fn kgb_runner_resolve(const char* key) {\n";
  for (size_t e = 0; e < entries.size(); ++e)
    os << "  if (strcmp(key, \"" << entries[e]->key() << "\") == 0) return kgb_glue_invoke_" << e << ";\n";
  os << "  return (kgb_invoke_fn)0;\n}\n";
  return os.str();
}

namespace {

// The placeholders of the compile and link templates.
std::map<std::string, std::string> build_step_values(const Platform& platform) {
  return {
      {"source", candidate_source_name(platform)},
      {"object", "candidate.o"},
      {"glue", "glue.cpp"},
      {"exe", "candidate"},
      {"abi", abi_include_dir().string()},
      {"runner_include", (source_root() / "backends" / "common" / "include").string()},
      {"runner", (build_root() / platform.runner_library).string()},
      {"source_root", source_root().string()},
      {"build_root", build_root().string()},
  };
}

}  // namespace

namespace {

// A build artefact's bytes; empty when it cannot be read.
std::string read_binary_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string();
}

}  // namespace

std::string candidate_source_name(const Platform& platform) { return "candidate." + platform.source_extension; }

std::vector<std::string> candidate_compile_argv(const Platform& platform) {
  const auto values = build_step_values(platform);
  std::vector<std::string> argv;
  for (const auto& a : platform.compile_command) argv.push_back(substitute(a, values));
  return argv;
}

CompileOutput compile_candidate(const Task& task, const Platform& platform, const std::string& source,
                                const std::filesystem::path& work_dir, const EvalHooks& hooks) {
  CompileOutput out;
  auto start = Clock::now();
  const std::string source_name = candidate_source_name(platform);
  const std::string glue = generate_glue(task);
  {
    std::ofstream(work_dir / source_name, std::ios::binary) << source;
    std::ofstream(work_dir / "glue.cpp") << glue;
  }
  const std::map<std::string, std::string> values = build_step_values(platform);
  auto substituted = [&](const std::vector<std::string>& templ) {
    std::vector<std::string> argv;
    for (const auto& a : templ) argv.push_back(substitute(a, values));
    return argv;
  };
  const bool links = !platform.has("compile_only") || !platform.link_command.empty();
  CompileCache* cache = CompileCache::process_cache();
  std::string cache_key;
  if (cache) {
    std::vector<std::vector<std::string>> commands{substituted(platform.compile_command)};
    if (links) commands.push_back(substituted(platform.link_command));
    cache_key = CompileCache::key(platform.name, source, glue, commands);
    if (auto hit = cache->find(cache_key)) {
      // The same inputs built before in this process: the artefacts come back
      // from memory; the symbol check runs on them again.
      std::ofstream(work_dir / "candidate.o", std::ios::binary) << hit->object;
      out.object = work_dir / "candidate.o";
      if (hit->linked) {
        const auto exe = work_dir / "candidate";
        std::ofstream(exe, std::ios::binary) << hit->executable;
        std::filesystem::permissions(exe, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                              std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                              std::filesystem::perms::others_exec);
        out.executable = exe;
      }
      out.diagnostics = hit->diagnostics;
      out.log = hit->log;
      out.cached = true;
      if (hooks.symbol_check) out.findings = hooks.symbol_check(out.object, platform);
      out.ok = true;
      out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      return out;
    }
  }
  auto run_step = [&](const std::vector<std::string>& templ, const char* what) -> bool {
    const std::vector<std::string> argv = substituted(templ);
    auto r = run_command(argv, work_dir, platform.limits.compile_seconds);
    if (!r) {
      out.infra_error = std::string(what) + ": " + r.error().message;
      return false;
    }
    out.log += r->output;
    auto diags = parse_compiler_diagnostics(r->output);
    out.diagnostics.insert(out.diagnostics.end(), diags.begin(), diags.end());
    if (r->status.timed_out) {
      out.diagnostics.push_back({"", 0, 0, "error", std::string(what) + " timed out after " +
                                                        std::to_string(static_cast<int>(platform.limits.compile_seconds)) + " s", ""});
      return false;
    }
    if (!r->status.exited || r->status.code != 0) {
      bool has_error = std::any_of(diags.begin(), diags.end(), [](const Diagnostic& d) { return d.severity == "error" || d.severity == "fatal"; });
      if (!has_error) out.diagnostics.push_back({"", 0, 0, "error", std::string(what) + " failed (" + r->status.describe() + "): " + cap(r->output, 2000), ""});
      return false;
    }
    return true;
  };
  if (!run_step(platform.compile_command, "compile")) {
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  }
  out.object = work_dir / "candidate.o";
  if (hooks.symbol_check) out.findings = hooks.symbol_check(out.object, platform);
  if (links) {
    if (platform.link_command.empty() || !run_step(platform.link_command, "link")) {
      out.ok = platform.link_command.empty();
      out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      return out;
    }
    out.executable = work_dir / "candidate";
  }
  out.ok = true;
  out.log = cap(out.log, 64 * 1024);
  if (cache) {
    auto entry = std::make_shared<CompiledBuild>();
    entry->object = read_binary_file(out.object);
    entry->linked = !out.executable.empty();
    if (entry->linked) entry->executable = read_binary_file(out.executable);
    entry->diagnostics = out.diagnostics;
    entry->log = out.log;
    // A build whose files cannot be read back is not kept.
    if (!entry->object.empty() && (!entry->linked || !entry->executable.empty())) {
      const uint64_t bytes = cache_key.size() + entry->bytes();
      cache->insert(cache_key, std::move(entry), bytes);
    }
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}


uint64_t PreparedCase::bytes() const {
  uint64_t n = 0;
  for (const auto& [name, t] : instance.tensors) n += t.storage().size();
  for (const auto& [name, l] : instance.lists) {
    n += l.packed.size();
    for (const auto& item : l.items)
      if (item) n += item->storage().size();
  }
  for (const auto& [name, t] : expected.tensors) n += t.storage().size();
  for (const auto& [name, items] : expected.lists)
    for (const auto& item : items)
      if (item) n += item->storage().size();
  return n;
}

Result<std::shared_ptr<const PreparedCase>> prepare_case(const Task& entry, size_t case_index, bool performance,
                                                         const DTypeBinding& dtypes, uint64_t seed, ReferenceCache* cache) {
  const std::string key = entry.key() + "|" + entry.spec_hash + "|" + (performance ? "perf" : "check") + "|" +
                          std::to_string(case_index) + "|" + binding_label(dtypes) + "|" + std::to_string(seed);
  if (cache)
    if (auto hit = cache->find(key)) return hit;
  auto prepared = std::make_shared<PreparedCase>();
  // The instance points into its own copy of the entry, so a cached case
  // outlives the Task object it was made from.
  prepared->entry = std::make_shared<Task>(entry);
  const Case& c = (performance ? prepared->entry->performance : prepared->entry->correctness).at(case_index);
  auto inst = instantiate_case(*prepared->entry, c, dtypes, seed);
  if (!inst) return inst.error();
  prepared->instance = std::move(*inst);
  auto ref = run_reference(prepared->instance);
  if (!ref) return ref.error();
  prepared->expected = std::move(*ref);
  if (cache) cache->insert(key, prepared);
  return std::shared_ptr<const PreparedCase>(prepared);
}

namespace {

constexpr int64_t kSingleSetBytes = 64ll << 20;

int64_t instance_bytes(const CaseInstance& inst) {
  int64_t bytes = 0;
  for (const auto& [name, t] : inst.tensors) bytes += static_cast<int64_t>(t.storage().size());
  for (const auto& [name, l] : inst.lists) bytes += static_cast<int64_t>(l.allocation_bytes);
  return bytes;
}

// Inputs and references of the performance cases, built on a background
// thread, in timing order, from the start of the compile on: on a GPU host
// this work is as long as the compile. At most `ahead` cases beyond those
// already timed are built, which bounds memory and, with ahead = 0 on CPU
// platforms, keeps the work off the cores while a case is being timed.
class PerfCasePreparer {
 public:
  struct Prepared {
    std::string label;
    const Task* entry = nullptr;
    const Case* spec = nullptr;
    DTypeBinding dtypes;
    std::vector<std::shared_ptr<const PreparedCase>> sets;
    std::string error;  // the case cannot be built (a task bug): infrastructure error
  };

  PerfCasePreparer(const Task& task, const Platform& platform, const EvalOptions& options, uint64_t run_seed, int ahead)
      : ahead_(ahead) {
    for (const Task* entry : task.entries()) {
      if (entry->timing == TimingMode::None) continue;
      for (size_t ci = 0; ci < entry->performance.size(); ++ci) {
        const Case& c = entry->performance[ci];
        if (!case_selected(options, c) || !timed_here(platform, c)) continue;
        for (const DTypeBinding& dt : case_dtypes(*entry, c)) {
          Prepared p;
          p.label = entry_label(*entry, c.name + "/" + binding_label(dt));
          p.entry = entry;
          p.spec = &c;
          p.dtypes = dt;
          items_.push_back(std::move(p));
          case_index_.push_back(ci);
        }
      }
    }
    ready_.assign(items_.size(), false);
    const int sets = std::max(1, options.rotating_sets);
    ReferenceCache* cache = options.reference_cache.get();
    worker_ = std::jthread([this, sets, run_seed, cache](std::stop_token stop) {
      for (size_t i = 0; i < items_.size(); ++i) {
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return stop.stop_requested() || static_cast<int64_t>(i) <= finished_ + ahead_; });
          if (stop.stop_requested()) return;
        }
        Prepared& p = items_[i];  // only this thread touches it until it is marked ready
        for (int s = 0; s < sets && p.error.empty() && !stop.stop_requested(); ++s) {
          // One set already far larger than any cache gains nothing from a
          // second: caches are flushed before every timed call anyway, and the
          // roofline floor and re-check catch a kernel that skips work.
          if (s == 1 && instance_bytes(p.sets[0]->instance) >= kSingleSetBytes) break;
          auto prepared = prepare_case(*p.entry, case_index_[i], true, p.dtypes,
                                       derive_seed(run_seed, p.entry->id + "|perf|" + p.label + "#" + std::to_string(s)), cache);
          if (!prepared) {
            p.error = "the task's performance case cannot be built: " + prepared.error().message;
            break;
          }
          p.sets.push_back(std::move(*prepared));
        }
        std::lock_guard lock(mutex_);
        ready_[i] = true;
        changed_.notify_all();
      }
    });
  }
  ~PerfCasePreparer() {
    worker_.request_stop();
    std::lock_guard lock(mutex_);
    changed_.notify_all();
  }

  size_t size() const { return items_.size(); }

  // Waits for case i and hands it over.
  Prepared take(size_t i) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return ready_[i]; });
    return std::move(items_[i]);
  }
  // Case i is timed: the next may be built.
  void finished(size_t i) {
    std::lock_guard lock(mutex_);
    finished_ = std::max<int64_t>(finished_, static_cast<int64_t>(i) + 1);
    changed_.notify_all();
  }

 private:
  int ahead_;
  std::vector<Prepared> items_;
  std::vector<size_t> case_index_;
  std::vector<bool> ready_;
  int64_t finished_ = 0;  // cases whose timing is over
  std::mutex mutex_;
  std::condition_variable_any changed_;
  std::jthread worker_;  // last: stopped and joined before the rest goes
};

// Whether a case's outputs have anything a kernel must produce.
bool has_output_elements(const Task& entry, const CaseInstance& inst) {
  for (const auto& p : entry.params) {
    if (p.kind == ParamKind::ScalarOutput) return true;
    if (p.kind == ParamKind::Tensor && p.is_written() && p.role != TensorRole::Scratch && !inst.none.count(p.name) &&
        inst.tensors.at(p.name).numel() > 0)
      return true;
    if (p.kind == ParamKind::TensorList && p.is_written())
      for (const auto& item : inst.lists.at(p.name).items)
        if (item && item->numel() > 0) return true;
  }
  return false;
}

// Whether an in-place list came back from the reference exactly as it was sent.
bool list_unchanged(const Param& p, const CaseInstance& inst, const CaseOutputs& expected) {
  if (p.role != TensorRole::InOut) return false;
  const auto e = expected.lists.find(p.name);
  const auto sent = inst.lists.find(p.name);
  if (e == expected.lists.end() || sent == inst.lists.end() || e->second.size() != sent->second.items.size()) return false;
  for (size_t k = 0; k < e->second.size(); ++k) {
    const auto& a = e->second[k];
    const auto& b = sent->second.items[k];
    if (a.has_value() != b.has_value() || (a && a->storage() != b->storage())) return false;
  }
  return true;
}

// Whether the right answer is to change nothing: every written parameter is
// an in-place tensor or list the reference left as it came (index_put_ with
// an empty index, a batched BLAS call with n == 0), or a view-or-copy output
// ATen answers with an alias (contiguous of a contiguous tensor). Doing no
// device work is then correct, not a skipped computation.
bool reference_changes_nothing(const Task& entry, const CaseInstance& inst, const CaseOutputs& expected) {
  for (const auto& p : entry.params) {
    if (p.kind == ParamKind::ScalarOutput) return false;
    if (p.kind == ParamKind::TensorList && p.is_written()) {
      if (!list_unchanged(p, inst, expected)) return false;
      continue;
    }
    if (p.kind != ParamKind::Tensor || !p.is_written() || p.role == TensorRole::Scratch || inst.none.count(p.name)) continue;
    if (p.role == TensorRole::View && expected.views.count(p.name)) continue;  // an alias: metadata only
    if (p.role != TensorRole::InOut || inst.aliases.count(p.name)) return false;
    const auto e = expected.tensors.find(p.name);
    if (e == expected.tensors.end() || e->second.storage() != inst.tensors.at(p.name).storage()) return false;
  }
  return true;
}

// The names of the inputs an output lives on (written on purpose).
std::set<std::string> alias_hosts(const CaseInstance& inst) {
  std::set<std::string> hosts;
  for (const auto& [target, host] : inst.aliases) hosts.insert(host);
  return hosts;
}

// The hash of an input's whole allocation (padding and gaps between list
// items included) as the harness sent it, to compare with the hash the runner
// takes after the calls; none for a parameter that is not a checked input
// (not a tensor or list, absent, or an output lives on it).
std::optional<uint64_t> sent_input_hash(const Param& p, const CaseInstance& inst, const std::set<std::string>& hosts) {
  if (p.role != TensorRole::Input || inst.none.count(p.name) || hosts.count(p.name)) return std::nullopt;
  if (p.kind == ParamKind::Tensor) {
    const HostTensor& sent = inst.tensors.at(p.name);
    return wire::hash_bytes(sent.storage().data(), sent.storage().size());
  }
  if (p.kind == ParamKind::TensorList) {
    const ListInstance& list = inst.lists.at(p.name);
    return wire::hash_bytes(list.packed.data(), list.packed.size());
  }
  return std::nullopt;
}

// L2 checks on one call: device work, inputs unchanged, outputs written,
// nothing outside an output's view or a list's items changed.
void check_call_integrity(Verdict& v, const Task& entry, const CaseInstance& inst, const CaseOutputs& expected,
                          const CaseOutputs& got, const wire::JobResult& result, uint8_t poison, const std::string& label) {
  if (entry.device_work != DeviceWork::None && has_output_elements(entry, inst) &&
      !reference_changes_nothing(entry, inst, expected)) {
    const int64_t copies = std::max<int64_t>(result.copies, 0);
    const bool copy_counts = entry.device_work == DeviceWork::Copy;
    if (result.launches == 0 && !(copy_counts && copies > 0)) {
      // Library kernels (cuBLAS and the like) are not the candidate's own work.
      if (result.library_launches > 0)
        add_finding(v, "library-only-launches", "L2", "reject",
                    "the call launched only library kernels (" + std::to_string(result.library_launches) +
                        " launch(es), e.g. cuBLAS) and no kernel of its own",
                    label);
      else
        add_finding(v, "no-device-work", "L2", "reject",
                    copy_counts ? "the call issued no device work (no kernel launch, no copy or fill command)"
                                : "the call issued no device work (no kernel launch or enqueue)",
                    label);
    }
  }
  const std::set<std::string> hosts = alias_hosts(inst);
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const auto& p = entry.params[i];
    if (auto h = sent_input_hash(p, inst, hosts)) {
      if (result.hashes[0][i] != *h)
        add_finding(v, "input-mutated", "L2", "reject",
                    p.kind == ParamKind::Tensor ? "input tensor '" + p.name + "' was modified by the kernel"
                                                : "an item (or a gap between items) of input list '" + p.name + "' was modified",
                    label);
      continue;
    }
    if (p.kind == ParamKind::Tensor && !inst.none.count(p.name)) {
      const HostTensor& sent = inst.tensors.at(p.name);
      if (p.role == TensorRole::Output && !inst.aliases.count(p.name)) {
        const HostTensor& after = got.tensors.at(p.name);
        // (unless the right answer itself has the poison's bytes, e.g. an i32 -1 under 0xFF)
        auto e = expected.tensors.find(p.name);
        if (view_all_poison(after, poison) && e != expected.tensors.end() && !view_all_poison(e->second, poison))
          add_finding(v, "output-untouched", "L2", "reject", "output '" + p.name + "' still holds the harness's poison pattern: the kernel never wrote it", label);
        if (int64_t w = gap_writes(after, poison))
          add_finding(v, "wrote-outside-output", "L2", "reject", std::to_string(w) + " element(s) of '" + p.name + "' storage outside its view were written", label);
      } else if (p.role == TensorRole::InOut && !inst.aliases.count(p.name)) {
        auto after = got.tensors.find(p.name);
        if (after == got.tensors.end()) continue;
        if (int64_t w = gap_changes(after->second, sent))
          add_finding(v, "wrote-outside-output", "L2", "reject", std::to_string(w) + " element(s) of in-place '" + p.name + "' storage outside its view were written", label);
      }
    } else if (p.kind == ParamKind::TensorList && p.role != TensorRole::View) {
      const ListInstance& list = inst.lists.at(p.name);
      if (p.role == TensorRole::Input) continue;
      const auto& bytes = result.outputs[0][i];
      if (bytes.size() != list.allocation_bytes) continue;
      const std::vector<char> gaps = list.gap_mask();
      int64_t written = 0;
      for (size_t b = 0; b < gaps.size(); ++b) {
        if (!gaps[b]) continue;
        const std::byte want = p.role == TensorRole::InOut ? list.packed[b] : std::byte{poison};
        written += bytes[b] != want;
      }
      if (written)
        add_finding(v, "wrote-outside-output", "L2", "reject",
                    std::to_string(written) + " byte(s) of list '" + p.name + "' outside its items were written (items do not lie back to back)", label);
    }
  }
}

}  // namespace

Verdict evaluate(const Task& task, const Platform& platform, const std::string& source, const EvalOptions& options,
                 const EvalHooks& hooks) {
  const HostMemoryScope host_memory;  // freed case buffers are reused, then given back with the verdict
  auto started = Clock::now();
  Verdict v;
  v.task = task.id;
  v.platform = platform.name;
  v.kernel_hash = hex64(wire::hash_bytes(source.data(), source.size()));
  auto finish = [&](Verdict& verdict) -> Verdict {
    verdict.total_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return verdict;
  };
  uint64_t run_seed = options.seed ? *options.seed : (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  const bool tracing = tracing_enabled();
  auto trace = [&](const std::string& what) {
    if (tracing)
      std::fprintf(stderr, "kgb-trace %8.3f s  %s\n", std::chrono::duration<double>(Clock::now() - started).count(), what.c_str());
  };
  const std::vector<const Task*> entries = task.entries();

  // 1. Lint
  v.stage = Stage::Lint;
  if (options.lint && hooks.lint) {
    auto t0 = Clock::now();
    LintOutcome lint = hooks.lint(source, task, platform);
    v.lint_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    v.diagnostics = lint.diagnostics;
    v.findings = lint.findings;
    if (has_reject(v)) {
      v.outcome = Outcome::LintRejected;
      for (const auto& f : v.findings)
        if (f.severity == "reject") {
          v.summary = "lint rejected the source: " + f.rule + " at " + f.location + ": " + f.message;
          break;
        }
      return finish(v);
    }
  }

  // 2. Compile
  v.stage = Stage::Compile;
  TempDir work("kgb-eval");
  bool any_timed_case = false;
  for (const Task* entry : entries)
    if (entry->timing != TimingMode::None)
      for (const auto& c : entry->performance) any_timed_case = any_timed_case || (case_selected(options, c) && timed_here(platform, c));
  // The baseline runner is needed only for timing, but starting it now lets
  // its set-up run while the candidate compiles.
  std::unique_ptr<RunnerSession> baseline;
  std::string baseline_missing;  // why there is no baseline, said on every timed case
  const bool timing = options.time && platform.has("time") && platform.has("run") && any_timed_case;
  if (timing && options.baseline && !platform.baseline_runner.empty()) {
    auto exe = build_root() / platform.baseline_runner;
    if (std::filesystem::exists(exe)) {
      baseline = std::make_unique<RunnerSession>(platform, exe, work.path());
      if (auto launched = baseline->launch(); !launched) {
        baseline_missing = "none (the baseline runner did not start: " + launched.error().message + ")";
        baseline.reset();
      }
    } else {
      baseline_missing = "none (baseline runner not built: " + platform.baseline_runner + ")";
    }
  }
  std::optional<PerfCasePreparer> perf_cases;
  if (timing) perf_cases.emplace(task, platform, options, run_seed, platform.backend == "cpu" ? 0 : 1);
  auto compiled = compile_candidate(task, platform, source, work.path(), hooks);
  v.compile_seconds = compiled.seconds;
  v.diagnostics.insert(v.diagnostics.end(), compiled.diagnostics.begin(), compiled.diagnostics.end());
  v.findings.insert(v.findings.end(), compiled.findings.begin(), compiled.findings.end());
  if (!compiled.infra_error.empty()) {
    v.outcome = Outcome::InfraError;
    v.summary = "toolchain problem: " + compiled.infra_error;
    return finish(v);
  }
  if (!compiled.ok) {
    v.outcome = Outcome::CompileError;
    auto first = std::find_if(v.diagnostics.begin(), v.diagnostics.end(), [](const Diagnostic& d) { return d.severity == "error" || d.severity == "fatal"; });
    v.summary = first == v.diagnostics.end() ? "compilation failed"
                                             : "compilation failed: " + (first->line ? first->file + ":" + std::to_string(first->line) + ": " : "") + first->message;
    return finish(v);
  }
  if (has_reject(v)) {
    v.outcome = Outcome::LintRejected;
    v.summary = "the compiled object uses a symbol outside the platform's allowlist";
    for (const auto& f : v.findings)
      if (f.severity == "reject") v.summary = f.rule + ": " + f.message;
    return finish(v);
  }
  if (!platform.has("run")) {
    v.stage = Stage::Done;
    v.outcome = Outcome::Passed;
    v.summary = "compiled (this platform is compile-only here)";
    return finish(v);
  }

  // 3. Check
  trace(compiled.cached ? "compiled (the same build earlier in this process: reused from memory)" : "compiled");
  v.stage = Stage::Check;
  auto check_start = Clock::now();
  RunnerSession runner(platform, compiled.executable, work.path());
  auto ready = runner.start(make_hello(task), std::max(10.0, options.check_timeout_seconds));
  if (!ready) {
    runner_failed(v, runner, ready.error(), "start-up", nullptr);
    if (ready.error().code == "child.spawn") {
      v.outcome = Outcome::InfraError;
      v.summary = ready.error().message;
    }
    return finish(v);
  }
  v.platform_facts = ready->device;
  trace("runner ready");
  bool all_passed = true;
  for (const Task* entry_ptr : entries) {
    const Task& entry = *entry_ptr;
    for (size_t ci = 0; ci < entry.correctness.size(); ++ci) {
      const Case& c = entry.correctness[ci];
      if (!case_selected(options, c)) continue;
      const bool deterministic = c.deterministic.value_or(entry.deterministic);
      for (const DTypeBinding& dt : case_dtypes(entry, c)) {
        for (int s = 0; s < options.seeds_per_case; ++s) {
          const std::string label = entry_label(entry, c.name + "/" + binding_label(dt) + "#" + std::to_string(s));
          auto prepared = prepare_case(entry, ci, false, dt, derive_seed(run_seed, task.id + "|" + label), nullptr);
          if (!prepared) {
            v.outcome = Outcome::InfraError;
            v.summary = prepared.error().code.rfind("reference", 0) == 0 ? prepared.error().message
                                                                          : "the task's case cannot be built: " + prepared.error().message;
            runner.finish(5);
            return finish(v);
          }
          const CaseInstance& inst = (*prepared)->instance;
          const CaseOutputs& expected = (*prepared)->expected;
          const Task& inst_entry = *inst.task;
          uint8_t poison = s % 2 == 0 ? 0xFF : 0xA5;
          auto job = make_job(inst_entry, {&inst}, wire::JobMode::Check, poison);
          CaseCheck pending;
          pending.name = entry_label(entry, c.name);
          pending.dtype = inst.dtype_label();
          pending.seed_index = s;
          auto result = runner.run(job, options.check_timeout_seconds, result_limit_for(job), nullptr);
          if (!result) {
            runner_failed(v, runner, result.error(), label, &pending);
            v.check_seconds = std::chrono::duration<double>(Clock::now() - check_start).count();
            return finish(v);
          }
          if (runner_rule_violation(v, runner, result->error, label)) {
            v.check_seconds = std::chrono::duration<double>(Clock::now() - check_start).count();
            return finish(v);
          }
          if (!result->error.empty()) {
            runner.finish(5);
            v.outcome = Outcome::RuntimeError;
            v.summary = "device error on case " + label + ": " + result->error;
            pending.status = "device-error";
            pending.message = result->error;
            v.cases.push_back(pending);
            v.child_stdout = cap(runner.out());
            v.child_stderr = cap(runner.err());
            return finish(v);
          }
          if (result->status != 0) {
            pending.status = "kernel-error";
            pending.message = "the kernel returned " + std::to_string(result->status);
            v.cases.push_back(pending);
            all_passed = false;
            continue;
          }
          CaseOutputs got = outputs_from(inst_entry, inst, *result, 0, false);
          // Random operators (first seed of every case): the same inputs
          // under another seed. An unchanged output is rejected below.
          std::optional<CaseOutputs> reseeded_outputs;
          if (s == 0) {
            CaseInstance reseeded = inst;
            bool has_random = false;
            for (const auto& p : inst_entry.params)
              if (p.kind == ParamKind::Scalar && p.random) {
                reseeded.scalars[p.name] = ScalarValue::of_int(static_cast<int64_t>(derive_seed(run_seed, label + p.name) >> 12));
                has_random = true;
              }
            if (has_random) {
              auto other = runner.run(make_job(inst_entry, {&reseeded}, wire::JobMode::Check, 0x5A), options.check_timeout_seconds,
                                      result_limit_for(job), nullptr);
              if (!other) {
                runner_failed(v, runner, other.error(), label + " (reseeded)", nullptr);
                return finish(v);
              }
              if (other->error.empty() && other->status == 0) reseeded_outputs = outputs_from(inst_entry, reseeded, *other, 0, false);
            }
          }
          // A custom check sees them as extra outputs named "<output>@other_seed"
          // (a name no parameter can have), so it can test independence across seeds.
          CaseCheck check;
          if (reseeded_outputs && entry.check == CheckKind::Custom) {
            CaseOutputs with_other = got;
            for (const auto& [name, t] : reseeded_outputs->tensors) with_other.tensors.emplace(name + "@other_seed", t);
            check = check_outputs(inst, expected, with_other);
          } else {
            check = check_outputs(inst, expected, got);
          }
          check.seed_index = s;
          check_call_integrity(v, inst_entry, inst, expected, got, *result, poison, label);
          // Determinism (first seed of every case): the same inputs again must give the same bits.
          if (s == 0 && deterministic && check.passed) {
            auto again = runner.run(make_job(inst_entry, {&inst}, wire::JobMode::Check, 0x5A), options.check_timeout_seconds,
                                    result_limit_for(job), nullptr);
            if (!again) {
              runner_failed(v, runner, again.error(), label + " (repeat)", nullptr);
              return finish(v);
            }
            std::string what;
            if (!same_outputs(got, outputs_from(inst_entry, inst, *again, 0, false), what))
              add_finding(v, "nondeterministic", "L2", "reject", what + " differs between two calls with identical inputs", label);
          }
          // Random operators: another seed on the same inputs must change the output.
          if (reseeded_outputs && check.passed) {
            int64_t total = 0, differing = 0;
            for (const auto& [name, a] : got.tensors) {
              const HostTensor& b = reseeded_outputs->tensors.at(name);
              OffsetWalker w(a, 0);
              for (int64_t k = 0; k < a.numel(); ++k, ++total, w.next()) differing += a.get_at(w.offset()) != b.get_at(w.offset());
            }
            if (total >= 64 && differing == 0)
              add_finding(v, "ignores-random-seed", "L2", "reject", "a different seed gave bitwise the same random output", label);
          }
          if (!check.passed) all_passed = false;
          v.cases.push_back(std::move(check));
        }
      }
    }
  }
  v.check_seconds = std::chrono::duration<double>(Clock::now() - check_start).count();
  if (!all_passed || has_reject(v)) {
    runner.finish(5);
    v.child_stdout = cap(runner.out());
    v.child_stderr = cap(runner.err());
    auto bad = std::find_if(v.cases.begin(), v.cases.end(), [](const CaseCheck& c) { return !c.passed; });
    if (!all_passed) {
      v.outcome = bad != v.cases.end() && bad->status == "kernel-error" ? Outcome::RuntimeError : Outcome::WrongResult;
      v.summary = "case " + bad->name + "/" + bad->dtype + ": " + bad->message;
      // Device code compiled at run time (OpenCL programs) reports its build
      // log on stderr in compiler form: a failed call with such errors is a
      // compile error, with the diagnostics.
      if (v.outcome == Outcome::RuntimeError) {
        auto runtime = parse_compiler_diagnostics(v.child_stderr);
        auto error = std::find_if(runtime.begin(), runtime.end(), [](const Diagnostic& d) { return d.severity == "error" || d.severity == "fatal"; });
        if (error != runtime.end()) {
          v.outcome = Outcome::CompileError;
          v.summary = "device code failed to build at run time: " + error->file + ":" + std::to_string(error->line) + ": " + error->message;
          v.diagnostics.insert(v.diagnostics.end(), runtime.begin(), runtime.end());
        }
      }
    } else {
      v.outcome = Outcome::CheatDetected;
      for (const auto& f : v.findings)
        if (f.severity == "reject") {
          v.summary = f.rule + " (" + f.location + "): " + f.message;
          break;
        }
    }
    return finish(v);
  }

  // 4. Time
  trace("checked");
  if (timing) {
    v.stage = Stage::Time;
    auto time_start = Clock::now();
    std::string baseline_kind;
    if (baseline) {
      auto b_ready = baseline->hello(make_hello(task), 30);
      if (!b_ready) {
        baseline_missing = "none (the baseline runner did not start: " + b_ready.error().message + ")";
        baseline->kill_now();
        baseline.reset();
      } else if (!b_ready->resolved) {
        baseline_missing = "none (no baseline implementation for this task)";
        baseline->finish(5);
        baseline.reset();
      } else {
        baseline_kind = b_ready->implementation;
      }
    }
    trace("baseline runner ready");
    wire::TimingRequest base_request;
    base_request.max_seconds = options.time_budget_seconds;
    base_request.target_rse = options.target_rse;
    base_request.flush_bytes = platform.backend == "cpu" ? flush_bytes_for_host() : 0;
    std::vector<double> speedups;
    // KGB_TIMING_LOCK=off: for a host where nothing else ever times.
    const char* lock_env = std::getenv("KGB_TIMING_LOCK");
    const bool timing_lock_disabled = lock_env && std::string_view(lock_env) == "off";
    for (size_t pc = 0; pc < perf_cases->size(); ++pc) {
      {
        PerfCasePreparer::Prepared prepared = perf_cases->take(pc);
        if (!prepared.error.empty()) {
          v.outcome = Outcome::InfraError;
          v.summary = prepared.error;
          return finish(v);
        }
        const Task& entry = *prepared.sets.front()->instance.task;
        const Case& c = *prepared.spec;
        const std::string label = prepared.label;
        std::vector<const CaseInstance*> set_ptrs;
        for (const auto& s : prepared.sets) set_ptrs.push_back(&s->instance);
        trace(label + ": inputs and references ready");
        auto job = make_job(entry, set_ptrs, wire::JobMode::Time, 0xFF);
        job.timing = base_request;
        job.timing.host_clock = entry.timing == TimingMode::Host;
        double timeout = 8 * job.timing.max_seconds + 60;
        CaseTiming ct;
        ct.name = entry_label(entry, c.name);
        ct.dtype = binding_label(prepared.dtypes).empty() ? std::string(dtype_name(set_ptrs.front()->dtype)) : binding_label(prepared.dtypes);
        ct.rechecked = true;

        // Interleaved, paired blocks (kgb/paired_speedup.h): each runner's
        // budget is split into `pairs` blocks, timed C B, B C, C B, ... with
        // the other runner stopped. Without a baseline one block does.
        const int pairs = baseline ? std::max(1, options.timing_pairs) : 1;
        wire::Job block_job = job;
        block_job.timing.max_seconds = job.timing.max_seconds / pairs;
        block_job.timing.min_iterations = std::max<uint32_t>(2, (job.timing.min_iterations + pairs - 1) / pairs);
        block_job.timing.max_iterations = std::max<uint32_t>(block_job.timing.min_iterations, job.timing.max_iterations / pairs);
        std::vector<double> candidate_times, candidate_host_times, baseline_times, baseline_host_times;
        std::vector<double> candidate_block_medians, baseline_block_medians;
        double candidate_wall = 0, baseline_wall = 0;
        // Per block, what the outside bound (kgb/timing_bound.h) compares.
        std::vector<BoundedBlock> candidate_blocks, baseline_blocks;
        bool baseline_ok = baseline != nullptr;
        std::string baseline_failure, baseline_wrong;

        // Re-checks what a candidate block's timed calls produced, on every
        // rotating set: no block may skip work.
        // A deterministic case must also give the same bits in the first and
        // the last block: nondeterminism that only shows at performance size
        // (large, aligned inputs) escapes the small cases' repeat call.
        const bool deterministic_case = c.deterministic.value_or(entry.deterministic);
        std::vector<uint64_t> first_block_hash(prepared.sets.size(), 0);
        // The hashes of the inputs as sent, per set (computed once): the
        // runner hashes every input allocation after a block's timed calls.
        std::vector<std::map<size_t, uint64_t>> sent_input_hash_of_set(prepared.sets.size());
        auto inputs_untouched = [&](const wire::JobResult& r, size_t s, int block) {
          const CaseInstance& inst = prepared.sets[s]->instance;
          if (r.hashes.size() <= s) return;
          const std::set<std::string> hosts = alias_hosts(inst);
          for (size_t i = 0; i < entry.params.size() && i < r.hashes[s].size(); ++i) {
            const Param& p = entry.params[i];
            if (r.hashes[s][i] == 0) continue;  // not hashed by the runner
            auto cached = sent_input_hash_of_set[s].find(i);
            if (cached == sent_input_hash_of_set[s].end()) {
              const std::optional<uint64_t> h = sent_input_hash(p, inst, hosts);
              if (!h) continue;
              cached = sent_input_hash_of_set[s].emplace(i, *h).first;
            }
            if (cached->second != r.hashes[s][i])
              add_finding(v, "input-mutated", "L2", "reject",
                          "input '" + p.name + "' (its allocation, padding included) was modified during the timed calls (input set " +
                              std::to_string(s) + ", timing block " + std::to_string(block + 1) + ")",
                          label);
          }
        };
        auto recheck = [&](wire::JobResult& r, int block) {
          for (size_t s = 0; s < prepared.sets.size() && ct.rechecked; ++s) {
            const CaseInstance& inst = prepared.sets[s]->instance;
            inputs_untouched(r, s, block);
            CaseOutputs outs = outputs_from(entry, inst, r, s, true);
            CaseCheck chk = check_outputs(inst, prepared.sets[s]->expected, outs);
            if (!chk.passed) {
              ct.rechecked = false;
              add_finding(v, "timed-output-wrong", "L2", "reject",
                          "outputs of timed calls are wrong on input set " + std::to_string(s) + " (timing block " +
                              std::to_string(block + 1) + "): " + chk.message,
                          label);
              continue;
            }
            if (!deterministic_case || (block != 0 && block != pairs - 1)) continue;
            const uint64_t h = output_bits_hash(outs);
            if (block == 0) first_block_hash[s] = h;
            else if (h != first_block_hash[s])
              add_finding(v, "nondeterministic", "L2", "reject",
                          "outputs of timed calls differ between timing blocks 1 and " + std::to_string(block + 1) +
                              " on input set " + std::to_string(s) + " (identical inputs, performance size)",
                          label);
          }
        };
        // The baseline is held to the same outputs: a speedup over a wrong
        // result would mean nothing.
        auto time_baseline_block = [&](int block) {
          double wall = 0;
          auto b = [&] {
            SuspendedWhileTiming quiet(&runner);
            return baseline->run(block_job, timeout, result_limit_for(block_job), &wall);
          }();
          baseline_wall += wall;
          if (!b || !b->error.empty() || b->status != 0 || b->times_us.empty()) {
            baseline_ok = false;
            baseline_failure = b ? (b->error.empty() ? "returned " + std::to_string(b->status) : b->error) : b.error().message;
            if (!b) {
              baseline->kill_now();
              baseline.reset();
              baseline_missing = "none (the baseline runner failed earlier: " + b.error().message + ")";
            }
            return;
          }
          if (block == 0)
            for (size_t s = 0; s < prepared.sets.size() && baseline_wrong.empty(); ++s) {
              const CaseInstance& inst = prepared.sets[s]->instance;
              CaseCheck chk = check_outputs(inst, prepared.sets[s]->expected, outputs_from(entry, inst, *b, s, true));
              if (!chk.passed) baseline_wrong = chk.message;
            }
          baseline_blocks.push_back(bounded_block(*b, wall));
          baseline_times.insert(baseline_times.end(), b->times_us.begin(), b->times_us.end());
          baseline_host_times.insert(baseline_host_times.end(), b->host_times_us.begin(), b->host_times_us.end());
          baseline_block_medians.push_back(timing_of(b->times_us).median_us);
        };

        // Exclusive use of the device for the paired blocks: another kgb
        // process timing on it would move both runners' figures.
        TimingLock device_lock;
        if (options.timing_lock_wait_seconds > 0 && !timing_lock_disabled) {
          auto lock = TimingLock::acquire(timing_lock_dir(), timing_lock_key(platform), options.timing_lock_wait_seconds);
          if (lock) {
            device_lock = std::move(*lock);
            if (device_lock.waited_seconds() > 0.01)
              trace(label + ": waited " + std::to_string(device_lock.waited_seconds()) + " s for the device's timing lock");
          } else {
            add_finding(v, "timing-not-exclusive", "L3", "warn",
                        lock.error().message + "; timed without it, so another process may have shared the device", label);
          }
        }
        bool inconsistent = false;
        std::optional<wire::JobResult> unchecked;  // the latest candidate block, re-checked beside the next baseline block
        int unchecked_block = 0;
        for (int k = 0; k < pairs; ++k) {
          // Warm-up once per runner: later blocks find code and data warm.
          block_job.timing.warmup = k == 0 ? job.timing.warmup : std::min<uint32_t>(job.timing.warmup, 1);
          const bool candidate_first = candidate_first_in_pair(k);
          for (int turn = 0; turn < 2; ++turn) {
            const bool candidate_turn = (turn == 0) == candidate_first;
            if (!candidate_turn) {
              if (!baseline_ok) continue;
              // On a device the host re-checks the previous candidate block
              // while the baseline runs (host work only, nothing competes for
              // the device); on the CPU everything runs alone.
              if (platform.backend != "cpu" && unchecked) {
                std::jthread baseline_timing([&] { time_baseline_block(k); });
                recheck(*unchecked, unchecked_block);
                unchecked.reset();
              } else {
                time_baseline_block(k);
              }
              continue;
            }
            double wall = 0;
            auto result = [&] {
              SuspendedWhileTiming quiet(baseline.get());
              return runner.run(block_job, timeout, result_limit_for(block_job), &wall);
            }();
            if (!result) {
              runner_failed(v, runner, result.error(), label + " (timing)", nullptr);
              return finish(v);
            }
            if (runner_rule_violation(v, runner, result->error, label + " (timing)")) return finish(v);
            if (!result->error.empty() || result->status != 0) {
              runner.finish(5);
              v.outcome = Outcome::RuntimeError;
              v.summary = "while timing " + label + ": " + (result->error.empty() ? "the kernel returned " + std::to_string(result->status) : result->error);
              return finish(v);
            }
            candidate_wall += wall;
            trace(label + ": candidate block " + std::to_string(k + 1) + "/" + std::to_string(pairs) + " timed (runner " +
                  std::to_string(result->child_seconds) + " s of " + std::to_string(wall) + " s)");
            // L3: the reported iterations must fit the wall time the parent saw.
            const double reported = std::accumulate(result->times_us.begin(), result->times_us.end(), 0.0) / 1e6;
            if (reported > wall * 1.05 + 0.01 && !inconsistent) {
              inconsistent = true;
              add_finding(v, "timing-inconsistent", "L3", "reject", "the runner reported more time in calls than elapsed in total", label);
            }
            candidate_blocks.push_back(bounded_block(*result, wall));
            candidate_times.insert(candidate_times.end(), result->times_us.begin(), result->times_us.end());
            candidate_host_times.insert(candidate_host_times.end(), result->host_times_us.begin(), result->host_times_us.end());
            candidate_block_medians.push_back(timing_of(result->times_us).median_us);
            if (unchecked) recheck(*unchecked, unchecked_block);
            if (platform.backend == "cpu") {
              recheck(*result, k);
            } else {
              unchecked = std::move(*result);
              unchecked_block = k;
            }
          }
        }
        if (unchecked) recheck(*unchecked, unchecked_block);
        trace(label + ": candidate outputs re-checked");
        check_timing_bound(v, label, block_job.timing.max_iterations, platform.backend != "cpu" && !job.timing.host_clock,
                           candidate_blocks, baseline_ok ? baseline_blocks : std::vector<BoundedBlock>{});
        if (tracing && !candidate_times.empty()) {
          std::vector<double> sorted = candidate_times;
          std::sort(sorted.begin(), sorted.end());
          std::fprintf(stderr, "kgb-trace            times (us): min %.1f, p10 %.1f, p25 %.1f, median %.1f, p75 %.1f, max %.1f, n %zu\n",
                       sorted.front(), quantile(sorted, 0.1), quantile(sorted, 0.25), quantile(sorted, 0.5), quantile(sorted, 0.75),
                       sorted.back(), sorted.size());
        }
        ct.candidate = timing_of(candidate_times);
        ct.candidate_host = timing_of(candidate_host_times);
        // L3 hybrid timing: device events only see the harness stream; a host
        // clock around a device-wide synchronise sees everything. Work hidden
        // on other streams or deferred past the call shows up as a gap. The
        // host's own share of that gap (scheduling on a loaded host, which on
        // a CPU OpenCL device such as PoCL can triple it for any kernel) is
        // measured by the baseline in the same interleaved blocks: the
        // candidate is allowed the baseline's host/event ratio, at least 1.
        const Timing baseline_timing = timing_of(baseline_times);
        double host_ratio_allowed = 1;
        if (!baseline_times.empty() && !baseline_host_times.empty()) {
          const double b_event = baseline_timing.median_us, b_host = timing_of(baseline_host_times).median_us;
          if (b_event > 0 && b_host > b_event) host_ratio_allowed = b_host / b_event;
        }
        if (platform.backend != "cpu" && !job.timing.host_clock &&
            ct.candidate_host.median_us > 2 * host_ratio_allowed * ct.candidate.median_us + 200)
          add_finding(v, "hybrid-timing-mismatch", "L3", "reject",
                      "host wall time to a device-wide synchronise (" + std::to_string(ct.candidate_host.median_us) +
                          " us) is far above the event time on the harness stream (" + std::to_string(ct.candidate.median_us) +
                          " us; the baseline's host/event ratio here is " + std::to_string(host_ratio_allowed) +
                          "): work runs outside the harness stream or after the call returned",
                      label);
        const RooflinePlacement roof = place_on_roofline(platform, *set_ptrs.front(), ct.candidate.median_us);
        ct.floor_us = roof.floor_us;
        ct.achieved_gflops = roof.achieved_gflops;
        ct.achieved_gbs = roof.achieved_gbs;
        ct.compute_fraction = roof.compute_fraction;
        ct.bandwidth_fraction = roof.bandwidth_fraction;
        ct.bound = roof.bound;
        if (ct.floor_us > 0 && ct.candidate.median_us > 0) {
          ct.roofline_fraction = ct.floor_us / ct.candidate.median_us;
          if (ct.candidate.median_us < ct.floor_us)
            add_finding(v, "below-roofline", "L3", "reject",
                        "median " + std::to_string(ct.candidate.median_us) + " us is below the physical floor of " +
                            std::to_string(ct.floor_us) + " us for this case",
                        label);
        }
        if (!baseline_kind.empty() || baseline) ct.baseline_kind = baseline_kind;
        if (baseline_ok && !baseline_times.empty()) {
          if (baseline_wrong.empty()) {
            ct.baseline = baseline_timing;
            const PairedSpeedup paired = paired_speedup(baseline_block_medians, candidate_block_medians,
                                                        derive_seed(run_seed, entry.id + "|speedup|" + label));
            ct.speedup = paired.estimate;
            ct.speedup_low = paired.low;
            ct.speedup_high = paired.high;
            ct.speedup_pairs = paired.pairs;
            ct.speedup_unstable = paired.relative_width() > options.unstable_interval;
            if (ct.speedup > 0) speedups.push_back(ct.speedup);
          } else {
            ct.baseline_kind += " (wrong outputs, not compared: " + baseline_wrong + ")";
          }
          trace(label + ": baseline timed in " + std::to_string(baseline_block_medians.size()) + " block(s), " +
                std::to_string(baseline_wall) + " s");
        } else if (!baseline_failure.empty()) {
          ct.baseline_kind = baseline_kind + " (failed: " + baseline_failure + ")";
        } else if (!baseline_missing.empty()) {
          ct.baseline_kind = baseline_missing;
        }
        v.timings.push_back(std::move(ct));
      }
      perf_cases->finished(pc);
    }
    if (baseline) baseline->finish(5);
    if (!speedups.empty()) {
      double log_sum = 0;
      for (double s : speedups) log_sum += std::log(s);
      v.speedup = std::exp(log_sum / static_cast<double>(speedups.size()));
    }
    v.time_seconds = std::chrono::duration<double>(Clock::now() - time_start).count();
  }
  ExitStatus exit = runner.finish(5);
  v.child_stdout = cap(runner.out());
  v.child_stderr = cap(runner.err());
  if (has_reject(v)) {
    v.outcome = Outcome::CheatDetected;
    for (const auto& f : v.findings)
      if (f.severity == "reject") {
        v.summary = f.rule + " (" + f.location + "): " + f.message;
        break;
      }
    return finish(v);
  }
  (void)exit;
  v.stage = Stage::Done;
  v.outcome = Outcome::Passed;
  std::ostringstream os;
  os << "passed " << v.cases.size() << " correctness checks";
  const bool untimed_task = std::all_of(entries.begin(), entries.end(), [](const Task* e) { return e->timing == TimingMode::None; });
  if (!v.timings.empty()) {
    os << "; " << v.timings.size() << " performance case(s) timed";
    if (v.speedup > 0) os << ", speedup " << std::fixed << std::setprecision(2) << v.speedup << "x (geomean)";
  } else if (untimed_task) {
    os << "; untimed task (its result is metadata: views, allocation), left out of speedups";
  } else if (timing) {
    os << "; no performance case selected";
  } else if (options.time && platform.has("emulated")) {
    os << "; timing unavailable (emulated platform)";
  } else if (options.time && platform.has("time") && !any_timed_case) {
    os << "; no performance case is timed on this platform";
  } else {
    os << "; not timed";
  }
  v.summary = os.str();
  return finish(v);
}

namespace {

// Why the platform's baseline runner has no baseline for the task, or
// nullopt when it has one. Asked with a hello alone (nothing is timed), so a
// check-only validation finds a missing baseline too.
std::optional<std::string> missing_baseline(const Task& task, const Platform& platform) {
  if (platform.baseline_runner.empty()) return "the platform names no baseline runner";
  const std::filesystem::path exe = build_root() / platform.baseline_runner;
  if (!std::filesystem::exists(exe)) return "baseline runner not built: " + platform.baseline_runner;
  TempDir work("kgb-baseline");
  RunnerSession runner(platform, exe, work.path());
  auto ready = runner.start(make_hello(task), 30);
  if (!ready) {
    runner.kill_now();
    return "the baseline runner did not start: " + ready.error().message;
  }
  runner.finish(5);
  if (!ready->resolved) return "no baseline implementation for this task";
  return std::nullopt;
}

}  // namespace

std::vector<std::string> task_gaps(const Task& task) {
  std::vector<std::string> gaps;
  namespace fs = std::filesystem;
  for (const char* file : {"cpu.cpp", "cuda.cu", "opencl.cpp", "hip.hip"})
    if (!fs::exists(task.solution_path(file))) gaps.push_back(std::string("no bundled solution solutions/") + file);
  const fs::path backends = source_root() / "backends";
  const bool aten = task.upstream_name.rfind("aten::", 0) == 0;
  auto has_file = [&](const fs::path& folder, std::initializer_list<const char*> extensions) {
    for (const char* ext : extensions)
      if (fs::exists(folder / (task.name + ext))) return true;
    return false;
  };
  // CPU and CUDA: an ATen task is covered by the operator called by name.
  if (!aten && !has_file(backends / "cpu" / "baselines" / task.source, {".cpp"}))
    gaps.push_back("no CPU baseline backends/cpu/baselines/" + task.source + "/" + task.name + ".cpp (it is also the oracle of the cross-check)");
  if (!has_file(backends / "opencl" / "baselines" / task.source, {".cpp"}))
    gaps.push_back("no OpenCL baseline backends/opencl/baselines/" + task.source + "/" + task.name + ".cpp");
  if (!aten && !has_file(backends / "cuda" / "baselines" / task.source, {".cpp", ".cu"}))
    gaps.push_back("no CUDA baseline backends/cuda/baselines/" + task.source + "/" + task.name + ".{cpp,cu}");
  return gaps;
}

TaskValidation validate_task(const Task& task, const Platform& platform, const EvalOptions& options) {
  const HostMemoryScope host_memory;  // the degeneracy checks below allocate per case as evaluate() does
  TaskValidation tv;
  tv.task = task.id;
  tv.gaps = task_gaps(task);
  uint64_t seed = options.seed ? *options.seed : 12345;
  for (const Task* entry_ptr : task.entries()) {
    const Task& entry = *entry_ptr;
    if (!find_reference(entry.key())) {
      tv.problems.push_back("no C++ reference registered for " + entry.key());
      continue;
    }
    if (entry.check == CheckKind::Custom && !find_check(entry.key())) tv.problems.push_back("no custom check registered for " + entry.key());
    for (size_t ci = 0; ci < entry.correctness.size(); ++ci) {
      const Case& c = entry.correctness[ci];
      for (const DTypeBinding& dt : case_dtypes(entry, c)) {
        auto prepared = prepare_case(entry, ci, false, dt, derive_seed(seed, entry.key() + c.name), nullptr);
        if (!prepared) {
          tv.problems.push_back(prepared.error().message);
          continue;
        }
        if (c.expect_zero) continue;
        const std::string where = "case " + entry_label(entry, c.name) + "/" + binding_label(dt);
        auto degenerate = [&](const std::string& name, const HostTensor& out) {
          if (out.numel() == 0 || is_integral(out.dtype())) return;
          double largest = 0;
          for (int64_t i = 0; i < out.numel(); ++i) {
            double x = is_complex(out.dtype()) ? std::abs(out.get_complex(i)) : std::fabs(out.get(i));
            if (!std::isnan(x)) largest = std::max(largest, x);
          }
          // All zeros, or too small to tell a wrong kernel from a right one.
          if (largest <= entry.tolerance.atol)
            tv.problems.push_back(where + ": reference output '" + name + "' is degenerate (max |x| = " + std::to_string(largest) + ")");
        };
        const CaseOutputs& out = (*prepared)->expected;
        for (const auto& p : entry.params) {
          if (!p.is_written() || p.role == TensorRole::Scratch || p.role == TensorRole::View) continue;
          if (output_rule_ignored(entry, p.name)) continue;
          if (p.kind == ParamKind::Tensor) {
            if (auto it = out.tensors.find(p.name); it != out.tensors.end()) degenerate(p.name, it->second);
          } else if (auto it = out.lists.find(p.name); it != out.lists.end()) {
            for (size_t k = 0; k < it->second.size(); ++k)
              if (it->second[k]) degenerate(p.name + "[" + std::to_string(k) + "]", *it->second[k]);
          }
        }
      }
    }
  }
  auto solution = bundled_solution(task, platform.solution_file);
  if (solution) {
    tv.solution = evaluate(task, platform, *solution, options);
    if (!tv.solution->passed()) tv.problems.push_back("bundled solution: " + std::string(outcome_name(tv.solution->outcome)) + ": " + tv.solution->summary);
    for (const auto& f : tv.solution->findings)
      if (f.severity == "warn") tv.problems.push_back("bundled solution warning: " + f.rule + ": " + f.message);
    // A timed solution must have been compared with a baseline.
    for (const auto& t : tv.solution->timings)
      if (!t.baseline) {
        tv.problems.push_back("no baseline time on case " + t.name + "/" + t.dtype + ": " + (t.baseline_kind.empty() ? "none" : t.baseline_kind));
        break;
      }
  } else {
    tv.problems.push_back("no bundled solution " + platform.solution_file);
  }
  // A platform that times needs something to compare with.
  if (platform.has("time") && options.baseline)
    if (auto why = missing_baseline(task, platform)) tv.problems.push_back("no baseline on " + platform.name + ": " + *why);
  // Warnings on a bundled solution are reported but do not fail the task.
  tv.passed = std::none_of(tv.problems.begin(), tv.problems.end(), [](const std::string& p) { return p.rfind("bundled solution warning", 0) != 0; });
  return tv;
}

}  // namespace kgb
