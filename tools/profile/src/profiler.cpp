// profile_candidate: the work folder, builds, cases and tool runs shared by
// the per-backend profiles, and the replay streams.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kgb/evaluator.h"
#include "kgb/wire.h"
#include "profiler_internal.h"
#include "text_util.h"

namespace kgb::profile {
namespace {

using nlohmann::json;

void append_frame(std::vector<std::byte>& out, wire::MessageType type, const std::vector<std::byte>& payload) {
  wire::FrameHeader h{wire::kMagic, static_cast<uint32_t>(type), payload.size()};
  const auto* hp = reinterpret_cast<const std::byte*>(&h);
  out.insert(out.end(), hp, hp + sizeof h);
  out.insert(out.end(), payload.begin(), payload.end());
}

// ncu, compute-sanitizer and valgrind are often shell scripts in front of
// the real tools. The isolated spawn runs programs through an open
// descriptor, which an interpreter cannot reopen: name the interpreter instead.
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

std::vector<const Case*> pick_cases(const std::vector<Case>& cases, const std::string& filter) {
  std::vector<const Case*> out;
  for (const auto& c : cases)
    if (filter.empty() || glob_match(filter, c.name)) out.push_back(&c);
  return out;
}

int64_t instance_bytes(const CaseInstance& inst) {
  int64_t bytes = 0;
  for (const auto& [name, t] : inst.tensors) bytes += static_cast<int64_t>(t.storage().size());
  for (const auto& [name, l] : inst.lists) bytes += static_cast<int64_t>(l.allocation_bytes);
  return bytes;
}

// A descriptor's command line with `extra` after the program.
std::vector<std::string> with_flags(std::vector<std::string> command, const std::vector<std::string>& extra) {
  if (command.empty() || extra.empty()) return command;
  command.insert(command.begin() + 1, extra.begin(), extra.end());
  return command;
}

Status read_string_list(const json& j, const char* key, std::vector<std::string>& out, const std::string& where) {
  if (!j.contains(key)) return Ok{};
  if (!j[key].is_array()) return make_error("platform.invalid", where + "." + key + "': expected an array of strings");
  for (const auto& v : j[key]) {
    if (!v.is_string()) return make_error("platform.invalid", where + "." + key + "': expected strings, found " + v.dump());
    out.push_back(v.get<std::string>());
  }
  return Ok{};
}

}  // namespace

Result<ProfileSettings> profile_settings(const Platform& platform) {
  ProfileSettings s;
  std::ifstream in(platform.file);
  json j = json::parse(in, nullptr, false);
  const std::string where = platform.file.string() + ": field 'profile";
  if (!j.is_object() || !j.contains("profile")) {
    s.sanitizer_note = "the platform descriptor has no \"profile\" section";
    return s;
  }
  const json& p = j["profile"];
  if (!p.is_object()) return make_error("platform.invalid", where + "': expected an object");
  static const std::vector<std::string> known_keys{"tools", "debug_flags", "cachegrind_flags", "sanitizer", "sanitizer_note"};
  for (auto& [key, value] : p.items())
    if (std::find(known_keys.begin(), known_keys.end(), key) == known_keys.end())
      return make_error("platform.invalid", where + "." + key + "': unknown key (tools, debug_flags, cachegrind_flags, sanitizer, sanitizer_note)");
  for (auto [key, target] : {std::pair{"tools", &s.tools}, std::pair{"debug_flags", &s.debug_flags},
                             std::pair{"cachegrind_flags", &s.cachegrind_flags}})
    if (auto st = read_string_list(p, key, *target, where); !st) return st.error();
  static const std::vector<std::string> tools{"perf", "cachegrind", "opencl-events", "ncu", "hip-resource-usage"};
  for (const auto& t : s.tools)
    if (std::find(tools.begin(), tools.end(), t) == tools.end())
      return make_error("platform.invalid", where + ".tools': unknown tool '" + t + "' (perf, cachegrind, opencl-events, ncu, hip-resource-usage)");
  if (p.contains("sanitizer_note")) {
    if (!p["sanitizer_note"].is_string()) return make_error("platform.invalid", where + ".sanitizer_note': expected a string");
    s.sanitizer_note = p["sanitizer_note"].get<std::string>();
  }
  if (p.contains("sanitizer")) {
    const json& z = p["sanitizer"];
    const std::string at = where + ".sanitizer";
    if (!z.is_object() || !z.contains("tool") || !z["tool"].is_string())
      return make_error("platform.invalid", at + "': expected an object with a \"tool\" string");
    ProfileSettings::Sanitizer san;
    san.tool = z["tool"].get<std::string>();
    if (san.tool != "asan" && san.tool != "oclgrind" && san.tool != "compute-sanitizer")
      return make_error("platform.invalid", at + ".tool': unknown sanitizer '" + san.tool + "' (asan, oclgrind, compute-sanitizer)");
    for (auto [key, target] : {std::pair{"compile_flags", &san.compile_flags}, std::pair{"link_flags", &san.link_flags}})
      if (auto st = read_string_list(z, key, *target, at); !st) return st.error();
    if (z.contains("runner_library")) {
      if (!z["runner_library"].is_string()) return make_error("platform.invalid", at + ".runner_library': expected a string");
      san.runner_library = z["runner_library"].get<std::string>();
    }
    if (z.contains("environment")) {
      if (!z["environment"].is_object()) return make_error("platform.invalid", at + ".environment': expected an object of strings");
      for (auto& [k, v] : z["environment"].items()) {
        if (!v.is_string()) return make_error("platform.invalid", at + ".environment." + k + "': expected a string");
        san.environment[k] = v.get<std::string>();
      }
    }
    s.sanitizer = std::move(san);
  }
  return s;
}

std::map<std::string, std::string> tool_environment(const Platform& platform, const std::filesystem::path& work,
                                                    const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env;
  for (const char* keep : {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(keep)) env[keep] = v;
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  env["HOME"] = work.string();
  env["TMPDIR"] = work.string();
  env["LANG"] = "C";
  for (const auto& [k, v] : platform.environment) env[k] = v;
  for (const auto& [k, v] : extra) env[k] = v;
  return env;
}

ToolRun run_tool(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                 const Platform& platform, const std::filesystem::path& work, const ProfileOptions& options) {
  SpawnOptions opts;
  opts.argv = through_interpreter(argv);
  opts.environment = environment;
  opts.working_dir = work;
  opts.isolate = options.isolate;
  opts.capture_limit = 32 << 20;
  // The tools replay kernels many times, start helper processes and map
  // large shadow or simulator memory: no address-space limit, generous others.
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

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && ::access((std::filesystem::path(dir) / name).c_str(), X_OK) == 0) return (std::filesystem::path(dir) / name).string();
  return "";
}

bool write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  std::error_code ec;
  // The replaying runner may be unprivileged.
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read | std::filesystem::perms::others_read, ec);
  return static_cast<bool>(out);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string case_at(const std::vector<CaseInstance>& instances, size_t results, int repeat) {
  const size_t index = results / static_cast<size_t>(std::max(repeat, 1));
  return index < instances.size() ? instances[index].label() : "";
}

