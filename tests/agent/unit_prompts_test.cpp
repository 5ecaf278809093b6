// Prompt templates, the bundled prompt set, and feedback rendering.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "kgb/agent/prompts.h"
#include "kgb/agent/tools.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

using namespace kgb;
using namespace kgb::agent;

TEST_CASE("templates: variables, sections, inverted sections, comments") {
  auto t = Template::parse("{{! a comment line }}\nHello {{name}}!\n{{#extra}}\nExtra: {{extra}}\n{{/extra}}\n{{^extra}}\nNo extra.\n{{/extra}}\nBye.", "t");
  REQUIRE(t.ok());
  CHECK(t->placeholders() == std::set<std::string>{"name", "extra"});
  CHECK(t->render({{"name", "kernel"}, {"extra", "fast"}}) == "Hello kernel!\nExtra: fast\nBye.");
  CHECK(t->render({{"name", "kernel"}}) == "Hello kernel!\nNo extra.\nBye.");
  // An empty variable leaves no run of blank lines behind.
  auto blank = Template::parse("a\n\n{{x}}\n\n\n\nb", "b");
  REQUIRE(blank.ok());
  CHECK(blank->render({}) == "a\n\nb");
}

TEST_CASE("templates: syntax errors name the template and the line") {
  auto unclosed = Template::parse("line\n{{#x}} never closed", "feedback/x");
  REQUIRE(!unclosed.ok());
  CHECK(unclosed.error().message.find("feedback/x") != std::string::npos);
  auto stray = Template::parse("a\nb {{/y}}", "z");
  REQUIRE(!stray.ok());
  CHECK(stray.error().message.find("z:2") != std::string::npos);
  CHECK(!Template::parse("{{ bad name! }}", "w").ok());
  CHECK(!Template::parse("{{open", "w").ok());
}

TEST_CASE("prompt sets: unknown placeholders and missing templates are errors at load") {
  auto loaded = PromptSet::load(std::filesystem::path(KGB_SOURCE_DIR) / "prompts");
  REQUIRE(loaded.ok());
  nlohmann::json texts = loaded->to_json();
  texts["feedback/compile"] = "{{reslt}}";
  auto typo = PromptSet::from_json(texts);
  REQUIRE(!typo.ok());
  CHECK(typo.error().message.find("{{reslt}}") != std::string::npos);
  texts.erase("feedback/compile");
  auto missing = PromptSet::from_json(texts);
  REQUIRE(!missing.ok());
  CHECK(missing.error().message.find("feedback/compile") != std::string::npos);
}

TEST_CASE("the bundled prompts render a task with its Task: and Platform: lines and the backend rules") {
  auto prompts = PromptSet::load(std::filesystem::path(KGB_SOURCE_DIR) / "prompts");
  REQUIRE(prompts.ok());
  auto tasks = load_all_tasks(tasks_root());
  const Task* saxpy = nullptr;
  for (const auto& t : tasks.tasks)
    if (t.id == "blas/saxpy") saxpy = &t;
  REQUIRE(saxpy);
  auto platform = load_platform("cpu-x86_64");
  REQUIRE(platform.ok());
  const TemplateVars vars = task_variables(*prompts, *saxpy, *platform);
  auto text = prompts->render("task", vars);
  REQUIRE(text.ok());
  CHECK(text->find("Task: blas/saxpy\n") != std::string::npos);
  CHECK(text->find("Platform: cpu-x86_64\n") != std::string::npos);
  CHECK(text->find("OpenMP only") != std::string::npos);          // backend/cpu
  CHECK(text->find(entry_declaration(*saxpy)) != std::string::npos);
  CHECK(text->find("```cpp") != std::string::npos);
  CHECK(text->find("{{") == std::string::npos);
  for (const auto& name : PromptSet::required_names()) CHECK(prompts->has(name));
}

