// Benchmark: end-to-end `kgb eval` latency of a bundled solution (compile
// included) and the run-to-run spread of the timed median.
//   kgb_bench_eval_latency [--kgb PATH] [--task blas/saxpy] [--platform cpu-x86_64] [--runs 5]
// Prints the figures; asserts nothing (performance is measured, not tested).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/paths.h"
#include "kgb/process.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

}  // namespace

int main(int argc, char** argv) {
  std::string kgb = KGB_CLI_PATH, task_id = "blas/saxpy", platform_name = "cpu-x86_64";
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--kgb") kgb = argv[i + 1];
    else if (a == "--task") task_id = argv[i + 1];
    else if (a == "--platform") platform_name = argv[i + 1];
    else if (a == "--runs") runs = std::stoi(argv[i + 1]);
  }
  auto platform = kgb::load_platform(platform_name);
  if (!platform) {
    std::fprintf(stderr, "%s\n", platform.error().message.c_str());
    return 2;
  }
  auto tasks = kgb::load_all_tasks(kgb::tasks_root()).tasks;
  auto it = std::find_if(tasks.begin(), tasks.end(), [&](const kgb::Task& t) { return t.id == task_id; });
  if (it == tasks.end()) {
    std::fprintf(stderr, "unknown task %s\n", task_id.c_str());
    return 2;
  }
  std::string kernel = it->solution_path(platform->solution_file).string();

  struct Mode {
    const char* name;
    std::vector<std::string> extra;
  };
  const Mode modes[] = {{"check only (lint, compile, all correctness cases)", {"--no-time"}},
                        {"full verdict (+ timing 0.3 s/case, baseline)", {"--time-budget", "0.3"}}};
  for (const auto& mode : modes) {
    std::vector<double> wall, medians;
    std::map<std::string, std::vector<double>> case_medians;  // every timed case, for its own spread
    for (int r = 0; r < runs; ++r) {
      std::vector<std::string> cmd{kgb, "eval", task_id, "--platform", platform_name, "--kernel", kernel, "--json"};
      cmd.insert(cmd.end(), mode.extra.begin(), mode.extra.end());
      auto t0 = std::chrono::steady_clock::now();
      auto res = kgb::run_command(cmd, ".", 600, 64 << 20);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!res || !res->status.exited) {
        std::fprintf(stderr, "kgb eval failed to run\n");
        return 1;
      }
      auto brace = res->output.find('{');
      auto j = nlohmann::json::parse(res->output.substr(brace == std::string::npos ? 0 : brace), nullptr, false);
      if (j.is_discarded() || !j.value("passed", false)) {
        std::fprintf(stderr, "verdict did not pass:\n%s\n", res->output.substr(0, 2000).c_str());
        return 1;
      }
      wall.push_back(s);
      double largest = 0;
      std::string cases;
      for (const auto& t : j["timings"]) {
        const double m = t["candidate"]["median_us"].get<double>();
        largest = std::max(largest, m);
        case_medians[t["name"].get<std::string>()].push_back(m);
        char line[160];
        std::snprintf(line, sizeof line, "; %s %.1f us (IQR %.1f, n %d)", t["name"].get<std::string>().c_str(), m,
                      t["candidate"].value("iqr_us", 0.0), t["candidate"].value("iterations", 0));
        cases += line;
      }
      if (largest > 0) medians.push_back(largest);
      std::printf("  run %d: %.3f s (compile %.3f s, check %.3f s, time %.3f s)%s\n", r + 1, s,
                  j["seconds"]["compile"].get<double>(), j["seconds"]["check"].get<double>(), j["seconds"]["time"].get<double>(),
                  cases.c_str());
    }
    std::printf("%s / %s, %s: median end-to-end %.3f s over %d runs (min %.3f, max %.3f)\n", task_id.c_str(),
                platform_name.c_str(), mode.name, median(wall), runs, *std::min_element(wall.begin(), wall.end()),
                *std::max_element(wall.begin(), wall.end()));
    if (!medians.empty()) {
      double lo = *std::min_element(medians.begin(), medians.end()), hi = *std::max_element(medians.begin(), medians.end());
      std::printf("  timed median of the largest case over %d evaluations: %.1f us .. %.1f us, spread %.2f%% of the median\n",
                  runs, lo, hi, 100 * (hi - lo) / median(medians));
    }
    for (const auto& [name, ms] : case_medians) {
      double lo = *std::min_element(ms.begin(), ms.end()), hi = *std::max_element(ms.begin(), ms.end());
      std::printf("  case %s: timed median %.1f us .. %.1f us, spread %.2f%%\n", name.c_str(), lo, hi, 100 * (hi - lo) / median(ms));
    }
  }
  return 0;
}
