// aten/unsafe_split pilots lists of views: every item of the output list is
// a view of self, checked by metadata. Chunks that never move and chunks
// placed by a contiguous guess must fail with the finding that names the
// problem on exactly the cases that expose them; the bundled CPU solution
// must pass.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

TEST_CASE("aten/unsafe_split: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate("aten/unsafe_split", solution("aten/unsafe_split", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
}

TEST_CASE("aten/unsafe_split: chunks that all start at self's first element are view mismatches") {
  const kgb::Verdict v = evaluate("aten/unsafe_split", candidate("aten_unsafe_split", "chunks_not_moved.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"view.mismatch"});
  const std::set<std::string> failed = failed_cases(v);
  for (const char* name : {"last_chunk_smaller", "rows_even", "negative_dim_transposed_offset", "rank1_stepped", "fused_qkv_heads"})
    CHECK_MESSAGE(failed.count(name), name << " should fail");
  // One chunk, or chunks along a stride-0 dim: nothing moves in ATen either.
  for (const char* name : {"split_larger_than_dim", "empty_dim_split_zero", "empty_dim_one_chunk", "broadcast_dim"})
    CHECK_MESSAGE(!failed.count(name), name << " should pass");
}

TEST_CASE("aten/unsafe_split: chunks placed as if self were contiguous fail on strided selves only") {
  const kgb::Verdict v = evaluate("aten/unsafe_split", candidate("aten_unsafe_split", "chunks_assume_contiguous.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  const std::set<std::string> statuses = failed_statuses(v);
  CHECK(statuses.count("view.mismatch"));
  for (const auto& s : statuses) CHECK_MESSAGE((s == "view.mismatch" || s == "view.outside_storage"), s);
  const std::set<std::string> failed = failed_cases(v);
  for (const char* name : {"negative_dim_transposed_offset", "rank1_stepped", "padded_rows", "broadcast_dim", "rank5_grid_dim_minus4"})
    CHECK_MESSAGE(failed.count(name), name << " should fail");
  for (const char* name : {"last_chunk_smaller", "rows_even", "split_one", "fused_qkv_heads"})
    CHECK_MESSAGE(!failed.count(name), name << " should pass (contiguous self)");
}