TEST_CASE("feedback: compact key: value lines, the first N diagnostics, truncation marked") {
  CompileOutput out;
  out.ok = false;
  for (int i = 1; i <= 8; ++i)
    out.diagnostics.push_back({"/tmp/kgb-xyz/candidate.cpp", 10 + i, 3, "error", "error number " + std::to_string(i), "  foo();"});
  out.diagnostics.push_back({"/tmp/kgb-xyz/candidate.cpp", 2, 1, "warning", "unused variable", ""});
  FeedbackSettings limits;
  limits.max_diagnostics = 3;
  const ToolResult r = compile_result(out, limits);
  CHECK(r.outcome == "compile-error");
  CHECK(r.data["diagnostics"].size() == 3);
  CHECK(r.data["diagnostics_total"] == 9);
  const std::string text = format_tool_result(r, limits);
  CHECK(text.find("tool: compile\noutcome: compile-error\n") == 0);
  CHECK(text.find("diagnostics: 8 error(s), 1 warning(s)") != std::string::npos);
  CHECK(text.find("error: candidate.cpp:11:3: error number 1") != std::string::npos);
  CHECK(text.find("  | " "  foo();") != std::string::npos);
  CHECK(text.find("error number 4") == std::string::npos);
  CHECK(text.find("[6 more diagnostic(s) not shown]") != std::string::npos);
  CHECK(text.find("/tmp/") == std::string::npos);  // no machine paths in feedback
  CHECK(feedback_template_for(r) == "feedback/compile");
  CHECK(error_signature(r) == "compile-error: error number 1");

  limits.max_chars = 200;
  const std::string capped = format_tool_result(r, limits);
  CHECK(capped.size() <= 260);
  CHECK(capped.find("[feedback truncated:") != std::string::npos);
}

TEST_CASE("feedback: a wrong result names the case, the errors and the first mismatch") {
  Verdict v;
  v.outcome = Outcome::WrongResult;
  v.stage = Stage::Check;
  v.summary = "case small/f32: mismatch";
  CaseCheck ok;
  ok.name = "tiny";
  ok.passed = true;
  CaseCheck bad;
  bad.name = "small";
  bad.dtype = "f32";
  bad.status = "mismatch";
  bad.max_abs_error = 2.5;
  bad.max_rel_error = 1;
  bad.mismatches = 1;
  bad.checked = 1024;
  bad.output = "out";
  bad.first_bad_index = {0, 3};
  bad.expected = "1.5";
  bad.got = "4";
  v.cases = {ok, bad, bad, bad, bad};
  FeedbackSettings limits;
  limits.max_cases = 2;
  const ToolResult r = verdict_result(ToolKind::Run, v, limits);
  CHECK(!r.correct);
  const std::string text = format_tool_result(r, limits);
  CHECK(text.find("cases: 1 of 5 passed") != std::string::npos);
  CHECK(text.find("failed case: small f32 seed 0: mismatch, 1 of 1024 elements wrong, max abs error 2.5, max rel error 1, "
                  "first mismatch out[0, 3]: expected 1.5, got 4") != std::string::npos);
  CHECK(text.find("[2 more failed case(s) not shown]") != std::string::npos);
  CHECK(feedback_template_for(r) == "feedback/check");
}

TEST_CASE("tool results survive the store's JSON round trip") {
  Verdict v;
  v.outcome = Outcome::Passed;
  v.stage = Stage::Done;
  v.speedup = 1.7;
  CaseTiming t;
  t.name = "large";
  t.dtype = "f32";
  t.candidate.median_us = 10;
  t.speedup = 1.7;
  t.roofline_fraction = 0.5;
  v.timings = {t};
  const ToolResult r = verdict_result(ToolKind::Profile, v, {});
  const ToolResult back = ToolResult::from_json(r.to_json());
  CHECK(back.kind == ToolKind::Profile);
  CHECK(back.correct);
  CHECK(back.speedup == doctest::Approx(1.7));
  CHECK(format_tool_result(back, {}) == format_tool_result(r, {}));
  CHECK(format_tool_result(r, {}).find("speedup: 1.7x") != std::string::npos);
  CHECK(format_tool_result(r, {}).find("roofline: 50% of the roofline floor") != std::string::npos);
}
