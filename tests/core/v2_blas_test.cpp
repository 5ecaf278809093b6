// The BLAS pilot tasks of task format v2, end to end on cpu-x86_64 with real
// g++ and isolated runners: blas/dgemm_batched (pointer arrays of list items
// that are not back to back, repeated A pointers, enums) and blas/cgemm
// (complex alpha and beta, op C conjugating). Each v2 feature is exercised by
// a wrong candidate that must fail with the status or finding that names the
// problem (tests/core/v2_candidates/blas_*), and the bundled CPU solutions
// pass.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "kgb/case.h"
#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace {

const kgb::Task& task(const std::string& id) {
  static std::map<std::string, kgb::Task> loaded;
  auto it = loaded.find(id);
  if (it == loaded.end()) {
    auto t = kgb::load_task_file(kgb::tasks_root() / id / "spec.json");
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    it = loaded.emplace(id, std::move(*t)).first;
  }
  return it->second;
}

const kgb::Platform& cpu() {
  static kgb::Platform p = [] {
    auto r = kgb::load_platform("cpu-x86_64");
    REQUIRE(r.ok());
    return *r;
  }();
  return p;
}

std::string candidate(const std::string& folder, const std::string& file) {
  std::ifstream in(std::string(KGB_TEST_DIR) + "/v2_candidates/" + folder + "/" + file);
  REQUIRE_MESSAGE(in.good(), folder << "/" << file);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

kgb::EvalOptions check_only(const std::string& cases = "") {
  kgb::EvalOptions o;
  o.time = false;
  o.seed = 7;
  o.check_timeout_seconds = 20;
  o.case_filter = cases;
  return o;
}

std::string explain(const kgb::Verdict& v) {
  std::ostringstream os;
  os << kgb::outcome_name(v.outcome) << ": " << v.summary;
  for (const auto& f : v.findings) os << " [" << f.rule << ": " << f.message << "]";
  for (const auto& c : v.cases)
    if (!c.passed) os << " {" << c.name << " " << c.status << ": " << c.message << "}";
  return os.str();
}

bool has_finding(const kgb::Verdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const kgb::Finding& f) { return f.rule == rule; });
}

// Whether the correctness case named `name` passes beta == 0 (real or complex).
bool beta_is_zero(const kgb::Task& t, const std::string& name) {
  for (const auto& c : t.correctness)
    if (c.name == name) {
      const kgb::ScalarValue& beta = c.scalars.at("beta");
      return beta.kind == kgb::ScalarValue::Kind::Complex ? beta.c == 0.0 : beta.number() == 0.0;
    }
  FAIL("no case " << name);
  return false;
}

// The statuses of the failed cases.
std::set<std::string> failed_statuses(const kgb::Verdict& v) {
  std::set<std::string> s;
  for (const auto& c : v.cases)
    if (!c.passed) s.insert(c.status);
  return s;
}

}  // namespace

TEST_CASE("list items keep one placement for every input seed of a case, so rotating timing sets share the job's layout") {
  const kgb::Task& t = task("blas/dgemm_batched");
  const auto& perf = t.performance;
  auto c = std::find_if(perf.begin(), perf.end(), [](const kgb::Case& x) { return x.name == "b512_64_nt_beta1"; });
  REQUIRE(c != perf.end());
  auto a = kgb::instantiate_case(t, *c, {}, 11);
  auto b = kgb::instantiate_case(t, *c, {}, 12);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  for (const char* list : {"Aarray", "Barray", "Carray"}) {
    INFO(std::string(list));
    const kgb::ListInstance& la = a->lists.at(list);
    const kgb::ListInstance& lb = b->lists.at(list);
    CHECK(la.allocation_bytes == lb.allocation_bytes);
    CHECK(la.byte_offsets == lb.byte_offsets);
    CHECK(la.packed != lb.packed);  // the values still come from the seed
    // Shuffled with gaps: no item starts where the previous one ends.
    for (size_t k = 1; k < la.byte_offsets.size(); ++k)
      CHECK(la.byte_offsets[k] != la.byte_offsets[k - 1] + static_cast<int64_t>(la.items[k - 1]->storage().size()));
  }
}

TEST_CASE("cpu_device platforms time only the performance cases marked cpu; GPU platforms time all") {
  CHECK(cpu().has("cpu_device"));
  auto pocl = kgb::load_platform("opencl-pocl");
  REQUIRE(pocl.ok());
  CHECK(pocl->has("cpu_device"));
  auto cuda = kgb::load_platform("cuda-sm90");
  REQUIRE(cuda.ok());
  CHECK_FALSE(cuda->has("cpu_device"));
}

TEST_CASE("blas/dgemm_batched: the bundled CPU solution passes every case and is timed on the cpu cases only") {
  const kgb::Task& t = task("blas/dgemm_batched");
  auto source = kgb::bundled_solution(t, cpu().solution_file);
  REQUIRE(source.ok());
  auto o = check_only();
  o.time = true;
  o.time_budget_seconds = 0.3;
  auto v = kgb::evaluate(t, cpu(), *source, o);
  INFO(explain(v));
  REQUIRE(v.outcome == kgb::Outcome::Passed);
  CHECK(v.cases.size() == 2 * t.correctness.size());
  std::set<std::string> timed;
  for (const auto& timing : v.timings) timed.insert(timing.name);
  CHECK(timed == std::set<std::string>{"b16_256_nn_beta0", "b512_64_nt_beta1"});
}

