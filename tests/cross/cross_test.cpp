// Every bundled CPU solution on the emulated cross platforms (cpu-aarch64,
// cpu-riscv64): cross g++, the cross-built runner, qemu-user. Correctness
// only; a timing request must come back as "unavailable", never a number.
#include <doctest/doctest.h>

#include <chrono>
#include <sstream>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

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
  kgb::EvalOptions options;
  options.time = true;  // asked for, but an emulated platform must not time
  options.seed = 11;
  options.seeds_per_case = 1;
  options.check_timeout_seconds = 300;
  auto start = std::chrono::steady_clock::now();
  int checked = 0;
  for (const auto& task : kgb::load_all_tasks(kgb::tasks_root()).tasks) {
    auto source = kgb::bundled_solution(task, platform->solution_file);
    if (!source) continue;
    ++checked;
    kgb::Verdict v = kgb::evaluate(task, *platform, *source, options);
    INFO(name << " " << task.id << ": " << kgb::outcome_name(v.outcome) << ": " << v.summary << "\n" << v.child_stderr);
    CHECK(v.outcome == kgb::Outcome::Passed);
    CHECK(v.timings.empty());
    CHECK(v.summary.find("timing unavailable (emulated platform)") != std::string::npos);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE(name << ": " << checked << " solutions in " << seconds << " s");
  CHECK(checked >= 12);
}

}  // namespace

TEST_CASE("every CPU solution passes on cpu-aarch64 under qemu") { check_platform("cpu-aarch64"); }

TEST_CASE("every CPU solution passes on cpu-riscv64 under qemu") { check_platform("cpu-riscv64"); }
