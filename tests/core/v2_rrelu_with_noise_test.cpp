// aten/rrelu_with_noise's custom check, exact where the op is deterministic
// and statistical on the drawn slopes, against wrong kernels. Each is the
// bundled CPU solution with one change, so the candidate is exactly the
// change named. The bundled solution must pass.
#include <doctest/doctest.h>

#include <string>

#include "v2_candidate_support.h"

using namespace kgb_v2_test;

namespace {

const char* const kId = "aten/rrelu_with_noise";

std::string replaced(const std::string& what, const std::string& with) {
  std::string src = solution(kId, "cpu.cpp");
  const auto at = src.find(what);
  REQUIRE_MESSAGE(at != std::string::npos, "the bundled solution changed: '" << what << "' is gone");
  return src.replace(at, what.size(), with);
}

void require_failure(const kgb::Verdict& v, const std::string& status, const std::string& output_in_summary) {
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{status});
  CHECK(v.summary.find(output_in_summary) != std::string::npos);
}

}  // namespace

TEST_CASE("aten/rrelu_with_noise: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate(kId, solution(kId, "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
  CHECK(v.cases.size() == 112);  // 14 cases x 4 dtypes x 2 seeds
}

TEST_CASE("aten/rrelu_with_noise: x < 0 instead of x <= 0 (zeros keep slope 1) fails the exact noise rule") {
  // Where 1 lies inside [lower, upper] (lower 0, upper 1) the slope-1 zeros
  // pass the exact rule and fail the distribution test instead.
  const kgb::Verdict v = evaluate(kId, replaced("const bool draw = x <= 0;", "const bool draw = x < 0;"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v).count("outside-support") == 1);
  CHECK(v.summary.find("where self <= 0 (zeros included)") != std::string::npos);
}

TEST_CASE("aten/rrelu_with_noise: out from a slope other than the recorded noise fails the joint check") {
  // Both outputs are right on their own: noise ~ U[lower, upper], out = x * (a uniform slope).
  require_failure(evaluate(kId, replaced("*out = draw ? K::store(x * K::load(rs)) : xs;",
                                         "*out = draw ? K::store(x * (p.lower + K::uniform(mix64(p.key ^ mix64(~i))) * p.range)) : xs;")),
                  "mismatch", "out must be self * noise");
}

TEST_CASE("aten/rrelu_with_noise: the mean slope instead of a draw fails the distribution test") {
  require_failure(evaluate(kId, replaced("C r = p.lower + K::uniform(mix64(p.key ^ mix64(i))) * p.range;",
                                         "C r = p.slope + C(0) * K::uniform(mix64(p.key ^ mix64(i)));")),
                  "statistics", "Kolmogorov-Smirnov");
}

TEST_CASE("aten/rrelu_with_noise: ignoring the seed fails the cross-seed check") {
  require_failure(evaluate(kId, replaced("const uint64_t key = mix64(static_cast<uint64_t>(seed));",
                                         "const uint64_t key = mix64(0x5eed); (void)seed;")),
                  "seed-dependence", "two seeds");
}

TEST_CASE("aten/rrelu_with_noise: writing noise in eval mode fails (eval must leave it untouched)") {
  // Every call goes through the row loop, whose eval branch also stores the slope into noise.
  std::string src = replaced("const bool dense_io = row_major(self) && row_major(out);", "const bool dense_io = false;");
  const std::string row = "for (int64_t j = 0; j < len; ++j) o[oo + j * os] = eval_element<K>(p.slope, x[xo + j * xs]);";
  const auto at = src.find(row);
  REQUIRE_MESSAGE(at != std::string::npos, "the bundled solution's eval row loop moved");
  src.replace(at, row.size(),
              "for (int64_t j = 0; j < len; ++j) {\n"
              "  o[oo + j * os] = eval_element<K>(p.slope, x[xo + j * xs]);\n"
              "  nz[no + j * ns] = K::store(p.slope);\n"
              "}");
  require_failure(evaluate(kId, src), "mismatch", "eval mode must leave noise untouched");
}
