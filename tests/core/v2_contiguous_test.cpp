// aten/contiguous pilots alias-or-copy outputs (alias: when_possible): the
// entry must alias exactly where ATen does (self already contiguous) and copy
// elsewhere. A kernel that always copies and one that always aliases must
// fail on exactly the other kind of case; the bundled CPU solution passes
// every case, the alias cases without any device work.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

namespace {

const std::set<std::string> kAliasCases = {"contiguous_aliases", "contiguous_with_offset_aliases", "size1_dims_odd_strides_alias",
                                           "rank0_aliases", "empty_transposed_aliases"};

}  // namespace

TEST_CASE("aten/contiguous: the bundled CPU solution passes, aliasing without device work") {
  const kgb::Verdict v = evaluate("aten/contiguous", solution("aten/contiguous", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
  CHECK_FALSE(has_finding(v, "no-device-work"));
  CHECK_FALSE(has_finding(v, "nondeterministic"));
}

TEST_CASE("aten/contiguous: copying where ATen aliases is a view mismatch on the alias cases only") {
  const kgb::Verdict v = evaluate("aten/contiguous", candidate("aten_contiguous", "always_copies.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"view.mismatch"});
  CHECK(failed_cases(v) == kAliasCases);  // the empty one too: ATen aliases it
}

TEST_CASE("aten/contiguous: aliasing where ATen copies is an unexpected alias on the copy cases only") {
  const kgb::Verdict v = evaluate("aten/contiguous", candidate("aten_contiguous", "always_aliases.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"view.unexpected_alias"});
  const std::set<std::string> failed = failed_cases(v);
  for (const auto& name : kAliasCases) CHECK_MESSAGE(!failed.count(name), name << " should pass");
  for (const char* name : {"transposed", "padded_rows", "stepped", "broadcast_rows", "rank5_grid_transposed", "single_column_strided"})
    CHECK_MESSAGE(failed.count(name), name << " should fail");
}
