// Issue class "checks too weak for the task", statistical outputs: Bernoulli
// kernels that keep the sample mean right but draw from the wrong
// distribution. Each cheat is the bundled CPU solution with its draw line
// replaced, so the cheat is exactly the change named; the statistical check
// compares the draws with the reference sampler's per tenth of the
// probabilities (two-sample Kolmogorov-Smirnov, kgb/task.h StatisticalCheck).
#include <doctest/doctest.h>

#include <string>

#include "v2_candidate_support.h"

using namespace kgb_v2_test;

namespace {

const char* kDraw = "rr[t] = static_cast<P>(u) < pr[t] ? P(1) : P(0);";

std::string bernoulli_with_draw(const std::string& draw) {
  std::string src = solution("aten/bernoulli", "cpu.cpp");
  const auto at = src.find(kDraw);
  REQUIRE_MESSAGE(at != std::string::npos, "the bundled solution's draw line moved");
  return src.replace(at, std::string(kDraw).size(), draw);
}

void require_statistics_failure(const kgb::Verdict& v) {
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v).count("statistics") == 1);
}

}  // namespace

TEST_CASE("bernoulli: the bundled solution passes the distribution test") {
  auto v = evaluate("aten/bernoulli", solution("aten/bernoulli", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
}

TEST_CASE("bernoulli: thresholding p > 0.5 with seed-dependent flips keeps the mean and fails per level") {
  // Mean 0.5 for uniform p, seed-dependent, never identical for two seeds.
  require_statistics_failure(evaluate("aten/bernoulli", bernoulli_with_draw("rr[t] = ((pr[t] > P(0.5)) != (u < 0.015625f)) ? P(1) : P(0);")));
}

TEST_CASE("bernoulli: draws that ignore the per-element probability fail") {
  require_statistics_failure(evaluate("aten/bernoulli", bernoulli_with_draw("rr[t] = u < 0.5f ? P(1) : P(0);")));
}

TEST_CASE("bernoulli: probabilities pulled halfway to 1/2 pass the small cases and fail the timed re-check at performance size"
          * doctest::test_suite("serial")) {
  // E[0.25 + p / 2] = E[p] for uniform p: only the extreme tenths differ
  // (5% against 27.5%), too few draws in a correctness case, millions in the
  // timed calls' outputs, which are re-checked like a correctness case.
  kgb::EvalOptions o = check_only();
  o.time = true;
  o.case_filter = "2048x2048";
  o.seeds_per_case = 1;
  auto v = kgb::evaluate(task("aten/bernoulli"), cpu(), bernoulli_with_draw("rr[t] = u < 0.25f + 0.5f * static_cast<float>(pr[t]) ? P(1) : P(0);"), o);
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "timed-output-wrong"));
}
