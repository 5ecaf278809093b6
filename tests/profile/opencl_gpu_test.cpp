// opencl-nvidia on the GPU host (label gpu; skips cleanly where no NVIDIA
// OpenCL device is present): the two-kernel candidate's per-kernel split from
// the driver's profiling events, and the calibration of the GPU through
// OpenCL. Run by scripts/device-test.sh --only profile.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "kgb/process.h"
#include "profile_test_support.h"

using namespace kgb;
using namespace kgb::test;

TEST_CASE("profile on opencl-nvidia: two kernels per call get a per-kernel split") {
  KGB_REQUIRE_PLATFORM(nvidia, "opencl-nvidia");
  profile::ProfileOptions o;
  o.case_filter = "n_16M";
  auto r = profile::profile_candidate(task("blas/saxpy"), *nvidia, test_kernel("opencl_saxpy_two_kernels.cpp"), o);
  INFO(describe(r));
  REQUIRE(r.error.empty());
  REQUIRE(r.kernels.size() == 2);
  double shares = 0;
  for (const auto& k : r.kernels) {
    MESSAGE(k.name << ": " << k.duration_us << " us, " << 100 * k.share << "%, global " << k.grid << ", local " << k.block);
    CHECK(k.duration_us > 0);
    CHECK(k.launches == 1);
    CHECK(k.attributes.count("preferred_work_group_multiple") == 1);
    shares += k.share;
  }
  CHECK(shares == doctest::Approx(1.0));
  for (const auto& e : r.enqueues) {
    CHECK(e.queued <= e.submit);
    CHECK(e.submit <= e.start);
    CHECK(e.start < e.end);
  }
  for (const auto& line : r.summary) MESSAGE(line);
}

TEST_CASE("calibrate opencl-nvidia: bandwidth and fp32 rate of the GPU through OpenCL") {
  KGB_REQUIRE_PLATFORM(nvidia, "opencl-nvidia");
  TempDir calibration("kgb-calibration-test");
  const ScopedEnv calibration_dir("KGB_CALIBRATION_DIR", calibration.path().string());
  auto measured = profile::run_calibration(*nvidia, 600);
  REQUIRE_MESSAGE(measured, (measured ? "" : measured.error().message));
  MESSAGE("opencl-nvidia calibration: " << measured->dump());
  CHECK((*measured)["peak"]["bandwidth_gbs"].get<double>() > 100);
  CHECK((*measured)["peak"]["gflops_fp32"].get<double>() > 1000);
}
