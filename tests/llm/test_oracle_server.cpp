// The oracle server over real sockets, driven by the LLM client: both wire
// dialects, streaming and not, usage exact to the token, the fault schedule
// decided from the conversation, tool calls, output limits, every injected
// HTTP failure, the Responses API and the side endpoints with their error shapes.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "kgb/llm/client.h"
#include "kgb/llm/sse.h"
#include "kgb/oracle/mutate.h"
#include "kgb/oracle/server.h"
#include "run_async.h"

using namespace kgb::llm;
using namespace kgb::oracle;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

const std::string kSolution =
    "// add: out = a + b (f32)\n"
    "#include \"kgb_kernel.h\"\n"
    "extern \"C\" int kgb_test_add(const kgb_tensor* a, const kgb_tensor* b, kgb_tensor* out, kgb_stream stream) {\n"
    "  const float* x = (const float*)a->data;\n"
    "  const float* y = (const float*)b->data;\n"
    "  float* z = (float*)out->data;\n"
    "  for (int64_t i = 0; i < kgb_numel(out); ++i) z[i] = x[i] + y[i];  // \xE2\x89\x88 fast enough\n"
    "  return 0;\n"
    "}\n";

std::shared_ptr<InMemoryCatalog> test_catalog() {
  auto catalog = std::make_shared<InMemoryCatalog>();
  KernelTarget t;
  t.task_id = "test/add";
  t.platform = "cpu-x86_64";
  t.backend = "cpu";
  t.fence_language = "cpp";
  t.source = kSolution;
  t.entry = "kgb_test_add";
  t.entry_declaration = "extern \"C\" int kgb_test_add(const kgb_tensor* a, const kgb_tensor* b, kgb_tensor* out, kgb_stream stream);";
  t.outputs = {"out"};
  catalog->add(t);
  return catalog;
}

struct RunningOracle {
  explicit RunningOracle(OracleOptions options) : server((options.port = 0, options), test_catalog()) {
    auto port = server.start();
    REQUIRE(port);
  }
  OracleServer server;
};

ProviderConfig oracle_config(const OracleServer& server, ApiKind api = ApiKind::OpenAI) {
  auto preset = provider_preset(api == ApiKind::OpenAI ? "oracle" : "oracle-anthropic");
  ProviderConfig c = std::move(preset.value());
  c.base_url = server.base_url();
  c.http.proxy = ProxySettings::none();
  c.retry.initial_backoff = 5ms;
  c.retry.jitter = 0;
  c.call_timeout = 30s;
  return c;
}

// A kernel prompt; `earlier` replies (each with its feedback) already in the conversation.
ChatRequest kernel_prompt(bool stream, std::string task = "test/add", int earlier = 0) {
  ChatRequest r;
  r.model = "oracle";
  r.system = "You are a kernel engineer.";
  r.messages.push_back(Message::user("Write the kernel.\n\nTask: " + task + "\nPlatform: cpu-x86_64\n"));
  for (int i = 0; i < earlier; ++i) {
    r.messages.push_back(Message::assistant("```cpp\n// attempt " + std::to_string(i + 1) + "\n```"));
    r.messages.push_back(Message::user("That failed. Fix it."));
  }
  r.stream = stream;
  return r;
}

ChatOutcome call(const ProviderConfig& config, ChatRequest request, CallOptions options = {}) {
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config, std::make_shared<PriceTable>(PriceTable::defaults()));
  return kgb::test::run_one(io, client.chat(std::move(request), std::move(options)));
}

HttpExchange send(const OracleServer& server, const std::string& method, const std::string& path, const std::string& body = "",
                  std::vector<HttpHeader> headers = {}) {
  boost::asio::io_context io;
  HttpClientConfig config;
  config.proxy = ProxySettings::none();
  HttpClient client(io.get_executor(), config);
  HttpRequest request;
  request.method = method;
  request.url = Url::parse("http://127.0.0.1:" + std::to_string(server.port()) + path).value();
  request.headers = std::move(headers);
  if (!body.empty()) request.headers.push_back({"content-type", "application/json"});
  request.body = body;
  return kgb::test::run_one(io, client.send(request));
}

HttpExchange get(const OracleServer& server, const std::string& path) { return send(server, "GET", path); }

