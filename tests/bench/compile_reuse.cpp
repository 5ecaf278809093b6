// Benchmark: what an identical resubmission costs within one process (an
// agent's compile, run and submit of the same kernel), with the in-process
// build cache (kgb/compile_cache.h) doing its work.
//   kgb_bench_compile_reuse [--tasks blas/saxpy,aten/softmax] [--platform cpu-x86_64] [--runs 5]
// For each task: `runs` check-only evaluations of the bundled solution in this
// process; prints the first one's compile and total seconds and the median of
// the others. Asserts nothing (performance is measured, not tested).
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::string tasks = "blas/saxpy,aten/softmax", platform_name = "cpu-x86_64";
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--tasks") tasks = argv[i + 1];
    else if (a == "--platform") platform_name = argv[i + 1];
    else if (a == "--runs") runs = std::max(2, std::stoi(argv[i + 1]));
  }
  auto platform = kgb::load_platform(platform_name);
  if (!platform) {
    std::fprintf(stderr, "%s\n", platform.error().message.c_str());
    return 2;
  }
  const auto all = kgb::load_all_tasks(kgb::tasks_root()).tasks;
  std::printf("%-16s %-12s %12s %12s %14s %14s\n", "task", "platform", "compile 1st", "compile next", "verdict 1st", "verdict next");
  std::stringstream ids(tasks);
  for (std::string id; std::getline(ids, id, ',');) {
    auto task = std::find_if(all.begin(), all.end(), [&](const kgb::Task& t) { return t.id == id; });
    if (task == all.end()) {
      std::fprintf(stderr, "unknown task %s\n", id.c_str());
      return 2;
    }
    auto source = kgb::bundled_solution(*task, platform->solution_file);
    if (!source) {
      std::fprintf(stderr, "%s\n", source.error().message.c_str());
      return 2;
    }
    kgb::EvalOptions o;
    o.time = false;
    o.seeds_per_case = 1;
    std::vector<double> compile, total;
    for (int r = 0; r < runs; ++r) {
      const kgb::Verdict v = kgb::evaluate(*task, *platform, *source, o);
      if (v.outcome != kgb::Outcome::Passed) {
        std::fprintf(stderr, "%s: %s\n", id.c_str(), v.summary.c_str());
        return 1;
      }
      compile.push_back(v.compile_seconds);
      total.push_back(v.total_seconds);
    }
    const std::vector<double> next_compile(compile.begin() + 1, compile.end()), next_total(total.begin() + 1, total.end());
    std::printf("%-16s %-12s %10.3f s %10.3f s %12.3f s %12.3f s\n", id.c_str(), platform_name.c_str(), compile[0],
                median(next_compile), total[0], median(next_total));
  }
  return 0;
}
