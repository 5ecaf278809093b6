// aten/cat pilots tensor-list inputs: the items of a list share one
// allocation in a shuffled order with poisoned gaps. A kernel that assumes
// the items lie back to back must fail; the bundled CPU solution must pass.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

TEST_CASE("aten/cat: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate("aten/cat", solution("aten/cat", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
  CHECK(v.cases.size() == task("aten/cat").correctness.size() * 6 * 2);  // 6 dtypes, 2 seeds
}

TEST_CASE("aten/cat: a kernel that assumes contiguous items in list order fails on every multi-item case") {
  const kgb::Verdict v = evaluate("aten/cat", candidate("aten_cat", "contiguous_items.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  const std::set<std::string> failed = failed_cases(v);
  // Items after the first are read from the gap or another item: poison and
  // misplaced values, compared bit for bit.
  for (const char* name : {"negative_dim", "padded_items", "same_tensor_twice", "misaligned_offsets_odd_widths",
                           "many_small_items", "legacy_empty_1d_skipped", "rank3_middle_dim"})
    CHECK_MESSAGE(failed.count(name), name << " should fail");
  CHECK(failed_statuses(v) == std::set<std::string>{"bits-differ"});
  // One contiguous item is where the kernel looks for it.
  CHECK_FALSE(failed.count("empty_rows"));
  CHECK_FALSE(failed.count("all_items_skipped"));
}
