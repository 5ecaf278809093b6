// The loader against a store written through the kgb_store API: a synthetic
// trajectory with LLM calls, tool calls and evaluations carrying real verdicts.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "kgb/report/loader.h"
#include "kgb/report/report.h"
#include "kgb/store/run_store.h"
#include "kgb/verdict.h"

using namespace kgb;

namespace {

std::string temp_dir(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

nlohmann::json verdict_json(Outcome outcome, double lint, double compile, double check, double time,
                            const std::vector<std::pair<double, double>>& cases = {}) {
  Verdict v;
  v.task = "blas/saxpy";
  v.platform = "cpu-x86_64";
  v.outcome = outcome;
  v.stage = outcome == Outcome::CompileError ? Stage::Compile : Stage::Done;
  v.summary = outcome == Outcome::Passed ? "passed" : "compile error";
  v.lint_seconds = lint;
  v.compile_seconds = compile;
  v.check_seconds = check;
  v.time_seconds = time;
  v.total_seconds = lint + compile + check + time;
  for (size_t i = 0; i < cases.size(); ++i) {
    CaseTiming t;
    t.name = "n" + std::to_string(i);
    t.dtype = "float32";
    t.baseline = Timing{};
    t.baseline->median_us = cases[i].first;
    t.candidate.median_us = cases[i].second;
    t.baseline_kind = "openblas";
    t.speedup = cases[i].first / cases[i].second;
    v.timings.push_back(t);
  }
  nlohmann::json j;
  to_json(j, v);
  return j;
}

struct Writer {
  store::RunStore& db;
  std::string run;
  int64_t attempt;

  void llm(int iteration, int step, int64_t latency_ms, store::TokenCounts tokens, double usd) {
    store::LlmCallRecord c;
    c.run_id = run;
    c.attempt_id = attempt;
    c.iteration = iteration;
    c.step = step;
    c.provider = "oracle";
    c.model = "oracle";
    auto id = db.begin_llm_call(c);
    REQUIRE(id.ok());
    c.id = *id;
    c.status = "done";
    c.tokens = tokens;
    c.cost_usd = usd;
    c.latency_ms = latency_ms;
    REQUIRE(db.finish_llm_call(c).ok());
  }

  void tool(int iteration, int step, const std::string& name, const std::string& kernel, int64_t duration_ms, bool passed,
            const nlohmann::json& verdict) {
    store::ToolCallRecord c;
    c.run_id = run;
    c.attempt_id = attempt;
    c.iteration = iteration;
    c.step = step;
    c.tool = name;
    c.kernel = kernel;
    auto id = db.begin_tool_call(c);
    REQUIRE(id.ok());
    c.id = *id;
    c.status = "done";
    c.outcome = verdict.value("outcome", "");
    c.ok = passed;
    c.duration_ms = duration_ms;
    store::EvaluationRecord e;
    e.run_id = run;
    e.attempt_id = attempt;
    e.iteration = iteration;
    e.step = step;
    e.kernel = kernel;
    e.purpose = name;
    e.outcome = c.outcome;
    e.stage = verdict.value("stage", "");
    e.passed = passed;
    e.speedup = verdict.value("speedup", 0.0);
    e.verdict = verdict;
    e.seconds = verdict["seconds"]["total"].get<double>();
    REQUIRE(db.finish_tool_call(c, e).ok());
  }

  void iteration(int index, const std::string& outcome, bool correct, const std::string& kernel, const std::string& feedback,
                 store::TokenCounts tokens) {
    store::IterationRecord it;
    it.run_id = run;
    it.attempt_id = attempt;
    it.index = index;
    it.status = "done";
    it.outcome = outcome;
    it.correct = correct;
    it.kernel = kernel;
    it.feedback = feedback;
    it.tokens = tokens;
    it.detail = {{"summary", outcome}};
    REQUIRE(db.save_iteration(it).ok());
  }
};

// A store holding run "syn": blas/saxpy solved at the second iteration, and
// blas/gemv never started.
std::string synthetic_store() {
  const std::string file = temp_dir("kgb-report-loader") + "/runs.db";
  auto opened = store::RunStore::open(file);
  REQUIRE(opened.ok());
  store::RunStore& db = **opened;
  store::RunRecord run;
  run.id = "syn";
  run.policy = "refine";
  run.provider = "oracle";
  run.model = "oracle";
  run.platform = "cpu-x86_64";
  run.tasks_glob = "blas/*";
  REQUIRE(db.create_run(run).ok());
  REQUIRE(db.begin_session("syn").ok());
  auto saxpy = db.ensure_attempt("syn", "blas/saxpy", 0);
  REQUIRE(saxpy.ok());
  REQUIRE(db.ensure_attempt("syn", "blas/gemv", 0).ok());
  REQUIRE(db.mark_attempt_running(*saxpy).ok());
  Writer w{db, "syn", *saxpy};

  const std::string broken = *db.put_kernel("int broken(");
  const std::string good = *db.put_kernel("extern \"C\" int kgb_blas_saxpy() { return 0; }");
  w.llm(0, 0, 1500, {1000, 200, 0, 300, 100}, 0.002);
  w.tool(0, 1, "run", broken, 600, false, verdict_json(Outcome::CompileError, 0.1, 0.4, 0, 0));
  w.iteration(0, "compile-error", false, broken, "error: expected ')'", {1000, 200, 0, 300, 100});
  w.llm(1, 0, 500, {1400, 1000, 0, 200, 0}, 0.001);
  w.tool(1, 1, "run", good, 900, true, verdict_json(Outcome::Passed, 0.1, 0.4, 0.3, 0));
  w.tool(1, 2, "profile", good, 2100, true, verdict_json(Outcome::Passed, 0.1, 0.4, 0.3, 1.2, {{10, 5}, {12, 4}}));
  w.iteration(1, "passed", true, good, "", {1400, 1000, 0, 200, 0});
  // A call a killed session left running: it is not counted.
  store::LlmCallRecord stray;
  stray.run_id = "syn";
  stray.attempt_id = *saxpy;
  stray.iteration = 2;
  stray.step = 0;
  stray.provider = "oracle";
  stray.model = "oracle";
  REQUIRE(db.begin_llm_call(stray).ok());

  auto a = db.attempt(*saxpy);
  REQUIRE(a.ok());
  store::AttemptRecord done = *a;
  done.status = "solved";
  done.stop_reason = "correct";
  done.correct = true;
  done.best_iteration = 1;
  done.best_kernel = good;
  done.best_speedup = std::sqrt(6.0);
  done.iterations = 2;
  done.tokens = {2400, 1200, 0, 500, 100};
  done.cost_usd = 0.003;
  done.seconds = 5.6;
  REQUIRE(db.finish_attempt(done).ok());
  REQUIRE(db.end_session("syn", "interrupted", 6.0, nlohmann::json::object()).ok());
  return file;
}

}  // namespace

TEST_CASE("the loader reads a store written through the kgb_store API") {
  const std::string file = synthetic_store();
  auto ids = report::list_run_ids(file);
  REQUIRE(ids.ok());
  CHECK(*ids == std::vector<std::string>{"syn"});

  auto runs = report::load_runs(file, {"syn"});
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 1);
  const report::Run& run = runs->front();
  CHECK(run.policy == "refine");
  CHECK(run.status == "interrupted");
  CHECK(run.llm_calls == 2);  // the stray running call is left out
  CHECK(run.tokens.input == 2400);
  CHECK(run.tokens.cached_input == 1200);
  CHECK(run.tokens.reasoning == 100);
  CHECK(run.cost_usd == doctest::Approx(0.003));
  REQUIRE(run.attempts.size() == 2);

