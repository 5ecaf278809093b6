// The oracle's decisions without sockets: prompt reading, the three request
// dialects, code masking, the two mutations, attempts and agent steps decided
// from the conversation, output limits and the seeded failure draws.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "kgb/oracle/brain.h"
#include "kgb/oracle/mutate.h"
#include "kgb/oracle/query.h"
#include "kgb/oracle/prompt.h"
#include "kgb/oracle/server.h"

using namespace kgb::oracle;

namespace {

const char* kSolution = R"(// scale: out = 2 * x. Mentions kgb_test_scale( in a comment {
#include "kgb_kernel.h"
static const char* kName = "kgb_test_scale(not code) {";
extern "C" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream);
static const char* kRaw = R"xx(kgb_test_scale( ) { )xx";
extern "C" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream) {
  const long long n = 1'000;
  (void)n;
  char c = '{';
  (void)c;
  return 0;
}
)";

KernelTarget scale_target(std::string backend = "cpu") {
  KernelTarget t;
  t.task_id = "test/scale";
  t.platform = backend == "cpu" ? "cpu-x86_64" : backend + "-x";
  t.backend = backend;
  t.fence_language = backend == "cuda" ? "cuda" : "cpp";
  t.source = kSolution;
  t.entry = "kgb_test_scale";
  t.entry_declaration = "extern \"C\" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream);";
  t.outputs = {"out"};
  return t;
}

}  // namespace

TEST_CASE("oracle prompt: Task and Platform lines, decorated or not, last one wins") {
  PromptFacts f = parse_prompt("Write a kernel.\nTask: aten/softmax\nPlatform: cpu-x86_64\n");
  CHECK(f.task_id == "aten/softmax");
  CHECK(f.platform == "cpu-x86_64");
  f = parse_prompt("## Kernel\n- **Task:** `vllm/rms_norm` (f16)\n> Platform: `cuda-sm90`\n");
  CHECK(f.task_id == "vllm/rms_norm");
  CHECK(f.platform == "cuda-sm90");
  f = parse_prompt("Task: a/b\nPlatform: p1\nlater...\nTask: c/d\n");
  CHECK(f.task_id == "c/d");
  CHECK(f.platform == "p1");
  f = parse_prompt("Tell me a joke about tasks: none here");
  CHECK(f.task_id.empty());
  CHECK(f.platform.empty());
}

TEST_CASE("oracle: token estimates and code block extraction") {
  CHECK(estimate_tokens("") == 0);
  CHECK(estimate_tokens("abc") == 1);
  CHECK(estimate_tokens("abcd") == 1);
  CHECK(estimate_tokens("abcde") == 2);
  CHECK(extract_code_block("Here:\n\n```cpp\nint x;\nint y;\n```\nbye") == "int x;\nint y;\n");
  CHECK(extract_code_block("no code") == "");
}

TEST_CASE("mutate: masking keeps code, blanks comments and all string forms") {
  const std::string masked = mask_comments_and_strings(kSolution);
  CHECK(masked.size() == std::string(kSolution).size());
  CHECK(masked.find("Mentions") == std::string::npos);
  CHECK(masked.find("not code") == std::string::npos);
  CHECK(masked.find("xx(kgb_test_scale") == std::string::npos);
  CHECK(masked.find("1'000") != std::string::npos);  // digit separator is not a character literal
  CHECK(masked.find("'{'") == std::string::npos);
  CHECK(std::count(masked.begin(), masked.end(), '\n') == std::count(kSolution, kSolution + masked.size(), '\n'));
}

TEST_CASE("mutate: the definition is found past comments, strings and the declaration") {
  auto where = find_entry_definition(kSolution, "kgb_test_scale");
  REQUIRE(where);
  const std::string source = kSolution;
  CHECK(source.substr(where->name, 14) == "kgb_test_scale");
  CHECK(source[where->body_open] == '{');
  CHECK(source[where->body_close] == '}');
  CHECK(source.find("return 0;") > where->body_open);
  CHECK(source.find("return 0;") < where->body_close);
  CHECK_FALSE(find_entry_definition(kSolution, "kgb_missing"));
}

