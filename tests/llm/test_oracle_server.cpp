// The oracle server over real sockets, driven by the LLM client: both wire
// dialects, streaming and not, usage exact to the token, the fault schedule,
// every injected HTTP failure, and the side endpoints.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "kgb/llm/client.h"
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

ChatRequest kernel_prompt(bool stream, std::string task = "test/add", std::string session = "") {
  ChatRequest r;
  r.model = "oracle";
  r.system = "You are a kernel engineer.";
  r.messages.push_back(Message::user("Write the kernel.\n\nTask: " + task + "\nPlatform: cpu-x86_64\n"));
  r.stream = stream;
  if (!session.empty()) r.headers.push_back({"x-kgb-session", session});
  return r;
}

ChatOutcome call(const ProviderConfig& config, ChatRequest request, CallOptions options = {}) {
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config, std::make_shared<PriceTable>(PriceTable::defaults()));
  return kgb::test::run_one(io, client.chat(std::move(request), std::move(options)));
}

HttpExchange get(const OracleServer& server, const std::string& path) {
  boost::asio::io_context io;
  HttpClientConfig config;
  config.proxy = ProxySettings::none();
  HttpClient client(io.get_executor(), config);
  HttpRequest request;
  request.method = "GET";
  request.url = Url::parse("http://127.0.0.1:" + std::to_string(server.port()) + path).value();
  return kgb::test::run_one(io, client.send(request));
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

TEST_CASE("oracle: the fault schedule per session, and what each fault does to the code") {
  OracleOptions options;
  options.compile_error_attempts = 1;
  options.wrong_result_attempts = 1;
  RunningOracle oracle(options);
  ProviderConfig config = oracle_config(oracle.server);
  auto answer = [&](const std::string& session) {
    ChatOutcome out = call(config, kernel_prompt(false, "test/add", session));
    REQUIRE(out.ok());
    return *out.response;
  };
  ChatResponse first = answer("A");
  CHECK(first.header("x-kgb-oracle-fault") == "compile_error");
  CHECK(first.header("x-kgb-oracle-attempt") == "1");
  CHECK(extract_code_block(first.text).find("kgb_validate_arguments") != std::string::npos);
  ChatResponse second = answer("A");
  CHECK(second.header("x-kgb-oracle-fault") == "wrong_result");
  CHECK(extract_code_block(second.text).find("kgb_test_add_oracle_impl") != std::string::npos);
  ChatResponse third = answer("A");
  CHECK(third.header("x-kgb-oracle-fault") == "none");
  CHECK(extract_code_block(third.text) == kSolution);
  ChatResponse other = answer("B");  // a parallel run keeps its own count
  CHECK(other.header("x-kgb-oracle-fault") == "compile_error");
  const OracleStats stats = oracle.server.stats();
  CHECK(stats.compile_error_faults == 2);
  CHECK(stats.wrong_result_faults == 1);
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
    ChatOutcome out = call(config, kernel_prompt(true, "test/add", "S"));
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

TEST_CASE("oracle: side endpoints and bad requests") {
  RunningOracle oracle(OracleOptions{});
  HttpExchange models = get(oracle.server, "/v1/models");
  CHECK(models.response.status == 200);
  CHECK(json::parse(models.response.body)["data"][0]["id"] == "oracle");
  CHECK(get(oracle.server, "/health").response.status == 200);
  HttpExchange missing = get(oracle.server, "/v1/nothing");
  CHECK(missing.response.status == 404);
  CHECK(json::parse(missing.response.body)["error"]["type"] == "invalid_request_error");
  CHECK(get(oracle.server, "/v1/chat/completions").response.status == 405);

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
    ChatRequest r = kernel_prompt(i % 2 == 0, "test/add", "s" + std::to_string(i));
    calls.push_back(client.chat(std::move(r)));
  }
  auto outcomes = kgb::test::run_all(io, std::move(calls));
  int64_t completion = 0, retries = 0;
  for (const auto& o : outcomes) {
    REQUIRE(o.ok());
    CHECK(extract_code_block(o.response->text) == kSolution);
    completion += o.response->usage.output_tokens;
    retries += o.stats.retries;
  }
  const OracleStats stats = oracle.server.stats();
  CHECK(stats.answered == 60);
  CHECK(stats.completion_tokens == completion);
  CHECK(stats.injected_429 + stats.injected_500 + stats.injected_mid_stream + stats.injected_truncated == retries);
  CHECK(retries > 0);
}
