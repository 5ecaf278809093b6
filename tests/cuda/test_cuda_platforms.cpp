// CUDA platform descriptors: they load, name the CUDA runner pieces, and the
// calibration file overlays the peak figures. Availability follows the probe:
// a host without a usable device reports the platform unavailable, with the
// probe's reason.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/process.h"

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

bool any_contains(const std::vector<std::string>& v, const std::string& part) {
  for (const auto& s : v)
    if (s.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the CUDA descriptors load and describe the CUDA runner") {
  for (const char* name : {"cuda-sm80", "cuda-sm90", "cuda-sm100"}) {
    CAPTURE(name);
    auto p = kgb::load_platform(name);
    REQUIRE(p);
    CHECK(p->backend == "cuda");
    CHECK(p->source_extension == "cu");
    CHECK(p->solution_file == "cuda.cu");
    CHECK(p->runner_library == "backends/cuda/libkgb_runner_cuda.a");
    CHECK(p->baseline_runner == "backends/cuda/kgb-baseline-cuda");
    CHECK(p->has("run"));
    CHECK(p->has("time"));
    CHECK(contains(p->required_programs, "nvcc"));
    REQUIRE(!p->compile_command.empty());
    CHECK(p->compile_command[0] == "nvcc");
    CHECK(any_contains(p->compile_command, "-gencode=arch=compute_"));
    CHECK(contains(p->compile_command, "-lineinfo"));  // sanitizer findings carry source lines
    CHECK(any_contains(p->link_command, "kgb_cuda_link.rsp"));
    REQUIRE(p->probe.size() == 2);
    CHECK(p->probe[0].find("kgb-cuda-probe") != std::string::npos);
    REQUIRE(!p->calibrate.empty());
    CHECK(p->calibrate[0].find("kgb-cuda-calibrate") != std::string::npos);
    CHECK(p->limits.address_space_mb == 0);  // the CUDA driver maps large ranges
    CHECK(p->environment.at("KGB_CUDA_DEVICE") == "0");
    CHECK(p->peak.bandwidth_gbs > 0);
    CHECK(p->peak.gflops_fp32 > 0);
    CHECK_FALSE(p->peak.per_core);
  }
  auto sm90 = kgb::load_platform("cuda-sm90");
  REQUIRE(sm90);
  CHECK(sm90->arch == "sm_90a");
  CHECK(sm90->probe[1] == "sm_90a");
}

TEST_CASE("a calibration file under the build root overlays the peak figures") {
  const auto root = std::filesystem::temp_directory_path() / ("kgb-calibration-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "calibration");
  const char* previous = std::getenv("KGB_BUILD_ROOT");
  const std::string saved = previous ? previous : "";
  ::setenv("KGB_BUILD_ROOT", root.c_str(), 1);
  auto descriptor = kgb::load_platform("cuda-sm90");
  REQUIRE(descriptor);
  CHECK(descriptor->calibrated_from.empty());
  CHECK(kgb::calibration_file("cuda-sm90") == root / "calibration" / "cuda-sm90.json");
  {
    std::ofstream(root / "calibration" / "cuda-sm90.json")
        << R"({"platform": "cuda-sm90", "peak": {"bandwidth_gbs": 4650.5, "gflops_fp32": 70000}, "measured": {"copy_gbs": 4227.7}})";
  }
  auto calibrated = kgb::load_platform("cuda-sm90");
  REQUIRE(calibrated);
  CHECK(calibrated->peak.bandwidth_gbs == doctest::Approx(4650.5));
  CHECK(calibrated->peak.gflops_fp32 == doctest::Approx(70000));
  CHECK(calibrated->peak.gflops_fp16 == doctest::Approx(descriptor->peak.gflops_fp16));  // not calibrated: kept
  CHECK(calibrated->calibrated_from == root / "calibration" / "cuda-sm90.json");
  {
    std::ofstream(root / "calibration" / "cuda-sm90.json") << "{ not json";
  }
  auto broken = kgb::load_platform("cuda-sm90");
  REQUIRE(broken);  // a broken cache of measurements never makes the platform unusable
  CHECK(broken->peak.bandwidth_gbs == doctest::Approx(descriptor->peak.bandwidth_gbs));
  if (previous) ::setenv("KGB_BUILD_ROOT", saved.c_str(), 1);
  else ::unsetenv("KGB_BUILD_ROOT");
  std::filesystem::remove_all(root);
}

TEST_CASE("availability of cuda-sm90 follows the probe") {
  auto p = kgb::load_platform("cuda-sm90");
  REQUIRE(p);
  const auto probe = kgb::build_root() / "backends" / "cuda" / "kgb-cuda-probe";
  REQUIRE(std::filesystem::exists(probe));
  auto run = kgb::run_command({probe.string(), "sm_90a"}, std::filesystem::temp_directory_path(), 60);
  REQUIRE(run);
  const bool device = run->status.exited && run->status.code == 0;
  MESSAGE("kgb-cuda-probe sm_90a: " << run->output);
  CHECK_FALSE(run->output.empty());
  auto a = kgb::check_availability(*p);
  CHECK(a.available == device);
  if (!device) CHECK(!a.reason.empty());
  // A target newer than any device here is never available.
  auto sm100 = kgb::load_platform("cuda-sm100");
  REQUIRE(sm100);
  auto probe100 = kgb::run_command({probe.string(), "sm_100a"}, std::filesystem::temp_directory_path(), 60);
  REQUIRE(probe100);
  CHECK(kgb::check_availability(*sm100).available == (probe100->status.exited && probe100->status.code == 0));
}