TEST_CASE("mutate: compile error inside the entry body, with its line") {
  Mutation m = inject_compile_error(kSolution, "kgb_test_scale");
  CHECK(m.kind == "compile_error");
  std::vector<std::string> lines;
  std::string line;
  for (char c : m.source) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  REQUIRE(m.line >= 1);
  REQUIRE(static_cast<std::size_t>(m.line) <= lines.size());
  CHECK(lines[m.line - 1].find("kgb_validate_arguments") != std::string::npos);
  CHECK(lines[m.line - 2].find("extern \"C\" int kgb_test_scale(") != std::string::npos);

  Mutation fallback = inject_compile_error("int unrelated() { return 1; }", "kgb_missing");
  CHECK(fallback.source.find("kgb_validate_arguments") != std::string::npos);
}

TEST_CASE("mutate: wrong-result wrappers for CPU, CUDA and HIP; none for OpenCL") {
  auto cpu = inject_wrong_result(scale_target("cpu"));
  REQUIRE(cpu);
  const std::string& s = cpu->source;
  CHECK(s.find("extern \"C\" int kgb_test_scale_oracle_impl(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream) {") != std::string::npos);
  CHECK(s.find("extern \"C\" int kgb_test_scale(const kgb_tensor* x, double factor, kgb_tensor* out, kgb_stream stream) {") != std::string::npos);
  CHECK(s.find("kgb_test_scale_oracle_impl(x, factor, out, stream)") != std::string::npos);
  CHECK(s.find("kgb_oracle_perturb(out, 0);") != std::string::npos);
  CHECK(s.find("\"kgb_test_scale(not code) {\"") != std::string::npos);  // strings untouched
  CHECK(s.find("__global__") == std::string::npos);

  KernelTarget random = scale_target("cpu");
  random.statistical = true;
  CHECK(inject_wrong_result(random)->source.find("kgb_oracle_perturb(out, 1);") != std::string::npos);

  auto cuda = inject_wrong_result(scale_target("cuda"));
  REQUIRE(cuda);
  CHECK(cuda->source.find("__global__ static void kgb_oracle_perturb_kernel") != std::string::npos);
  CHECK(cuda->source.find("cudaStream_t") != std::string::npos);
  CHECK(cuda->source.find("kgb_oracle_perturb(out, 0, stream);") != std::string::npos);
  auto hip = inject_wrong_result(scale_target("hip"));
  REQUIRE(hip);
  CHECK(hip->source.find("hipStream_t") != std::string::npos);

  auto opencl = inject_wrong_result(scale_target("opencl"));
  REQUIRE_FALSE(opencl);
  CHECK(opencl.error().code == "oracle.no-wrapper");
  KernelTarget no_output = scale_target();
  no_output.outputs.clear();
  CHECK_FALSE(inject_wrong_result(no_output));
}

Query kernel_query(const std::string& task, const std::string& platform, int earlier_replies = 0) {
  Query q;
  q.turns.push_back({QueryTurn::Role::User, "Write it.\nTask: " + task + "\nPlatform: " + platform + "\n", {}, {}});
  for (int i = 0; i < earlier_replies; ++i) {
    q.turns.push_back({QueryTurn::Role::Assistant, "```cpp\nint x;\n```", {}, {}});
    q.turns.push_back({QueryTurn::Role::User, "It failed: fix it.", {}, {}});
  }
  return q;
}

std::shared_ptr<InMemoryCatalog> scale_catalog() {
  auto catalog = std::make_shared<InMemoryCatalog>();
  catalog->add(scale_target("cpu"));
  catalog->add(scale_target("opencl"));
  return catalog;
}

