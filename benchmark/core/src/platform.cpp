#include "kgb/platform.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "kgb/paths.h"
#include "kgb/process.h"

namespace kgb {

using nlohmann::json;

bool Platform::has(std::string_view capability) const {
  return std::find(capabilities.begin(), capabilities.end(), capability) != capabilities.end();
}

namespace {

Error field_error(const std::filesystem::path& file, const std::string& field, const std::string& what) {
  return make_error("platform.invalid", file.string() + ": field '" + field + "': " + what);
}

Status read_strings(const json& j, const char* key, std::vector<std::string>& out, const std::filesystem::path& file,
                    bool required) {
  if (!j.contains(key)) {
    if (required) return field_error(file, key, "missing; expected an array of strings");
    return Ok{};
  }
  if (!j[key].is_array()) return field_error(file, key, "expected an array of strings");
  for (const auto& v : j[key]) {
    if (!v.is_string()) return field_error(file, key, "expected strings, found " + v.dump());
    out.push_back(v.get<std::string>());
  }
  return Ok{};
}

}  // namespace

Result<Platform> load_platform_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return make_error("platform.unreadable", file.string() + ": cannot be read");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    return make_error("platform.json", file.string() + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) return field_error(file, "(top level)", "expected an object");
  Platform p;
  p.file = file;
  struct StringField { const char* key; std::string* target; bool required; };
  for (auto f : {StringField{"name", &p.name, true}, StringField{"backend", &p.backend, true},
                 StringField{"language", &p.language, true}, StringField{"arch", &p.arch, true},
                 StringField{"source_extension", &p.source_extension, true},
                 StringField{"solution_file", &p.solution_file, true}, StringField{"hardware", &p.hardware, false},
                 StringField{"runner_library", &p.runner_library, false},
                 StringField{"baseline_runner", &p.baseline_runner, false}}) {
    if (!j.contains(f.key)) {
      if (f.required) return field_error(file, f.key, "missing; expected a string");
      continue;
    }
    if (!j[f.key].is_string()) return field_error(file, f.key, "expected a string");
    *f.target = j[f.key].get<std::string>();
  }
  static const std::vector<std::string> backends{"cpu", "opencl", "cuda", "hip"};
  if (std::find(backends.begin(), backends.end(), p.backend) == backends.end())
    return field_error(file, "backend", "expected cpu|opencl|cuda|hip, found '" + p.backend + "'");
  if (file.stem() != p.name) return field_error(file, "name", "'" + p.name + "' does not match the file name");
  for (auto [key, target, required] : {std::tuple{"compile", &p.compile_command, true}, std::tuple{"link", &p.link_command, true},
                                       std::tuple{"emulator", &p.emulator, false}, std::tuple{"capabilities", &p.capabilities, true},
                                       std::tuple{"required_programs", &p.required_programs, false},
                                       std::tuple{"probe", &p.probe, false},
                                       std::tuple{"calibrate", &p.calibrate, false},
                                       std::tuple{"allowed_includes", &p.allowed_includes, false},
                                       std::tuple{"allowed_symbols", &p.allowed_symbols, false}}) {
    auto s = read_strings(j, key, *target, file, required);
    if (!s) return s.error();
  }
  // cpu_device: the chip is a CPU (also OpenCL on a CPU): only performance
  // cases marked "cpu" are timed there.
  static const std::vector<std::string> caps{"run", "time", "compile_only", "emulated", "cpu_device"};
  for (const auto& c : p.capabilities)
    if (std::find(caps.begin(), caps.end(), c) == caps.end())
      return field_error(file, "capabilities", "unknown capability '" + c + "' (expected run|time|compile_only|emulated|cpu_device)");
  if (j.contains("environment")) {
    if (!j["environment"].is_object()) return field_error(file, "environment", "expected an object of strings");
    for (auto& [k, v] : j["environment"].items()) {
      if (!v.is_string()) return field_error(file, "environment." + k, "expected a string");
      p.environment[k] = v.get<std::string>();
    }
  }
  if (j.contains("peak")) {
    const json& pk = j["peak"];
    if (!pk.is_object()) return field_error(file, "peak", "expected an object");
    for (auto [key, target] : {std::pair{"gflops_fp32", &p.peak.gflops_fp32}, std::pair{"gflops_fp64", &p.peak.gflops_fp64},
                               std::pair{"gflops_fp16", &p.peak.gflops_fp16}, std::pair{"bandwidth_gbs", &p.peak.bandwidth_gbs}}) {
      if (!pk.contains(key)) continue;
      if (!pk[key].is_number() || pk[key].get<double>() < 0) return field_error(file, std::string("peak.") + key, "expected a non-negative number");
      *target = pk[key].get<double>();
    }
    if (pk.contains("per_core")) {
      if (!pk["per_core"].is_boolean()) return field_error(file, "peak.per_core", "expected true or false");
      p.peak.per_core = pk["per_core"].get<bool>();
    }
  }
  if (j.contains("limits")) {
    const json& lm = j["limits"];
    if (!lm.is_object()) return field_error(file, "limits", "expected an object");
    auto num = [&](const char* key, auto* target) -> Status {
      if (!lm.contains(key)) return Ok{};
      if (!lm[key].is_number() || lm[key].get<double>() < 0) return field_error(file, std::string("limits.") + key, "expected a non-negative number");
      *target = static_cast<std::remove_pointer_t<decltype(target)>>(lm[key].get<double>());
      return Ok{};
    };
    for (auto s : {num("address_space_mb", &p.limits.address_space_mb), num("cpu_seconds", &p.limits.cpu_seconds),
                   num("wall_seconds", &p.limits.wall_seconds), num("processes", &p.limits.processes),
                   num("file_size_mb", &p.limits.file_size_mb), num("open_files", &p.limits.open_files),
                   num("compile_seconds", &p.limits.compile_seconds),
                   num("output_capture_bytes", &p.limits.output_capture_bytes)})
      if (!s) return s.error();
  }
  // Measured figures (kgb calibrate) replace the descriptor's where present.
  // A malformed calibration file is ignored rather than making the platform
  // unusable: it is a cache of measurements, not configuration.
  auto calibration = calibration_file(p.name);
  std::error_code exists_error;
  if (std::filesystem::exists(calibration, exists_error)) {
    std::ifstream cal_in(calibration);
    json cal = json::parse(cal_in, nullptr, false);
    if (cal.is_object() && cal.contains("peak") && cal["peak"].is_object()) {
      for (auto [key, target] : {std::pair{"gflops_fp32", &p.peak.gflops_fp32}, std::pair{"gflops_fp64", &p.peak.gflops_fp64},
                                 std::pair{"gflops_fp16", &p.peak.gflops_fp16}, std::pair{"bandwidth_gbs", &p.peak.bandwidth_gbs}}) {
        const json& v = cal["peak"].value(key, json());
        if (v.is_number() && v.get<double>() > 0) *target = v.get<double>();
      }
      p.calibrated_from = calibration;
    }
  }
  return p;
}

