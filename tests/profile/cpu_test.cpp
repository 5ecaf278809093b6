// `kgb profile` on cpu-x86_64 (label integration): the ASan+UBSan build of a
// candidate on the correctness cases reports a planted out-of-bounds read and
// a signed overflow with the candidate's file:line and is silent on the
// bundled solution; the cache simulation (or perf's counters where the kernel
// allows them) shows more misses for a cache-hostile kernel than for the
// bundled solution, with the hot line in the candidate's file; the result's
// summary says so in a few lines; `kgb calibrate` measures the host, and a
// timed evaluation then places each case on the calibrated roofline.
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "kgb/evaluator.h"
#include "kgb/process.h"
#include "kgb/roofline.h"
#include "profile_test_support.h"

using namespace kgb;
using namespace kgb::test;

namespace {

profile::ProfileOptions sanitize_only() {
  profile::ProfileOptions o;
  o.counters = false;
  o.sanitize = true;
  if (const char* keep = std::getenv("KGB_PROFILE_TEST_KEEP")) o.keep_dir = keep;
  return o;
}

double counter(const profile::ProfileResult& r, const std::string& key) {
  auto it = r.counters.find(key);
  REQUIRE_MESSAGE(it != r.counters.end(), "no counter " << key << "\n" << describe(r));
  return it->second;
}

// "candidate.cpp:LINE" or "candidate.cpp:LINE:COLUMN".
bool at_line(const std::string& location, int line) {
  const std::string prefix = "candidate.cpp:" + std::to_string(line);
  return location == prefix || location.rfind(prefix + ":", 0) == 0;
}

bool ran(const profile::ProfileResult& r, const std::string& tool) {
  return std::find(r.tools.begin(), r.tools.end(), tool) != r.tools.end();
}

}  // namespace

TEST_CASE("sanitize on cpu-x86_64: a planted out-of-bounds read is reported with the candidate's file:line") {
  KGB_REQUIRE_PLATFORM(cpu, "cpu-x86_64");
  const std::string source = test_kernel("cpu_saxpy_oob_read.cpp");
  auto r = profile::profile_candidate(task("blas/saxpy"), *cpu, source, sanitize_only());
  INFO(describe(r));
  CHECK(r.error.empty());
  CHECK(r.compiled);
  CHECK(r.sanitizer == "asan+ubsan");
  REQUIRE(!r.findings.empty());
  const Finding& f = r.findings.front();
  CHECK(f.rule == "sanitizer-asan");
  CHECK(f.severity == "reject");
  CHECK(at_line(f.location, line_of(source, "KGB-PLANTED-OOB")));
  // Past x's 1009 floats, in the padding of its 64-byte-rounded allocation.
  CHECK(f.message.find("past the end of a tensor") != std::string::npos);
  CHECK(f.message.find("4036 bytes inside a 4096-byte allocation") != std::string::npos);
  CHECK(f.message.find("READ of 4 bytes") != std::string::npos);
  // The first correctness case with a unit increment and more than one element.
  CHECK(r.sanitizer_case == "prime_1009/f32");
  CHECK_FALSE(r.ok());
  REQUIRE(!r.summary.empty());
  CHECK(r.summary.back().find("candidate.cpp:" + std::to_string(line_of(source, "KGB-PLANTED-OOB"))) != std::string::npos);
}

TEST_CASE("sanitize on cpu-x86_64: UBSan reports a signed overflow with its line; the bundled solution is clean") {
  KGB_REQUIRE_PLATFORM(cpu, "cpu-x86_64");
  const std::string source = test_kernel("cpu_saxpy_signed_overflow.cpp");
  auto r = profile::profile_candidate(task("blas/saxpy"), *cpu, source, sanitize_only());
  INFO(describe(r));
  REQUIRE(!r.findings.empty());
  CHECK(r.findings.front().rule == "sanitizer-ubsan");
  CHECK(r.findings.front().message.find("signed integer overflow") != std::string::npos);
  CHECK(at_line(r.findings.front().location, line_of(source, "KGB-PLANTED-UB")));

  auto clean = profile::profile_candidate(task("blas/saxpy"), *cpu, *bundled_solution(task("blas/saxpy"), "cpu.cpp"), sanitize_only());
  INFO(describe(clean));
  CHECK(clean.error.empty());
  CHECK(clean.sanitizer_errors == 0);
  CHECK(clean.findings.empty());
  CHECK(clean.warnings.empty());
  CHECK(clean.ok());
}

