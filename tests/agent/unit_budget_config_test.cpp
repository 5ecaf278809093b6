// Budget arithmetic, the TOML configuration and the policy registry.
#include <doctest/doctest.h>

#include "kgb/agent/budget.h"
#include "kgb/agent/config.h"
#include "kgb/agent/policy.h"
#include "kgb/agent/tools.h"

using namespace kgb;
using namespace kgb::agent;

TEST_CASE("budgets: each kind stops once spent, with a named reason") {
  BudgetLimits l;
  Spend s;
  CHECK(!check_iteration(l, s, {}, {}));
  l.iterations = 2;
  s.iterations = 2;
  auto stop = check_iteration(l, s, {}, {});
  REQUIRE(stop);
  CHECK(stop->reason() == "budget:iterations");
  struct Case {
    std::function<void(BudgetLimits&, Spend&)> set;
    const char* reason;
  };
  const Case cases[] = {
      {[](BudgetLimits& b, Spend& x) { b.input_tokens = 10, x.input_tokens = 10; }, "budget:input-tokens"},
      {[](BudgetLimits& b, Spend& x) { b.output_tokens = 10, x.output_tokens = 11; }, "budget:output-tokens"},
      {[](BudgetLimits& b, Spend& x) { b.reasoning_tokens = 5, x.reasoning_tokens = 5; }, "budget:reasoning-tokens"},
      {[](BudgetLimits& b, Spend& x) { b.cached_tokens = 5, x.cached_tokens = 6; }, "budget:cached-tokens"},
      {[](BudgetLimits& b, Spend& x) { b.total_tokens = 100, x.input_tokens = 60, x.output_tokens = 40; }, "budget:total-tokens"},
      {[](BudgetLimits& b, Spend& x) { b.usd = 0.5, x.usd = 0.5; }, "budget:usd"},
      {[](BudgetLimits& b, Spend& x) { b.wall_seconds = 3, x.wall_seconds = 3.5; }, "budget:wall-time"},
  };
  for (const auto& c : cases) {
    BudgetLimits b;
    Spend x;
    c.set(b, x);
    auto st = check_iteration(b, x, {}, {});
    REQUIRE(st);
    CHECK(st->reason() == c.reason);
    auto call = allow_call(b, x, {}, {}, 10, 100, std::nullopt);
    REQUIRE(call.stop);
    CHECK(call.stop->reason() == c.reason);
    // The same limits at the run level say so.
    auto run = check_iteration({}, {}, b, x);
    REQUIRE(run);
    CHECK(run->reason() == std::string("run-") + c.reason);
  }
}

TEST_CASE("budgets: max_tokens is capped to the tightest remaining budget") {
  BudgetLimits a;
  a.output_tokens = 1000;
  Spend s;
  s.output_tokens = 700;
  auto c = allow_call(a, s, {}, {}, 50, 8192, std::nullopt);
  REQUIRE(!c.stop);
  CHECK(c.max_output_tokens == 300);
  // Total tokens leave room for the prompt estimate.
  BudgetLimits t;
  t.total_tokens = 1000;
  c = allow_call(t, {}, {}, {}, 400, 8192, std::nullopt);
  CHECK(c.max_output_tokens == 600);
  // The run's budget can be the tighter one.
  BudgetLimits run;
  run.total_tokens = 500;
  c = allow_call(t, {}, run, {}, 400, 8192, std::nullopt);
  CHECK(c.max_output_tokens == 100);
  // Money: what remains after the prompt, at the output price.
  BudgetLimits m;
  m.usd = 0.01;
  TokenPrices p{2.0, 1.0, 10.0, 2.0};  // $ per million
  c = allow_call(m, {}, {}, {}, 1000, 8192, p);  // prompt $0.002, leaves $0.008 = 800 output tokens
  CHECK(c.max_output_tokens == 800);
  // Too little left for a useful answer: no call.
  a.output_tokens = 710;
  c = allow_call(a, s, {}, {}, 50, 8192, std::nullopt);
  REQUIRE(c.stop);
  CHECK(c.stop->kind == BudgetKind::OutputTokens);
  // A prompt that would not fit the input budget.
  BudgetLimits in;
  in.input_tokens = 1000;
  Spend si;
  si.input_tokens = 900;
  c = allow_call(in, si, {}, {}, 200, 8192, std::nullopt);
  REQUIRE(c.stop);
  CHECK(c.stop->kind == BudgetKind::InputTokens);
  // No budgets: the requested cap stands, or none.
  CHECK(allow_call({}, {}, {}, {}, 10, 4096, std::nullopt).max_output_tokens == 4096);
  CHECK(!allow_call({}, {}, {}, {}, 10, std::nullopt, std::nullopt).max_output_tokens);
}

