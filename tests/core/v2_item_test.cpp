// aten/item pilots host scalar results (kgb_scalar, compared exactly in
// dtype and value) and host timing. A result of the wrong dtype category,
// an element read from the allocation's start, and (OpenCL) a result
// returned before its read completed must fail; the bundled CPU solution
// must pass.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

TEST_CASE("aten/item: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate("aten/item", solution("aten/item", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
  CHECK(v.cases.size() == 182);  // 91 case bindings x 2 seeds
}

TEST_CASE("aten/item: integers and bool returned as f64 fail on the result's dtype") {
  const kgb::Verdict v = evaluate("aten/item", candidate("aten_item", "integer_as_f64.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(v.summary.find("got f64") != std::string::npos);
  std::set<std::string> dtypes;
  for (const auto& c : v.cases)
    if (!c.passed) dtypes.insert(c.dtype);
  CHECK(dtypes == std::set<std::string>{"bool", "u8", "i8", "i16", "i32", "i64"});  // floats and complex are right
}

TEST_CASE("aten/item: reading the allocation's first element ignores the storage offset") {
  const kgb::Verdict v = evaluate("aten/item", candidate("aten_item", "reads_allocation_start.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  const std::set<std::string> failed = failed_cases(v);
  CHECK(failed.count("rank3_with_offset"));
  CHECK(failed.count("transposed_padded_offset"));
  CHECK_FALSE(failed.count("rank0"));  // offset 0: right
}

TEST_CASE("aten/item: on OpenCL a result returned before its non-blocking read completes fails") {
  auto platform = kgb::load_platform("opencl-pocl");
  REQUIRE(platform.ok());
  if (!kgb::check_availability(*platform).available) {
    MESSAGE("opencl-pocl is not available here: skipped");
    return;
  }
  const kgb::Verdict v = kgb::evaluate(task("aten/item"), *platform,
                                       candidate("aten_item", "returns_before_copy_completes.opencl.cpp"), check_only());
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"mismatch"});
}
