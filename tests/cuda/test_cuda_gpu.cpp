// GPU tests (label gpu): they run only where cuda-sm90 is available and skip
// with a message elsewhere.
//  - every bundled CUDA solution passes evaluate() clean, timed;
//  - the planted hacks are caught: work on a stream of its own, a result
//    cached from a previous call, a GEMM handed to cuBLAS, a kernel that only
//    copies its input, a call that does nothing;
//  - the profile tool: Nsight Compute metrics of a solution, and
//    compute-sanitizer findings for an out-of-bounds write.
// Hacks that must pass every correctness case to be caught while timing are
// built from the bundled silu_and_mul solution by renaming its entry point
// and wrapping it, so they handle every dtype and layout.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/profile.h"
#include "kgb/task.h"

namespace {

const kgb::Platform* cuda_platform(std::string& why) {
  static std::optional<kgb::Platform> platform;
  static std::string reason;
  static bool probed = false;
  if (!probed) {
    probed = true;
    auto p = kgb::load_platform("cuda-sm90");
    if (!p) {
      reason = p.error().message;
    } else {
      auto a = kgb::check_availability(*p);
      if (a.available) platform = *p;
      else reason = a.reason;
    }
  }
  why = reason;
  return platform ? &*platform : nullptr;
}

#define KGB_REQUIRE_GPU(platform_var)                                        \
  std::string skip_reason;                                                   \
  const kgb::Platform* platform_var = cuda_platform(skip_reason);            \
  if (!platform_var) {                                                       \
    MESSAGE("skipped: cuda-sm90 is not available here: " << skip_reason);    \
    return;                                                                  \
  }

const kgb::Task& task(const std::string& id) {
  static auto report = kgb::load_all_tasks(kgb::tasks_root());
  for (const auto& t : report.tasks)
    if (t.id == id) return t;
  FAIL("task " << id << " not found");
  throw std::runtime_error("unreachable");
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string hack(const char* name) { return read_file(std::filesystem::path(KGB_CUDA_HACKS) / name); }

bool has_finding(const kgb::Verdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const kgb::Finding& f) { return f.rule == rule && f.severity == "reject"; });
}

std::string findings_of(const kgb::Verdict& v) {
  std::string s;
  for (const auto& f : v.findings) s += f.rule + " (" + f.location + "): " + f.message + "\n";
  return s;
}

kgb::EvalOptions quick(double time_budget = 0.3) {
  kgb::EvalOptions o;
  o.lint = false;  // these tests are about the dynamic checks
  o.time_budget_seconds = time_budget;
  o.seed = 20240917;
  return o;
}

// The bundled silu_and_mul solution with its entry renamed to `solution_entry`.
std::string silu_solution_renamed() {
  const kgb::Task& t = task("vllm/silu_and_mul");
  auto source = kgb::bundled_solution(t, "cuda.cu");
  REQUIRE(source);
  std::string s = *source;
  const std::string entry = "extern \"C\" int kgb_vllm_silu_and_mul(";
  auto at = s.find(entry);
  REQUIRE(at != std::string::npos);
  s.replace(at, entry.size(), "static int solution_entry(");
  return s;
}

}  // namespace

TEST_CASE("every bundled CUDA solution passes evaluate clean, with timing") {
  KGB_REQUIRE_GPU(platform);
  auto report = kgb::load_all_tasks(kgb::tasks_root());
  auto options = quick();
  options.baseline = false;  // kgb validate times the baselines; here the solutions
  for (const auto& t : report.tasks) {
    CAPTURE(t.id);
    auto source = kgb::bundled_solution(t, platform->solution_file);
    REQUIRE(source);
    kgb::Verdict v = kgb::evaluate(t, *platform, *source, options);
    INFO(v.summary << "\n" << findings_of(v) << v.child_stderr);
    CHECK(v.passed());
    CHECK(std::none_of(v.findings.begin(), v.findings.end(), [](const kgb::Finding& f) { return f.severity == "reject"; }));
    // Untimed tasks (pure views) report no timings; every other task does.
    CHECK(v.timings.empty() == (t.timing == kgb::TimingMode::None));
    for (const auto& tm : v.timings) {
      CHECK(tm.candidate.median_us > 0);
      CHECK(tm.rechecked);
      MESSAGE(t.id << " " << tm.name << "/" << tm.dtype << ": median " << tm.candidate.median_us << " us (n="
                   << tm.candidate.iterations << ", rse " << 100 * tm.candidate.rse << "%), host " << tm.candidate_host.median_us
                   << " us, " << 100 * tm.roofline_fraction << "% of roofline");
    }
    CHECK(v.platform_facts.find("sm_90") != std::string::npos);
  }
}

TEST_CASE("hack: work on a stream of its own is caught by the hybrid timing / roofline checks") {
  KGB_REQUIRE_GPU(platform);
  std::string source = silu_solution_renamed() + R"(
extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  (void)stream;
  static cudaStream_t own = nullptr;
  if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
  int status = 0;
  for (int repeat = 0; repeat < 20 && status == 0; ++repeat) status = solution_entry(out, input, (kgb_stream)own);
  return status;
}
)";
  auto v = kgb::evaluate(task("vllm/silu_and_mul"), *platform, source, quick());
  INFO(v.summary << "\n" << findings_of(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK((has_finding(v, "hybrid-timing-mismatch") || has_finding(v, "below-roofline")));
}

TEST_CASE("hack: a result cached from a previous call is caught") {
  KGB_REQUIRE_GPU(platform);
  std::string source = silu_solution_renamed() + R"(
extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  static void* seen[4096];
  static int count = 0;
  for (int i = 0; i < count; ++i)
    if (seen[i] == out->data) return KGB_OK;  // "the result is still there"
  if (count < 4096) seen[count++] = out->data;
  return solution_entry(out, input, stream);
}
)";
  auto v = kgb::evaluate(task("vllm/silu_and_mul"), *platform, source, quick());
  INFO(v.summary << "\n" << findings_of(v));
  CHECK_FALSE(v.passed());
  CHECK((v.outcome == kgb::Outcome::CheatDetected || v.outcome == kgb::Outcome::WrongResult));
  CHECK((has_finding(v, "below-roofline") || has_finding(v, "output-untouched") || has_finding(v, "no-device-work") ||
         v.outcome == kgb::Outcome::WrongResult));
}

