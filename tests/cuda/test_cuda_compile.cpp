// Every bundled CUDA solution compiles with the platform's nvcc command line
// and links against the prebuilt CUDA runner library (no GPU needed). The
// time of each compile and link is printed: it is most of a CUDA evaluation's
// latency.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"
#include "kgb/task.h"

namespace {

void compile_all(const char* platform_name) {
  auto platform = kgb::load_platform(platform_name);
  REQUIRE(platform);
  auto report = kgb::load_all_tasks(kgb::tasks_root());
  REQUIRE(report.errors.empty());
  int compiled = 0;
  double slowest = 0, total = 0;
  for (const auto& task : report.tasks) {
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
  CHECK(compiled == static_cast<int>(report.tasks.size()));
  MESSAGE(std::string(platform_name) << ": " << compiled << " solutions, total " << total << " s, slowest " << slowest << " s");
}

}  // namespace

TEST_CASE("every CUDA solution compiles and links for cuda-sm90") { compile_all("cuda-sm90"); }

TEST_CASE("a broken CUDA candidate gives structured nvcc diagnostics") {
  auto platform = kgb::load_platform("cuda-sm90");
  REQUIRE(platform);
  auto report = kgb::load_all_tasks(kgb::tasks_root());
  const kgb::Task* saxpy = nullptr;
  for (const auto& t : report.tasks)
    if (t.id == "blas/saxpy") saxpy = &t;
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
