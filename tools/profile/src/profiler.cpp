#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kgb/case.h"
#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/process.h"
#include "kgb/profile.h"
#include "kgb/wire.h"

extern char** environ;

namespace kgb::profile {
namespace {

using nlohmann::json;

std::string cap(const std::string& s, size_t limit = 64 * 1024) {
  if (s.size() <= limit) return s;
  return s.substr(0, limit) + "\n[... " + std::to_string(s.size() - limit) + " more bytes cut]";
}

void append_frame(std::vector<std::byte>& out, wire::MessageType type, const std::vector<std::byte>& payload) {
  wire::FrameHeader h{wire::kMagic, static_cast<uint32_t>(type), payload.size()};
  const auto* hp = reinterpret_cast<const std::byte*>(&h);
  out.insert(out.end(), hp, hp + sizeof h);
  out.insert(out.end(), payload.begin(), payload.end());
}

std::map<std::string, std::string> tool_environment(const Platform& platform, const std::filesystem::path& work) {
  std::map<std::string, std::string> env;
  // The profilers need the caller's PATH and library path to find their own
  // parts; the rest is scrubbed as for the runner.
  for (const char* keep : {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(keep)) env[keep] = v;
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  env["HOME"] = work.string();
  env["TMPDIR"] = work.string();
  env["LANG"] = "C";
  for (const auto& [k, v] : platform.environment) env[k] = v;
  return env;
}

struct ToolRun {
  ExitStatus status;
  std::string out, err;
  std::string spawn_error;
};

// ncu and compute-sanitizer are often shell scripts in front of the real
// tools. The isolated spawn runs programs through an open descriptor, which
// an interpreter cannot reopen: name the interpreter instead.
std::vector<std::string> through_interpreter(const std::vector<std::string>& argv) {
  std::ifstream in(argv[0], std::ios::binary);
  std::string first;
  if (!in || !std::getline(in, first) || first.rfind("#!", 0) != 0) return argv;
  std::istringstream words(first.substr(2));
  std::vector<std::string> out;
  std::string w;
  while (words >> w) out.push_back(w);
  if (out.empty()) return argv;
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

ToolRun run_tool(const std::vector<std::string>& argv, const Platform& platform, const std::filesystem::path& work,
                 const ProfileOptions& options) {
  SpawnOptions opts;
  opts.argv = through_interpreter(argv);
  opts.environment = tool_environment(platform, work);
  opts.working_dir = work;
  opts.isolate = options.isolate;
  opts.capture_limit = 32 << 20;
  // The profilers replay kernels many times and start helper processes.
  opts.limits = ProcessLimits{0, std::max<int64_t>(platform.limits.cpu_seconds, 1800), std::max<int64_t>(platform.limits.processes, 1024),
                              std::max<int64_t>(platform.limits.file_size_mb, 1024), std::max<int64_t>(platform.limits.open_files, 4096)};
  ToolRun run;
  auto child = ChildProcess::spawn(opts);
  if (!child) {
    run.spawn_error = child.error().message;
    return run;
  }
  run.status = (*child)->wait(deadline_after(options.timeout_seconds));
  run.out = (*child)->stdout_text();
  run.err = (*child)->stderr_text();
  return run;
}

bool write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  std::error_code ec;
  // The replaying runner may be unprivileged and writes its responses here.
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read | std::filesystem::perms::others_read, ec);
  return static_cast<bool>(out);
}

// Cases for a run: those matching the filter, else the default list.
std::vector<const Case*> pick_cases(const std::vector<Case>& cases, const std::string& filter) {
  std::vector<const Case*> out;
  for (const auto& c : cases)
    if (filter.empty() || glob_match(filter, c.name)) out.push_back(&c);
  return out;
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && ::access((std::filesystem::path(dir) / name).c_str(), X_OK) == 0) return (std::filesystem::path(dir) / name).string();
  return "";
}

}  // namespace

std::vector<std::byte> replay_requests(const Task& task, const std::vector<CaseInstance>& instances, uint8_t poison) {
  std::vector<std::byte> out;
  append_frame(out, wire::MessageType::Hello, wire::encode_hello(make_hello(task)));
  for (const auto& inst : instances) append_frame(out, wire::MessageType::Job, wire::encode_job(make_job(task, {&inst}, wire::JobMode::Check, poison)));
  append_frame(out, wire::MessageType::Bye, {});
  return out;
}