TEST_CASE("brain: the attempt is the conversation's (earlier replies + 1), faults in order, fallback noted") {
  OracleOptions options;
  options.compile_error_attempts = 2;
  options.wrong_result_attempts = 1;
  options.reasoning = true;
  OracleBrain brain(options, scale_catalog());

  std::vector<std::string> faults;
  for (int i = 0; i < 4; ++i) {
    Reply r = brain.reply(kernel_query("test/scale", "cpu-x86_64", i));
    CHECK(r.known);
    CHECK(r.attempt == i + 1);
    CHECK(r.action == "code");
    CHECK(r.finish == Reply::Finish::Stop);
    faults.push_back(r.fault);
    CHECK(r.text.find("```cpp\n") != std::string::npos);
    CHECK_FALSE(r.reasoning.empty());
  }
  CHECK(faults == std::vector<std::string>{"compile_error", "compile_error", "wrong_result", "none"});
  CHECK(extract_code_block(brain.reply(kernel_query("test/scale", "cpu-x86_64", 5)).text) == kSolution);

  // No memory: the same request, asked again (or of another brain), gets the same answer.
  OracleBrain other(options, scale_catalog());
  for (int i = 0; i < 3; ++i) {
    const Reply a = brain.reply(kernel_query("test/scale", "cpu-x86_64", i));
    const Reply b = other.reply(kernel_query("test/scale", "cpu-x86_64", i));
    CHECK(a.text == b.text);
    CHECK(a.attempt == i + 1);
  }

  // Attempts dropped from a shortened conversation still count.
  Query shortened = kernel_query("test/scale", "cpu-x86_64", 1);
  shortened.turns.front().text += "\n\n[2 earlier attempts and their feedback are left out of this conversation]";
  CHECK(brain.reply(shortened).attempt == 4);
  CHECK(omitted_attempts("x\n [12 earlier attempts and their feedback are left out]\n") == 12);
  CHECK(omitted_attempts("[left out] 3 earlier attempts") == 0);

  Reply o1 = brain.reply(kernel_query("test/scale", "opencl-x", 0));
  Reply o3 = brain.reply(kernel_query("test/scale", "opencl-x", 2));
  CHECK(o1.fault == "compile_error");
  CHECK(o3.fault == "compile_error");
  CHECK(o3.note.find("wrong result unavailable") != std::string::npos);

  Reply unknown = brain.reply(kernel_query("test/nothing", "cpu-x86_64"));
  CHECK_FALSE(unknown.known);
  CHECK(unknown.text.find("```") == std::string::npos);
  CHECK(unknown.text.find("test/nothing") != std::string::npos);
  CHECK_FALSE(brain.reply(Query{}).known);
  CHECK(brain.reply(kernel_query("test/scale", "")).text.find("no platform") != std::string::npos);
}

namespace {

std::vector<QueryTool> agent_tools(std::vector<std::string> names) {
  std::vector<QueryTool> tools;
  for (auto& n : names)
    tools.push_back({n, "", {{"type", "object"}, {"properties", {{"source", {{"type", "string"}}}}}, {"required", {"source"}}}});
  return tools;
}

// What the harness would say about a draft: the tool result lines of kgb's tool agent.
std::string tool_result(const std::string& tool, const std::string& source) {
  const bool broken = source.find("kgb_validate_arguments") != std::string::npos;
  const bool wrong = source.find("_oracle_impl") != std::string::npos;
  std::string outcome = tool == "lint" ? "clean" : tool == "compile" ? "compiled" : "passed";
  if (broken) outcome = tool == "lint" ? "parse-errors" : "compile-error";
  else if (wrong && tool != "lint" && tool != "compile") outcome = "wrong-result";
  return "tool: " + tool + "\noutcome: " + outcome + "\n";
}

}  // namespace

TEST_CASE("brain: with the agent's tools it lints, compiles, runs, profiles and submits, fixing each failure") {
  OracleOptions options;
  options.compile_error_attempts = 1;
  options.wrong_result_attempts = 1;
  OracleBrain brain(options, scale_catalog());
  Query q = kernel_query("test/scale", "cpu-x86_64");
  q.tools = agent_tools({"submit", "profile", "run", "compile", "lint"});  // offered in any order
  std::vector<std::string> steps;
  for (int turn = 0; turn < 12; ++turn) {
    Reply r = brain.reply(q);
    if (r.calls.empty()) {
      CHECK(r.action == "done");
      CHECK(r.finish == Reply::Finish::Stop);
      break;
    }
    REQUIRE(r.calls.size() == 1);
    CHECK(r.finish == Reply::Finish::ToolCalls);
    const ReplyCall& call = r.calls.front();
    CHECK(call.complete);
    const auto args = nlohmann::json::parse(call.arguments);
    const std::string source = args.at("source");
    steps.push_back(call.name + "#" + std::to_string(r.attempt) + ":" + r.fault);
    q.turns.push_back({QueryTurn::Role::Assistant, r.text, {{call.id, call.name, call.arguments}}, {}});
    q.turns.push_back({QueryTurn::Role::Tool, tool_result(call.name, source), {}, call.id});
  }
  CHECK(steps == std::vector<std::string>{"lint#1:compile_error", "lint#2:wrong_result", "compile#2:wrong_result",
                                          "run#2:wrong_result", "run#3:none", "profile#3:none", "submit#3:none"});

  // Only some tools offered: the order is kept, the rest skipped; a named tool is obeyed.
  Query few = kernel_query("test/scale", "cpu-x86_64");
  few.tools = agent_tools({"run", "submit"});
  CHECK(brain.reply(few).calls.at(0).name == "run");
  few.tool_choice = {ToolDemand::Mode::Named, "submit"};
  CHECK(brain.reply(few).calls.at(0).name == "submit");
  few.tool_choice = {ToolDemand::Mode::None, ""};
  Reply prose = brain.reply(few);
  CHECK(prose.calls.empty());
  CHECK(prose.action == "code");

  // A result without an outcome line: the oracle trusts its own plan.
  Query silent = kernel_query("test/scale", "cpu-x86_64");
  silent.tools = agent_tools({"compile", "run"});
  Reply first = brain.reply(silent);
  silent.turns.push_back({QueryTurn::Role::Assistant, "", {{first.calls[0].id, "compile", first.calls[0].arguments}}, {}});
  silent.turns.push_back({QueryTurn::Role::Tool, "the compiler said something", {}, first.calls[0].id});
  Reply second = brain.reply(silent);
  CHECK(second.attempt == 2);  // the compile error was expected to fail
  CHECK(second.calls.at(0).name == "compile");
}

