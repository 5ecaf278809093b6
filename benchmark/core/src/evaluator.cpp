#include "kgb/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <numeric>
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
  Result<wire::Ready> start(const std::string& task_id, double timeout) {
    if (auto launched = launch(); !launched) return launched.error();
    return hello(task_id, timeout);
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

  Result<wire::Ready> hello(const std::string& task_id, double timeout) {
    if (!child_) return make_error("child.spawn", "the runner was not started");
    auto sent = child_->send(wire::MessageType::Hello, wire::encode_hello(task_id), deadline_after(timeout));
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
  for (const auto& p : job.params)
    if (p.is_tensor) per_set += p.tensor.storage_bytes();
  return per_set * std::max<size_t>(job.sets.size(), 1) + 64 * 1024 * 1024;
}

// Rebuilds the kernel's view of every output (and in-place) tensor from a
// result set, copying (const) or moving (mutable) the bytes. Inputs are not
// included: checks read them from the instance.
template <class SetOutputs>
std::map<std::string, HostTensor> outputs_of(const Task& task, const CaseInstance& inst, SetOutputs& outputs) {
  std::map<std::string, HostTensor> got;
  for (size_t i = 0; i < task.params.size(); ++i) {
    const auto& p = task.params[i];
    if (p.kind != ParamKind::Tensor || p.role == TensorRole::Input) continue;
    const HostTensor& sent = inst.tensors.at(p.name);
    HostTensor& t = got.emplace(p.name, HostTensor(sent.dtype(), sent.sizes(), sent.strides(), 0, sent.offset())).first->second;
    auto& bytes = outputs[i];
    // A result of the wrong size keeps the sent bytes (and fails the check).
    if (bytes.size() != sent.storage().size()) t.storage() = sent.storage();
    else if constexpr (std::is_const_v<SetOutputs>) t.storage() = bytes;
    else t.storage() = std::move(bytes);
  }
  return got;
}

std::map<std::string, HostTensor> tensors_after(const Task& task, const CaseInstance& inst, const wire::JobResult& r,
                                                size_t set) {
  return outputs_of(task, inst, std::as_const(r.outputs[set]));
}

// As tensors_after, for a result looked at once: its output bytes are moved,
// which spares a copy of every large output of a timed case.
std::map<std::string, HostTensor> take_tensors_after(const Task& task, const CaseInstance& inst, wire::JobResult& r,
                                                     size_t set) {
  return outputs_of(task, inst, r.outputs[set]);
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

void add_finding(Verdict& v, std::string rule, std::string layer, std::string severity, std::string message,
                 std::string location) {
  for (const auto& f : v.findings)
    if (f.rule == rule && f.location == location) return;
  v.findings.push_back({std::move(rule), std::move(layer), std::move(severity), std::move(message), std::move(location)});
}

bool has_reject(const Verdict& v) {
  return std::any_of(v.findings.begin(), v.findings.end(), [](const Finding& f) { return f.severity == "reject"; });
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

double roofline_floor_us(const Platform& platform, const CaseInstance& inst) {
  auto flops = evaluate_case_expression(inst, inst.task->flops);
  auto bytes = evaluate_case_expression(inst, inst.task->bytes);
  double floor = 0;
  double peak = inst.dtype == DType::F64 ? platform.peak.gflops_fp64
                : (inst.dtype == DType::F16 || inst.dtype == DType::BF16) ? std::max(platform.peak.gflops_fp16, platform.peak.gflops_fp32)
                                                                          : platform.peak.gflops_fp32;
  double bandwidth = platform.peak.bandwidth_gbs;
  if (platform.peak.per_core) {
    double cores = std::max(1u, std::thread::hardware_concurrency());
    peak *= cores;
    bandwidth *= cores;
  }
  if (flops && *flops > 0 && peak > 0) floor = std::max(floor, *flops / (peak * 1e9) * 1e6);
  if (bytes && *bytes > 0 && bandwidth > 0) floor = std::max(floor, *bytes / (bandwidth * 1e9) * 1e6);
  return floor;
}

bool case_selected(const EvalOptions& options, const Case& c) {
  return options.case_filter.empty() || glob_match(options.case_filter, c.name);
}

}  // namespace

wire::Job make_job(const Task& task, const std::vector<const CaseInstance*>& sets, wire::JobMode mode, uint8_t poison) {
  wire::Job job;
  job.mode = mode;
  job.poison = poison;
  const CaseInstance& first = *sets.front();
  for (const auto& p : task.params) {
    wire::ParamDesc d;
    if (p.kind == ParamKind::Tensor) {
      const HostTensor& t = first.tensors.at(p.name);
      d.is_tensor = true;
      d.tensor.dtype = static_cast<int32_t>(t.dtype());
      d.tensor.rank = t.rank();
      for (int i = 0; i < t.rank(); ++i) {
        d.tensor.sizes[i] = t.sizes()[i];
        d.tensor.strides[i] = t.strides()[i];
      }
      d.tensor.storage_elements = t.storage_elements();
      d.tensor.offset = t.offset();
      d.tensor.role = static_cast<uint8_t>(p.role == TensorRole::Input ? wire::Role::Input
                                           : p.role == TensorRole::Output ? wire::Role::Output
                                                                          : wire::Role::InOut);
    } else {
      double v = first.scalars.at(p.name);
      if (p.scalar_type == ScalarType::Float64) d.scalar.f = v;
      else d.scalar.i = static_cast<int64_t>(std::llround(v));
    }
    job.params.push_back(d);
  }
  for (const CaseInstance* inst : sets) {
    std::vector<std::span<const std::byte>> set;
    for (const auto& p : task.params) {
      if (p.kind == ParamKind::Tensor && p.role != TensorRole::Output) set.emplace_back(inst->tensors.at(p.name).storage());
      else set.emplace_back();
    }
    job.sets.push_back(std::move(set));
  }
  return job;
}

void set_default_eval_hooks(EvalHooks hooks) { hooks_storage() = std::move(hooks); }
const EvalHooks& default_eval_hooks() { return hooks_storage(); }

std::string generate_glue(const Task& task) {
  std::ostringstream os;
  os << "// Generated: adapts " << task.entry << " to the runner's uniform call.\n"
     << "#include <string.h>\n#include \"kgb_runner_abi.h\"\n\n"
     << entry_declaration(task) << "\n\n"
     << "static int kgb_glue_invoke(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {\n"
     << "  (void)t; (void)s;\n  return " << task.entry << "(";
  for (size_t i = 0; i < task.params.size(); ++i) {
    const auto& p = task.params[i];
    if (p.kind == ParamKind::Tensor) os << "t[" << i << "]";
    else if (p.scalar_type == ScalarType::Float64) os << "s[" << i << "].f";
    else if (p.scalar_type == ScalarType::Bool) os << "(int)s[" << i << "].i";
    else os << "s[" << i << "].i";
    os << ", ";
  }
  os << "stream);\n}\n\n"
     << "extern \"C\" kgb_invoke_fn kgb_runner_resolve(const char* task_id) {\n"
     << "  return strcmp(task_id, \"" << task.id << "\") == 0 ? kgb_glue_invoke : (kgb_invoke_fn)0;\n}\n";
  return os.str();
}

CompileOutput compile_candidate(const Task& task, const Platform& platform, const std::string& source,
                                const std::filesystem::path& work_dir, const EvalHooks& hooks) {
  CompileOutput out;
  auto start = Clock::now();
  std::string source_name = "candidate." + platform.source_extension;
  {
    std::ofstream(work_dir / source_name, std::ios::binary) << source;
    std::ofstream(work_dir / "glue.cpp") << generate_glue(task);
  }
  std::map<std::string, std::string> values{
      {"source", source_name},
      {"object", "candidate.o"},
      {"glue", "glue.cpp"},
      {"exe", "candidate"},
      {"abi", abi_include_dir().string()},
      {"runner_include", (source_root() / "backends" / "common" / "include").string()},
      {"runner", (build_root() / platform.runner_library).string()},
      {"source_root", source_root().string()},
      {"build_root", build_root().string()},
  };
  auto run_step = [&](const std::vector<std::string>& templ, const char* what) -> bool {
    std::vector<std::string> argv;
    for (const auto& a : templ) argv.push_back(substitute(a, values));
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
  if (!platform.has("compile_only") || !platform.link_command.empty()) {
    if (platform.link_command.empty() || !run_step(platform.link_command, "link")) {
      out.ok = platform.link_command.empty();
      out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      return out;
    }
    out.executable = work_dir / "candidate";
  }
  out.ok = true;
  out.log = cap(out.log, 64 * 1024);
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

namespace {

constexpr int64_t kSingleSetBytes = 64ll << 20;

int64_t instance_bytes(const CaseInstance& inst) {
  int64_t bytes = 0;
  for (const auto& [name, t] : inst.tensors) bytes += static_cast<int64_t>(t.storage().size());
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
    const Case* spec = nullptr;
    DType dtype = DType::F32;
    std::vector<CaseInstance> sets;
    std::vector<std::map<std::string, HostTensor>> expected;
    std::string error;  // the case cannot be built (a task bug): infrastructure error
  };

  PerfCasePreparer(const Task& task, const EvalOptions& options, uint64_t run_seed, int ahead) : ahead_(ahead) {
    for (const auto& c : task.performance) {
      if (!case_selected(options, c)) continue;
      for (DType dt : case_dtypes(task, c)) {
        Prepared p;
        p.label = c.name + "/" + std::string(dtype_name(dt));
        p.spec = &c;
        p.dtype = dt;
        items_.push_back(std::move(p));
      }
    }
    ready_.assign(items_.size(), false);
    const int sets = std::max(1, options.rotating_sets);
    worker_ = std::jthread([this, &task, sets, run_seed](std::stop_token stop) {
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
          if (s == 1 && instance_bytes(p.sets[0]) >= kSingleSetBytes) break;
          auto inst = instantiate_case(task, *p.spec, p.dtype, derive_seed(run_seed, task.id + "|perf|" + p.label + "#" + std::to_string(s)));
          if (!inst) {
            p.error = "the task's performance case cannot be built: " + inst.error().message;
            break;
          }
          auto ref = run_reference(*inst);
          if (!ref) {
            p.error = ref.error().message;
            break;
          }
          p.sets.push_back(std::move(*inst));
          p.expected.push_back(std::move(*ref));
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
  std::vector<bool> ready_;
  int64_t finished_ = 0;  // cases whose timing is over
  std::mutex mutex_;
  std::condition_variable_any changed_;
  std::jthread worker_;  // last: stopped and joined before the rest goes
};

}  // namespace

Verdict evaluate(const Task& task, const Platform& platform, const std::string& source, const EvalOptions& options,
                 const EvalHooks& hooks) {
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
  // The baseline runner is needed only for timing, but starting it now lets
  // its set-up run while the candidate compiles.
  std::unique_ptr<RunnerSession> baseline;
  std::string baseline_missing;  // why there is no baseline, said on every timed case
  const bool timing = options.time && platform.has("time") && platform.has("run") && !task.performance.empty();
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
  if (timing) perf_cases.emplace(task, options, run_seed, platform.backend == "cpu" ? 0 : 1);
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
  trace("compiled");
  v.stage = Stage::Check;
  auto check_start = Clock::now();
  RunnerSession runner(platform, compiled.executable, work.path());
  auto ready = runner.start(task.id, std::max(10.0, options.check_timeout_seconds));
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
  for (const auto& c : task.correctness) {
    if (!case_selected(options, c)) continue;
    for (DType dt : case_dtypes(task, c)) {
      for (int s = 0; s < options.seeds_per_case; ++s) {
        std::string label = c.name + "/" + std::string(dtype_name(dt)) + "#" + std::to_string(s);
        auto inst = instantiate_case(task, c, dt, derive_seed(run_seed, task.id + "|" + label));
        if (!inst) {
          v.outcome = Outcome::InfraError;
          v.summary = "the task's case cannot be built: " + inst.error().message;
          runner.finish(5);
          return finish(v);
        }
        auto expected = run_reference(*inst);
        if (!expected) {
          v.outcome = Outcome::InfraError;
          v.summary = expected.error().message;
          runner.finish(5);
          return finish(v);
        }
        uint8_t poison = s % 2 == 0 ? 0xFF : 0xA5;
        auto job = make_job(task, {&*inst}, wire::JobMode::Check, poison);
        CaseCheck pending;
        pending.name = c.name;
        pending.dtype = std::string(dtype_name(dt));
        pending.seed_index = s;
        auto result = runner.run(job, options.check_timeout_seconds, result_limit_for(job), nullptr);
        if (!result) {
          runner_failed(v, runner, result.error(), label, &pending);
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
        // An empty output needs no device work (and zero-sized launches are invalid).
        bool has_output_elements = false;
        for (const auto& p : task.params)
          if (p.kind == ParamKind::Tensor && p.role != TensorRole::Input && inst->tensors.at(p.name).numel() > 0)
            has_output_elements = true;
        if (result->launches == 0 && has_output_elements) {
          // Library kernels (cuBLAS and the like) are not the candidate's own work.
          if (result->library_launches > 0)
            add_finding(v, "library-only-launches", "L2", "reject",
                        "the call launched only library kernels (" + std::to_string(result->library_launches) +
                            " launch(es), e.g. cuBLAS) and no kernel of its own",
                        label);
          else
            add_finding(v, "no-device-work", "L2", "reject", "the call issued no device work (no kernel launch or enqueue)", label);
        }
        auto got = tensors_after(task, *inst, *result, 0);
        CaseCheck check = check_outputs(*inst, *expected, got);
        check.seed_index = s;
        // L2: inputs must come back unchanged, outputs must have been written,
        // and nothing outside an output's view may change.
        for (size_t i = 0; i < task.params.size(); ++i) {
          const auto& p = task.params[i];
          if (p.kind != ParamKind::Tensor) continue;
          const HostTensor& sent = inst->tensors.at(p.name);
          if (p.role == TensorRole::Input) {
            uint64_t h = wire::hash_bytes(sent.storage().data(), sent.storage().size());
            if (result->hashes[0][i] != h)
              add_finding(v, "input-mutated", "L2", "reject", "input tensor '" + p.name + "' was modified by the kernel", label);
          } else if (p.role == TensorRole::Output) {
            const HostTensor& after = got.at(p.name);
            // (unless the right answer itself has the poison's bytes, e.g. an i32 -1 under 0xFF)
            if (view_all_poison(after, poison) && !view_all_poison(expected->at(p.name), poison))
              add_finding(v, "output-untouched", "L2", "reject", "output '" + p.name + "' still holds the harness's poison pattern: the kernel never wrote it", label);
            if (int64_t w = gap_writes(after, poison))
              add_finding(v, "wrote-outside-output", "L2", "reject", std::to_string(w) + " element(s) of '" + p.name + "' storage outside its view were written", label);
          }
        }
        // Determinism (first seed of every case): the same inputs again must give the same bits.
        if (s == 0 && task.deterministic && check.passed) {
          auto again = runner.run(make_job(task, {&*inst}, wire::JobMode::Check, 0x5A), options.check_timeout_seconds, result_limit_for(job), nullptr);
          if (!again) {
            runner_failed(v, runner, again.error(), label + " (repeat)", nullptr);
            return finish(v);
          }
          auto first_outputs = tensors_after(task, *inst, *result, 0), second_outputs = tensors_after(task, *inst, *again, 0);
          for (size_t i = 0; i < task.params.size(); ++i) {
            const auto& p = task.params[i];
            if (p.kind != ParamKind::Tensor || p.role == TensorRole::Input) continue;
            const HostTensor &a = first_outputs.at(p.name), &b = second_outputs.at(p.name);
            bool same = true;
            int32_t size = dtype_size(a.dtype());
            OffsetWalker w(a, 0);
            for (int64_t k = 0; k < a.numel() && same; ++k, w.next())
              same = std::memcmp(a.data() + w.offset() * size, b.data() + w.offset() * size, size) == 0;
            if (!same) add_finding(v, "nondeterministic", "L2", "reject", "output '" + p.name + "' differs between two calls with identical inputs", label);
          }
        }
        // Random operators: another seed on the same inputs must change the output.
        if (s == 0 && task.check == CheckKind::Statistical && check.passed) {
          CaseInstance reseeded = *inst;
          bool has_random = false;
          for (const auto& p : task.params)
            if (p.kind == ParamKind::Scalar && p.random) {
              reseeded.scalars[p.name] = static_cast<double>(derive_seed(run_seed, label + p.name) >> 12);
              has_random = true;
            }
          if (has_random) {
            auto other = runner.run(make_job(task, {&reseeded}, wire::JobMode::Check, 0x5A), options.check_timeout_seconds, result_limit_for(job), nullptr);
            if (!other) {
              runner_failed(v, runner, other.error(), label + " (reseeded)", nullptr);
              return finish(v);
            }
            int64_t total = 0, differing = 0;
            auto first_outputs = tensors_after(task, *inst, *result, 0), reseeded_outputs = tensors_after(task, reseeded, *other, 0);
            for (size_t i = 0; i < task.params.size(); ++i) {
              const auto& p = task.params[i];
              if (p.kind != ParamKind::Tensor || p.role == TensorRole::Input) continue;
              const HostTensor &a = first_outputs.at(p.name), &b = reseeded_outputs.at(p.name);
              OffsetWalker w(a, 0);
              for (int64_t k = 0; k < a.numel(); ++k, ++total, w.next()) differing += a.get_at(w.offset()) != b.get_at(w.offset());
            }
            if (total >= 64 && differing == 0)
              add_finding(v, "ignores-random-seed", "L2", "reject", "a different seed gave bitwise the same random output", label);
          }
        }
        if (!check.passed) all_passed = false;
        v.cases.push_back(std::move(check));
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
      auto b_ready = baseline->hello(task.id, 30);
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
    wire::TimingRequest req;
    req.max_seconds = options.time_budget_seconds;
    req.target_rse = options.target_rse;
    req.flush_bytes = platform.backend == "cpu" ? flush_bytes_for_host() : 0;
    std::vector<double> speedups;
    for (size_t pc = 0; pc < perf_cases->size(); ++pc) {
      {
        PerfCasePreparer::Prepared prepared = perf_cases->take(pc);
        if (!prepared.error.empty()) {
          v.outcome = Outcome::InfraError;
          v.summary = prepared.error;
          return finish(v);
        }
        const Case& c = *prepared.spec;
        const DType dt = prepared.dtype;
        const std::string label = prepared.label;
        std::vector<CaseInstance> sets = std::move(prepared.sets);
        std::vector<std::map<std::string, HostTensor>> expected = std::move(prepared.expected);
        trace(label + ": inputs and references ready");
        std::vector<const CaseInstance*> set_ptrs;
        for (const auto& s : sets) set_ptrs.push_back(&s);
        auto job = make_job(task, set_ptrs, wire::JobMode::Time, 0xFF);
        job.timing = req;
        double timeout = 8 * req.max_seconds + 60;
        double wall = 0;
        auto result = [&] {
          SuspendedWhileTiming quiet(baseline.get());
          return runner.run(job, timeout, result_limit_for(job), &wall);
        }();
        if (!result) {
          runner_failed(v, runner, result.error(), label + " (timing)", nullptr);
          return finish(v);
        }
        if (!result->error.empty() || result->status != 0) {
          runner.finish(5);
          v.outcome = Outcome::RuntimeError;
          v.summary = "while timing " + label + ": " + (result->error.empty() ? "the kernel returned " + std::to_string(result->status) : result->error);
          return finish(v);
        }
        trace(label + ": candidate timed (runner " + std::to_string(result->child_seconds) + " s of " + std::to_string(wall) + " s)");
        if (tracing && !result->times_us.empty()) {
          std::vector<double> sorted = result->times_us;
          std::sort(sorted.begin(), sorted.end());
          std::fprintf(stderr, "kgb-trace            times (us): min %.1f, p10 %.1f, p25 %.1f, median %.1f, p75 %.1f, max %.1f, n %zu\n",
                       sorted.front(), quantile(sorted, 0.1), quantile(sorted, 0.25), quantile(sorted, 0.5), quantile(sorted, 0.75),
                       sorted.back(), sorted.size());
        }
        CaseTiming ct;
        ct.name = c.name;
        ct.dtype = std::string(dtype_name(dt));
        ct.candidate = timing_of(result->times_us);
        ct.candidate_host = timing_of(result->host_times_us);
        // L3 hybrid timing: device events only see the harness stream; a host
        // clock around a device-wide synchronise sees everything. Work hidden
        // on other streams or deferred past the call shows up as a gap.
        if (platform.backend != "cpu" && ct.candidate_host.median_us > 2 * ct.candidate.median_us + 200)
          add_finding(v, "hybrid-timing-mismatch", "L3", "reject",
                      "host wall time to a device-wide synchronise (" + std::to_string(ct.candidate_host.median_us) +
                          " us) is far above the event time on the harness stream (" + std::to_string(ct.candidate.median_us) +
                          " us): work runs outside the harness stream or after the call returned",
                      label);
        // On a device the baseline is timed while the host re-checks the
        // candidate's outputs (host work only, nothing competes for the
        // device); on the CPU it runs alone, before the re-check.
        std::optional<Result<wire::JobResult>> baseline_result;
        double baseline_wall = 0;
        std::jthread baseline_timing;  // joins on every way out of this scope
        if (baseline) {
          auto time_baseline = [&] {
            SuspendedWhileTiming quiet(&runner);
            baseline_result = baseline->run(job, timeout, result_limit_for(job), &baseline_wall);
          };
          if (platform.backend == "cpu") time_baseline();
          else baseline_timing = std::jthread(time_baseline);
        }
        // Re-check what the timed calls produced, for every rotating set.
        ct.rechecked = true;
        for (size_t s = 0; s < sets.size(); ++s) {
          auto got = take_tensors_after(task, sets[s], *result, s);
          CaseCheck chk = check_outputs(sets[s], expected[s], got);
          if (!chk.passed) {
            ct.rechecked = false;
            add_finding(v, "timed-output-wrong", "L2", "reject",
                        "outputs of timed calls are wrong on input set " + std::to_string(s) + ": " + chk.message, label);
          }
        }
        trace(label + ": candidate outputs re-checked");
        // L3: the reported iterations must fit the wall time the parent saw.
        double reported = std::accumulate(result->times_us.begin(), result->times_us.end(), 0.0) / 1e6;
        if (reported > wall * 1.05 + 0.01)
          add_finding(v, "timing-inconsistent", "L3", "reject", "the runner reported more time in calls than elapsed in total", label);
        ct.floor_us = roofline_floor_us(platform, sets[0]);
        if (ct.floor_us > 0 && ct.candidate.median_us > 0) {
          ct.roofline_fraction = ct.floor_us / ct.candidate.median_us;
          if (ct.candidate.median_us < ct.floor_us)
            add_finding(v, "below-roofline", "L3", "reject",
                        "median " + std::to_string(ct.candidate.median_us) + " us is below the physical floor of " +
                            std::to_string(ct.floor_us) + " us for this case",
                        label);
        }
        if (baseline) {
          if (baseline_timing.joinable()) baseline_timing.join();
          auto& b = *baseline_result;
          if (b && b->error.empty() && b->status == 0 && !b->times_us.empty()) {
            // The baseline is held to the same outputs: a speedup over a wrong
            // result would mean nothing.
            std::string wrong;
            for (size_t s = 0; s < sets.size() && wrong.empty(); ++s) {
              CaseCheck chk = check_outputs(sets[s], expected[s], take_tensors_after(task, sets[s], *b, s));
              if (!chk.passed) wrong = chk.message;
            }
            ct.baseline_kind = baseline_kind;
            if (wrong.empty()) {
              ct.baseline = timing_of(b->times_us);
              ct.speedup = ct.baseline->median_us / std::max(ct.candidate.median_us, 1e-3);
              speedups.push_back(ct.speedup);
            } else {
              ct.baseline_kind += " (wrong outputs, not compared: " + wrong + ")";
            }
          } else {
            ct.baseline_kind = baseline_kind + " (failed: " + (b ? (b->error.empty() ? "returned " + std::to_string(b->status) : b->error) : b.error().message) + ")";
            if (!b) {
              baseline->kill_now();
              baseline.reset();
              baseline_missing = "none (the baseline runner failed earlier: " + b.error().message + ")";
            }
          }
        } else if (!baseline_missing.empty()) {
          ct.baseline_kind = baseline_missing;
        }
        if (baseline_result && *baseline_result)
          trace(label + ": baseline timed (runner " + std::to_string((*baseline_result)->child_seconds) + " s of " +
                std::to_string(baseline_wall) + " s)");
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
  if (!v.timings.empty()) {
    os << "; " << v.timings.size() << " performance case(s) timed";
    if (v.speedup > 0) os << ", speedup " << std::fixed << std::setprecision(2) << v.speedup << "x (geomean)";
  } else if (timing) {
    os << "; no performance case selected";
  } else if (options.time && platform.has("emulated")) {
    os << "; timing unavailable (emulated platform)";
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
  auto ready = runner.start(task.id, 30);
  if (!ready) {
    runner.kill_now();
    return "the baseline runner did not start: " + ready.error().message;
  }
  runner.finish(5);
  if (!ready->resolved) return "no baseline implementation for this task";
  return std::nullopt;
}

}  // namespace

TaskValidation validate_task(const Task& task, const Platform& platform, const EvalOptions& options) {
  TaskValidation tv;
  tv.task = task.id;
  if (!find_reference(task.id)) tv.problems.push_back("no C++ reference registered");
  uint64_t seed = options.seed ? *options.seed : 12345;
  if (tv.problems.empty()) {
    for (const auto& c : task.correctness) {
      for (DType dt : case_dtypes(task, c)) {
        auto inst = instantiate_case(task, c, dt, derive_seed(seed, c.name));
        if (!inst) {
          tv.problems.push_back(inst.error().message);
          continue;
        }
        auto ref = run_reference(*inst);
        if (!ref) {
          tv.problems.push_back(ref.error().message);
          continue;
        }
        if (c.expect_zero) continue;
        for (const auto& p : task.params) {
          if (p.kind != ParamKind::Tensor || p.role == TensorRole::Input) continue;
          const HostTensor& out = ref->at(p.name);
          if (out.numel() == 0) continue;
          double largest = 0;
          for (int64_t i = 0; i < out.numel(); ++i) {
            double x = std::fabs(out.get(i));
            if (!std::isnan(x)) largest = std::max(largest, x);
          }
          // All zeros, or too small to tell a wrong kernel from a right one.
          if (largest <= task.tolerance.atol)
            tv.problems.push_back("case " + c.name + "/" + std::string(dtype_name(dt)) + ": reference output '" + p.name +
                                  "' is degenerate (max |x| = " + std::to_string(largest) + ")");
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
