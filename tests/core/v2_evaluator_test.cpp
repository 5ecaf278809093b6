// The v2 parameter kinds end to end on cpu-x86_64 (real g++, real isolated
// runners): a correct kernel for test/v2mix passes, and each mistake below
// fails with the status or finding that names it.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "kgb/evaluator.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace {

const kgb::Task& v2mix() {
  static kgb::Task task = [] {
    auto t = kgb::load_task_file(std::string(KGB_TEST_DIR) + "/tasks/test/v2mix/spec.json");
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    return *t;
  }();
  return task;
}

kgb::Verdict evaluate_with(const std::string& defines) {
  std::ifstream in(std::string(KGB_TEST_DIR) + "/kernels/v2mix.cpp");
  std::ostringstream source;
  source << defines << in.rdbuf();
  auto platform = kgb::load_platform("cpu-x86_64");
  REQUIRE(platform.ok());
  kgb::EvalOptions o;
  o.time = false;
  o.seed = 7;
  o.check_timeout_seconds = 10;
  return kgb::evaluate(v2mix(), *platform, source.str(), o);
}

std::string explain(const kgb::Verdict& v) {
  std::ostringstream os;
  os << kgb::outcome_name(v.outcome) << ": " << v.summary;
  for (const auto& f : v.findings) os << " [" << f.rule << "]";
  return os.str();
}

bool any_case_status(const kgb::Verdict& v, const std::string& status) {
  return std::any_of(v.cases.begin(), v.cases.end(), [&](const kgb::CaseCheck& c) { return c.status == status; });
}

}  // namespace

TEST_CASE("a correct kernel for every v2 kind passes, overload included") {
  const kgb::Verdict v = evaluate_with("");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::Passed, explain(v));
  // 5 cases x 2 seeds of the primary entry, 3 x 2 of the overload.
  CHECK(v.cases.size() == 16);
  CHECK(std::any_of(v.cases.begin(), v.cases.end(), [](const kgb::CaseCheck& c) { return c.name == "Scalar:b"; }));
}

TEST_CASE("a list kernel that assumes its items lie back to back fails") {
  const kgb::Verdict v = evaluate_with("#define WRONG_CONTIGUOUS_ITEMS 1\n");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::WrongResult, explain(v));
}

TEST_CASE("an ignored enum fails") {
  const kgb::Verdict v = evaluate_with("#define WRONG_IGNORES_MODE 1\n");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::WrongResult, explain(v));
}

TEST_CASE("a kernel that ignores a negative stride fails") {
  const kgb::Verdict v = evaluate_with("#define WRONG_ABS_STRIDE 1\n");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::WrongResult, explain(v));
}

TEST_CASE("a host scalar of the wrong dtype fails, naming the scalar") {
  const kgb::Verdict v = evaluate_with("#define WRONG_SCALAR_DTYPE 1\n");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::WrongResult, explain(v));
  CHECK(v.summary.find("positives") != std::string::npos);
}

TEST_CASE("scratch that must be zero again on return, left dirty, fails") {
  const kgb::Verdict v = evaluate_with("#define WRONG_DIRTY_SCRATCH 1\n");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::WrongResult, explain(v));
  CHECK(any_case_status(v, "scratch-not-zero"));
}

TEST_CASE("a write into the gap between list items is caught") {
  const kgb::Verdict v = evaluate_with("#define WRONG_WRITES_LIST_GAP 1\n");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::CheatDetected, explain(v));
  CHECK(std::any_of(v.findings.begin(), v.findings.end(), [](const kgb::Finding& f) { return f.rule == "input-mutated"; }));
}

TEST_CASE("a missing overload entry does not link") {
  const kgb::Verdict v = evaluate_with("#define WRONG_NO_OVERLOAD 1\n");
  CHECK_MESSAGE(v.outcome == kgb::Outcome::CompileError, explain(v));
}
