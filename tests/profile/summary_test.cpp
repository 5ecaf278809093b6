// The profile result's model-oriented summary, the descriptors' "profile"
// sections (every bundled one loads, malformed ones name file and field), and
// the roofline placement of a timed case (label unit).
#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "kgb/case.h"
#include "kgb/paths.h"
#include "kgb/process.h"
#include "kgb/profile.h"
#include "kgb/roofline.h"
#include "kgb/task.h"

using namespace kgb;
using namespace kgb::profile;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

Platform with_profile_section(const TempDir& dir, const std::string& section) {
  auto p = load_platform("cpu-x86_64");
  REQUIRE(p);
  nlohmann::json j;
  std::ifstream(p->file) >> j;
  j["profile"] = nlohmann::json::parse(section);
  const auto file = dir.path() / "cpu-x86_64.json";
  std::ofstream(file) << j.dump(2);
  Platform q = *p;
  q.file = file;
  return q;
}

}  // namespace

TEST_CASE("summary: roofline placement first, then what the tools saw, then the sanitizer, with numbers") {
  ProfileResult r;
  r.task = "blas/saxpy";
  r.platform = "cpu-x86_64";
  r.backend = "cpu";
  r.compiled = true;
  r.tools = {"cachegrind", "asan+ubsan"};
  r.reduced_case = "n_16M/f32 reduced to n=1048576";
  r.counters = {{"cachegrind.Dr", 2e6}, {"cachegrind.Dw", 1e6}, {"cachegrind.D1mr", 1.5e6}, {"cachegrind.D1mw", 0.5e6},
                {"cachegrind.DLmr", 0}, {"cachegrind.DLmw", 0}, {"cachegrind.d1_miss_rate", 2.0 / 3}, {"cachegrind.ll_miss_rate", 0}};
  LineCost hot;
  hot.file = "candidate.cpp";
  hot.line = 16;
  hot.events = {{"D1mr", 1500000}, {"D1mw", 500000}};
  hot.excerpt = "y[i * 16] += a * x[i * 16];";
  r.hot_lines = {hot};
  r.sanitizer = "asan+ubsan";
  r.sanitizer_errors = 0;
  Verdict v;
  CaseTiming t;
  t.name = "n_16M";
  t.dtype = "f32";
  t.candidate.median_us = 40000;
  t.baseline = Timing{};
  t.baseline->median_us = 10000;
  t.speedup = 0.25;
  t.achieved_gbs = 5.0;
  t.bandwidth_fraction = 0.05;
  t.achieved_gflops = 0.84;
  t.compute_fraction = 0.004;
  t.bound = "memory";
  v.timings = {t};
  attach_timings(r, v);
  REQUIRE(r.summary.size() == 3);
  CHECK(r.summary[0] ==
        "n_16M/f32: 40000 us (baseline 10000 us, 0.25x); 5 GB/s = 5.0% of peak bandwidth, 0.84 GFLOP/s = 0.4% of peak compute: far "
        "below both ceilings (latency, parallelism or overhead limit it).");
  CHECK(r.summary[1].find("L1 data misses on 67% of 3e+06 data accesses") != std::string::npos);
  CHECK(r.summary[1].find("candidate.cpp:16 has 100% of the misses") != std::string::npos);
  CHECK(r.summary[1].find("access memory in order") != std::string::npos);
  CHECK(r.summary[2] == "Sanitizer (asan+ubsan): no error on the correctness cases.");
  nlohmann::json j = r;
  CHECK(j["summary"].size() == 3);
  CHECK(j["roofline"][0]["bound"] == "memory");
  CHECK(j["ok"] == true);
}

TEST_CASE("summary: a failed build or a platform without tools still says why in one line") {
  ProfileResult failed;
  failed.error = "the candidate does not compile";
  CHECK(summarize(failed) == std::vector<std::string>{"No profile: the candidate does not compile."});
  ProfileResult nothing;
  nothing.compiled = true;
  nothing.platform = "cpu-riscv64";
  nothing.notes = {"emulated under qemu-riscv64: no performance tools"};
  CHECK(summarize(nothing) == std::vector<std::string>{"No profile on cpu-riscv64: emulated under qemu-riscv64: no performance tools."});
  // An OpenCL split names each kernel's share and work sizes.
  ProfileResult cl;
  cl.compiled = true;
  cl.backend = "opencl";
  cl.tools = {"opencl events"};
  KernelProfile a, b;
  a.name = "head";
  a.duration_us = 75;
  a.share = 0.75;
  a.grid = "[768]";
  a.block = "[64]";
  b.name = "tail";
  b.duration_us = 25;
  b.share = 0.25;
  b.grid = "[256]";
  b.block = "[64]";
  cl.kernels = {b, a};
  cl.total_duration_us = 100;
  const std::string s = joined(summarize(cl));
  CHECK(s.find("2 kernel(s) per call, device time 100 us: head 75% (75 us, 1x, global [768], local [64]), tail 25%") == 0);
}