TEST_CASE("sanitize on cpu-x86_64: a candidate that does not compile reports its diagnostics, nothing runs") {
  KGB_REQUIRE_PLATFORM(cpu, "cpu-x86_64");
  auto r = profile::profile_candidate(task("blas/saxpy"), *cpu, "extern \"C\" int kgb_blas_saxpy( { nonsense", sanitize_only());
  CHECK_FALSE(r.compiled);
  CHECK(r.error == "the candidate does not compile");
  CHECK(!r.diagnostics.empty());
  CHECK(r.sanitizer_errors == -1);
  REQUIRE(r.summary.size() == 1);
  CHECK(r.summary.front().find("does not compile") != std::string::npos);
}

TEST_CASE("profile on cpu-x86_64: a cache-hostile kernel shows more misses than the bundled solution, on its own line") {
  KGB_REQUIRE_PLATFORM(cpu, "cpu-x86_64");
  // The per-line attribution needs cachegrind (scripts/setup.sh installs
  // valgrind); a host without it gets a note, which the profile tests of
  // tools/profile check on their own.
  if (std::system("command -v valgrind >/dev/null 2>&1") != 0) {
    MESSAGE("skipped: valgrind is not installed on this host");
    return;
  }
  profile::ProfileOptions o;
  o.case_filter = "n_16M";
  o.reduced_case_bytes = 8ll << 20;  // 4 MiB per vector: larger than L1 and L2, quick to simulate
  const std::string hostile = test_kernel("cpu_saxpy_cache_hostile.cpp");
  auto bad = profile::profile_candidate(task("blas/saxpy"), *cpu, hostile, o);
  auto good = profile::profile_candidate(task("blas/saxpy"), *cpu, *bundled_solution(task("blas/saxpy"), "cpu.cpp"), o);
  INFO(describe(bad) << "\n==== bundled ====\n" << describe(good));
  CHECK(bad.error.empty());
  CHECK(good.error.empty());
  CHECK(bad.profiled_case == "n_16M/f32");
  // perf: counters where the kernel gives them to this process, else a note.
  if (ran(bad, "perf stat")) {
    CHECK(counter(bad, "perf.calls") >= 5);
    CHECK(counter(bad, "perf.instructions_per_call") > 0);
  } else {
    const bool noted = std::any_of(bad.notes.begin(), bad.notes.end(), [](const std::string& n) { return n.rfind("perf:", 0) == 0; });
    CHECK(noted);
  }
  REQUIRE(ran(bad, "cachegrind"));
  REQUIRE(ran(good, "cachegrind"));
  CHECK(bad.reduced_case.find("n_16M/f32 reduced to n=") == 0);
  const double bad_misses = counter(bad, "cachegrind.D1mr") + counter(bad, "cachegrind.D1mw");
  const double good_misses = counter(good, "cachegrind.D1mr") + counter(good, "cachegrind.D1mw");
  MESSAGE("L1 data misses in the candidate's lines: cache-hostile " << bad_misses << ", bundled " << good_misses);
  CHECK(bad_misses > 4 * good_misses);
  CHECK(counter(bad, "cachegrind.d1_miss_rate") > 0.5);
  CHECK(counter(good, "cachegrind.d1_miss_rate") < 0.2);
  REQUIRE(!bad.hot_lines.empty());
  CHECK(bad.hot_lines.front().file == "candidate.cpp");
  CHECK(bad.hot_lines.front().line == line_of(hostile, "KGB-STRIDED"));
  CHECK(bad.hot_lines.front().excerpt.find("KGB-STRIDED") != std::string::npos);
  // The summary names the line and the miss rate.
  std::string summary;
  for (const auto& l : bad.summary) summary += l + "\n";
  CHECK(summary.find("candidate.cpp:" + std::to_string(line_of(hostile, "KGB-STRIDED"))) != std::string::npos);
  CHECK(summary.find("L1 data misses") != std::string::npos);
  // The JSON form carries the same.
  nlohmann::json j = bad;
  CHECK(j["hot_lines"][0]["line"] == line_of(hostile, "KGB-STRIDED"));
  CHECK(j["ok"] == true);
}