TEST_CASE("configuration: TOML sections, overrides of the defaults, and the recorded JSON round trip") {
  const char* text = R"(
[run]
policy = "parallel-refine"
platform = "cpu-x86_64"
tasks = "blas/*, vllm/*"
samples = 3
concurrency = 8
seed = 42

[provider]
name = "openai"
model = "gpt-4.1-mini"
temperature = 0.4
max_output_tokens = 4096
api_key_env = "MY_KEY"

[prices."my-model"]
input = 1.5
output = 6.0

[oracle]
compile_error_attempts = 2
latency_ms = "10:30"

[evaluation]
time = false
jobs = 3

[feedback]
max_diagnostics = 2

[budget.attempt]
tokens = 50000
usd = 0.25
iterations = 6

[budget.run]
usd = 10.0
wall_seconds = 3600

[policy.parallel-refine]
seeds = 3
rounds = 2
)";
  auto c = parse_config_toml(text, "test.toml");
  REQUIRE(c.ok());
  CHECK(c->policy == "parallel-refine");
  CHECK(c->samples == 3);
  CHECK(c->seed == 42);
  CHECK(c->provider.model == "gpt-4.1-mini");
  CHECK(*c->provider.temperature == doctest::Approx(0.4));
  CHECK(*c->provider.api_key_env == "MY_KEY");
  CHECK(c->provider.prices.at("my-model").output == doctest::Approx(6.0));
  CHECK(c->provider.prices.at("my-model").cached_input == doctest::Approx(1.5));
  CHECK(c->oracle.compile_error_attempts == 2);
  CHECK(c->oracle.latency_min_ms == 10);
  CHECK(c->oracle.latency_max_ms == 30);
  CHECK(!c->evaluation.time);
  CHECK(c->evaluation.lint);  // untouched default
  CHECK(c->feedback.max_diagnostics == 2);
  CHECK(*c->attempt_budget.total_tokens == 50000);
  CHECK(*c->attempt_budget.iterations == 6);
  CHECK(*c->run_budget.wall_seconds == doctest::Approx(3600));
  CHECK(c->policy_params()["seeds"] == 3);
  CHECK(validate_config(*c).ok());

  auto back = config_from_json(config_to_json(*c));
  REQUIRE(back.ok());
  CHECK(config_to_json(*back) == config_to_json(*c));
}

TEST_CASE("configuration: mistakes are errors that say where") {
  auto typo = parse_config_toml("[run]\npolicyy = \"refine\"\n", "x.toml");
  REQUIRE(!typo.ok());
  CHECK(typo.error().message.find("unknown key 'policyy' in [run]") != std::string::npos);
  auto type = parse_config_toml("[run]\nsamples = \"three\"\n", "x.toml");
  REQUIRE(!type.ok());
  CHECK(type.error().message.find("samples must be an integer") != std::string::npos);
  auto section = parse_config_toml("[budgets.attempt]\ntokens = 5\n", "x.toml");
  REQUIRE(!section.ok());
  CHECK(section.error().message.find("unknown section [budgets]") != std::string::npos);
  auto syntax = parse_config_toml("[run\npolicy = 1", "x.toml");
  REQUIRE(!syntax.ok());
  CHECK(syntax.error().message.find("x.toml:1") == 0);
  auto c = parse_config_toml("[run]\nsamples = 0\n", "x.toml");
  REQUIRE(c.ok());
  CHECK(!validate_config(*c).ok());
  // Numbers come through unchanged or not at all: nothing narrowed, nothing that the recorded
  // JSON (and so `kgb run --resume`) could not read back.
  auto narrowed = parse_config_toml("[run]\nsamples = 4294967297\n", "x.toml");
  REQUIRE(!narrowed.ok());
  CHECK(narrowed.error().message.find("samples must be an integer from -2147483648 to 2147483647") != std::string::npos);
  for (const char* text : {"[provider]\ntimeout_seconds = nan\n", "[budget.run]\nusd = inf\n", "[oracle]\nfail_429 = -nan\n"}) {
    CAPTURE(text);
    auto not_finite = parse_config_toml(text, "x.toml");
    REQUIRE(!not_finite.ok());
    CHECK(not_finite.error().message.find("must be a finite number") != std::string::npos);
  }
  nlohmann::json recorded = config_to_json(RunConfig{});
  recorded["run"]["concurrency"] = 1ULL << 40;
  CHECK(!config_from_json(recorded).ok());
  auto below = parse_config_toml("[evaluation]\nprofile_below = -1\n", "x.toml");
  REQUIRE(!below.ok());
  CHECK(below.error().message.find("profile_below must be a speedup >= 0") != std::string::npos);
}