std::vector<ToolSpec> agent_tools() {
  std::vector<ToolSpec> tools;
  for (const char* name : {"lint", "compile", "run", "profile", "submit"}) {
    ToolSpec t;
    t.name = name;
    t.description = std::string("the ") + name + " tool";
    t.parameters = {{"type", "object"}, {"properties", {{"source", {{"type", "string"}}}}}, {"required", {"source"}}};
    tools.push_back(std::move(t));
  }
  return tools;
}

}  // namespace

TEST_CASE("oracle: both dialects, streaming and not, answer with the solution and exact estimated usage") {
  OracleOptions options;
  options.reasoning = true;
  options.chunk_chars = 16;
  RunningOracle oracle(options);
  int64_t prompt_total = 0, completion_total = 0;
  for (ApiKind api : {ApiKind::OpenAI, ApiKind::Anthropic}) {
    for (bool stream : {false, true}) {
      CAPTURE(to_string(api));
      CAPTURE(stream);
      std::string streamed;
      CallOptions call_options;
      call_options.on_delta = [&](const StreamDelta& d) {
        if (d.kind == StreamDelta::Kind::Text) streamed += d.text;
      };
      ChatOutcome out = call(oracle_config(oracle.server, api), kernel_prompt(stream), call_options);
      REQUIRE(out.ok());
      const ChatResponse& r = *out.response;
      CHECK(extract_code_block(r.text) == kSolution);
      CHECK(r.text.find("```cpp\n") != std::string::npos);
      if (stream) CHECK(streamed == r.text);
      CHECK_FALSE(r.reasoning.empty());
      CHECK(r.finish_reason == "stop");
      CHECK(r.usage.estimated);
      CHECK(r.usage.reported);
      CHECK(r.usage.output_tokens == estimate_tokens(r.text) + estimate_tokens(r.reasoning));
      if (api == ApiKind::OpenAI) CHECK(r.usage.reasoning_tokens == estimate_tokens(r.reasoning));
      CHECK(r.header("x-kgb-tokens-estimated") == "true");
      CHECK(r.header("x-kgb-oracle-fault") == "none");
      REQUIRE(out.cost_usd);
      CHECK(*out.cost_usd == 0.0);
      prompt_total += r.usage.input_tokens;
      completion_total += r.usage.output_tokens;
    }
  }
  const OracleStats stats = oracle.server.stats();
  CHECK(stats.requests == 4);
  CHECK(stats.answered == 4);
  CHECK(stats.prompt_tokens == prompt_total);
  CHECK(stats.completion_tokens == completion_total);
}

TEST_CASE("oracle: the fault schedule follows the conversation, and what each fault does to the code") {
  OracleOptions options;
  options.compile_error_attempts = 1;
  options.wrong_result_attempts = 1;
  RunningOracle oracle(options);
  ProviderConfig config = oracle_config(oracle.server);
  auto answer = [&](int earlier) {
    ChatOutcome out = call(config, kernel_prompt(false, "test/add", earlier));
    REQUIRE(out.ok());
    return *out.response;
  };
  ChatResponse first = answer(0);
  CHECK(first.header("x-kgb-oracle-fault") == "compile_error");
  CHECK(first.header("x-kgb-oracle-attempt") == "1");
  CHECK(extract_code_block(first.text).find("kgb_validate_arguments") != std::string::npos);
  ChatResponse second = answer(1);
  CHECK(second.header("x-kgb-oracle-fault") == "wrong_result");
  CHECK(extract_code_block(second.text).find("kgb_test_add_oracle_impl") != std::string::npos);
  ChatResponse third = answer(2);
  CHECK(third.header("x-kgb-oracle-fault") == "none");
  CHECK(extract_code_block(third.text) == kSolution);
  // No memory between requests: asking the first question again gets the first answer again.
  ChatResponse again = answer(0);
  CHECK(again.header("x-kgb-oracle-fault") == "compile_error");
  CHECK(again.text == first.text);
  const OracleStats stats = oracle.server.stats();
  CHECK(stats.compile_error_faults == 2);
  CHECK(stats.wrong_result_faults == 1);
}

