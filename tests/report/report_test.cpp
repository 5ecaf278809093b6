// build_report over hand-built runs, and the four renderers.
#include <doctest/doctest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <algorithm>

#include <nlohmann/json.hpp>

#include "kgb/report/definitions.h"
#include "kgb/report/render.h"
#include "kgb/report/report.h"
#include "synthetic.h"

using namespace kgb::report;
using namespace kgb::report::testing;

namespace {

// Two runs of one configuration on two platforms:
//   cpu-x86_64:  blas/saxpy solved at iteration 2 (cases 10/5 us and 20/5 us: 2x and 4x),
//                blas/gemv failed 3 times, aten/softmax solved at once (not timed)
//   cpu-aarch64: blas/saxpy solved 1x, blas/gemv solved 0.5x, aten/softmax failed
std::vector<Run> two_platforms() {
  std::vector<Run> runs;
  runs.push_back(make_run(
      "x86", "cpu-x86_64",
      {make_attempt("blas/saxpy", 0,
                    {{"compile-error", 1000, {}, "error: 'n' was not declared"}, {"passed", 3000, {{10, 5}, {20, 5}}}},
                    "extern \"C\" int kgb_blas_saxpy() { return a < b && c > d; }"),
       make_attempt("blas/gemv", 0, {{"wrong-result", 1000, {}, "<script>alert(1)</script>"}, {"wrong-result", 1000}, {"wrong-result", 1000}}),
       make_attempt("aten/softmax", 0, {{"passed", 2000}})}));
  runs.push_back(make_run("arm", "cpu-aarch64",
                          {make_attempt("blas/saxpy", 0, {{"passed", 1000, {{5, 5}}}}),
                           make_attempt("blas/gemv", 0, {{"passed", 1000, {{1, 2}}}}),
                           make_attempt("aten/softmax", 0, {{"timeout", 1000}})}));
  return runs;
}

const TaskResult& task_of(const RunReport& r, const std::string& id) {
  for (const auto& t : r.tasks)
    if (t.task == id) return t;
  FAIL("no task " << id);
  return r.tasks.front();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("per-run metrics from hand-built trajectories") {
  auto report = build_report(two_platforms(), {});
  REQUIRE(report.ok());
  REQUIRE(report->runs.size() == 2);
  const RunReport& x86 = report->runs[0];
  CHECK(x86.label == "x86");
  CHECK(x86.solved == 2);
  CHECK(x86.accuracy == doctest::Approx(2.0 / 3));
  REQUIRE(x86.sources.size() == 2);
  CHECK(x86.sources[0].source == "aten");
  CHECK(x86.sources[0].accuracy == doctest::Approx(1.0));
  CHECK(x86.sources[1].source == "blas");
  CHECK(x86.sources[1].solved == 1);
  CHECK(x86.sources[1].tasks == 2);

  const TaskResult& saxpy = task_of(x86, "blas/saxpy");
  CHECK(saxpy.solved);
  REQUIRE(saxpy.speedup.has_value());
  CHECK(*saxpy.speedup == doctest::Approx(std::sqrt(8.0)));  // geomean of 2x and 4x
  REQUIRE(saxpy.cases.size() == 2);
  CHECK(*saxpy.cases[1].speedup == doctest::Approx(4.0));
  CHECK(*saxpy.first_success == 2);
  CHECK_FALSE(task_of(x86, "aten/softmax").speedup.has_value());  // solved, not timed
  CHECK_FALSE(task_of(x86, "blas/gemv").solved);

  // One attempt per task: pass@1 is the accuracy, pass@5 is undefined.
  CHECK(x86.sample_unit == "attempt");
  REQUIRE(x86.pass_at_k.size() == 3);
  CHECK(*x86.pass_at_k[0].value == doctest::Approx(2.0 / 3));
  CHECK_FALSE(x86.pass_at_k[1].value.has_value());
  // Any-of-K rounds: softmax at round 1, saxpy at round 2.
  CHECK(x86.any_of_rounds[0].value == doctest::Approx(1.0 / 3));
  CHECK(x86.any_of_rounds[1].value == doctest::Approx(2.0 / 3));  // K = 3
  CHECK(*x86.mean_iterations_to_success == doctest::Approx(1.5));
  CHECK(*x86.median_iterations_to_success == doctest::Approx(1.5));

  CHECK(*x86.geomean_solved == doctest::Approx(std::sqrt(8.0)));
  CHECK(x86.timed_solved == 1);
  // fast_p over all three tasks: softmax counts for fast_0 only.
  CHECK(x86.fast_p[0].value == doctest::Approx(2.0 / 3));
  CHECK(x86.fast_p[2].value == doctest::Approx(1.0 / 3));  // p = 1
  CHECK(x86.fast_p[4].value == doctest::Approx(1.0 / 3));  // p = 2: 2.83x > 2

  // Tokens: 1000 + 3000 + 3 * 1000 + 2000 = 9000 over 3 tasks and 2 successes.
  CHECK(x86.tokens.total == doctest::Approx(9000));
  CHECK(*x86.tokens.per_task == doctest::Approx(3000));
  CHECK(*x86.tokens.per_success == doctest::Approx(4500));
  CHECK(x86.usd.total == doctest::Approx(0.009));
  CHECK(x86.iterations == 6);
  // Time: 6 iterations of 2 s LLM; 7 evaluations (6 run + 1 profile) of 0.5 s compile.
  CHECK(x86.time.llm == doctest::Approx(12));
  CHECK(x86.time.compile == doctest::Approx(3.5));
  CHECK(x86.time.profile == doctest::Approx(1));

  // Budget curves: softmax at 2000 tokens / 1 iteration, saxpy at 4000 / 2.
  REQUIRE(x86.curve_tokens.size() == 2);
  CHECK(x86.curve_tokens[0].budget == doctest::Approx(2000));
  CHECK(x86.curve_tokens[1].budget == doctest::Approx(4000));
  CHECK(x86.curve_tokens[1].accuracy == doctest::Approx(2.0 / 3));
  REQUIRE(x86.curve_iterations.size() == 2);
  CHECK(x86.curve_iterations[1].budget == 2);
}

TEST_CASE("comparison: matched subset and differences") {
  auto report = build_report(two_platforms(), {});
  REQUIRE(report.ok());
  CHECK(report->matched == std::set<std::string>{"blas/saxpy"});
  CHECK(*report->runs[0].geomean_matched == doctest::Approx(std::sqrt(8.0)));
  CHECK(*report->runs[1].geomean_matched == doctest::Approx(1.0));
  // Over solved tasks the aarch64 run averages saxpy 1x and gemv 0.5x.
  CHECK(*report->runs[1].geomean_solved == doctest::Approx(std::sqrt(0.5)));
  REQUIRE(report->differences.size() == 1);
  const Difference& d = report->differences[0];
  CHECK(d.run == 1);
  CHECK(d.against == 0);
  CHECK(d.accuracy_points == doctest::Approx(0.0));
  CHECK(d.gained == std::vector<std::string>{"blas/gemv"});
  CHECK(d.lost == std::vector<std::string>{"aten/softmax"});
  CHECK(d.slower == std::vector<std::string>{"blas/saxpy"});
  CHECK(d.faster.empty());
  CHECK(*d.matched_ratio == doctest::Approx(1.0 / std::sqrt(8.0)));
}

TEST_CASE("portability across the platforms of one configuration") {
  auto report = build_report(two_platforms(), {});
  REQUIRE(report.ok());
  REQUIRE(report->portability.size() == 1);
  const PortabilityGroup& g = report->portability[0];
  CHECK(g.configuration == "refine, oracle/model-a");
  CHECK(g.reference == "cpu-x86_64");
  CHECK(g.platforms == std::vector<std::string>{"cpu-x86_64", "cpu-aarch64"});
  CHECK(g.tasks.size() == 3);
  CHECK(g.accuracy[1] == doctest::Approx(2.0 / 3));
  CHECK(g.gap_points[1] == doctest::Approx(0.0));
  CHECK(g.solved_on_all.solved == 1);
  CHECK(g.solved_on_all.rate == doctest::Approx(1.0 / 3));
  // Tasks in id order: aten/softmax, blas/gemv, blas/saxpy.
  CHECK(*g.portability[0] == 0.0);  // fails on aarch64
  CHECK(*g.portability[1] == 0.0);  // fails on x86
  const double pp = 2.0 / (1.0 / std::sqrt(8.0) + 1.0);
  CHECK(*g.portability[2] == doctest::Approx(pp));
  CHECK(*g.mean_portability == doctest::Approx(pp / 3));

  ReportOptions options;
  options.reference_platform = "cpu-aarch64";
  auto other = build_report(two_platforms(), options);
  REQUIRE(other.ok());
  CHECK(other->portability[0].platforms.front() == "cpu-aarch64");
  CHECK(other->portability[0].reference == "cpu-aarch64");

  options.reference_platform = "cuda-sm90";
  auto missing = build_report(two_platforms(), options);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == "report.reference-platform");
  CHECK(build_report({}, {}).error().code == "report.no-runs");

  // Different models on different platforms are not a portability comparison.
  auto runs = two_platforms();
  runs[1].model = "model-b";
  auto unrelated = build_report(std::move(runs), {});
  REQUIRE(unrelated.ok());
  CHECK(unrelated->portability.empty());
}

TEST_CASE("pass@k counts the sample policy's iterations as samples") {
  // One attempt, five independent samples, two correct.
  std::vector<Step> steps;
  for (int i = 0; i < 5; ++i)
    steps.push_back({i == 1 || i == 3 ? "passed" : "wrong-result", 500, {}, "", "sample-" + std::to_string(i)});
  // A budget-refused sample never reached the model: not a sample.
  steps.push_back({"budget", 0, {}, "", "sample-5"});
  auto report = build_report({make_run("s", "cpu-x86_64", {make_attempt("blas/axpy", 0, steps)}, "sample")}, {});
  REQUIRE(report.ok());
  const RunReport& r = report->runs[0];
  CHECK(r.sample_unit == "sample");
  CHECK(r.tasks[0].samples == 5);
  CHECK(r.tasks[0].correct_samples == 2);
  CHECK(*r.pass_at_k[0].value == doctest::Approx(0.4));
  CHECK(*r.pass_at_k[1].value == doctest::Approx(1.0));  // k = 5 > n - c = 3
  CHECK_FALSE(r.pass_at_k[2].value.has_value());          // k = 10 > n
}

TEST_CASE("a correct flag without passing evaluations is not a success") {
  Attempt a = make_attempt("blas/saxpy", 0, {{"passed", 1000}});
  a.iterations[0].evaluations[0].passed = false;  // e.g. a rejecting anti-cheating finding
  auto report = build_report({make_run("r", "cpu-x86_64", {a})}, {});
  REQUIRE(report.ok());
  CHECK_FALSE(report->runs[0].tasks[0].solved);
  CHECK(report->runs[0].accuracy == 0.0);
}

TEST_CASE("terminal table and Markdown") {
  auto report = build_report(two_platforms(), {});
  REQUIRE(report.ok());
  const std::string table = render_table(*report);
  for (const char* s : {"== Summary ==", "== Differences against x86 ==", "== Accuracy by source and platform ==",
                        "== Portability: refine, oracle/model-a ==", "== Tasks ==", "pass@1 (unbiased estimator)",
                        "solved within 3 round(s) (any-of-K)", "fast_0.8", "2.83x", "66.7%", "solved 2.83x (it. 2)",
                        "failed: wrong-result", "blas/gemv"})
    CHECK_MESSAGE(table.find(s) != std::string::npos, s);
  const std::string md = render_markdown(*report);
  CHECK(md.rfind("# KernelGenBench report", 0) == 0);
  CHECK(md.find("| metric | x86 | arm |") != std::string::npos);
  CHECK(md.find("| --- | ---: | ---: |") != std::string::npos);
  CHECK(md.find("## Definitions") != std::string::npos);
  // Cost and time per task, by hand: saxpy on x86 took a 1000-token compile
  // error and a 3000-token success (3/4 input); 2 s of LLM time per
  // iteration, per evaluation lint 0.1, compile 0.5, check 0.2, other 0.05 s,
  // and 1 s of timing in the profile evaluation.
  const std::string saxpy_x86 =
      "| blas/saxpy | x86 | solved 2.83x (it. 2) | 4000 | 3000 / 1000 | $0.00400 | 7.55 s | 4.00 s | 0.30 s | 1.50 s | 0.60 s | "
      "1.00 s | 0.15 s | 2 | 2 |";
  const std::string saxpy_arm = "| blas/saxpy | arm | solved 1.00x (it. 1) | 1000 |";
  const size_t x86_row = md.find(saxpy_x86);
  REQUIRE_MESSAGE(x86_row != std::string::npos, md.substr(md.find("## Cost and time per task")));
  CHECK(md.find("\n", x86_row) + 1 == md.find(saxpy_arm));  // a task's runs next to each other
  CHECK(table.find("== Cost and time per task ==") != std::string::npos);
  // Every table row has as many cells as its header.
  std::istringstream lines(md);
  std::string line;
  size_t columns = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("|", 0) != 0) {
      columns = 0;
      continue;
    }
    std::string unescaped = std::regex_replace(line, std::regex(R"(\\\|)"), "");
    const size_t cells = static_cast<size_t>(std::count(unescaped.begin(), unescaped.end(), '|')) - 1;
    if (columns == 0) columns = cells;
    CHECK_MESSAGE(cells == columns, line);
  }
}

