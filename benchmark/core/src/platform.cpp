#include "kgb/platform.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "kgb/paths.h"

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
                                       std::tuple{"allowed_includes", &p.allowed_includes, false},
                                       std::tuple{"allowed_symbols", &p.allowed_symbols, false}}) {
    auto s = read_strings(j, key, *target, file, required);
    if (!s) return s.error();
  }
  static const std::vector<std::string> caps{"run", "time", "compile_only", "emulated"};
  for (const auto& c : p.capabilities)
    if (std::find(caps.begin(), caps.end(), c) == caps.end())
      return field_error(file, "capabilities", "unknown capability '" + c + "' (expected run|time|compile_only|emulated)");
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
  return p;
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

}  // namespace

PlatformAvailability check_availability(const Platform& platform) {
  for (const auto& prog : platform.required_programs)
    if (!program_on_path(prog)) return {false, "toolchain missing: '" + prog + "' not found on PATH"};
  if (!platform.runner_library.empty()) {
    auto lib = build_root() / platform.runner_library;
    if (!std::filesystem::exists(lib)) return {false, "runner library not built (" + platform.runner_library + "); enable the backend in CMake"};
  }
  if (platform.has("compile_only")) return {true, "compile only on this host"};
  return {true, ""};
}

}  // namespace kgb