TEST_CASE("oracle: drives the agent's tools in both dialects, streamed and not, to a passing submit") {
  OracleOptions options;
  options.compile_error_attempts = 1;
  options.wrong_result_attempts = 1;
  options.chunk_chars = 40;
  RunningOracle oracle(options);
  for (ApiKind api : {ApiKind::OpenAI, ApiKind::Anthropic}) {
    for (bool stream : {false, true}) {
      CAPTURE(to_string(api));
      CAPTURE(stream);
      ChatRequest r = kernel_prompt(stream);
      r.tools = agent_tools();
      std::vector<std::string> steps;
      for (int turn = 0; turn < 10; ++turn) {
        ChatOutcome out = call(oracle_config(oracle.server, api), r);
        REQUIRE(out.ok());
        const ChatResponse& resp = *out.response;
        if (resp.tool_calls.empty()) {
          CHECK(resp.finish_reason == "stop");
          CHECK(resp.text.find("submitted") != std::string::npos);
          break;
        }
        CHECK(resp.finish_reason == "tool_calls");
        REQUIRE(resp.tool_calls.size() == 1);
        const ToolCall& c = resp.tool_calls.front();
        CHECK_FALSE(c.id.empty());
        const json args = json::parse(c.arguments);
        const std::string source = args.at("source");
        steps.push_back(c.name + ":" + std::string(resp.header("x-kgb-oracle-fault")));
        // What the harness says: the injected faults fail where they show.
        const bool broken = source.find("kgb_validate_arguments") != std::string::npos;
        const bool wrong = source.find("_oracle_impl") != std::string::npos;
        const std::string outcome = broken                                         ? "compile-error"
                                    : wrong && c.name != "lint" && c.name != "compile" ? "wrong-result"
                                                                                   : "passed";
        Message reply = Message::assistant(resp.text);
        reply.tool_calls = resp.tool_calls;
        r.messages.push_back(std::move(reply));
        r.messages.push_back(Message::tool_result(c.id, "tool: " + c.name + "\noutcome: " + outcome + "\n"));
      }
      CHECK(steps == std::vector<std::string>{"lint:compile_error", "lint:wrong_result", "compile:wrong_result",
                                              "run:wrong_result", "run:none", "profile:none", "submit:none"});
    }
  }
  CHECK(oracle.server.stats().tool_call_answers == 4 * 7);
}

TEST_CASE("oracle: max_tokens cuts text and tool calls with the dialect's finish reason; stop sequences and n") {
  RunningOracle oracle(OracleOptions{});
  for (ApiKind api : {ApiKind::OpenAI, ApiKind::Anthropic}) {
    for (bool stream : {false, true}) {
      CAPTURE(to_string(api));
      CAPTURE(stream);
      ChatRequest r = kernel_prompt(stream);
      r.max_output_tokens = 10;
      ChatOutcome out = call(oracle_config(oracle.server, api), r);
      REQUIRE(out.ok());
      CHECK(out.response->finish_reason == "length");
      CHECK(out.response->raw_finish_reason == (api == ApiKind::OpenAI ? "length" : "max_tokens"));
      CHECK(out.response->text.size() <= 40);
      CHECK(out.response->usage.output_tokens == 10);

      ChatRequest t = kernel_prompt(stream);
      t.tools = agent_tools();
      t.max_output_tokens = 60;
      ChatOutcome cut = call(oracle_config(oracle.server, api), t);
      REQUIRE(cut.ok());
      CHECK(cut.response->finish_reason == "length");
      REQUIRE(cut.response->tool_calls.size() == 1);
      CHECK(cut.response->tool_calls[0].name == "lint");
      // Streamed (and OpenAI) calls arrive as the partial JSON text; Anthropic's
      // whole answer has no input object for an unfinished call.
      if (stream || api == ApiKind::OpenAI)
        CHECK(json::parse(cut.response->tool_calls[0].arguments, nullptr, false).is_discarded());
    }
  }
  // Stop sequences, as each dialect names them.
  ChatRequest s = kernel_prompt(false);
  s.extra = {{"stop", {"```"}}};
  ChatOutcome stopped = call(oracle_config(oracle.server), s);
  REQUIRE(stopped.ok());
  CHECK(stopped.response->finish_reason == "stop");
  CHECK(stopped.response->text.find("```") == std::string::npos);
  s.extra = {{"stop_sequences", {"```"}}};
  ChatOutcome anthropic_stop = call(oracle_config(oracle.server, ApiKind::Anthropic), s);
  REQUIRE(anthropic_stop.ok());
  CHECK(anthropic_stop.response->raw_finish_reason == "stop_sequence");
  // n choices (the client reads the first; the wire has all of them).
  const json body = {{"model", "oracle"}, {"n", 3}, {"messages", {{{"role", "user"}, {"content", "Task: test/add\nPlatform: cpu-x86_64"}}}}};
  HttpExchange three = send(oracle.server, "POST", "/v1/chat/completions", body.dump());
  REQUIRE(three.response.status == 200);
  const json answer = json::parse(three.response.body);
  REQUIRE(answer["choices"].size() == 3);
  CHECK(answer["choices"][2]["index"] == 2);
  CHECK(answer["choices"][2]["message"]["content"] == answer["choices"][0]["message"]["content"]);
  CHECK(answer["usage"]["completion_tokens"].get<int64_t>() == 3 * estimate_tokens(answer["choices"][0]["message"]["content"].get<std::string>()));
}

