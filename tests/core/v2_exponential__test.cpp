// aten/exponential_ pilots the custom statistical check of a random operator
// with independence across seeds (CheckContext::other_seed): a seed that is
// ignored, a fixed stream with a few seed-dependent elements, the right mean
// with the wrong distribution, the rate taken as a scale, and neighbours that
// repeat each other must all fail; the bundled CPU solution must pass.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

namespace {
const char* const kId = "aten/exponential_";
const char* const kDir = "aten_exponential_";
}  // namespace

TEST_CASE("aten/exponential_: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate(kId, solution(kId, "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
  CHECK(v.cases.size() == 80);  // 10 cases x 4 dtypes x 2 seeds
}

TEST_CASE("aten/exponential_: ignoring the seed fails the cross-seed check and is rejected") {
  const kgb::Verdict v = evaluate(kId, candidate(kDir, "ignores_seed.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"seed-dependence"});
}

TEST_CASE("aten/exponential_: a fixed stream with a few seed-dependent elements fails independence across seeds") {
  const kgb::Verdict v = evaluate(kId, candidate(kDir, "fixed_stream_seed_flips.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"seed-dependence"});
  CHECK_FALSE(has_finding(v, "ignores-random-seed"));  // the output does change: only the check sees through it
}

TEST_CASE("aten/exponential_: the right mean with the wrong distribution fails the distribution test") {
  const kgb::Verdict v = evaluate(kId, candidate(kDir, "mean_plus_noise.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"statistics"});
  CHECK(v.summary.find("Kolmogorov-Smirnov") != std::string::npos);
}

TEST_CASE("aten/exponential_: lambd taken as the scale fails wherever lambd != 1") {
  const kgb::Verdict v = evaluate(kId, candidate(kDir, "rate_as_scale.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  const std::set<std::string> failed = failed_cases(v);
  CHECK(failed.count("rate_half_odd_matrix"));
  CHECK(failed.count("rate_250_padded"));
  CHECK_FALSE(failed.count("rate1_grid_20x320x15"));  // lambd == 1: right
}

TEST_CASE("aten/exponential_: draws written twice to neighbours fail the independence test inside one call") {
  const kgb::Verdict v = evaluate(kId, candidate(kDir, "adjacent_pairs.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"statistics"});
  CHECK(v.summary.find("not independent") != std::string::npos);
}
