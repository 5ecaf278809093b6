// Budget enforcement for each budget kind, end to end through the loop, with
// a scripted model whose token counts are known exactly. The replies carry no
// code (no evaluation needed), so every iteration is one LLM call.
#include <doctest/doctest.h>

#include "agent_fixtures.h"
#include "kgb/store/run_store.h"

using namespace kgb;
using namespace kgb::test;

namespace {

struct BudgetRun {
  std::string store_file;
  agent::RunSummary summary;
  store::AttemptRecord attempt;
  std::vector<store::LlmCallRecord> calls;
};

// Refine over blas/saxpy with a model that never writes code and answers
// the n-th call with `reply(n)`.
BudgetRun run_replying(const std::string& name, const std::function<Reply(int)>& reply,
                       const std::function<void(agent::RunConfig&)>& set) {
  ScriptedServer server([&](const RecordedRequest&, int index) { return reply(index); });
  const std::string dir = fresh_dir("budget-" + name);
  agent::RunOptions o;
  o.config = scripted_config(dir + "/runs.db", "blas/saxpy", server.base_url());
  o.config.policy = "refine";
  o.config.policies["refine"] = {{"max_iterations", 50}, {"max_failed_fixes", 100}};
  set(o.config);
  BudgetRun r;
  r.store_file = o.config.store;
  r.summary = run_to_end(o);
  auto db = store::RunStore::open(o.config.store);
  REQUIRE(db.ok());
  r.attempt = attempt_of(**db, r.summary.run_id, "blas/saxpy");
  for (auto rows = (*db)->iterations(r.attempt.id); const auto& it : *rows)
    if (auto c = *(*db)->find_llm_call(r.attempt.id, it.index, 0)) r.calls.push_back(*c);
  return r;
}

// The same, the reply reporting the given usage.
BudgetRun run_with(const std::string& name, ScriptedUsage usage, const std::function<void(agent::RunConfig&)>& set,
                   std::chrono::milliseconds delay = {}) {
  return run_replying(
      name,
      [&](int) {
        Reply r = openai_reply("I would rather talk about the weather.", "stop", usage);
        r.delay = delay;
        return r;
      },
      set);
}

}  // namespace

TEST_CASE("output-token budget: max_tokens is capped to what remains, then the attempt stops") {
  auto r = run_with("output", {100, 500, 0, 0}, [](agent::RunConfig& c) { c.attempt_budget.output_tokens = 1200; });
  CHECK(r.attempt.status == "budget");
  CHECK(r.attempt.stop_reason == "budget:output-tokens");
  REQUIRE(r.calls.size() == 3);
  CHECK(r.calls[0].max_output_tokens == 1200);
  CHECK(r.calls[1].max_output_tokens == 700);
  CHECK(r.calls[2].max_output_tokens == 200);
  CHECK(r.attempt.tokens.output == 1500);
}

TEST_CASE("total-token budget: the prompt estimate and the output cap share what remains") {
  auto r = run_with("total", {1000, 500, 0, 0}, [](agent::RunConfig& c) { c.attempt_budget.total_tokens = 4000; });
  CHECK(r.attempt.stop_reason == "budget:total-tokens");
  REQUIRE(r.calls.size() >= 2);
  // Each cap leaves room for the prompt: cap + spent + prompt estimate <= budget.
  int64_t spent = 0;
  for (const auto& c : r.calls) {
    CHECK(c.max_output_tokens > 0);
    CHECK(c.max_output_tokens + spent < 4000);
    spent += c.tokens.total();
  }
  CHECK(r.calls.back().max_output_tokens < 8192);
}

TEST_CASE("input-token budget: a call whose prompt would not fit is not made") {
  auto r = run_with("input", {2000, 10, 0, 0}, [](agent::RunConfig& c) { c.attempt_budget.input_tokens = 5000; });
  CHECK(r.attempt.stop_reason == "budget:input-tokens");
  CHECK(r.calls.size() == 2);  // 2000 + 2000 spent; a third prompt (~1k estimated) would pass 5000
  CHECK(r.attempt.tokens.input == 4000);
}

TEST_CASE("reasoning-token and cached-token budgets stop once spent") {
  auto reasoning = run_with("reasoning", {100, 200, 0, 100}, [](agent::RunConfig& c) { c.attempt_budget.reasoning_tokens = 250; });
  CHECK(reasoning.attempt.stop_reason == "budget:reasoning-tokens");
  CHECK(reasoning.calls.size() == 3);
  CHECK(reasoning.attempt.tokens.reasoning == 300);
  auto cached = run_with("cached", {1000, 10, 400, 0}, [](agent::RunConfig& c) { c.attempt_budget.cached_tokens = 1000; });
  CHECK(cached.attempt.stop_reason == "budget:cached-tokens");
  CHECK(cached.calls.size() == 3);
  CHECK(cached.attempt.tokens.cached_input == 1200);
}

TEST_CASE("money budget: costs come from the price table and the output cap keeps the spend in bounds") {
  // $1 per million tokens in and out: a call of 2000 in + 500 out costs $0.0025.
  auto r = run_with("usd", {2000, 500, 0, 0}, [](agent::RunConfig& c) {
    c.provider.prices["scripted"] = {1.0, 1.0, 1.0, 1.0};
    c.attempt_budget.usd = 0.0125;
  });
  CHECK(r.attempt.stop_reason == "budget:usd");
  REQUIRE(r.calls.size() == 5);
  REQUIRE(r.calls[0].cost_usd.has_value());
  CHECK(*r.calls[0].cost_usd == doctest::Approx(0.0025));
  CHECK(r.calls[0].max_output_tokens == 8192);
  // Every cap is what the money left buys after the prompt: never more.
  for (size_t i = 0; i < r.calls.size(); ++i) CHECK(static_cast<double>(r.calls[i].max_output_tokens) + 2500.0 * i < 12500);
  // The last call could afford little more than a thousand tokens.
  CHECK(r.calls[4].max_output_tokens < 2000);
  CHECK(r.calls[4].max_output_tokens >= 16);
  CHECK(r.attempt.cost_usd == doctest::Approx(0.0125));
}