TEST_CASE("oracle: the Responses API, streamed and not, with text and function calls") {
  RunningOracle oracle(OracleOptions{});
  const json text_request = {{"model", "oracle"}, {"instructions", "be precise"}, {"input", "Task: test/add\nPlatform: cpu-x86_64"}};
  HttpExchange plain = send(oracle.server, "POST", "/v1/responses", text_request.dump());
  REQUIRE(plain.response.status == 200);
  json r = json::parse(plain.response.body);
  CHECK(r["object"] == "response");
  CHECK(r["status"] == "completed");
  CHECK(r["output"][0]["type"] == "message");
  CHECK(extract_code_block(r["output"][0]["content"][0]["text"].get<std::string>()) == kSolution);
  CHECK(r["usage"]["output_tokens"].get<int64_t>() > 0);

  json tool_request = text_request;
  tool_request["tools"] = {{{"type", "function"}, {"name", "compile"}, {"parameters", agent_tools()[1].parameters}}};
  tool_request["stream"] = true;
  HttpExchange streamed = send(oracle.server, "POST", "/v1/responses", tool_request.dump());
  REQUIRE(streamed.response.status == 200);
  std::vector<std::string> types;
  std::string arguments;
  SseParser parser([&](const SseEvent& e) {
    const json data = json::parse(e.data);
    CHECK(data["type"] == e.event);
    CHECK(data["sequence_number"] == types.size());
    types.push_back(e.event);
    if (e.event == "response.function_call_arguments.delta") arguments += data["delta"].get<std::string>();
    if (e.event == "response.completed") {
      const json& out = data["response"]["output"];
      CHECK(out.back()["type"] == "function_call");
      CHECK(out.back()["name"] == "compile");
      CHECK(out.back()["arguments"] == arguments);
    }
    return true;
  });
  parser.feed(streamed.response.body);
  REQUIRE(types.size() > 4);
  CHECK(types.front() == "response.created");
  CHECK(types.back() == "response.completed");
  CHECK(json::parse(arguments)["source"] == kSolution);

  tool_request["max_output_tokens"] = 20;
  tool_request["stream"] = false;
  json incomplete = json::parse(send(oracle.server, "POST", "/v1/responses", tool_request.dump()).response.body);
  CHECK(incomplete["status"] == "incomplete");
  CHECK(incomplete["incomplete_details"]["reason"] == "max_output_tokens");
}
TEST_CASE("oracle: a prompt without a known task gets a polite answer without code") {
  RunningOracle oracle(OracleOptions{});
  ChatRequest r = kernel_prompt(true, "test/unknown");
  ChatOutcome out = call(oracle_config(oracle.server), r);
  REQUIRE(out.ok());
  CHECK(out.response->text.find("```") == std::string::npos);
  CHECK(out.response->text.find("test/unknown") != std::string::npos);
  ChatRequest chatter;
  chatter.model = "oracle";
  chatter.messages.push_back(Message::user("hello, how are you?"));
  ChatOutcome polite = call(oracle_config(oracle.server, ApiKind::Anthropic), chatter);
  REQUIRE(polite.ok());
  CHECK(polite.response->text.find("Task:") != std::string::npos);
  CHECK(oracle.server.stats().unknown_prompts == 2);
}

