// The CPU solutions on the emulated cross platforms (cpu-aarch64,
// cpu-riscv64): cross g++, the cross-built runner, qemu-user. Correctness
// only; a timing request must come back as "unavailable", never a number.
// A secondary sweep: the tasks changed since the base commit, the sentinels
// and the rotating slice (tests/support/task_selection.h), one ctest shard per
// architecture and source family (cross.<arch>.<family>).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"
#include "sweep_checks.h"

namespace {

void check_platform(const std::string& name) {
  auto platform = kgb::load_platform(name);
  REQUIRE_MESSAGE(platform.ok(), (platform.ok() ? "" : platform.error().message));
  auto available = kgb::check_availability(*platform);
  if (!available.available) {
    MESSAGE(name << " skipped: " << available.reason);
    return;
  }
  CHECK(platform->has("emulated"));
  CHECK_FALSE(platform->has("time"));
  const std::vector<kgb::Task> tasks = kgb::test::checked_sweep_tasks(kgb::test::Sweep::Secondary);
  kgb::EvalOptions options;
  options.time = true;  // asked for, but an emulated platform must not time
  options.seed = 11;
  options.seeds_per_case = 1;
  options.check_timeout_seconds = 300;
  auto start = std::chrono::steady_clock::now();
  for (const auto& task : tasks) {
    auto source = kgb::bundled_solution(task, platform->solution_file);
    REQUIRE_MESSAGE(source, task.id << " has no " << platform->solution_file);
    kgb::Verdict v = kgb::evaluate(task, *platform, *source, options);
    INFO(name << " " << task.id << ": " << kgb::outcome_name(v.outcome) << ": " << v.summary << "\n" << v.child_stderr);
    CHECK(v.outcome == kgb::Outcome::Passed);
    CHECK(v.timings.empty());
    // A task untimed by its spec (a view, a metadata result) says so instead.
    const auto entries = task.entries();
    const bool untimed_task = std::all_of(entries.begin(), entries.end(), [](const kgb::Task* e) { return e->timing == kgb::TimingMode::None; });
    CHECK(v.summary.find(untimed_task ? "untimed task" : "timing unavailable (emulated platform)") != std::string::npos);
    MESSAGE(name << " " << task.id << ": " << v.cases.size() << " checks in " << v.total_seconds << " s");
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE(name << ": " << tasks.size() << " solutions in " << seconds << " s");
}

}  // namespace

TEST_SUITE("sweep") {
  TEST_CASE("selected CPU solutions pass on cpu-aarch64 under qemu") { check_platform("cpu-aarch64"); }
  TEST_CASE("selected CPU solutions pass on cpu-riscv64 under qemu") { check_platform("cpu-riscv64"); }
}
