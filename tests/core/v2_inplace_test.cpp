// In-place (inout) tensors: the storage around the view (padding, elements a
// stepped view skips) belongs to the caller and must keep the bytes it was
// sent with. aten/zero_ pins it: a memset over the view's extent gives the
// right values in the view and fails as wrote-outside-output; the bundled
// CPU solution passes.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

TEST_CASE("aten/zero_: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate("aten/zero_", solution("aten/zero_", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
}

TEST_CASE("aten/zero_: clearing the view's whole extent is caught as a write outside the in-place view") {
  const kgb::Verdict v = evaluate("aten/zero_", candidate("aten_zero_", "clears_extent.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::CheatDetected);
  CHECK(has_finding(v, "wrote-outside-output"));
}