TEST_CASE("oracle: injected 429s carry retry-after, which the client honours") {
  OracleOptions options;
  options.faults.http_429 = 1.0;
  options.retry_after = 60ms;
  RunningOracle oracle(options);
  for (ApiKind api : {ApiKind::OpenAI, ApiKind::Anthropic}) {
    ProviderConfig config = oracle_config(oracle.server, api);
    config.retry.max_retries = 2;
    ChatOutcome out = call(config, kernel_prompt(false));
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->http_status == 429);
    CHECK(out.error->retry_after == 60ms);
    CHECK(out.stats.attempts == 3);
    CHECK(out.stats.backoff_wait == 120ms);
    CHECK(out.stats.elapsed >= 120ms);
  }
  CHECK(oracle.server.stats().injected_429 == 6);
  CHECK(oracle.server.stats().answered == 0);
}

TEST_CASE("oracle: injected 500, mid-stream errors and cut streams are typed") {
  SUBCASE("500") {
    OracleOptions options;
    options.faults.http_500 = 1.0;
    RunningOracle oracle(options);
    ProviderConfig config = oracle_config(oracle.server);
    config.retry.max_retries = 1;
    ChatOutcome out = call(config, kernel_prompt(false));
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->http_status == 500);
    CHECK(out.error->provider_type == "server_error");
    CHECK(out.stats.attempts == 2);
  }
  SUBCASE("mid-stream, both dialects") {
    OracleOptions options;
    options.faults.mid_stream = 1.0;
    RunningOracle oracle(options);
    for (ApiKind api : {ApiKind::OpenAI, ApiKind::Anthropic}) {
      ProviderConfig config = oracle_config(oracle.server, api);
      config.retry.retry_mid_stream = false;
      std::string partial;
      CallOptions call_options;
      call_options.on_delta = [&](const StreamDelta& d) {
        if (d.kind == StreamDelta::Kind::Text) partial += d.text;
      };
      ChatOutcome out = call(config, kernel_prompt(true), call_options);
      REQUIRE_FALSE(out.ok());
      CHECK(out.error->kind == ErrorKind::MidStream);
      CHECK(out.error->provider_type == (api == ApiKind::OpenAI ? "server_error" : "overloaded_error"));
      CHECK_FALSE(partial.empty());
    }
    CHECK(oracle.server.stats().injected_mid_stream == 2);
  }
  SUBCASE("truncated, streaming and not") {
    OracleOptions options;
    options.faults.truncate = 1.0;
    RunningOracle oracle(options);
    for (bool stream : {true, false}) {
      ProviderConfig config = oracle_config(oracle.server);
      config.retry.retry_truncated = false;
      ChatOutcome out = call(config, kernel_prompt(stream));
      REQUIRE_FALSE(out.ok());
      CHECK(out.error->kind == ErrorKind::Truncated);
    }
  }
  SUBCASE("failures do not use up attempts of the fault schedule") {
    OracleOptions options;
    options.faults.mid_stream = 0.5;
    options.compile_error_attempts = 1;
    RunningOracle oracle(options);
    ProviderConfig config = oracle_config(oracle.server);
    config.retry.max_retries = 20;
    ChatOutcome out = call(config, kernel_prompt(true));
    REQUIRE(out.ok());
    CHECK(out.response->header("x-kgb-oracle-fault") == "compile_error");
    CHECK(out.response->header("x-kgb-oracle-attempt") == "1");
  }
}

TEST_CASE("oracle: latency is injected and seeded") {
  OracleOptions options;
  options.latency_min = 80ms;
  options.latency_max = 120ms;
  RunningOracle oracle(options);
  ChatOutcome out = call(oracle_config(oracle.server), kernel_prompt(false));
  REQUIRE(out.ok());
  CHECK(out.stats.elapsed >= 80ms);
}