ReplayResponses read_replay_responses(const std::filesystem::path& file) {
  ReplayResponses r;
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    r.errors.push_back("no responses were written (" + file.filename().string() + " missing)");
    return r;
  }
  wire::MessageType type;
  std::vector<std::byte> payload;
  while (wire::read_frame(fd, type, payload, 1ull << 34)) {
    if (type == wire::MessageType::Ready) {
      wire::Ready ready;
      if (wire::decode_ready(payload, ready)) {
        r.ready = true;
        r.resolved = ready.resolved;
        r.device = ready.device;
      }
    } else if (type == wire::MessageType::Result) {
      wire::JobResult result;
      ++r.results;
      if (!wire::decode_result(payload, result, 1ull << 34)) r.errors.push_back("job " + std::to_string(r.results) + ": malformed result");
      else if (!result.error.empty()) r.errors.push_back("job " + std::to_string(r.results) + ": " + result.error);
      else if (result.status != 0) r.errors.push_back("job " + std::to_string(r.results) + ": the kernel returned " + std::to_string(result.status));
    }
  }
  ::close(fd);
  return r;
}

ProfileResult profile_candidate(const Task& task, const Platform& platform, const std::string& source,
                                const ProfileOptions& options) {
  ProfileResult result;
  result.task = task.id;
  result.platform = platform.name;
  TempDir work("kgb-profile");
  auto compiled = compile_candidate(task, platform, source, work.path(), EvalHooks{});
  result.diagnostics = compiled.diagnostics;
  if (!compiled.infra_error.empty()) {
    result.error = "toolchain problem: " + compiled.infra_error;
    return result;
  }
  if (!compiled.ok || compiled.executable.empty()) {
    result.error = "the candidate does not compile";
    return result;
  }
  result.compiled = true;
  const std::string exe = compiled.executable.string();

  if (options.ncu) {
    // The case to profile: the filter's first match (performance cases
    // first), else the first performance case, else the first correctness case.
    auto cases = pick_cases(task.performance, options.case_filter);
    if (cases.empty()) cases = pick_cases(task.correctness, options.case_filter);
    if (cases.empty()) {
      result.error = "no case matches '" + options.case_filter + "'";
      return result;
    }
    const Case& c = *cases.front();
    const DTypeBinding dt = case_dtypes(task, c).front();
    auto inst = instantiate_case(task, c, dt, options.seed);
    if (!inst) {
      result.error = inst.error().message;
      return result;
    }
    result.profiled_case = inst->label();
    write_file(work.path() / "ncu.requests", replay_requests(task, {*inst}));
    const std::string ncu = find_program(options.ncu_program);
    if (ncu.empty()) {
      result.error = "Nsight Compute ('" + options.ncu_program + "') not found on PATH";
      return result;
    }
    std::string metrics;
    for (const auto& m : ncu_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
    ToolRun run = run_tool({ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--target-processes", "all",
                            "--metrics", metrics, exe, "--replay", "ncu.requests", "ncu.responses"},
                           platform, work.path(), options);
    result.ncu_log = cap(run.out + run.err);
    if (!run.spawn_error.empty()) {
      result.error = "ncu could not be started: " + run.spawn_error;
      return result;
    }
    auto replies = read_replay_responses(work.path() / "ncu.responses");
    for (const auto& e : replies.errors) result.warnings.push_back("under ncu: " + e);
    auto parsed = parse_ncu_csv(run.out);
    if (!parsed) {
      result.error = "ncu produced no profile (" + run.status.describe() + "): " + parsed.error().message;
      return result;
    }
    for (auto& k : parsed->kernels) {
      if (k.name.rfind("kgb_runner_", 0) == 0 || k.name.find("::kgb_runner_") != std::string::npos) continue;  // the harness's own
      result.total_duration_us += k.duration_us;
      result.kernels.push_back(std::move(k));
    }
    result.warnings.insert(result.warnings.end(), parsed->warnings.begin(), parsed->warnings.end());
    if (result.kernels.empty()) result.warnings.push_back("ncu saw no kernel of the candidate");
  }

  if (options.sanitize) {
    std::vector<CaseInstance> instances;
    for (const Case* c : pick_cases(task.correctness, options.case_filter))
      for (const DTypeBinding& dt : case_dtypes(task, *c)) {
        auto inst = instantiate_case(task, *c, dt, options.seed);
        if (inst) instances.push_back(std::move(*inst));
      }
    if (instances.empty()) {
      result.error = "no correctness case to run under compute-sanitizer";
      return result;
    }
    write_file(work.path() / "sanitizer.requests", replay_requests(task, instances));
    const std::string sanitizer = find_program(options.sanitizer_program);
    if (sanitizer.empty()) {
      result.error = "compute-sanitizer ('" + options.sanitizer_program + "') not found on PATH";
      return result;
    }
    ToolRun run = run_tool({sanitizer, "--tool", "memcheck", "--print-limit", "200", exe, "--replay", "sanitizer.requests",
                            "sanitizer.responses"},
                           platform, work.path(), options);
    result.sanitizer_log = cap(run.out + run.err);
    if (!run.spawn_error.empty()) {
      result.error = "compute-sanitizer could not be started: " + run.spawn_error;
      return result;
    }
    SanitizerReport report = parse_sanitizer_output(run.out + "\n" + run.err, "memcheck");
    if (!report.summary_seen && report.findings.empty()) {
      result.error = "compute-sanitizer printed no report (" + run.status.describe() + ")";
      return result;
    }
    result.sanitizer_errors = report.error_count;
    result.findings = std::move(report.findings);
    auto replies = read_replay_responses(work.path() / "sanitizer.responses");
    for (const auto& e : replies.errors) result.warnings.push_back("under compute-sanitizer: " + e);
  }
  if (!options.keep_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.keep_dir, ec);
    std::filesystem::copy(work.path(), options.keep_dir, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing, ec);
  }
  return result;
}