std::optional<std::filesystem::path> Workspace::build(const std::string& name, const std::vector<std::string>& compile_flags,
                                                      const std::vector<std::string>& link_flags, const std::string& runner_library,
                                                      std::string* compiler_log) {
  const auto folder = dir / name;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  std::filesystem::permissions(folder, std::filesystem::perms::all, ec);  // the unprivileged tool writes here
  Platform variant = platform;
  variant.compile_command = with_flags(platform.compile_command, compile_flags);
  variant.link_command = with_flags(platform.link_command, link_flags);
  if (!runner_library.empty()) variant.runner_library = runner_library;
  auto compiled = compile_candidate(task, variant, source, folder, EvalHooks{});
  if (compiler_log) *compiler_log = compiled.log;
  if (!compiled.infra_error.empty()) {
    if (result.error.empty()) result.error = "toolchain problem (" + name + " build): " + compiled.infra_error;
    return std::nullopt;
  }
  if (!compiled.ok) {
    if (!result.compiled) {
      result.diagnostics = compiled.diagnostics;
      if (result.error.empty()) result.error = "the candidate does not compile";
    } else {
      std::string first;
      for (const auto& d : compiled.diagnostics)
        if (d.severity == "error" || d.severity == "fatal") {
          first = d.message;
          break;
        }
      result.warnings.push_back("the " + name + " build failed" + (first.empty() ? "" : ": " + first));
    }
    return std::nullopt;
  }
  result.compiled = true;
  if (compiled.executable.empty()) return folder / "candidate.o";  // compile-only platforms
  return compiled.executable;
}

std::optional<CaseInstance> Workspace::performance_instance() {
  auto cases = pick_cases(task.performance, options.case_filter);
  if (cases.empty()) cases = pick_cases(task.correctness, options.case_filter);
  if (cases.empty()) {
    result.error = "no case matches '" + options.case_filter + "'";
    return std::nullopt;
  }
  const Case& c = *cases.front();
  auto inst = instantiate_case(task, c, case_dtypes(task, c).front(), options.seed);
  if (!inst) {
    result.error = inst.error().message;
    return std::nullopt;
  }
  result.profiled_case = inst->label();
  return std::move(*inst);
}