TEST_CASE("brain: unknown tools get schema-made arguments when a call is required, prose otherwise") {
  OracleBrain brain(OracleOptions{}, scale_catalog());
  Query q;
  q.turns.push_back({QueryTurn::Role::User, "What is the weather in Paris?", {}, {}});
  q.tools.push_back({"get_weather", "weather of a city",
                     {{"type", "object"},
                      {"properties", {{"city", {{"type", "string"}}}, {"days", {{"type", "integer"}, {"minimum", 3}}},
                                      {"unit", {{"type", "string"}, {"enum", {"celsius", "kelvin"}}}},
                                      {"detail", {{"type", "object"}, {"properties", {{"hourly", {{"type", "boolean"}}}}}, {"required", {"hourly"}}}}}},
                      {"required", {"city", "days", "unit", "detail"}}}});
  Reply plain = brain.reply(q);
  CHECK(plain.calls.empty());
  q.tool_choice.mode = ToolDemand::Mode::Required;
  Reply called = brain.reply(q);
  REQUIRE(called.calls.size() == 1);
  CHECK(called.finish == Reply::Finish::ToolCalls);
  CHECK(called.calls[0].name == "get_weather");
  CHECK(called.calls[0].id == "call_oracle_0_0");
  CHECK(nlohmann::json::parse(called.calls[0].arguments) ==
        nlohmann::json{{"city", "oracle"}, {"days", 3}, {"unit", "celsius"}, {"detail", {{"hourly", true}}}});
  q.turns.push_back({QueryTurn::Role::Assistant, "", {{"call_oracle_0_0", "get_weather", called.calls[0].arguments}}, {}});
  q.turns.push_back({QueryTurn::Role::Tool, "sunny, 21 C", {}, "call_oracle_0_0"});
  q.tool_choice.mode = ToolDemand::Mode::Auto;
  Reply summary = brain.reply(q);
  CHECK(summary.calls.empty());
  CHECK(summary.text.find("sunny, 21 C") != std::string::npos);
  q.dialect = Dialect::Anthropic;
  q.tool_choice = {ToolDemand::Mode::Named, "get_weather"};
  CHECK(brain.reply(q).calls.at(0).id == "toolu_oracle_1_0");
}