TEST_CASE("hack: a GEMM handed to cuBLAS launches only library kernels") {
  KGB_REQUIRE_GPU(platform);
  // The real link line has no cuBLAS; this one does, so that only the
  // dynamic check stands between the hack and a pass.
  kgb::Platform with_cublas = *platform;
  with_cublas.link_command.push_back(KGB_CUBLAS_LIBRARY);
  with_cublas.link_command.push_back(std::string("-Wl,-rpath,") + std::filesystem::path(KGB_CUBLAS_LIBRARY).parent_path().string());
  auto v = kgb::evaluate(task("blas/sgemm"), with_cublas, hack("cublas_sgemm.cu"), quick());
  INFO(v.summary << "\n" << findings_of(v) << v.child_stderr);
  CHECK_FALSE(v.passed());
  CHECK(has_finding(v, "library-only-launches"));
}

TEST_CASE("hack: a kernel that only copies its input gives a wrong result") {
  KGB_REQUIRE_GPU(platform);
  std::string source = silu_solution_renamed();
  // Turn the solution into a copy of the gate half: same kernels, same
  // launches, no arithmetic.
  for (auto [from, to] : {std::pair<std::string, std::string>{"silu_mul(x.v[k], y.v[k])", "x.v[k]"},
                          std::pair<std::string, std::string>{"silu_mul(row[p * in_inner], row[(d + p) * in_inner])", "row[p * in_inner]"}}) {
    auto at = source.find(from);
    REQUIRE(at != std::string::npos);
    source.replace(at, from.size(), to);
  }
  source += R"(
extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  return solution_entry(out, input, stream);
}
)";
  auto v = kgb::evaluate(task("vllm/silu_and_mul"), *platform, source, quick());
  INFO(v.summary);
  CHECK(v.outcome == kgb::Outcome::WrongResult);
}

TEST_CASE("hack: a call that launches nothing is caught") {
  KGB_REQUIRE_GPU(platform);
  auto v = kgb::evaluate(task("vllm/silu_and_mul"), *platform, hack("no_work_silu_and_mul.cu"), quick());
  INFO(v.summary << "\n" << findings_of(v));
  CHECK_FALSE(v.passed());
  CHECK(has_finding(v, "no-device-work"));
}

TEST_CASE("profile: Nsight Compute metrics of the saxpy solution") {
  KGB_REQUIRE_GPU(platform);
  kgb::profile::ProfileOptions options;
  options.case_filter = "n_16M";
  const kgb::Task& t = task("blas/saxpy");
  auto source = kgb::bundled_solution(t, "cuda.cu");
  REQUIRE(source);
  auto r = kgb::profile::profile_candidate(t, *platform, *source, options);
  if (r.error.find("not found on PATH") != std::string::npos) {
    MESSAGE("skipped: " << r.error);
    return;
  }
  INFO(r.error << "\n" << r.logs["ncu"]);
  CHECK(r.error.empty());
  CHECK(r.compiled);
  REQUIRE(!r.kernels.empty());
  CHECK(r.profiled_case == "n_16M/f32");
  for (const auto& k : r.kernels) {
    MESSAGE(k.name << ": " << k.duration_us << " us, DRAM " << k.dram_throughput_pct << "%, SM " << k.sm_throughput_pct
                   << "%, occupancy " << k.achieved_occupancy_pct << "%");
    CHECK(k.duration_us > 0);
  }
  CHECK(r.kernels.front().dram_throughput_pct > 10);  // a streaming kernel moves memory
}

TEST_CASE("sanitize: compute-sanitizer memcheck turns an out-of-bounds write into findings") {
  KGB_REQUIRE_GPU(platform);
  kgb::profile::ProfileOptions options;
  options.counters = false;
  options.sanitize = true;
  options.case_filter = "prime_1009";
  auto r = kgb::profile::profile_candidate(task("blas/saxpy"), *platform, hack("out_of_bounds_saxpy.cu"), options);
  if (r.error.find("not found on PATH") != std::string::npos) {
    MESSAGE("skipped: " << r.error);
    return;
  }
  INFO(r.error << "\n" << r.logs["sanitizer"]);
  CHECK(r.error.empty());
  CHECK(r.sanitizer_errors > 0);
  REQUIRE(!r.findings.empty());
  CHECK(r.findings.front().rule == "sanitizer-memcheck");
  CHECK(r.findings.front().location.find("candidate.cu:") == 0);
  // The bundled solution is clean under the same tool.
  auto clean = kgb::profile::profile_candidate(task("blas/saxpy"), *platform, *kgb::bundled_solution(task("blas/saxpy"), "cuda.cu"),
                                               options);
  INFO(clean.logs["sanitizer"]);
  CHECK(clean.error.empty());
  CHECK(clean.sanitizer_errors == 0);
  CHECK(clean.findings.empty());
}
