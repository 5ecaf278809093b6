// aten/expand pilots view outputs: the entry only describes out as a view
// of self's storage, checked by metadata. Views that copy, broadcast dims
// that keep their stride and a storage offset counted twice must fail with
// the finding that names the problem; the bundled CPU solution must pass.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

TEST_CASE("aten/expand: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate("aten/expand", solution("aten/expand", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
  CHECK(v.cases.size() == 136);  // 68 case bindings x 2 seeds
}

TEST_CASE("aten/expand: a view that materialises a copy in memory of its own is outside self's storage") {
  const kgb::Verdict v = evaluate("aten/expand", candidate("aten_expand", "copy_into_own_buffer.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"view.outside_storage"});
  CHECK(failed_cases(v).size() == task("aten/expand").correctness.size());  // every case
}

TEST_CASE("aten/expand: expand_copy into out, which has no storage, crashes and fails") {
  const kgb::Verdict v = evaluate("aten/expand", candidate("aten_expand", "copy_into_out.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::RuntimeError);
  CHECK(failed_statuses(v) == std::set<std::string>{"crash"});
}

TEST_CASE("aten/expand: a broadcast dim that keeps self's stride is a view mismatch") {
  const kgb::Verdict v = evaluate("aten/expand", candidate("aten_expand", "broadcast_dim_keeps_stride.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"view.mismatch"});
  const std::set<std::string> failed = failed_cases(v);
  CHECK(failed.count("rows"));
  CHECK(failed.count("minus_one_keeps_size"));  // its first dim is still broadcast 1 -> 5
  // No dim of self is broadcast (only kept or new leading dims): right.
  for (const char* name : {"same_shape_padded", "size1_stays_size1", "bias_to_tokens_x_hidden"})
    CHECK_MESSAGE(!failed.count(name), name << " should pass");
}

TEST_CASE("aten/expand: a storage offset counted twice misplaces the view") {
  const kgb::Verdict v = evaluate("aten/expand", candidate("aten_expand", "offset_counted_twice.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"view.outside_storage", "view.storage_offset"});
  const std::set<std::string> failed = failed_cases(v);
  CHECK(failed.count("stepped_self_with_offset"));
  CHECK(failed.count("rank0_self_with_offset"));
  CHECK_FALSE(failed.count("rows"));  // no offset: the bug is invisible
}
