// The oracle's answers judged by the real harness: for bundled tasks on the
// CPU, the compile-error answer fails to compile, the wrong-result answer
// compiles and is rejected by the correctness checks (elementwise and
// statistical), and the clean answer passes.
#include <doctest/doctest.h>

#include "kgb/evaluator.h"
#include "kgb/oracle/catalog.h"
#include "kgb/oracle/mutate.h"
#include "kgb/oracle/prompt.h"
#include "kgb/oracle/server.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

using namespace kgb::oracle;

namespace {

kgb::EvalOptions check_only() {
  kgb::EvalOptions o;
  o.time = false;
  o.baseline = false;
  o.seed = 42;
  o.seeds_per_case = 1;
  o.check_timeout_seconds = 30;
  return o;
}

kgb::Task load(const std::string& id) {
  auto report = kgb::load_all_tasks(kgb::tasks_root());
  for (auto& t : report.tasks)
    if (t.id == id) return t;
  FAIL("task " << id << " is not bundled");
  return {};
}

std::string explain(const kgb::Verdict& v) {
  return std::string(kgb::outcome_name(v.outcome)) + ": " + v.summary;
}

}  // namespace

TEST_CASE("oracle answers through the evaluator: compile error, wrong result, pass") {
  auto platform = kgb::load_platform("cpu-x86_64");
  REQUIRE(platform);
  auto catalog = make_bundled_catalog();
  OracleOptions options;
  options.compile_error_attempts = 1;
  options.wrong_result_attempts = 1;
  for (const char* id : {"aten/add", "aten/bernoulli"}) {
    CAPTURE(id);
    const kgb::Task task = load(id);
    OracleBrain brain(options, catalog);
    // The n-th answer of a conversation: n - 1 earlier replies in the request.
    auto answer = [&](int earlier) {
      Query q;
      q.turns.push_back({QueryTurn::Role::User, std::string("Task: ") + id + "\nPlatform: cpu-x86_64\n", {}, {}});
      for (int i = 0; i < earlier; ++i) {
        q.turns.push_back({QueryTurn::Role::Assistant, "an earlier kernel", {}, {}});
        q.turns.push_back({QueryTurn::Role::User, "it failed", {}, {}});
      }
      return brain.reply(q);
    };

    Reply first = answer(0);
    REQUIRE(first.fault == "compile_error");
    kgb::Verdict broken = kgb::evaluate(task, *platform, extract_code_block(first.text), check_only());
    CHECK_MESSAGE(broken.outcome == kgb::Outcome::CompileError, explain(broken));

    Reply second = answer(1);
    REQUIRE(second.fault == "wrong_result");
    kgb::Verdict wrong = kgb::evaluate(task, *platform, extract_code_block(second.text), check_only());
    CHECK_MESSAGE(wrong.outcome == kgb::Outcome::WrongResult, explain(wrong));

    Reply third = answer(2);
    REQUIRE(third.fault == "none");
    kgb::Verdict clean = kgb::evaluate(task, *platform, extract_code_block(third.text), check_only());
    CHECK_MESSAGE(clean.outcome == kgb::Outcome::Passed, explain(clean));
  }
}

TEST_CASE("every bundled CPU solution has a definable entry and a wrong-result wrapper") {
  auto catalog = make_bundled_catalog();
  auto report = kgb::load_all_tasks(kgb::tasks_root());
  int checked = 0;
  for (const auto& task : report.tasks) {
    auto target = catalog->find(task.id, "cpu-x86_64");
    if (!target) continue;
    CAPTURE(task.id);
    CHECK(find_entry_definition(target->source, target->entry).has_value());
    CHECK(inject_wrong_result(*target).ok());
    ++checked;
  }
  CHECK(checked > 0);
}
