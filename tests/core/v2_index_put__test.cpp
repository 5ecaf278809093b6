// aten/index_put_ pilots optional-tensor lists (None items are full slices),
// in-place updates and accumulate with duplicate targets (nondeterministic
// summation order allowed per case). Wrong candidates that ignore accumulate
// or lose duplicate targets must fail exactly where those matter; the
// bundled CPU solution must pass.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

namespace {

// The wrong candidates share one correct walk over the indexed positions
// (index_put_walk.inc) and add their own bug on top.
std::string walk_candidate(const std::string& file) {
  return candidate("aten_index_put_", "index_put_walk.inc") + "\n" + candidate("aten_index_put_", file);
}

const std::set<std::string> kDuplicateAccumulateCases = {"accumulate_rows_twice", "accumulate_grid_duplicates",
                                                          "accumulate_separated_transposed_self",
                                                          "accumulate_integers_scalar_value"};

}  // namespace

TEST_CASE("aten/index_put_: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate("aten/index_put_", solution("aten/index_put_", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
}

TEST_CASE("aten/index_put_: the shared walk is right where its bugs do not matter") {
  // Without the bug the walk passes: the failures below come from the bugs.
  const kgb::Verdict v = evaluate("aten/index_put_", walk_candidate("ignores_duplicates.cpp"));
  INFO(explain(v));
  for (const auto& c : v.cases)
    if (c.name.rfind("accumulate", 0) != 0) CHECK_MESSAGE(c.passed, c.name << "/" << c.dtype << ": " << c.message);
}

TEST_CASE("aten/index_put_: a kernel that ignores accumulate fails every accumulate case with values sent") {
  const kgb::Verdict v = evaluate("aten/index_put_", walk_candidate("ignores_accumulate.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  std::set<std::string> expected = kDuplicateAccumulateCases;
  expected.insert("accumulate_distinct_padded_self");
  CHECK(failed_cases(v) == expected);  // the assignment cases and the empty index pass
  CHECK(failed_statuses(v) == std::set<std::string>{"mismatch"});
}

TEST_CASE("aten/index_put_: a gather-add-scatter that loses duplicate targets fails only where targets repeat") {
  const kgb::Verdict v = evaluate("aten/index_put_", walk_candidate("ignores_duplicates.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_cases(v) == kDuplicateAccumulateCases);  // distinct targets accumulate correctly
  CHECK(failed_statuses(v) == std::set<std::string>{"mismatch"});
}
