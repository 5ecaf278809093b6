// hip-gfx90a is compile-only on a host without an AMD GPU: every bundled HIP
// solution must compile with hipcc --offload-arch=gfx90a and link with the
// HIP runner (a secondary sweep: the changed tasks, the sentinels and the
// rotating slice, one ctest shard per source family, hip.compile.<family>;
// KGB_TASK_SWEEP=all compiles every task); the runner executable must start
// and say that no device is there (where one is, it would serve the protocol
// instead).
#include <doctest/doctest.h>

#include <filesystem>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"
#include "kgb/task.h"
#include "sweep_checks.h"

namespace {

const kgb::Platform* hip_platform() {
  static std::optional<kgb::Platform> p = []() -> std::optional<kgb::Platform> {
    auto r = kgb::load_platform("hip-gfx90a");
    if (!r) return std::nullopt;
    return *r;
  }();
  return p ? &*p : nullptr;
}

bool available(std::string& reason) {
  const kgb::Platform* p = hip_platform();
  if (!p) {
    reason = "hip-gfx90a.json does not load";
    return false;
  }
  auto a = kgb::check_availability(*p);
  reason = a.reason;
  return a.available;
}

kgb::Task task_named(const std::string& id) {
  for (const auto& t : kgb::load_all_tasks(kgb::tasks_root()).tasks)
    if (t.id == id) return t;
  return {};
}

}  // namespace

TEST_CASE("selected HIP solutions compile for gfx90a and link with the HIP runner" * doctest::test_suite("sweep")) {
  std::string reason;
  if (!available(reason)) {
    MESSAGE("hip-gfx90a skipped: " << reason);
    return;
  }
  const kgb::Platform& p = *hip_platform();
  CHECK(p.has("compile_only"));
  const std::vector<kgb::Task> tasks = kgb::test::checked_sweep_tasks(kgb::test::Sweep::Secondary);
  kgb::EvalOptions options;
  options.time = false;
  int compiled = 0;
  for (const auto& task : tasks) {
    // A HIP port is optional for a task: the ones that exist must build.
    auto source = kgb::bundled_solution(task, p.solution_file);
    if (!source) {
      // Only a missing port is skipped, never one the platform names differently.
      std::error_code ec;
      for (const auto& f : std::filesystem::directory_iterator(task.folder / "solutions", ec))
        CHECK_MESSAGE(f.path().extension() != ".hip", task.id << ": " << f.path().filename().string() << " is not " << p.solution_file);
      continue;
    }
    ++compiled;
    kgb::Verdict v = kgb::evaluate(task, p, *source, options);
    INFO(task.id << ": " << kgb::outcome_name(v.outcome) << ": " << v.summary);
    CHECK(v.outcome == kgb::Outcome::Passed);
    CHECK(v.stage == kgb::Stage::Done);
    CHECK(v.cases.empty());  // nothing ran
  }
  MESSAGE("hip-gfx90a: " << compiled << " of " << tasks.size() << " tasks have a HIP solution; all compiled");
}

TEST_CASE("a HIP compile error is reported with its line") {
  std::string reason;
  if (!available(reason)) {
    MESSAGE("hip-gfx90a skipped: " << reason);
    return;
  }
  const kgb::Platform& p = *hip_platform();
  const kgb::Task task = task_named("blas/saxpy");
  REQUIRE(task.id == "blas/saxpy");
  const std::string source =
      "#include <hip/hip_runtime.h>\n#include \"kgb_kernel.h\"\n"
      "extern \"C\" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {\n"
      "  return not_declared_anywhere;\n}\n";
  kgb::EvalOptions options;
  options.time = false;
  kgb::Verdict v = kgb::evaluate(task, p, source, options);
  INFO(kgb::outcome_name(v.outcome) << ": " << v.summary);
  CHECK(v.outcome == kgb::Outcome::CompileError);
  bool located = false;
  for (const auto& d : v.diagnostics) located = located || (d.severity == "error" && d.line == 4);
  CHECK(located);
}

TEST_CASE("the linked HIP runner reports a missing device instead of crashing") {
  std::string reason;
  if (!available(reason)) {
    MESSAGE("hip-gfx90a skipped: " << reason);
    return;
  }
  const kgb::Platform& p = *hip_platform();
  const kgb::Task task = task_named("aten/add");
  auto source = kgb::bundled_solution(task, p.solution_file);
  REQUIRE(source.ok());
  kgb::TempDir work("kgb-hip-test");
  auto out = kgb::compile_candidate(task, p, *source, work.path(), {});
  INFO(out.log);
  REQUIRE(out.ok);
  REQUIRE(std::filesystem::exists(out.executable));
  auto run = kgb::run_command({out.executable.string()}, work.path(), 60);
  REQUIRE(run.ok());
  if (run->status.exited && run->status.code == 80) {
    CHECK(run->output.find("no usable HIP device") != std::string::npos);
  } else {
    MESSAGE("the HIP runner did not report a missing device (a GPU may be present): " << run->status.describe());
  }
}

TEST_CASE("kgb_kernel.h: the ABI v2 layout compiles under hipcc") {
  std::string reason;
  if (!available(reason)) {
    MESSAGE("hip-gfx90a skipped: " << reason);
    return;
  }
  const kgb::Platform& p = *hip_platform();
  const kgb::Task task = task_named("blas/saxpy");
  REQUIRE(task.id == "blas/saxpy");
  auto solution = kgb::bundled_solution(task, p.solution_file);
  REQUIRE(solution.ok());
  // kgb_abi_check.h fails the compile when a size or an offset differs.
  const std::string source = "#include \"kgb_abi_check.h\"\n" + *solution +
                             "\nint kgb_abi_probe(void) { return kgb_abi_check_helpers(); }\n";
  kgb::TempDir work("kgb-hip-abi");
  auto out = kgb::compile_candidate(task, p, source, work.path(), {});
  INFO(out.log);
  CHECK(out.ok);
}