TEST_CASE("brain: max_tokens cuts reasoning, text and call arguments; stop sequences end the text") {
  OracleOptions options;
  options.reasoning = true;
  OracleBrain brain(options, scale_catalog());
  Query q = kernel_query("test/scale", "cpu-x86_64");
  const Reply whole = brain.reply(q);
  REQUIRE(whole.completion_tokens > 20);

  q.max_tokens = 10;
  Reply cut = brain.reply(q);
  CHECK(cut.finish == Reply::Finish::Length);
  CHECK(cut.completion_tokens == 10);
  CHECK(cut.reasoning.size() + cut.text.size() <= 40);
  CHECK(whole.reasoning.starts_with(cut.reasoning));

  q.max_tokens = whole.completion_tokens;  // exactly enough: nothing is cut
  CHECK(brain.reply(q).finish == Reply::Finish::Stop);

  Query tools = kernel_query("test/scale", "cpu-x86_64");
  tools.tools = agent_tools({"compile"});
  const Reply call = brain.reply(tools);
  tools.max_tokens = estimate_tokens(call.reasoning) + estimate_tokens(call.text) + 20;
  Reply half = brain.reply(tools);
  CHECK(half.finish == Reply::Finish::Length);
  REQUIRE(half.calls.size() == 1);
  CHECK_FALSE(half.calls[0].complete);
  CHECK(call.calls[0].arguments.starts_with(half.calls[0].arguments));
  CHECK(nlohmann::json::parse(half.calls[0].arguments, nullptr, false).is_discarded());

  Query stopped = kernel_query("test/scale", "cpu-x86_64");
  stopped.stop = {"never there", "```"};
  Reply s = brain.reply(stopped);
  CHECK(s.finish == Reply::Finish::StopSequence);
  CHECK(s.stop_sequence == "```");
  CHECK(s.text.find("```") == std::string::npos);
  CHECK(whole.text.starts_with(s.text));
}

TEST_CASE("query: the three dialects read into one form; bad requests name the field") {
  using nlohmann::json;
  auto chat = parse_query(Dialect::OpenAIChat, json::parse(R"({
    "model": "m", "n": 2, "stop": "END", "max_completion_tokens": 50, "stream": true,
    "stream_options": {"include_usage": true}, "user": "u1",
    "messages": [
      {"role": "developer", "content": "be brief"},
      {"role": "user", "content": [{"type": "text", "text": "Task: a/b"}, {"type": "image_url"}]},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "run", "arguments": "{\"source\": \"x\"}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "outcome: passed"}],
    "tools": [{"type": "function", "function": {"name": "run", "parameters": {"type": "object"}}}],
    "tool_choice": {"type": "function", "function": {"name": "run"}}})"));
  REQUIRE(chat);
  CHECK(chat->model == "m");
  CHECK(chat->system == "be brief");
  CHECK(chat->choices == 2);
  CHECK(chat->stop == std::vector<std::string>{"END"});
  CHECK(chat->max_tokens == 50);
  CHECK(chat->include_usage);
  CHECK(chat->user == "u1");
  REQUIRE(chat->turns.size() == 3);
  CHECK(chat->turns[0].text == "Task: a/b");
  CHECK(chat->turns[1].calls.at(0).arguments == "{\"source\": \"x\"}");
  CHECK(chat->turns[2].call_id == "c1");
  CHECK(chat->tool_choice.mode == ToolDemand::Mode::Named);

  auto anthropic = parse_query(Dialect::Anthropic, json::parse(R"({
    "model": "m", "max_tokens": 64, "system": [{"type": "text", "text": "sys"}], "stop_sequences": ["S"],
    "metadata": {"user_id": "u2"}, "tool_choice": {"type": "any"},
    "tools": [{"name": "lint", "input_schema": {"type": "object"}}, {"type": "web_search_20250305", "name": "web_search"}],
    "messages": [
      {"role": "user", "content": "Task: a/b"},
      {"role": "assistant", "content": [{"type": "text", "text": "checking"},
        {"type": "tool_use", "id": "t1", "name": "lint", "input": {"source": "x"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "ok"}]},
                                   {"type": "text", "text": "go on"}]}]})"));
  REQUIRE(anthropic);
  CHECK(anthropic->system == "sys");
  CHECK(anthropic->max_tokens == 64);
  CHECK(anthropic->tools.size() == 1);
  CHECK(anthropic->tool_choice.mode == ToolDemand::Mode::Required);
  REQUIRE(anthropic->turns.size() == 4);
  CHECK(anthropic->turns[1].calls.at(0).arguments == R"({"source":"x"})");
  CHECK(anthropic->turns[2].role == QueryTurn::Role::Tool);
  CHECK(anthropic->turns[2].text == "ok");
  CHECK(anthropic->turns[3].text == "go on");

  auto responses = parse_query(Dialect::OpenAIResponses, json::parse(R"({
    "model": "m", "instructions": "sys", "max_output_tokens": 30, "tool_choice": {"type": "function", "name": "f"},
    "tools": [{"type": "function", "name": "f", "parameters": null}, {"type": "web_search"}],
    "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
              {"type": "function_call", "call_id": "c9", "name": "f", "arguments": "{}"},
              {"type": "function_call_output", "call_id": "c9", "output": "done"}]})"));
  REQUIRE(responses);
  CHECK(responses->system == "sys");
  CHECK(responses->max_tokens == 30);
  CHECK(responses->tools.size() == 1);
  REQUIRE(responses->turns.size() == 3);
  CHECK(responses->turns[1].calls.at(0).id == "c9");
  CHECK(responses->turns[2].text == "done");
  CHECK(parse_query(Dialect::OpenAIResponses, json{{"input", "plain"}})->turns.at(0).text == "plain");

  auto message_of = [](Dialect d, const char* body) {
    auto q = parse_query(d, json::parse(body));
    REQUIRE_FALSE(q);
    CHECK(q.error().code == "oracle.bad-request");
    return q.error().message;
  };
  CHECK(message_of(Dialect::OpenAIChat, R"({"messages": "x"})").find("messages") != std::string::npos);
  CHECK(message_of(Dialect::OpenAIChat, R"({"messages": [{"role": "robot"}]})").find("robot") != std::string::npos);
  CHECK(message_of(Dialect::OpenAIChat, R"({"messages": [{"role": "user"}], "max_tokens": 0})").find("max_tokens") != std::string::npos);
  CHECK(message_of(Dialect::OpenAIChat, R"({"messages": [{"role": "user"}], "n": 500})").find("n:") != std::string::npos);
  CHECK(message_of(Dialect::OpenAIChat, R"({"messages": [{"role": "user"}], "tool_choice": "sometimes"})").find("tool_choice") != std::string::npos);
  CHECK(message_of(Dialect::OpenAIChat, R"({"messages": [{"role": "user"}], "tools": [{"type": "function"}]})").find("tools") != std::string::npos);
  CHECK(message_of(Dialect::OpenAIChat, R"({"messages": [{"role": "user"}], "tool_choice": {"type": "function", "function": {"name": "x"}}})")
            .find("'x'") != std::string::npos);
  CHECK(message_of(Dialect::Anthropic, R"({"messages": []})") == "max_tokens: Field required");
  CHECK(message_of(Dialect::Anthropic, R"({"max_tokens": 5, "messages": [{"role": "system", "content": "x"}]})").find("role") != std::string::npos);
  CHECK(message_of(Dialect::OpenAIResponses, R"({"model": "m"})").find("input") != std::string::npos);
}

