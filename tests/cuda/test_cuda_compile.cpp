// Every bundled CUDA solution compiles with the platform's nvcc command line
// and links against the prebuilt CUDA runner library (no GPU needed): on
// cuda-sm90 for every task (a primary sweep), on cuda-sm80 (with PTX) and
// cuda-sm100a for the tasks of the secondary selection (changed tasks,
// sentinels, the rotating slice; tests/support/task_selection.h). Each sweep
// runs as one ctest shard per source family (cuda.compile.<arch>.<family>).
// The time of each compile and link is printed: it is most of a CUDA
// evaluation's latency.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"
#include "kgb/task.h"
#include "sweep_checks.h"

namespace {

void compile_all(const char* platform_name, kgb::test::Sweep sweep) {
  auto platform = kgb::load_platform(platform_name);
  REQUIRE(platform);
  int compiled = 0;
  double slowest = 0, total = 0;
  for (const auto& task : kgb::test::checked_sweep_tasks(sweep)) {
    auto source = kgb::bundled_solution(task, platform->solution_file);
    CAPTURE(task.id);
    REQUIRE_MESSAGE(source, task.id << " has no " << platform->solution_file);
    kgb::TempDir work("kgb-cuda-compile");
    auto out = kgb::compile_candidate(task, *platform, *source, work.path(), kgb::EvalHooks{});
    INFO(out.log);
    CHECK(out.infra_error.empty());
    CHECK(out.ok);
    CHECK(std::filesystem::exists(out.executable));
    for (const auto& d : out.diagnostics) CHECK_MESSAGE(d.severity != "error", d.file << ":" << d.line << ": " << d.message);
    MESSAGE(std::string(platform_name) << " " << task.id << ": compile + link " << out.seconds << " s");
    slowest = std::max(slowest, out.seconds);
    total += out.seconds;
    ++compiled;
  }
  MESSAGE(std::string(platform_name) << ": " << compiled << " solutions, total " << total << " s, slowest " << slowest << " s");
}

}  // namespace

TEST_SUITE("sweep") {
  TEST_CASE("every CUDA solution compiles and links for cuda-sm90") { compile_all("cuda-sm90", kgb::test::Sweep::Primary); }
  // "any sm_XX" is a descriptor away: the other targets compile too.
  TEST_CASE("selected CUDA solutions compile and link for cuda-sm80") { compile_all("cuda-sm80", kgb::test::Sweep::Secondary); }
  TEST_CASE("selected CUDA solutions compile and link for cuda-sm100") { compile_all("cuda-sm100", kgb::test::Sweep::Secondary); }
}

TEST_CASE("a broken CUDA candidate gives structured nvcc diagnostics") {
  auto platform = kgb::load_platform("cuda-sm90");
  REQUIRE(platform);
  auto saxpy = kgb::load_task_file(kgb::tasks_root() / "blas" / "saxpy" / "spec.json");
  REQUIRE(saxpy);
  const std::string source =
      "#include <cuda_runtime.h>\n#include \"kgb_kernel.h\"\n"
      "__global__ void k(float* y) { y[threadIdx.x] = undeclared_name; }\n"
      "extern \"C\" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {\n"
      "  k<<<1, 32, 0, (cudaStream_t)stream>>>((float*)y->data); return 0; }\n";
  kgb::TempDir work("kgb-cuda-compile");
  auto out = kgb::compile_candidate(*saxpy, *platform, source, work.path(), kgb::EvalHooks{});
  CHECK_FALSE(out.ok);
  bool located = false;
  for (const auto& d : out.diagnostics)
    located = located || (d.severity == "error" && d.line == 3 && d.message.find("undeclared_name") != std::string::npos);
  CHECK_MESSAGE(located, out.log);
}