TEST_CASE("blas/dgemm_batched: a kernel reading the matrices through device_data (the pointer array) passes") {
  auto v = kgb::evaluate(task("blas/dgemm_batched"), cpu(), candidate("blas_dgemm_batched", "device_data.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
}

TEST_CASE("blas/dgemm_batched: a kernel that assumes the batch lies back to back reads poison and writes into the gaps") {
  // One case of 64 small items: the back-to-back span from the lowest item
  // stays inside each list's allocation, so the failure is a verdict, not a crash.
  auto v = kgb::evaluate(task("blas/dgemm_batched"), cpu(), candidate("blas_dgemm_batched", "back_to_back.cpp"),
                         check_only("many_small_padded"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(has_finding(v, "wrote-outside-output"));
  const auto statuses = failed_statuses(v);
  CHECK((statuses.count("mismatch") || statuses.count("nan-inf-mismatch")));
}

TEST_CASE("blas/dgemm_batched: a kernel that reads C when beta == 0 lets C's NaN through") {
  const kgb::Task& t = task("blas/dgemm_batched");
  auto v = kgb::evaluate(t, cpu(), candidate("blas_dgemm_batched", "reads_c_when_beta0.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"nan-inf-mismatch"});
  for (const auto& c : v.cases)
    if (!c.passed) CHECK_MESSAGE(beta_is_zero(t, c.name), c.name << " failed with beta != 0");
}

TEST_CASE("blas/dgemm_batched: a kernel that refuses the enum value CUBLAS_OP_C fails exactly the cases that pass it") {
  const kgb::Task& t = task("blas/dgemm_batched");
  auto v = kgb::evaluate(t, cpu(), candidate("blas_dgemm_batched", "rejects_op_c.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::RuntimeError);  // a non-zero return
  std::set<std::string> failed, op_c;
  for (const auto& c : v.cases)
    if (!c.passed) failed.insert(c.name);
  for (const auto& c : t.correctness)
    if (c.scalars.at("transa").name == "CUBLAS_OP_C" || c.scalars.at("transb").name == "CUBLAS_OP_C") op_c.insert(c.name);
  CHECK(op_c.size() == 2);
  CHECK(failed == op_c);
  CHECK(failed_statuses(v) == std::set<std::string>{"kernel-error"});
}

TEST_CASE("blas/cgemm: the bundled CPU solution passes every case") {
  const kgb::Task& t = task("blas/cgemm");
  auto source = kgb::bundled_solution(t, cpu().solution_file);
  REQUIRE(source.ok());
  auto v = kgb::evaluate(t, cpu(), *source, check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(v.cases.size() == 2 * t.correctness.size());
}

TEST_CASE("blas/cgemm: a kernel that ignores op C's conjugation fails exactly the conjugating cases") {
  const kgb::Task& t = task("blas/cgemm");
  auto v = kgb::evaluate(t, cpu(), candidate("blas_cgemm", "ignores_conjugation.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  std::set<std::string> failed;
  for (const auto& c : v.cases)
    if (!c.passed) {
      failed.insert(c.name);
      CHECK_MESSAGE(c.status == "mismatch", c.name << ": " << c.message);
    }
  std::set<std::string> conjugating;
  for (const auto& c : t.correctness)
    if (c.scalars.at("alpha").c != 0.0 && (c.scalars.at("transa").name == "CUBLAS_OP_C" || c.scalars.at("transb").name == "CUBLAS_OP_C"))
      conjugating.insert(c.name);
  CHECK(conjugating.size() >= 5);
  CHECK(failed == conjugating);
}

TEST_CASE("blas/cgemm: a kernel that reads C when beta == 0 lets C's NaN through") {
  const kgb::Task& t = task("blas/cgemm");
  auto v = kgb::evaluate(t, cpu(), candidate("blas_cgemm", "reads_c_when_beta0.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"nan-inf-mismatch"});
  for (const auto& c : v.cases)
    if (!c.passed) CHECK_MESSAGE(beta_is_zero(t, c.name), c.name << " failed with beta != 0");
}

TEST_CASE("blas/cgemm: a kernel that keeps only the real parts of the complex alpha and beta fails exactly where they have imaginary parts") {
  const kgb::Task& t = task("blas/cgemm");
  auto v = kgb::evaluate(t, cpu(), candidate("blas_cgemm", "real_scalars_only.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  std::set<std::string> failed, complex_scalars;
  for (const auto& c : v.cases)
    if (!c.passed) failed.insert(c.name);
  for (const auto& c : t.correctness) {
    const auto alpha = c.scalars.at("alpha").c, beta = c.scalars.at("beta").c;
    // alpha.imag matters only where A and B are read (k > 0); beta.imag only where C is read.
    const bool k_zero = c.dims.count("K") && c.dims.at("K") == 0;
    const bool empty = (c.dims.count("M") && c.dims.at("M") == 0) || (c.dims.count("N") && c.dims.at("N") == 0);
    if (!empty && ((alpha.imag() != 0.0 && !k_zero) || beta.imag() != 0.0)) complex_scalars.insert(c.name);
  }
  CHECK(complex_scalars.size() >= 8);
  CHECK(failed == complex_scalars);
}
