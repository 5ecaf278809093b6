// Every bundled solution (benchmark/tasks/<source>/<name>/solutions/*) lints
// without a rejecting finding on its platforms: on the primary platforms
// (cpu-x86_64, opencl-pocl, cuda-sm90) for every task
// (lint.solutions.<family>), on the others (cpu-aarch64, cpu-riscv64,
// cuda-sm80, cuda-sm100, hip-gfx90a, opencl-nvidia) for the secondary selection
// (lint.secondary.<family>). New solutions are picked up when the test runs;
// no reconfigure needed.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kgb/lint.h"
#include "sweep_checks.h"

namespace {

using namespace kgb;
using namespace kgb::lint;

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The platforms a solution file belongs to: those whose solution_file is the
// file's name (cpu.cpp serves cpu-x86_64, cpu-aarch64 and cpu-riscv64), the
// primary ones or the others.
std::vector<const Platform*> platforms_for(const std::vector<Platform>& platforms, const std::string& file_name,
                                           bool primary) {
  std::vector<const Platform*> out;
  for (const auto& p : platforms)
    if (p.solution_file == file_name && kgb::test::is_primary_platform(p.name) == primary) out.push_back(&p);
  return out;
}

bool named_by_any_platform(const std::vector<Platform>& platforms, const std::string& file_name) {
  return std::any_of(platforms.begin(), platforms.end(), [&](const Platform& p) { return p.solution_file == file_name; });
}

// Lints the solutions of the sweep's tasks on the sweep's platforms: the
// primary platforms for every task, the others for the secondary selection.
void lint_sweep(kgb::test::Sweep sweep) {
  const bool primary = sweep == kgb::test::Sweep::Primary;
  std::vector<Error> platform_errors;
  const std::vector<Platform> platforms = load_all_platforms(&platform_errors);
  for (const auto& e : platform_errors) MESSAGE("platform not loaded: " << e.message);

  int linted = 0;
  std::map<std::string, int> linted_by_backend;
  std::set<std::string> unavailable_backends;  // no CUDA or HIP headers on this machine
  const std::vector<Task> tasks = kgb::test::checked_sweep_tasks(sweep);
  std::vector<std::pair<const Task*, std::filesystem::path>> solutions;  // sorted by task, then file
  for (const auto& task : tasks) {
    if (!std::filesystem::is_directory(task.folder / "solutions")) continue;
    const size_t first = solutions.size();
    for (const auto& file : std::filesystem::directory_iterator(task.folder / "solutions"))
      if (file.is_regular_file()) solutions.emplace_back(&task, file.path());
    std::sort(solutions.begin() + first, solutions.end());
  }

  for (const auto& [task, path] : solutions) {
    CAPTURE(path.string());
    const std::string file_name = path.filename().string();
    std::vector<const Platform*> targets = platforms_for(platforms, file_name, primary);
    Platform by_extension;
    if (primary && !named_by_any_platform(platforms, file_name)) {
      // No descriptor names this file: lint it for its language's backend.
      const auto language = language_for_file(path);
      if (!language) {
        MESSAGE("skipped (no platform and no known extension)");
        continue;
      }
      by_extension.name = "by-extension";
      by_extension.backend = *language == Language::Cuda ? "cuda"
                             : *language == Language::Hip ? "hip"
                                                         : "cpu";
      targets.push_back(&by_extension);
    }
    for (const Platform* platform : targets) {
      CAPTURE(platform->name);
      LintRequest request;
      request.source = read(path);
      request.file_name = file_name;
      request.language = language_for(*platform);
      request.task = task;
      request.platform = platform;
      request.cache_dir = KGB_LINT_TEST_CACHE;
      request.time_limit_seconds = 60;
      const LintReport report = kgb::lint::lint(request);
      if (!report.infra_error.empty()) {
        MESSAGE("lint unavailable here: " << report.infra_error);
        unavailable_backends.insert(platform->backend);
        continue;
      }
      ++linted;
      ++linted_by_backend[platform->backend];
      std::string findings;
      for (const auto& f : report.findings)
        findings += "  " + f.location + " " + f.severity + " " + f.rule + ": " + f.message + "\n";
      std::string diagnostics;
      for (const auto& d : report.diagnostics)
        diagnostics += "  " + d.file + ":" + std::to_string(d.line) + ": " + d.severity + ": " + d.message + "\n";
      INFO("findings:\n" << findings << "diagnostics:\n" << diagnostics);
      CHECK_FALSE(report.rejected());
      // The bundled solutions are known to compile; Clang must read them too.
      CHECK(report.parse_ok);
    }
  }
  MESSAGE("linted " << linted << " (solution, platform) pairs");
  // Every backend with bundled solutions was linted, unless its headers are
  // missing here (CUDA, HIP); C++ and OpenCL need nothing but Clang.
  std::set<std::string> backends_with_solutions;
  for (const auto& solution : solutions)
    for (const Platform* p : platforms_for(platforms, solution.second.filename().string(), primary))
      backends_with_solutions.insert(p->backend);
  for (const auto& backend : backends_with_solutions) {
    CAPTURE(backend);
    if (unavailable_backends.count(backend) && backend != "cpu" && backend != "opencl") continue;
    CHECK(linted_by_backend[backend] > 0);
  }
  for (const std::string backend : {"cpu", "cuda", "opencl", "hip"}) MESSAGE(backend << ": " << linted_by_backend[backend]);
}

}  // namespace

TEST_SUITE("sweep") {
  TEST_CASE("every bundled solution lints without a rejecting finding on its primary platforms") {
    lint_sweep(kgb::test::Sweep::Primary);
  }
  TEST_CASE("selected solutions lint without a rejecting finding on their other platforms") {
    lint_sweep(kgb::test::Sweep::Secondary);
  }
}
