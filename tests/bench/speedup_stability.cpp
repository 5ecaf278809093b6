// Benchmark: how stable the reported speedup is across separate evaluations
// on a shared host, next to how stable the absolute time is.
//   kgb_bench_speedup_stability [--kgb PATH] [--runs 5] [--platforms cpu-x86_64,opencl-pocl]
//                               [--tasks blas/saxpy,blas/sgemm,aten/softmax] [--time-budget 1]
// For each task and platform it runs `kgb eval` of the bundled solution
// `runs` times with paired, interleaved timing (the default) and `runs` times
// with --timing-pairs 1 (candidate, then baseline: the estimator before
// pairing), and prints per mode the spread (max/min - 1) of the candidate's
// absolute median and of the speedup, per performance case and for the task's
// geometric mean. Asserts nothing: performance is measured, not tested.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"
#include "kgb/task.h"

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

double spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo > 0 ? *hi / *lo - 1 : 0;
}

struct Series {
  std::vector<double> median_us, speedup, width;  // per run
  int unstable = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string kgb = KGB_CLI_PATH, platforms = "cpu-x86_64,opencl-pocl", tasks = "blas/saxpy,blas/sgemm,aten/softmax";
  std::string time_budget = "1";
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--kgb") kgb = argv[i + 1];
    else if (a == "--runs") runs = std::stoi(argv[i + 1]);
    else if (a == "--platforms") platforms = argv[i + 1];
    else if (a == "--tasks") tasks = argv[i + 1];
    else if (a == "--time-budget") time_budget = argv[i + 1];
  }
  const auto all = kgb::load_all_tasks(kgb::tasks_root()).tasks;
  for (const std::string& platform_name : split(platforms)) {
    auto platform = kgb::load_platform(platform_name);
    if (!platform) {
      std::fprintf(stderr, "%s\n", platform.error().message.c_str());
      return 2;
    }
    if (auto a = kgb::check_availability(*platform); !a.available) {
      std::printf("%s: not available here (%s), skipped\n", platform_name.c_str(), a.reason.c_str());
      continue;
    }
    for (const std::string& task_id : split(tasks)) {
      auto it = std::find_if(all.begin(), all.end(), [&](const kgb::Task& t) { return t.id == task_id; });
      if (it == all.end()) {
        std::fprintf(stderr, "unknown task %s\n", task_id.c_str());
        return 2;
      }
      const std::string kernel = it->solution_path(platform->solution_file).string();
      for (const char* pairs : {"6", "1"}) {
        std::map<std::string, Series> per_case;  // "case/dtype", and "geomean" for the task
        for (int r = 0; r < runs; ++r) {
          const std::vector<std::string> cmd{kgb, "eval", task_id, "--platform", platform_name, "--kernel", kernel, "--json",
                                             "--no-lint", "--time-budget", time_budget, "--timing-pairs", pairs};
          auto res = kgb::run_command(cmd, ".", 900, 64 << 20);
          if (!res || !res->status.exited) {
            std::fprintf(stderr, "kgb eval failed to run\n");
            return 1;
          }
          const auto brace = res->output.find('{');
          auto j = nlohmann::json::parse(res->output.substr(brace == std::string::npos ? 0 : brace), nullptr, false);
          if (j.is_discarded() || !j.value("passed", false)) {
            std::fprintf(stderr, "verdict did not pass:\n%s\n", res->output.substr(0, 2000).c_str());
            return 1;
          }
          per_case["geomean"].speedup.push_back(j.value("speedup", 0.0));
          for (const auto& t : j["timings"]) {
            Series& s = per_case[t.value("name", "") + "/" + t.value("dtype", "")];
            s.median_us.push_back(t["candidate"].value("median_us", 0.0));
            const double sp = t.value("speedup", 0.0);
            s.speedup.push_back(sp);
            if (t.contains("speedup_interval") && t["speedup_interval"].is_array() && sp > 0)
              s.width.push_back((t["speedup_interval"][1].get<double>() - t["speedup_interval"][0].get<double>()) / sp);
            s.unstable += t.value("speedup_unstable", false) ? 1 : 0;
          }
        }
        std::printf("%s %s, %s, %d runs:\n", platform_name.c_str(), task_id.c_str(),
                    std::string(pairs) == "1" ? "sequential (--timing-pairs 1)" : "paired (6 pairs)", runs);
        for (const auto& [name, s] : per_case) {
          if (name == "geomean") {
            std::printf("  %-28s speedup spread %6.1f%%\n", "task geomean", 100 * spread(s.speedup));
            continue;
          }
          double width = 0;
          for (double w : s.width) width += w / static_cast<double>(s.width.size());
          std::printf("  %-28s absolute-median spread %6.1f%%  speedup spread %6.1f%%  (speedups", name.c_str(),
                      100 * spread(s.median_us), 100 * spread(s.speedup));
          for (double x : s.speedup) std::printf(" %.3f", x);
          std::printf(")");
          if (!s.width.empty()) std::printf("  mean interval width %.1f%%, unstable %d/%d", 100 * width, s.unstable, runs);
          std::printf("\n");
        }
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