TEST_CASE("JSON carries every figure") {
  auto report = build_report(two_platforms(), {});
  REQUIRE(report.ok());
  const auto j = nlohmann::json::parse(render_json(*report));
  REQUIRE(j["runs"].size() == 2);
  const auto& x86 = j["runs"][0];
  CHECK(x86["id"] == "x86");
  CHECK(x86["accuracy"].get<double>() == doctest::Approx(2.0 / 3));
  CHECK(x86["pass_at_k"]["1"].get<double>() == doctest::Approx(2.0 / 3));
  CHECK(x86["pass_at_k"]["5"].is_null());
  CHECK(x86["fast_p"]["1.0"].get<double>() == doctest::Approx(1.0 / 3));
  CHECK(x86["speedup"]["geomean_solved"].get<double>() == doctest::Approx(std::sqrt(8.0)));
  CHECK(x86["tokens"]["total"] == 9000);
  CHECK(x86["budget_curves"]["tokens"].size() == 2);
  CHECK(x86["task_results"].size() == 3);
  CHECK(j["matched_tasks"] == nlohmann::json::array({"blas/saxpy"}));
  CHECK(j["differences"][0]["solved_only_by_run"] == nlohmann::json::array({"blas/gemv"}));
  CHECK(j["portability"][0]["solved_on_all"]["solved"] == 1);
  CHECK(j["definitions"].contains("pass@k"));
}

