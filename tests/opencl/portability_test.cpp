// `kgb portability`: the metric, and the command on two platforms (the host
// CPU and PoCL) with the bundled solutions and with a folder of kernels.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "kgb/paths.h"
#include "portability_commands.h"
#include "portability_metric.h"

using kgb::cli::PlatformOutcome;
using kgb::cli::performance_portability;

TEST_CASE("performance portability is the harmonic mean of efficiencies, 0 on any failure") {
  CHECK(*performance_portability({{true, 2.0}, {true, 0.5}}) == doctest::Approx(0.8));
  CHECK(*performance_portability({{true, 1.0}, {true, 1.0}, {true, 1.0}}) == doctest::Approx(1.0));
  CHECK(*performance_portability({{true, 2.0}, {false, 4.0}}) == 0.0);
  // A platform without timing (emulated) counts for correctness only.
  CHECK(*performance_portability({{true, 3.0}, {true, std::nullopt}}) == doctest::Approx(3.0));
  CHECK(*performance_portability({{true, 3.0}, {false, std::nullopt}}) == 0.0);
  CHECK_FALSE(performance_portability({{true, std::nullopt}}).has_value());
}

namespace {

// Runs `kgb portability ...` in process and returns its JSON output.
nlohmann::json run_portability(std::vector<std::string> args, int& exit_code) {
  CLI::App app{"kgb"};
  app.require_subcommand(1);
  exit_code = -1;
  kgb::cli::add_portability_commands(app, exit_code);
  args.insert(args.begin(), "portability");
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  std::ostringstream captured;
  auto* old = std::cout.rdbuf(captured.rdbuf());
  try {
    app.parse(reversed);
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  INFO(captured.str());
  return nlohmann::json::parse(captured.str());
}

}  // namespace

TEST_CASE("portability over cpu-x86_64 and opencl-pocl: correct on both, metric undefined without timing") {
  // PoCL compiles each program on first use; keep its cache in the build folder.
  std::filesystem::path cache = std::filesystem::path(KGB_TEST_BUILD_DIR) / "pocl-cache";
  std::filesystem::create_directories(cache);
  ::chmod(cache.c_str(), 0777);
  int code = 0;
  auto out = run_portability({"--platforms", "cpu-x86_64,opencl-pocl", "--tasks", "blas/saxpy", "--no-time", "--json",
                              "--seed", "3"},
                             code);
  CHECK(code == 0);
  REQUIRE(out["tasks"].size() == 1);
  const auto& row = out["tasks"][0];
  CHECK(row["task"] == "blas/saxpy");
  CHECK(row["correct_on"].size() == 2);
  CHECK(row["platforms"]["opencl-pocl"]["passed"] == true);
  CHECK(row["performance_portability"].is_null());
  CHECK(out["correct_on_all"] == 1);
}

TEST_CASE("portability with a kernels folder: a kernel missing on one platform makes the metric 0") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kgb-portability-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "blas" / "saxpy");
  std::filesystem::copy_file(kgb::tasks_root() / "blas" / "saxpy" / "solutions" / "cpu.cpp", dir / "blas" / "saxpy" / "cpu.cpp",
                             std::filesystem::copy_options::overwrite_existing);
  int code = 0;
  auto out = run_portability({"--platforms", "cpu-x86_64,opencl-pocl", "--tasks", "blas/saxpy", "--kernels",
                              dir.string(), "--json", "--seed", "3", "--time-budget", "0.2"},
                             code);
  std::filesystem::remove_all(dir);
  CHECK(code == 1);
  const auto& row = out["tasks"][0];
  CHECK(row["platforms"]["cpu-x86_64"]["passed"] == true);
  CHECK(row["platforms"]["opencl-pocl"]["status"] == "no-kernel");
  CHECK(row["performance_portability"] == 0.0);
  CHECK(out["correct_on_all"] == 0);
}