TEST_CASE("configuration: [evaluation] profile_below, 1.0 unless set, 0 turns the profiler's feedback off") {
  auto d = parse_config_toml("", "x.toml");
  REQUIRE(d.ok());
  CHECK(d->evaluation.profile_below == 1.0);
  auto off = parse_config_toml("[evaluation]\nprofile_below = 0\n", "x.toml");
  REQUIRE(off.ok());
  CHECK(off->evaluation.profile_below == 0.0);
  CHECK(config_to_json(*off)["evaluation"]["profile_below"] == 0.0);
}

TEST_CASE("configuration: [evaluation] timing_pairs, 6 unless set, reaches the evaluation options, at least 1") {
  auto d = parse_config_toml("", "x.toml");
  REQUIRE(d.ok());
  CHECK(d->evaluation.timing_pairs == 6);
  auto one = parse_config_toml("[evaluation]\ntiming_pairs = 1\n", "x.toml");
  REQUIRE(one.ok());
  CHECK(one->evaluation.timing_pairs == 1);
  CHECK(config_to_json(*one)["evaluation"]["timing_pairs"] == 1);
  CHECK(eval_options_for(ToolKind::Submit, one->evaluation, 7).timing_pairs == 1);
  auto zero = parse_config_toml("[evaluation]\ntiming_pairs = 0\n", "x.toml");
  REQUIRE(!zero.ok());
  CHECK(zero.error().message.find("timing_pairs must be at least 1") != std::string::npos);
}

TEST_CASE("the example experiment configuration loads, validates and resolves its policy parameters") {
  auto c = load_config_file(std::string(KGB_SOURCE_DIR) + "/examples/experiment.toml");
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
  CHECK(validate_config(*c).ok());
  CHECK(c->policy == "refine");
  CHECK(c->samples == 2);
  CHECK(c->oracle.compile_error_attempts == 1);
  CHECK(c->oracle.latency_min_ms == 20);
  CHECK(c->oracle.latency_max_ms == 80);
  CHECK(c->attempt_budget.total_tokens == 60000);
  CHECK(c->run_budget.usd == doctest::Approx(20.0));
  CHECK(c->provider.prices.count("my-finetune") == 1);
  // Every [policy.<name>] table of the example is valid for its policy.
  for (const auto& [name, params] : c->policies.items()) {
    CAPTURE(name);
    auto resolved = PolicyRegistry::global().resolve_params(name, params);
    REQUIRE_MESSAGE(resolved.ok(), (resolved.ok() ? "" : resolved.error().message));
    CHECK(PolicyRegistry::global().make(name, *resolved).ok());
  }
  CHECK(c->policies.size() == 3);
}

TEST_CASE("the policy registry: built-ins, parameters checked against the defaults, custom policies") {
  auto& registry = PolicyRegistry::global();
  for (const char* name : {"sample", "refine", "parallel-refine", "tool-agent"}) CHECK(registry.find(name) != nullptr);
  auto params = registry.resolve_params("refine", {{"target_speedup", 2}});
  REQUIRE(params.ok());
  CHECK((*params)["target_speedup"] == 2);
  CHECK((*params)["max_failed_fixes"] == 3);  // defaults filled in
  auto unknown = registry.resolve_params("refine", {{"target_speed", 2.0}});
  REQUIRE(!unknown.ok());
  CHECK(unknown.error().message.find("unknown parameter 'target_speed'") != std::string::npos);
  CHECK(!registry.resolve_params("refine", {{"max_iterations", "five"}}).ok());
  CHECK(!registry.resolve_params("refine", {{"max_iterations", 2.5}}).ok());
  CHECK(!registry.resolve_params("no-such-policy", {}).ok());
  CHECK(!registry.make("refine", *registry.resolve_params("refine", {{"max_iterations", 0}})).ok());

  struct Nothing : Policy {
    boost::asio::awaitable<AttemptEnd> run(AttemptContext&) override { co_return AttemptEnd{"done-nothing"}; }
  };
  registry.add({"nothing", "does nothing", {{"x", 1}}, [](const nlohmann::json&) -> Result<std::unique_ptr<Policy>> {
                  return std::unique_ptr<Policy>(new Nothing);
                }});
  CHECK(registry.find("nothing") != nullptr);
  CHECK(registry.make("nothing", {{"x", 1}}).ok());
}
