// The profile tool's parsers on recorded tool output (no GPU needed): Nsight
// Compute CSV in both table shapes, compute-sanitizer memcheck reports, and
// the replay request stream a candidate executable reads under the tools.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kgb/case.h"
#include "kgb/paths.h"
#include "kgb/profile.h"
#include "kgb/task.h"
#include "kgb/wire.h"

namespace {

std::string read_data(const char* name) {
  std::ifstream in(std::string(KGB_CUDA_TEST_DATA) + "/" + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("ncu details CSV: one profile per launch, units converted, stalls ranked") {
  auto report = kgb::profile::parse_ncu_csv(read_data("ncu_details.csv"));
  REQUIRE(report);
  REQUIRE(report->kernels.size() == 2);
  const auto& a = report->kernels[0];
  CHECK(a.id == 0);
  CHECK(a.name == "(anonymous namespace)::saxpy_vector(long, float, const float4 *, float4 *)");
  CHECK(a.grid == "(4096, 1, 1)");
  CHECK(a.block == "(256, 1, 1)");
  CHECK(a.duration_us == doctest::Approx(52.416));  // "52,416" nsecond: digit grouping removed
  CHECK(a.dram_throughput_pct == doctest::Approx(91.37));
  CHECK(a.sm_throughput_pct == doctest::Approx(12.05));
  CHECK(a.achieved_occupancy_pct == doctest::Approx(83.12));
  REQUIRE(a.top_stalls.size() == 5);
  CHECK(a.top_stalls[0].first == "long_scoreboard");
  CHECK(a.top_stalls[0].second == doctest::Approx(21.43));
  CHECK(a.top_stalls[1].first == "lg_throttle");
  CHECK(a.top_stalls[2].first == "wait");
  for (const auto& [reason, value] : a.top_stalls) CHECK(reason != "selected");  // issuing is not a stall
  CHECK(a.units.at("gpu__time_duration.sum") == "nsecond");

  const auto& b = report->kernels[1];
  CHECK(b.duration_us == doctest::Approx(2.69));  // usecond kept as is
  CHECK(b.dram_throughput_pct == 0);              // "n/a"
  CHECK(b.metrics.count("dram__throughput.avg.pct_of_peak_sustained_elapsed") == 0);
  bool warned = false;
  for (const auto& w : report->warnings) warned = warned || w.find("dram__throughput") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("ncu raw CSV: metric columns with a units row") {
  auto report = kgb::profile::parse_ncu_csv(read_data("ncu_raw.csv"));
  REQUIRE(report);
  REQUIRE(report->kernels.size() == 1);
  const auto& k = report->kernels[0];
  CHECK(k.name == "void gemm_tiled<float, 64, 64, 16, 4, 4>(GemmArgs<float>)");
  CHECK(k.duration_us == doctest::Approx(1250.0));  // 1.25 msecond
  CHECK(k.sm_throughput_pct == doctest::Approx(71.8));
  CHECK(k.achieved_occupancy_pct == doctest::Approx(46.1));
  REQUIRE(k.top_stalls.size() == 2);
  CHECK(k.top_stalls[0].first == "barrier");
}

TEST_CASE("ncu output without a table is an error, not an empty profile") {
  auto report = kgb::profile::parse_ncu_csv("==PROF== Connected to process 1\n==ERROR== Failed to profile\n");
  REQUIRE_FALSE(report);
  CHECK(report.error().code == "ncu.no-table");
}

TEST_CASE("ncu metric list holds the figures the profile result reports") {
  const auto& m = kgb::profile::ncu_metrics();
  auto has = [&](const std::string& name) { return std::find(m.begin(), m.end(), name) != m.end(); };
  CHECK(has("gpu__time_duration.sum"));
  CHECK(has("dram__throughput.avg.pct_of_peak_sustained_elapsed"));
  CHECK(has("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
  CHECK(has("sm__warps_active.avg.pct_of_peak_sustained_active"));
}

TEST_CASE("compute-sanitizer memcheck report becomes folded findings") {
  auto r = kgb::profile::parse_sanitizer_output(read_data("memcheck_oob.txt"));
  CHECK(r.summary_seen);
  CHECK(r.error_count == 4);
  REQUIRE(r.findings.size() == 3);  // two reports of the same write fold into one
  const auto& w = r.findings[0];
  CHECK(w.rule == "sanitizer-memcheck");
  CHECK(w.layer == "L2");
  CHECK(w.severity == "reject");
  CHECK(w.location == "candidate.cu:12");  // the temporary folder is dropped
  CHECK(w.message.find("Invalid __global__ write of size 4 bytes") == 0);
  CHECK(w.message.find("scale(float *, long)+0x90") != std::string::npos);
  CHECK(w.message.find("by thread (64,0,0) in block (3,0,0)") != std::string::npos);
  CHECK(w.message.find("(2 reports)") != std::string::npos);
  CHECK(r.findings[1].location == "candidate.cu:31");
  CHECK(r.findings[1].message.find("Invalid __shared__ read") == 0);
  CHECK(r.findings[2].message.find("Program hit cudaErrorLaunchFailure") == 0);
}

TEST_CASE("a clean compute-sanitizer run has no findings") {
  auto r = kgb::profile::parse_sanitizer_output(read_data("memcheck_clean.txt"));
  CHECK(r.summary_seen);
  CHECK(r.error_count == 0);
  CHECK(r.findings.empty());
}

TEST_CASE("replay request stream: hello, one check job per instance, bye") {
  auto tasks = kgb::load_all_tasks(kgb::tasks_root());
  const kgb::Task* saxpy = nullptr;
  for (const auto& t : tasks.tasks)
    if (t.id == "blas/saxpy") saxpy = &t;
  REQUIRE(saxpy);
  std::vector<kgb::CaseInstance> instances;
  for (const auto& c : saxpy->correctness) {
    auto inst = kgb::instantiate_case(*saxpy, c, kgb::case_dtypes(*saxpy, c).front(), 7);
    REQUIRE(inst);
    instances.push_back(std::move(*inst));
  }
  auto bytes = kgb::profile::replay_requests(*saxpy, instances, 0xA5);
  // Decode the frames back.
  size_t pos = 0, jobs = 0;
  kgb::wire::Hello hello_task;
  bool bye = false;
  while (pos < bytes.size()) {
    kgb::wire::FrameHeader h;
    REQUIRE(pos + sizeof h <= bytes.size());
    std::memcpy(&h, bytes.data() + pos, sizeof h);
    CHECK(h.magic == kgb::wire::kMagic);
    std::vector<std::byte> payload(bytes.begin() + static_cast<long>(pos + sizeof h),
                                   bytes.begin() + static_cast<long>(pos + sizeof h + h.length));
    pos += sizeof h + h.length;
    auto type = static_cast<kgb::wire::MessageType>(h.type);
    if (type == kgb::wire::MessageType::Hello) {
      REQUIRE(kgb::wire::decode_hello(payload, hello_task));
    } else if (type == kgb::wire::MessageType::Job) {
      kgb::wire::Job job;
      REQUIRE(kgb::wire::decode_job(payload, job));
      CHECK(job.mode == kgb::wire::JobMode::Check);
      CHECK(job.poison == 0xA5);
      CHECK(job.params.size() == saxpy->params.size());
      CHECK(job.sets.size() == 1);
      ++jobs;
    } else if (type == kgb::wire::MessageType::Bye) {
      bye = true;
    }
  }
  CHECK(pos == bytes.size());
  CHECK(hello_task.task_id == "blas/saxpy");
  CHECK(jobs == instances.size());
  CHECK(bye);
}