std::optional<CaseInstance> Workspace::reduced_instance(int64_t max_bytes) {
  auto full = performance_instance();
  if (!full) return std::nullopt;
  int64_t bytes = instance_bytes(*full);
  if (bytes <= max_bytes) return full;
  Case reduced = *full->spec;
  const DTypeBinding dtypes = full->dtypes;
  for (int round = 0; round < 8 && bytes > max_bytes; ++round) {
    // Halve the largest dimension as often as the size asks for; another
    // round when it did not carry every tensor.
    auto largest = std::max_element(reduced.dims.begin(), reduced.dims.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
    if (largest == reduced.dims.end() || largest->second <= 1) break;
    const int halvings = std::max(1, static_cast<int>(std::ceil(std::log2(static_cast<double>(bytes) / static_cast<double>(max_bytes)))));
    for (int h = 0; h < halvings && largest->second > 1; ++h) largest->second = (largest->second + 1) / 2;
    Case& stored = case_storage.emplace_back(reduced);
    auto inst = instantiate_case(task, stored, dtypes, options.seed);
    if (!inst) {
      result.warnings.push_back("the performance case could not be reduced (" + inst.error().message + "): using it whole");
      return full;
    }
    bytes = instance_bytes(*inst);
    if (bytes <= max_bytes || round == 7) {
      std::string dims;
      for (const auto& [name, size] : stored.dims) dims += (dims.empty() ? "" : ", ") + name + "=" + std::to_string(size);
      result.reduced_case = full->label() + " reduced to " + dims;
      return std::move(*inst);
    }
  }
  return full;
}

std::vector<CaseInstance> Workspace::correctness_instances() {
  std::vector<CaseInstance> out;
  for (const Case* c : pick_cases(task.correctness, options.case_filter))
    for (const DTypeBinding& dt : case_dtypes(task, *c)) {
      auto inst = instantiate_case(task, *c, dt, options.seed);
      if (inst) out.push_back(std::move(*inst));
    }
  return out;
}

std::pair<std::string, std::string> Workspace::write_replay(const std::filesystem::path& folder, const std::string& stem,
                                                            const std::vector<CaseInstance>& instances, int repeat) {
  std::vector<wire::Job> jobs;
  for (const auto& inst : instances)
    for (int r = 0; r < std::max(repeat, 1); ++r) jobs.push_back(make_job(*inst.task, {&inst}, wire::JobMode::Check, 0xFF));
  return write_jobs(folder, stem, jobs);
}

std::pair<std::string, std::string> Workspace::write_jobs(const std::filesystem::path& folder, const std::string& stem,
                                                          const std::vector<wire::Job>& jobs) {
  std::vector<std::byte> bytes;
  append_frame(bytes, wire::MessageType::Hello, wire::encode_hello(make_hello(task)));
  for (const auto& job : jobs) append_frame(bytes, wire::MessageType::Job, wire::encode_job(job));
  append_frame(bytes, wire::MessageType::Bye, {});
  write_file(folder / (stem + ".requests"), bytes);
  return {stem + ".requests", stem + ".responses"};
}

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
      r.timed_calls += result.times_us.size();
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
  result.backend = platform.backend;
  auto settings = profile_settings(platform);
  if (!settings) {
    result.error = settings.error().message;
    return result;
  }
  TempDir work("kgb-profile");
  Workspace ws{task, platform, source, options, *settings, work.path(), result, {}};
  if (options.counters) {
    if (platform.backend == "cpu") profile_cpu(ws);
    else if (platform.backend == "opencl") profile_opencl(ws);
    else if (platform.backend == "cuda") profile_cuda(ws);
    else if (platform.backend == "hip") profile_hip(ws);
  }
  const bool build_failed = !result.compiled && !result.error.empty();
  if (options.sanitize && !build_failed) {
    if (!settings->sanitizer) {
      result.notes.push_back("no sanitizer on " + platform.name +
                             (settings->sanitizer_note.empty() ? std::string() : ": " + settings->sanitizer_note));
    } else if (settings->sanitizer->tool == "asan") {
      sanitize_cpu(ws);
    } else if (settings->sanitizer->tool == "oclgrind") {
      sanitize_opencl(ws);
    } else {
      sanitize_cuda(ws);
    }
  }
  if (!options.counters && !options.sanitize) result.notes.push_back("nothing asked: neither the performance tools nor the sanitizer");
  result.summary = summarize(result);
  if (!options.keep_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.keep_dir, ec);
    std::filesystem::copy(work.path(), options.keep_dir, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing, ec);
  }
  return result;
}

}  // namespace kgb::profile