void to_json(json& j, const KernelProfile& k) {
  json stalls = json::array();
  for (const auto& [reason, value] : k.top_stalls) stalls.push_back({{"reason", reason}, {"warps_per_issue", value}});
  j = json{{"id", k.id},
           {"name", k.name},
           {"grid", k.grid},
           {"block", k.block},
           {"duration_us", k.duration_us},
           {"dram_throughput_pct", k.dram_throughput_pct},
           {"sm_throughput_pct", k.sm_throughput_pct},
           {"achieved_occupancy_pct", k.achieved_occupancy_pct},
           {"top_stalls", stalls},
           {"metrics", k.metrics}};
}

void to_json(json& j, const ProfileResult& r) {
  j = json{{"task", r.task},
           {"platform", r.platform},
           {"profiled_case", r.profiled_case},
           {"compiled", r.compiled},
           {"diagnostics", r.diagnostics},
           {"kernels", r.kernels},
           {"total_duration_us", r.total_duration_us},
           {"warnings", r.warnings},
           {"findings", r.findings},
           {"sanitizer_errors", r.sanitizer_errors},
           {"error", r.error},
           {"ok", r.ok()}};
}

Result<json> run_calibration(const Platform& platform, double timeout_seconds) {
  if (platform.calibrate.empty())
    return make_error("calibrate.none", "platform " + platform.name + " has no calibration program (\"calibrate\" in its descriptor)");
  std::vector<std::string> argv;
  for (std::string a : platform.calibrate) {
    for (auto [token, value] : {std::pair<std::string, std::string>{"{build_root}", build_root().string()},
                                std::pair<std::string, std::string>{"{source_root}", source_root().string()}})
      for (size_t at = a.find(token); at != std::string::npos; at = a.find(token, at + value.size())) a.replace(at, token.size(), value);
    argv.push_back(a);
  }
  if (::access(argv[0].c_str(), X_OK) != 0)
    return make_error("calibrate.missing", "calibration program " + argv[0] + " is not built (enable the backend in CMake)");
  // The caller's environment plus the platform's (device selection).
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : platform.environment) env[k] = v;
  SpawnOptions opts;
  opts.argv = argv;
  opts.environment = env;
  opts.capture_limit = 1 << 20;
  auto child = ChildProcess::spawn(opts);
  if (!child) return make_error("calibrate.spawn", child.error().message);
  ExitStatus st = (*child)->wait(deadline_after(timeout_seconds));
  const std::string out = (*child)->stdout_text();
  if (!st.exited || st.code != 0)
    return make_error("calibrate.failed", "calibration failed (" + st.describe() + "): " + cap(out + (*child)->stderr_text(), 2000));
  const size_t brace = out.find('{');
  json measured = brace == std::string::npos ? json() : json::parse(out.substr(brace), nullptr, false);
  if (!measured.is_object() || !measured.contains("peak") || !measured["peak"].is_object())
    return make_error("calibrate.output", "calibration output has no \"peak\" object: " + cap(out, 2000));
  for (auto& [key, value] : measured["peak"].items())
    if (!value.is_number() || value.get<double>() <= 0)
      return make_error("calibrate.output", "calibration figure peak." + key + " is not a positive number");
  char when[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  measured["platform"] = platform.name;
  measured["created"] = when;
  measured["program"] = std::filesystem::path(argv[0]).filename().string();
  const auto file = calibration_file(platform.name);
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream f(file);
  f << measured.dump(2) << "\n";
  if (!f) return make_error("calibrate.write", "cannot write " + file.string());
  return measured;
}

}  // namespace kgb::profile
