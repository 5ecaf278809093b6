// `kgb profile` on opencl-pocl (label integration): per-enqueue profiling
// events with work sizes, the split of device time between the kernels of a
// candidate that enqueues two, kernel attributes and build logs; Oclgrind on
// the correctness cases reports an out-of-bounds read with the launcher's
// file:line; `kgb calibrate` measures the PoCL device.
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "kgb/process.h"
#include "profile_test_support.h"

using namespace kgb;
using namespace kgb::test;

namespace {

const profile::KernelProfile* kernel_named(const profile::ProfileResult& r, const std::string& name) {
  for (const auto& k : r.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("profile on opencl-pocl: two kernels per call get a per-kernel split, events, work sizes and attributes") {
  KGB_REQUIRE_PLATFORM(pocl, "opencl-pocl");
  profile::ProfileOptions o;
  o.case_filter = "n_16M";
  auto r = profile::profile_candidate(task("blas/saxpy"), *pocl, test_kernel("opencl_saxpy_two_kernels.cpp"), o);
  INFO(describe(r));
  REQUIRE(r.error.empty());
  CHECK(r.tools == std::vector<std::string>{"opencl events"});
  REQUIRE(r.kernels.size() == 2);
  const auto* head = kernel_named(r, "saxpy_head");
  const auto* tail = kernel_named(r, "saxpy_tail");
  REQUIRE(head);
  REQUIRE(tail);
  MESSAGE("saxpy_head " << head->duration_us << " us (" << 100 * head->share << "%), saxpy_tail " << tail->duration_us << " us ("
                        << 100 * tail->share << "%)");
  CHECK(head->launches == 1);
  CHECK(tail->launches == 1);
  CHECK(head->duration_us > 0);
  CHECK(tail->duration_us > 0);
  CHECK(head->share + tail->share == doctest::Approx(1.0));
  CHECK(r.total_duration_us == doctest::Approx(head->duration_us + tail->duration_us));
  // 16M elements: three quarters in the head, in work-groups of 64.
  CHECK(head->grid == "[12582912]");
  CHECK(tail->grid == "[4194304]");
  CHECK(head->block == "[64]");
  // Attributes of each kernel as the device reports them.
  for (const auto* k : {head, tail}) {
    CHECK(k->attributes.count("private_mem_bytes") == 1);
    CHECK(k->attributes.count("local_mem_bytes") == 1);
    CHECK(k->attributes.at("max_work_group_size") >= 64);
    CHECK(k->attributes.at("preferred_work_group_multiple") >= 1);
    CHECK(k->attributes.at("args") == 9);
  }
  // Every enqueue of the profiled calls, in device time order within a call.
  CHECK(r.counters.at("opencl.calls") == 3);
  CHECK(r.counters.at("opencl.enqueues_per_call") == 2);
  REQUIRE(r.enqueues.size() == 6);
  for (const auto& e : r.enqueues) {
    CHECK(e.queued <= e.submit);
    CHECK(e.submit <= e.start);
    CHECK(e.start < e.end);
  }
  CHECK(r.enqueues[0].kernel == "saxpy_head");
  CHECK(r.enqueues[1].kernel == "saxpy_tail");
  CHECK(r.enqueues[0].global == std::vector<int64_t>{12582912});
  CHECK(r.enqueues[0].local == std::vector<int64_t>{64});
  CHECK(r.enqueues[1].start >= r.enqueues[0].start);
  // The summary gives the split with numbers.
  REQUIRE(!r.summary.empty());
  std::string summary;
  for (const auto& l : r.summary) summary += l + "\n";
  CHECK(summary.find("2 kernel(s) per call") != std::string::npos);
  CHECK(summary.find("saxpy_head") != std::string::npos);
  CHECK(summary.find("saxpy_tail") != std::string::npos);
  nlohmann::json j = r;
  CHECK(j["kernels"].size() == 2);
  CHECK(j["enqueues"].size() == 6);
  CHECK(j["enqueues"][0].contains("queued_ns"));
}

TEST_CASE("profile on opencl-pocl: a program's build log reaches the result") {
  KGB_REQUIRE_PLATFORM(pocl, "opencl-pocl");
  // The bundled solution, with a #warning in its OpenCL C program.
  std::string source = *bundled_solution(task("blas/saxpy"), "opencl.cpp");
  const std::string anchor = "__kernel void saxpy_strided";
  const auto at = source.find(anchor);
  REQUIRE(at != std::string::npos);
  source.insert(at, "#warning kgb-build-log-probe\n");
  profile::ProfileOptions o;
  o.case_filter = "n_16M";
  auto r = profile::profile_candidate(task("blas/saxpy"), *pocl, source, o);
  INFO(describe(r));
  REQUIRE(r.error.empty());
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels.front().name == "saxpy_unit");
  CHECK(r.kernels.front().build_log.find("kgb-build-log-probe") != std::string::npos);
}

TEST_CASE("sanitize on opencl-pocl: Oclgrind reports an out-of-bounds read with the launcher's line; the bundled solution is clean") {
  KGB_REQUIRE_PLATFORM(pocl, "opencl-pocl");
  profile::ProfileOptions o;
  o.counters = false;
  o.sanitize = true;
  o.case_filter = "prime_1009";
  if (const char* keep = std::getenv("KGB_PROFILE_TEST_KEEP")) o.keep_dir = keep;
  const std::string source = test_kernel("opencl_saxpy_oob_read.cpp");
  auto r = profile::profile_candidate(task("blas/saxpy"), *pocl, source, o);
  INFO(describe(r));
  if (std::find(r.notes.begin(), r.notes.end(), "sanitizer: 'oclgrind' not found on PATH (Debian: oclgrind)") != r.notes.end()) {
    MESSAGE("skipped: oclgrind is not installed");
    return;
  }
  CHECK(r.error.empty());
  CHECK(r.sanitizer == "oclgrind");
  REQUIRE(!r.findings.empty());
  const Finding& f = r.findings.front();
  CHECK(f.rule == "sanitizer-oclgrind");
  CHECK(f.message.find("Invalid read") != std::string::npos);
  CHECK(f.location == "candidate.cpp:" + std::to_string(line_of(source, "if (i < n) y[yo + i * incy] += alpha * x[xo + j * incx];")));

  auto clean = profile::profile_candidate(task("blas/saxpy"), *pocl, *bundled_solution(task("blas/saxpy"), "opencl.cpp"), o);
  INFO(describe(clean));
  CHECK(clean.error.empty());
  CHECK(clean.sanitizer_errors == 0);
  CHECK(clean.findings.empty());
}

TEST_CASE("calibrate opencl-pocl: bandwidth and arithmetic rate of the PoCL device") {
  KGB_REQUIRE_PLATFORM(pocl, "opencl-pocl");
  TempDir calibration("kgb-calibration-test");
  const ScopedEnv calibration_dir("KGB_CALIBRATION_DIR", calibration.path().string());
  const ScopedEnv quick("KGB_CALIBRATE_QUICK", "1");
  auto measured = profile::run_calibration(*pocl, 600);
  REQUIRE_MESSAGE(measured, (measured ? "" : measured.error().message));
  MESSAGE("opencl-pocl calibration: " << measured->dump());
  const auto& peak = (*measured)["peak"];
  CHECK(peak["bandwidth_gbs"].get<double>() > 0.1);
  CHECK(peak["gflops_fp32"].get<double>() > 0.1);
  CHECK(peak["per_core"] == false);
  auto reloaded = load_platform("opencl-pocl");
  REQUIRE(reloaded);
  CHECK(reloaded->calibrated_from == calibration_file("opencl-pocl"));
  CHECK(reloaded->peak.gflops_fp32 == doctest::Approx(peak["gflops_fp32"].get<double>()));
}