TEST_CASE("brain: failure draws are seeded, per body and occurrence, at the given rates") {
  auto catalog = std::make_shared<InMemoryCatalog>();
  OracleOptions options;
  options.seed = 7;
  options.faults = {0.1, 0.1, 0.1, 0.1};
  options.latency_min = std::chrono::milliseconds(5);
  options.latency_max = std::chrono::milliseconds(15);
  OracleBrain a(options, catalog), b(options, catalog);
  std::map<HttpFault, int> counts;
  for (int i = 0; i < 4000; ++i) {
    const std::string body = "{\"n\":" + std::to_string(i % 1000) + "}";
    auto da = a.draw(body, true);
    auto db = b.draw(body, true);
    CHECK(da.fault == db.fault);
    CHECK(da.latency == db.latency);
    CHECK(da.latency >= std::chrono::milliseconds(5));
    CHECK(da.latency <= std::chrono::milliseconds(15));
    ++counts[da.fault];
  }
  for (HttpFault f : {HttpFault::TooManyRequests, HttpFault::ServerError, HttpFault::MidStream, HttpFault::Truncate}) {
    CHECK(counts[f] > 300);
    CHECK(counts[f] < 500);
  }
  // A repeated body draws anew (its retry is not doomed to the same fate).
  OracleOptions always = options;
  always.faults = {0.5, 0, 0, 0};
  OracleBrain c(always, catalog);
  int differs = 0;
  for (int i = 0; i < 50; ++i) {
    const std::string body = "body" + std::to_string(i);
    differs += c.draw(body, false).fault != c.draw(body, false).fault;
  }
  CHECK(differs > 5);
  // Mid-stream failures only hit streams.
  OracleOptions mid = options;
  mid.faults = {0, 0, 1.0, 0};
  OracleBrain d(mid, catalog);
  CHECK(d.draw("x", false).fault == HttpFault::None);
  CHECK(d.draw("x", true).fault == HttpFault::MidStream);
}