TEST_CASE("profile sections: every bundled descriptor loads; malformed ones name the file and the field") {
  for (const char* name : {"cpu-x86_64", "cpu-aarch64", "cpu-riscv64", "opencl-pocl", "opencl-nvidia", "cuda-sm80", "cuda-sm90",
                           "cuda-sm100", "hip-gfx90a"}) {
    CAPTURE(name);
    auto p = load_platform(name);
    REQUIRE(p);
    auto s = profile_settings(*p);
    REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
    CHECK((s->sanitizer.has_value() || !s->sanitizer_note.empty()));
  }
  TempDir dir("kgb-profile-settings");
  auto bad_tool = profile_settings(with_profile_section(dir, R"({"tools": ["vtune"]})"));
  REQUIRE_FALSE(bad_tool);
  CHECK(bad_tool.error().message.find("cpu-x86_64.json: field 'profile.tools': unknown tool 'vtune'") != std::string::npos);
  auto bad_key = profile_settings(with_profile_section(dir, R"({"tool": ["perf"]})"));
  REQUIRE_FALSE(bad_key);
  CHECK(bad_key.error().message.find("'profile.tool': unknown key") != std::string::npos);
  auto bad_sanitizer = profile_settings(with_profile_section(dir, R"({"sanitizer": {"tool": "valgrind-memcheck"}})"));
  REQUIRE_FALSE(bad_sanitizer);
  CHECK(bad_sanitizer.error().message.find("unknown sanitizer 'valgrind-memcheck'") != std::string::npos);
  auto bad_env = profile_settings(with_profile_section(dir, R"({"sanitizer": {"tool": "asan", "environment": {"A": 1}}})"));
  REQUIRE_FALSE(bad_env);
  CHECK(bad_env.error().message.find("'profile.sanitizer.environment.A': expected a string") != std::string::npos);
  // A malformed section makes profile_candidate fail with that message, not crash.
  auto t = load_all_tasks(tasks_root());
  const Task* saxpy = nullptr;
  for (const auto& x : t.tasks)
    if (x.id == "blas/saxpy") saxpy = &x;
  REQUIRE(saxpy);
  auto r = profile_candidate(*saxpy, with_profile_section(dir, R"({"tools": "perf"})"), "int x;", ProfileOptions{});
  CHECK(r.error.find("'profile.tools': expected an array of strings") != std::string::npos);
  CHECK_FALSE(r.ok());
}

TEST_CASE("roofline placement: achieved rates and fractions; the floor keeps the descriptor's looser peaks") {
  auto tasks = load_all_tasks(tasks_root());
  const Task* saxpy = nullptr;
  for (const auto& x : tasks.tasks)
    if (x.id == "blas/saxpy") saxpy = &x;
  REQUIRE(saxpy);
  auto inst = instantiate_case(*saxpy, saxpy->performance.front(), case_dtypes(*saxpy, saxpy->performance.front()).front(), 1);
  REQUIRE(inst);
  Platform p;
  p.peak.bandwidth_gbs = 10;      // calibrated: a busy host
  p.peak.gflops_fp32 = 100;
  p.descriptor_peak.bandwidth_gbs = 200;
  p.descriptor_peak.gflops_fp32 = 300;
  p.calibrated_from = "calibration.json";
  const double n = 16777216;
  const RooflinePlacement r = place_on_roofline(p, *inst, 10000);  // 10 ms
  CHECK(r.bytes == 12 * n);
  CHECK(r.flops == 2 * n);
  CHECK(r.calibrated);
  CHECK(r.achieved_gbs == doctest::Approx(12 * n / 0.01 / 1e9));
  CHECK(r.bandwidth_fraction == doctest::Approx(12 * n / 0.01 / 1e9 / 10));
  CHECK(r.compute_fraction == doctest::Approx(2 * n / 0.01 / 1e9 / 100));
  CHECK(r.bound == "memory");
  CHECK(r.floor_us == doctest::Approx(12 * n / 200e9 * 1e6));  // the descriptor's 200 GB/s, not the measured 10
  CHECK(place_on_roofline(p, *inst, 0).bound.empty());
}