TEST_CASE("oracle: side endpoints, bad requests, and each dialect's error shape") {
  RunningOracle oracle(OracleOptions{});
  HttpExchange models = get(oracle.server, "/v1/models");
  CHECK(models.response.status == 200);
  CHECK(json::parse(models.response.body)["data"][0]["id"] == "oracle");
  CHECK(json::parse(get(oracle.server, "/v1/models/oracle").response.body)["object"] == "model");
  CHECK(get(oracle.server, "/health").response.status == 200);
  HttpExchange missing = get(oracle.server, "/v1/nothing");
  CHECK(missing.response.status == 404);
  CHECK(json::parse(missing.response.body)["error"]["type"] == "invalid_request_error");
  HttpExchange no_model = get(oracle.server, "/v1/models/gpt-9");
  CHECK(no_model.response.status == 404);
  CHECK(json::parse(no_model.response.body)["error"]["code"] == "model_not_found");
  CHECK(get(oracle.server, "/v1/chat/completions").response.status == 405);

  // Anthropic clients (anthropic-version) and Anthropic routes get Anthropic's shapes.
  const std::vector<HttpHeader> anthropic = {{"anthropic-version", "2023-06-01"}};
  const json listed = json::parse(send(oracle.server, "GET", "/v1/models", "", anthropic).response.body);
  CHECK(listed["data"][0]["type"] == "model");
  CHECK(listed["has_more"] == false);
  HttpExchange anthropic_missing = send(oracle.server, "GET", "/v1/models/claude-9", "", anthropic);
  CHECK(anthropic_missing.response.status == 404);
  CHECK(json::parse(anthropic_missing.response.body) ==
        json{{"type", "error"}, {"error", {{"type", "not_found_error"}, {"message", "The model 'claude-9' does not exist; this server serves 'oracle'"}}}});
  CHECK(json::parse(send(oracle.server, "POST", "/v1/messages/batches", "{}").response.body)["type"] == "error");
  HttpExchange no_cap = send(oracle.server, "POST", "/v1/messages", R"({"model":"oracle","messages":[{"role":"user","content":"hi"}]})");
  CHECK(no_cap.response.status == 400);
  CHECK(json::parse(no_cap.response.body)["error"]["message"] == "max_tokens: Field required");
  HttpExchange count = send(oracle.server, "POST", "/v1/messages/count_tokens",
                            R"({"model":"oracle","system":"abcdefgh","messages":[{"role":"user","content":"abcd"}]})");
  CHECK(count.response.status == 200);
  CHECK(json::parse(count.response.body) == json{{"input_tokens", 3 + 2 + 4 + 1}});

  ChatOutcome done = call(oracle_config(oracle.server), kernel_prompt(false));
  REQUIRE(done.ok());
  json stats = json::parse(get(oracle.server, "/kgb/stats").response.body);
  CHECK(stats["answered"] == 1);
  CHECK(stats["completion_tokens"] == done.response->usage.output_tokens);
  CHECK(stats["tokens_estimated"] == true);

  ChatRequest no_messages;
  no_messages.model = "oracle";
  no_messages.extra = {{"messages", "not an array"}};
  ChatOutcome bad = call(oracle_config(oracle.server), no_messages);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error->http_status == 400);
  CHECK(bad.stats.attempts == 1);
}

TEST_CASE("oracle: many concurrent streams with random failures all complete with exact totals") {
  OracleOptions options;
  options.faults = {0.05, 0.05, 0.05, 0.05};
  options.retry_after = 10ms;
  options.seed = 3;
  RunningOracle oracle(options);
  ProviderConfig config = oracle_config(oracle.server);
  config.retry.max_retries = 10;
  config.limits.max_concurrent = 16;
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  std::vector<boost::asio::awaitable<ChatOutcome>> calls;
  for (int i = 0; i < 60; ++i) {
    ChatRequest r = kernel_prompt(i % 2 == 0, "test/add", i % 3);
    calls.push_back(client.chat(std::move(r)));
  }
  auto outcomes = kgb::test::run_all(io, std::move(calls));
  int64_t completion = 0, retries = 0;
  for (const auto& o : outcomes) {
    REQUIRE(o.ok());
    CHECK(o.response->text.find("Here is an implementation") != std::string::npos);
    completion += o.response->usage.output_tokens;
    retries += o.stats.retries;
  }
  const OracleStats stats = oracle.server.stats();
  CHECK(stats.answered == 60);
  CHECK(stats.completion_tokens == completion);
  CHECK(stats.injected_429 + stats.injected_500 + stats.injected_mid_stream + stats.injected_truncated == retries);
  CHECK(retries > 0);
}
