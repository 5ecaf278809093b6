// kgb calibrate: runs a platform's calibration microbenchmark and stores its
// measured peak figures where load_platform() overlays them.
#include <unistd.h>

#include <ctime>
#include <fstream>

#include <nlohmann/json.hpp>

#include "kgb/paths.h"
#include "kgb/process.h"
#include "kgb/profile.h"
#include "text_util.h"

extern char** environ;

namespace kgb::profile {

using nlohmann::json;

Result<json> run_calibration(const Platform& platform, double timeout_seconds) {
  if (platform.has("compile_only"))
    return make_error("calibrate.none", "platform " + platform.name + " is compile-only here: nothing runs, nothing to calibrate");
  if (platform.has("emulated"))
    return make_error("calibrate.none", "platform " + platform.name +
                                            " is emulated: it is not timed, and a calibration would measure the emulator");
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
  // The caller's environment plus the platform's (device selection, OpenMP settings).
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
  for (auto& [key, value] : measured["peak"].items()) {
    if (key == "per_core") {
      if (!value.is_boolean()) return make_error("calibrate.output", "calibration figure peak.per_core is not true or false");
      continue;
    }
    if (!value.is_number() || value.get<double>() <= 0)
      return make_error("calibrate.output", "calibration figure peak." + key + " is not a positive number");
  }
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
