// The other CUDA targets (sm_80 with PTX, sm_100a) compile and link every
// solution too: "any sm_XX" is a descriptor away.
#include <doctest/doctest.h>

#include <filesystem>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"
#include "kgb/task.h"

TEST_CASE("every CUDA solution compiles and links for cuda-sm80 and cuda-sm100") {
  auto report = kgb::load_all_tasks(kgb::tasks_root());
  for (const char* name : {"cuda-sm80", "cuda-sm100"}) {
    auto platform = kgb::load_platform(name);
    REQUIRE(platform);
    double total = 0;
    for (const auto& task : report.tasks) {
      CAPTURE(name);
      CAPTURE(task.id);
      auto source = kgb::bundled_solution(task, platform->solution_file);
      REQUIRE(source);
      kgb::TempDir work("kgb-cuda-compile");
      auto out = kgb::compile_candidate(task, *platform, *source, work.path(), kgb::EvalHooks{});
      INFO(out.log);
      CHECK(out.ok);
      total += out.seconds;
    }
    MESSAGE(std::string(name) << ": every solution compiled and linked in " << total << " s");
  }
}
