// aten/poisson's custom statistical check against wrong samplers. Each wrong
// candidate is the bundled CPU solution with one change, so the candidate is
// exactly the change named: its per-element sampler replaced (the rate
// itself, the rounded rate, a rounded normal approximation) or its seed
// ignored. The bundled solution must pass.
#include <doctest/doctest.h>

#include <string>

#include "v2_candidate_support.h"

using namespace kgb_v2_test;

namespace {

const char* const kId = "aten/poisson";
const char* const kSampler = "double draw(double rate, uint64_t state) {";
const char* const kKey = "const uint64_t key = mix64(static_cast<uint64_t>(seed));";

std::string replaced(const std::string& what, const std::string& with) {
  std::string src = solution(kId, "cpu.cpp");
  const auto at = src.find(what);
  REQUIRE_MESSAGE(at != std::string::npos, "the bundled solution changed: '" << what << "' is gone");
  return src.replace(at, what.size(), with);
}

// The bundled solution whose sampler is `body` (a function of rate and the
// element's stream state; next_uniform(state) draws a uniform in (0, 1)).
std::string with_sampler(const std::string& body) {
  return replaced(kSampler, "double draw_exact(double rate, uint64_t state);\ndouble draw(double rate, uint64_t state) {\n" +
                                body + "\n}\ndouble draw_exact(double rate, uint64_t state) {");
}

}  // namespace

TEST_CASE("aten/poisson: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate(kId, solution(kId, "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
  CHECK(v.cases.size() == 96);  // 12 cases x 4 dtypes x 2 seeds
}

TEST_CASE("aten/poisson: returning the rate itself (the right mean, no variance, not a count) fails the support check") {
  const kgb::Verdict v = evaluate(kId, with_sampler("(void)state; (void)draw_exact; return rate;"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v).count("outside-support") == 1);
}

TEST_CASE("aten/poisson: the rate rounded to a count (integer, the right mean, no variance) fails the distribution test") {
  const kgb::Verdict v = evaluate(kId, with_sampler("(void)state; (void)draw_exact; return floor(rate + 0.5);"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v).count("statistics") == 1);  // also seed-dependence: it ignores the seed too
}

TEST_CASE("aten/poisson: a rounded normal approximation at every rate fails at small rates") {
  // max(0, round(rate + sqrt(rate) * z)): right mean and variance at large
  // rates, wrong shape where the distribution is skewed and discrete.
  const kgb::Verdict v = evaluate(kId, with_sampler("(void)draw_exact;\n"
                                                    "if (rate == 0) return 0;\n"
                                                    "const double u1 = next_uniform(state), u2 = next_uniform(state);\n"
                                                    "const double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);\n"
                                                    "return fmax(0.0, floor(rate + sqrt(rate) * z + 0.5));"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"statistics"});
  CHECK(failed_cases(v).count("grid_20x320x15"));
}

TEST_CASE("aten/poisson: ignoring the seed fails the cross-seed check and is rejected") {
  const kgb::Verdict v = evaluate(kId, replaced(kKey, "const uint64_t key = mix64(0x5eed); (void)seed;"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"seed-dependence"});
}

TEST_CASE("aten/poisson: a fixed stream with one seed-dependent element in 32 fails independence across seeds") {
  // Another seed does change the output, so the bitwise "ignores the seed"
  // finding cannot see it; the correlation of two seeds' deviations from the
  // rates (31/32 of them shared) can.
  std::string src = replaced("template <class K>\nvoid run(",
                             "uint64_t flip_stream(uint64_t seeded, uint64_t i) {\n"
                             "  return (mix64(seeded ^ i) & 31) == 0 ? seeded ^ mix64(i) : mix64(0x5eed) ^ mix64(i);\n"
                             "}\ntemplate <class K>\nvoid run(");
  for (auto at = src.find("key ^ mix64("); at != std::string::npos; at = src.find("key ^ mix64(", at))
    src.replace(at, std::string("key ^ mix64(").size(), "flip_stream(key, ");
  const kgb::Verdict v = evaluate(kId, src);
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"seed-dependence"});
  CHECK_FALSE(has_finding(v, "ignores-random-seed"));
}

TEST_CASE("aten/poisson: a rounded normal approximation from rate 10 on fails the timed re-check at performance size"
          * doctest::test_suite("serial")) {
  // Exact below rate 10, round(rate + sqrt(rate) * z) above: the KS distance
  // to Poisson is 0.021 at rate 10 and falls as 1 / sqrt(rate), too small for
  // the correctness cases' strata (about 8000 draws); the third central moment
  // (rate for Poisson, about 0 here) separates them on the million draws of
  // the timed calls' outputs, which are re-checked like a correctness case.
  kgb::EvalOptions o = check_only();
  o.time = true;
  o.case_filter = "1024x1024";
  o.seeds_per_case = 1;
  auto v = kgb::evaluate(task(kId), cpu(),
                         with_sampler("if (rate < 10) return draw_exact(rate, state);\n"
                                      "const double u1 = next_uniform(state), u2 = next_uniform(state);\n"
                                      "const double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);\n"
                                      "return fmax(0.0, floor(rate + sqrt(rate) * z + 0.5));"),
                         o);
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "timed-output-wrong"));
}