TEST_CASE("iteration budget (--max-iters)") {
  auto r = run_with("iterations", {}, [](agent::RunConfig& c) { c.attempt_budget.iterations = 2; });
  CHECK(r.attempt.status == "budget");
  CHECK(r.attempt.stop_reason == "budget:iterations");
  CHECK(r.attempt.iterations == 2);
}

TEST_CASE("wall-time budget counts the attempt's own LLM and tool time") {
  auto r = run_with("wall", {}, [](agent::RunConfig& c) { c.attempt_budget.wall_seconds = 0.5; }, std::chrono::milliseconds(300));
  CHECK(r.attempt.stop_reason == "budget:wall-time");
  CHECK(r.calls.size() == 2);  // 0.3 s, 0.6 s: past the limit before the third
  CHECK(r.attempt.seconds >= 0.5);
}

TEST_CASE("run budgets: a spent run budget stops the attempts in flight and skips the ones not started") {
  ScriptedServer server([&](const RecordedRequest&, int) { return openai_reply("No code today.", "stop", {1000, 1000, 0, 0}); });
  const std::string dir = fresh_dir("budget-run");
  agent::RunOptions o;
  o.config = scripted_config(dir + "/runs.db", "blas/saxpy,vllm/silu_and_mul,aten/add", server.base_url());
  o.config.policy = "refine";
  o.config.policies["refine"] = {{"max_iterations", 50}, {"max_failed_fixes", 100}};
  o.config.run_budget.total_tokens = 5000;
  const agent::RunSummary s = run_to_end(o);
  CHECK(s.status == "finished");
  auto db = store::RunStore::open(o.config.store);
  REQUIRE(db.ok());
  int with_calls = 0;
  for (auto rows = (*db)->attempts(s.run_id); const auto& a : *rows) {
    CHECK(a.status == "budget");
    CHECK(a.stop_reason == "run-budget:total-tokens");
    with_calls += a.tokens.total() > 0;
  }
  CHECK(with_calls == 1);  // the first attempt spent the run's budget; the others stopped before any call
  CHECK(s.llm_calls == 2);
  CHECK(s.spend.total_tokens() == 4000);
}

TEST_CASE("usage a server leaves out (or reports as zeros) is estimated, marked, and stops a token budget") {
  // mock-llm sends no usage at all; some gateways report 0 / 0.
  for (const bool zeros : {false, true}) {
    CAPTURE(zeros);
    auto reply = [&](int) {
      nlohmann::json body = {{"id", "x"},
                             {"object", "chat.completion"},
                             {"choices", {{{"index", 0},
                                           {"message", {{"role", "assistant"}, {"content", std::string(400, 'w')}}},
                                           {"finish_reason", "stop"}}}}};
      if (zeros) body["usage"] = {{"prompt_tokens", 0}, {"completion_tokens", 0}, {"total_tokens", 0}};
      return Reply::json(200, body.dump());
    };
    const BudgetRun r = run_replying(zeros ? "usage-zeros" : "usage-missing", reply,
                                     [](agent::RunConfig& c) { c.attempt_budget.total_tokens = 8000; });
    CHECK(r.attempt.stop_reason == "budget:total-tokens");
    CHECK(r.attempt.iterations < 50);
    for (const auto& call : r.calls) {
      CHECK(call.usage_source == "estimated");
      CHECK(call.usage_estimated);
      CHECK(call.tokens.output == 100);  // 400 bytes a reply, 4 bytes a token
    }
    CHECK(r.calls.size() >= 2);
    CHECK(r.attempt.tokens.output == 100 * static_cast<int64_t>(r.calls.size()));
    CHECK(r.attempt.tokens.input > 0);
    CHECK(r.attempt.tokens.input + r.attempt.tokens.output <= 8000);
    auto db = store::RunStore::open(r.store_file);
    REQUIRE(db.ok());
    const auto totals = *(*db)->totals(r.summary.run_id);
    CHECK(totals.estimated_usage_calls == totals.llm_calls);
    CHECK(totals.missing_usage_calls == 0);
  }
}

TEST_CASE("usage as reported stays as reported; a failed call without usage is marked missing") {
  auto reply = [](int index) {
    if (index == 0) return Reply::json(500, R"({"error":{"message":"boom","type":"server_error"}})");
    return openai_reply("no code here", "stop", {120, 30, 0, 0});
  };
  const BudgetRun r = run_replying("usage-sources", reply, [](agent::RunConfig& c) { c.policies["refine"]["max_iterations"] = 2; });
  auto db = store::RunStore::open(r.store_file);
  REQUIRE(db.ok());
  std::vector<std::string> sources;
  for (auto rows = (*db)->iterations(r.attempt.id); const auto& it : *rows) sources.push_back((*db)->find_llm_call(r.attempt.id, it.index, 0).value()->usage_source);
  CHECK(sources == std::vector<std::string>{"missing", "reported"});
  CHECK(r.attempt.tokens.input == 120);
  const auto totals = *(*db)->totals(r.summary.run_id);
  CHECK(totals.missing_usage_calls == 1);
  CHECK(totals.estimated_usage_calls == 0);
}