std::filesystem::path calibration_file(const std::string& platform_name) {
  return build_root() / "calibration" / (platform_name + ".json");
}

Result<Platform> load_platform(const std::string& name) {
  auto file = platforms_root() / (name + ".json");
  if (!std::filesystem::exists(file)) {
    std::string known;
    for (const auto& p : load_all_platforms()) known += (known.empty() ? "" : ", ") + p.name;
    return make_error("platform.unknown", "unknown platform '" + name + "' (known: " + known + ")");
  }
  return load_platform_file(file);
}

std::vector<Platform> load_all_platforms(std::vector<Error>* errors) {
  std::vector<Platform> out;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(platforms_root(), ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto p = load_platform_file(f);
    if (p) out.push_back(std::move(*p));
    else if (errors) errors->push_back(p.error());
  }
  return out;
}

namespace {

bool program_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::stringstream ss(dirs);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    if (::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Runs the platform's probe with its environment on top of ours; returns
// why the platform is unavailable, or "" when the probe succeeded.
std::string run_probe(const Platform& platform) {
  std::vector<std::string> argv;
  for (const auto& arg : platform.probe) {
    std::string a = arg;
    for (auto [token, value] : {std::pair<std::string, std::string>{"{build_root}", build_root().string()},
                                std::pair<std::string, std::string>{"{source_root}", source_root().string()}})
      for (size_t at = a.find(token); at != std::string::npos; at = a.find(token, at + value.size()))
        a.replace(at, token.size(), value);
    argv.push_back(a);
  }
  if (!program_on_path(argv[0])) return "probe '" + argv[0] + "' not found (build the backend)";
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
  opts.capture_limit = 16 * 1024;
  auto child = ChildProcess::spawn(opts);
  if (!child) return "probe could not be started: " + child.error().message;
  ExitStatus st = (*child)->wait(deadline_after(30));
  if (st.exited && st.code == 0) return "";
  std::string out = (*child)->stdout_text() + (*child)->stderr_text();
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (out.empty()) out = "probe " + argv[0] + " failed (" + st.describe() + ")";
  return out;
}

}  // namespace

PlatformAvailability check_availability(const Platform& platform) {
  for (const auto& prog : platform.required_programs)
    if (!program_on_path(prog)) return {false, "toolchain missing: '" + prog + "' not found on PATH"};
  if (!platform.runner_library.empty()) {
    auto lib = build_root() / platform.runner_library;
    if (!std::filesystem::exists(lib)) return {false, "runner library not built (" + platform.runner_library + "); enable the backend in CMake"};
  }
  if (!platform.probe.empty()) {
    auto reason = run_probe(platform);
    if (!reason.empty()) return {false, reason};
  }
  if (platform.has("compile_only")) return {true, "compile only on this host"};
  if (platform.has("emulated")) return {true, "emulated: correctness only, no timing"};
  return {true, ""};
}

}  // namespace kgb