TEST_CASE("calibrate cpu-x86_64, then a timed evaluation reports the fractions of the calibrated peaks") {
  KGB_REQUIRE_PLATFORM(cpu, "cpu-x86_64");
  TempDir calibration("kgb-calibration-test");
  const ScopedEnv calibration_dir("KGB_CALIBRATION_DIR", calibration.path().string());
  auto measured = [&] {
    const ScopedEnv quick("KGB_CALIBRATE_QUICK", "1");
    return profile::run_calibration(*cpu, 300);
  }();
  REQUIRE_MESSAGE(measured, (measured ? "" : measured.error().message));
  MESSAGE("cpu-x86_64 calibration: " << measured->dump());
  const auto& peak = (*measured)["peak"];
  CHECK(peak["bandwidth_gbs"].get<double>() > 0.5);
  CHECK(peak["gflops_fp32"].get<double>() > 1);
  CHECK(peak["gflops_fp64"].get<double>() > 0.5);
  CHECK(peak["per_core"] == false);
  auto reloaded = load_platform("cpu-x86_64");
  REQUIRE(reloaded);
  CHECK(reloaded->calibrated_from == calibration_file("cpu-x86_64"));
  CHECK(reloaded->peak.bandwidth_gbs == doctest::Approx(peak["bandwidth_gbs"].get<double>()));
  CHECK_FALSE(reloaded->peak.per_core);

  EvalOptions eval;
  eval.case_filter = "n_16M";
  eval.seeds_per_case = 1;
  eval.baseline = false;
  eval.time_budget_seconds = 0.3;
  Verdict v = evaluate(task("blas/saxpy"), *reloaded, *bundled_solution(task("blas/saxpy"), "cpu.cpp"), eval);
  INFO(v.summary);
  REQUIRE(v.passed());
  REQUIRE(v.timings.size() == 1);
  const CaseTiming& t = v.timings.front();
  MESSAGE("saxpy n_16M: " << t.candidate.median_us << " us, " << t.achieved_gbs << " GB/s = " << 100 * t.bandwidth_fraction
                          << "% of the calibrated bandwidth; " << t.achieved_gflops << " GFLOP/s = " << 100 * t.compute_fraction
                          << "% of fp32; bound " << t.bound);
  // 16M elements: 2 FLOPs and 12 bytes each.
  CHECK(t.achieved_gbs == doctest::Approx(3.0 * 16777216 * 4 / (t.candidate.median_us * 1e-6) / 1e9).epsilon(1e-6));
  CHECK(t.achieved_gflops == doctest::Approx(2.0 * 16777216 / (t.candidate.median_us * 1e-6) / 1e9).epsilon(1e-6));
  CHECK(t.bandwidth_fraction == doctest::Approx(t.achieved_gbs / reloaded->peak.bandwidth_gbs));
  CHECK(t.bound == "memory");
  CHECK(t.bandwidth_fraction > 0.02);
  // The floor keeps the descriptor's looser figures: an honest kernel timed
  // after a calibration on a busy machine is not rejected.
  CHECK(t.floor_us <= t.candidate.median_us);
}

TEST_CASE("calibrate: emulated and compile-only platforms have nothing to calibrate; their profile says what works") {
  auto aarch64 = load_platform("cpu-aarch64");
  REQUIRE(aarch64);
  auto r = profile::run_calibration(*aarch64);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == "calibrate.none");
  CHECK(r.error().message.find("emulated") != std::string::npos);
  auto hip = load_platform("hip-gfx90a");
  REQUIRE(hip);
  auto h = profile::run_calibration(*hip);
  REQUIRE_FALSE(h);
  CHECK(h.error().message.find("compile-only") != std::string::npos);
  auto riscv = load_platform("cpu-riscv64");
  REQUIRE(riscv);
  auto settings = profile::profile_settings(*riscv);
  REQUIRE(settings);
  CHECK_FALSE(settings->sanitizer);
  CHECK(settings->sanitizer_note.find("qemu-riscv64") != std::string::npos);
}

TEST_CASE("profile on hip-gfx90a (compile only): the compiler's resource usage per kernel") {
  KGB_REQUIRE_PLATFORM(hip, "hip-gfx90a");
  auto r = profile::profile_candidate(task("blas/saxpy"), *hip, *bundled_solution(task("blas/saxpy"), "hip.hip"), profile::ProfileOptions{});
  INFO(describe(r));
  CHECK(r.error.empty());
  CHECK(r.compiled);
  CHECK(r.tools == std::vector<std::string>{"hip resource usage"});
  REQUIRE(!r.kernels.empty());
  for (const auto& k : r.kernels) {
    CHECK(k.attributes.count("vgpr") == 1);
    CHECK(k.attributes.count("sgpr") == 1);
    CHECK(k.attributes.count("occupancy_waves") == 1);
  }
  REQUIRE(!r.summary.empty());
  CHECK(r.summary.front().rfind("Compiler resource usage: ", 0) == 0);
}
