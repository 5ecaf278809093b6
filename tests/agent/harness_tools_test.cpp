// The harness tool backend of a run reuses the references of performance
// cases: the second evaluation of a task under the run's seed builds none.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "kgb/agent/tools.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

using namespace kgb;

TEST_CASE("harness tools: performance-case references are built once per run and reused") {
  auto tasks = load_all_tasks(tasks_root());
  const Task* saxpy = nullptr;
  for (const auto& t : tasks.tasks)
    if (t.id == "blas/saxpy") saxpy = &t;
  REQUIRE(saxpy);
  auto platform = load_platform("cpu-x86_64");
  REQUIRE(platform.ok());
  std::ifstream in(saxpy->solution_path(platform->solution_file));
  std::stringstream source;
  source << in.rdbuf();
  REQUIRE(!source.str().empty());

  auto tools = agent::make_harness_tools();
  EvalOptions options;
  options.lint = false;
  options.baseline = false;
  options.seed = 1234;
  options.time_budget_seconds = 0.05;
  options.timing_pairs = 1;  // the reference cache is under test: one timed block each
  const Verdict first = tools->evaluate(source.str(), *saxpy, *platform, options);
  REQUIRE_MESSAGE(first.passed(), nlohmann::json(first).dump());
  const auto after_first = tools->stats()["reference_cache"];
  CHECK(after_first["misses"].get<int>() >= 1);
  CHECK(after_first["hits"].get<int>() == 0);

  const Verdict second = tools->evaluate(source.str(), *saxpy, *platform, options);
  REQUIRE(second.passed());
  const auto after_second = tools->stats()["reference_cache"];
  CHECK(after_second["misses"] == after_first["misses"]);  // nothing rebuilt
  CHECK(after_second["hits"].get<int>() >= after_first["misses"].get<int>());

  // Another seed is another input: its references are built, not reused.
  options.seed = 99;
  REQUIRE(tools->evaluate(source.str(), *saxpy, *platform, options).passed());
  CHECK(tools->stats()["reference_cache"]["misses"].get<int>() > after_second["misses"].get<int>());
}