  const report::Attempt& a = run.attempts[0];
  CHECK(a.task == "blas/saxpy");
  CHECK(a.correct);
  CHECK(a.best_kernel == "extern \"C\" int kgb_blas_saxpy() { return 0; }");
  REQUIRE(a.iterations.size() == 2);
  CHECK(a.iterations[0].feedback == "error: expected ')'");
  CHECK(a.iterations[0].summary == "compile-error");
  CHECK(a.iterations[0].llm_calls == 1);
  REQUIRE(a.iterations[1].evaluations.size() == 2);
  const report::Evaluation& profile = a.iterations[1].evaluations[1];
  CHECK(profile.purpose == "profile");
  REQUIRE(profile.cases.size() == 2);
  CHECK(*profile.cases[1].baseline_us == doctest::Approx(12));
  CHECK(profile.cases[1].candidate_us == doctest::Approx(4));
  CHECK(profile.cases[1].baseline_kind == "openblas");
  REQUIRE(a.iterations[1].tool_calls.size() == 2);
  CHECK(a.iterations[1].tool_calls[1].seconds == doctest::Approx(2.1));

  // Time by stage: LLM 1.5 + 0.5; lint 3 x 0.1; compile 3 x 0.4; check 0.3 twice;
  // timing 1.2; the rest of each tool call (0.1 each) is harness time.
  CHECK(a.time.llm == doctest::Approx(2.0));
  CHECK(a.time.lint == doctest::Approx(0.3));
  CHECK(a.time.compile == doctest::Approx(1.2));
  CHECK(a.time.run == doctest::Approx(0.6));
  CHECK(a.time.profile == doctest::Approx(1.2));
  CHECK(a.time.other == doctest::Approx(0.3));

  CHECK(run.attempts[1].status == "pending");
  CHECK(run.attempts[1].iterations.empty());

  auto built = report::build_report(std::move(runs.value()), {});
  REQUIRE(built.ok());
  const auto& r = built->runs[0];
  CHECK(r.accuracy == doctest::Approx(0.5));  // the pending task counts as not solved
  CHECK(*r.geomean_solved == doctest::Approx(std::sqrt(6.0)));
  CHECK(*r.tasks[1].first_success == 2);  // tasks in id order: gemv, saxpy
  REQUIRE(r.curve_tokens.size() == 1);
  CHECK(r.curve_tokens[0].budget == doctest::Approx(2400 + 500));
  // Only the finished attempt is a pass@k sample.
  CHECK(r.tasks[0].samples == 0);
  CHECK(r.tasks[1].samples == 1);
}

TEST_CASE("the loader reports a missing store and an unknown run") {
  const std::string dir = temp_dir("kgb-report-missing");
  auto none = report::load_runs(dir + "/nothing.db", {"x"});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == "report.no-store");
  CHECK_FALSE(std::filesystem::exists(dir + "/nothing.db"));  // not created by looking
  const std::string file = synthetic_store();
  auto unknown = report::load_runs(file, {"syn", "nope"});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == "store.unknown-run");
}