TEST_CASE("HTML: self-contained, escaped, one SVG per chart") {
  auto report = build_report(two_platforms(), {});
  REQUIRE(report.ok());
  const std::string html = render_html(*report);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  // Nothing to fetch.
  for (const char* s : {"http://", "https://", "src=", "<link", "url(", "@import"}) CHECK_MESSAGE(html.find(s) == std::string::npos, s);
  // The model's text is escaped.
  CHECK(html.find("<script>alert(1)</script>") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("return a &lt; b &amp;&amp; c &gt; d;") != std::string::npos);
  CHECK(count(html, "<script>") == 1);  // the sorting script only
  // Every chart figure holds one SVG.
  const size_t figures = count(html, "<figure class=\"chart");
  CHECK(figures == 8);
  CHECK(count(html, "<svg class=\"chart-svg\"") == figures);
  for (const char* chart : {"accuracy", "speedup", "budget-tokens", "budget-iterations", "budget-dollars", "cost", "time", "portability"})
    CHECK_MESSAGE(html.find(std::string("data-chart=\"") + chart + "\"") != std::string::npos, chart);
  // The drill-down: one <details> per task and run, with the feedback and the kernel.
  CHECK(count(html, "<details class=\"task\"") == 6);
  CHECK(html.find("error: &#39;n&#39; was not declared") != std::string::npos);
  CHECK(html.find("final kernel") != std::string::npos);
  // Sub-rows keep their indentation; overlapping budget curves stay apart.
  CHECK(html.find("<td>&nbsp;&nbsp;&nbsp;&nbsp;input (uncached / cached)</td>") != std::string::npos);
  CHECK(html.find("class=\"curve\" d=\"") != std::string::npos);
  CHECK(html.find("stroke-dasharray=\"7 4\"") != std::string::npos);  // the second run's curves
  // Sortable tables and definitions.
  CHECK(html.find("class=\"sortable\"") != std::string::npos);
  for (const auto& d : metric_definitions()) CHECK(html.find(d.name) != std::string::npos);
}

TEST_CASE("help text lists every definition") {
  const std::string text = definitions_text(80);
  for (const auto& d : metric_definitions()) CHECK(text.find("  " + d.name + ":") != std::string::npos);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) CHECK(line.size() <= 80);
  CHECK(format_from_name("html") == Format::Html);
  CHECK(format_from_name("md") == Format::Markdown);
  CHECK_FALSE(format_from_name("pdf").has_value());
}
