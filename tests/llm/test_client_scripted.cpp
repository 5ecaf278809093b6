// LlmClient against scripted loopback servers: both providers streaming and
// not, exact usage, tool calls, every retry rule with its attempts and waits,
// and every failure the issue lists.
#include <doctest/doctest.h>

#include <cstdlib>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "kgb/llm/client.h"
#include "run_async.h"
#include "scripted_server.h"

using namespace kgb::llm;
using namespace std::chrono_literals;
using kgb::test::RecordedRequest;
using kgb::test::Reply;
using kgb::test::ScriptedServer;
using kgb::test::sse_event;
using json = nlohmann::json;

namespace {

constexpr const char* kKeyVariable = "KGB_TEST_API_KEY";
constexpr const char* kKey = "sk-test-0123456789abcdefghij";

ProviderConfig scripted_config(const ScriptedServer& server, ApiKind api = ApiKind::OpenAI) {
  setenv(kKeyVariable, kKey, 1);
  ProviderConfig c;
  c.name = "scripted";
  c.api = api;
  c.base_url = server.base_url();
  c.api_key_env = kKeyVariable;
  c.http.proxy = ProxySettings::none();
  c.retry.initial_backoff = 10ms;
  c.retry.max_backoff = 40ms;
  c.retry.jitter = 0;
  c.retry.max_retry_after = 2s;
  c.call_timeout = 20s;
  return c;
}

ChatRequest simple_request(bool stream = false, std::string model = "gpt-4o") {
  ChatRequest r;
  r.model = std::move(model);
  r.messages.push_back(Message::user("Write a kernel."));
  r.max_output_tokens = 256;
  r.temperature = 0.3;
  r.stream = stream;
  return r;
}

ChatOutcome call(const ProviderConfig& config, ChatRequest request, CallOptions options = {},
                 std::shared_ptr<const PriceTable> prices = nullptr) {
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config, std::move(prices));
  return kgb::test::run_one(io, client.chat(std::move(request), std::move(options)));
}

std::string openai_ok(const std::string& text, int prompt = 10, int completion = 5) {
  return json{{"id", "chatcmpl-x"},
              {"model", "gpt-4o"},
              {"choices", {{{"index", 0}, {"finish_reason", "stop"}, {"message", {{"role", "assistant"}, {"content", text}}}}}},
              {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion}}}}
      .dump();
}

std::vector<std::string> split(const std::string& text, std::size_t piece) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); i += piece) out.push_back(text.substr(i, piece));
  return out;
}

double gap_ms(const std::vector<RecordedRequest>& requests, std::size_t i) {
  return std::chrono::duration<double, std::milli>(requests[i].arrived - requests[i - 1].arrived).count();
}

}  // namespace

TEST_CASE("openai non-streaming: request on the wire, exact usage, cost, key from the environment") {
  ScriptedServer server([](const RecordedRequest&, int) {
    return Reply::json(200, json{{"id", "chatcmpl-1"},
                                 {"model", "gpt-4o-2024-08-06"},
                                 {"choices", {{{"index", 0}, {"finish_reason", "stop"}, {"message", {{"role", "assistant"}, {"content", "Done."}}}}}},
                                 {"usage", {{"prompt_tokens", 2000}, {"completion_tokens", 300},
                                            {"prompt_tokens_details", {{"cached_tokens", 1536}}},
                                            {"completion_tokens_details", {{"reasoning_tokens", 128}}}}}}
                                .dump());
  });
  auto prices = std::make_shared<PriceTable>(PriceTable::defaults());
  ChatRequest request = simple_request();
  request.system = "Be brief.";
  request.headers.push_back({"x-kgb-session", "s1"});
  ChatOutcome out = call(scripted_config(server), request, {}, prices);
  REQUIRE(out.ok());
  CHECK(out.response->text == "Done.");
  CHECK(out.response->usage == Usage{2000, 1536, 0, 300, 128, true, false});
  CHECK(out.usage == out.response->usage);
  REQUIRE(out.response->cost_usd);
  CHECK(*out.response->cost_usd == doctest::Approx((464 * 2.5 + 1536 * 1.25 + 300 * 10.0) / 1e6));
  CHECK(out.stats.attempts == 1);
  CHECK(out.stats.retries == 0);
  CHECK(out.response->header("content-type") == "application/json");

  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].target == "/v1/chat/completions");
  CHECK(requests[0].header("authorization") == std::string("Bearer ") + kKey);
  CHECK(requests[0].header("x-kgb-session") == "s1");
  json body = json::parse(requests[0].body);
  CHECK(body["messages"][0]["content"] == "Be brief.");
  CHECK(body["max_tokens"] == 256);
  CHECK(body["temperature"] == 0.3);
}

TEST_CASE("openai streaming: bytes split anywhere, deltas in order, tool calls and usage exact") {
  std::string stream;
  stream += sse_event(R"({"id":"s1","model":"m","choices":[{"index":0,"delta":{"role":"assistant"}}]})");
  stream += ": keep-alive\n\n";
  stream += sse_event(R"({"id":"s1","choices":[{"index":0,"delta":{"reasoning_content":"Hmm"}}]})");
  stream += sse_event(R"({"id":"s1","choices":[{"index":0,"delta":{"content":"Hello "}}]})");
  stream += sse_event(R"({"id":"s1","choices":[{"index":0,"delta":{"content":"world"}}]})");
  stream += sse_event(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"submit","arguments":"{\"co"}}]}}]})");
  stream += sse_event(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"de\":1}"}}]}}]})");
  stream += sse_event(R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})");
  stream += sse_event(R"({"choices":[],"usage":{"prompt_tokens":321,"completion_tokens":45,"prompt_tokens_details":{"cached_tokens":256},"completion_tokens_details":{"reasoning_tokens":7}}})");
  stream += sse_event("[DONE]");
  ScriptedServer server([&](const RecordedRequest&, int) { return Reply::sse(split(stream, 7), 1ms); });

  std::vector<std::string> pieces;
  CallOptions options;
  options.on_delta = [&](const StreamDelta& d) {
    if (d.kind == StreamDelta::Kind::Text) pieces.emplace_back(d.text);
  };
  ChatOutcome out = call(scripted_config(server), simple_request(true), options);
  REQUIRE(out.ok());
  CHECK(out.response->text == "Hello world");
  CHECK(pieces == std::vector<std::string>{"Hello ", "world"});
  CHECK(out.response->reasoning == "Hmm");
  REQUIRE(out.response->tool_calls.size() == 1);
  CHECK(out.response->tool_calls[0].name == "submit");
  CHECK(out.response->tool_calls[0].arguments == R"({"code":1})");
  CHECK(out.response->finish_reason == "tool_calls");
  CHECK(out.response->usage == Usage{321, 256, 0, 45, 7, true, false});
  CHECK(out.stats.time_to_first_token.has_value());
  json body = json::parse(server.requests()[0].body);
  CHECK(body["stream"] == true);
  CHECK(body["stream_options"]["include_usage"] == true);
  CHECK(server.requests()[0].header("accept") == "text/event-stream");
}

TEST_CASE("anthropic non-streaming and streaming: tool use, cache usage, headers") {
  const std::string full = R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
      "content":[{"type":"text","text":"Calling."},{"type":"tool_use","id":"toolu_1","name":"compile","input":{"path":"k.cpp"}}],
      "stop_reason":"tool_use",
      "usage":{"input_tokens":20,"cache_creation_input_tokens":1000,"cache_read_input_tokens":0,"output_tokens":42}})";
  std::string stream;
  stream += sse_event(R"({"type":"message_start","message":{"id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":1}}})", "message_start");
  stream += sse_event(R"({"type":"ping"})", "ping");
  stream += sse_event(R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})", "content_block_start");
  stream += sse_event(R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Here."}})", "content_block_delta");
  stream += sse_event(R"({"type":"content_block_stop","index":0})", "content_block_stop");
  stream += sse_event(R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"submit","input":{}}})", "content_block_start");
  stream += sse_event(R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}})", "content_block_delta");
  stream += sse_event(R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"2}"}})", "content_block_delta");
  stream += sse_event(R"({"type":"content_block_stop","index":1})", "content_block_stop");
  stream += sse_event(R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":61}})", "message_delta");
  stream += sse_event(R"({"type":"message_stop"})", "message_stop");
  ScriptedServer server([&](const RecordedRequest& r, int) {
    if (json::parse(r.body).value("stream", false)) return Reply::sse(split(stream, 11));
    return Reply::json(200, full);
  });
  ProviderConfig config = scripted_config(server, ApiKind::Anthropic);
  ChatRequest request = simple_request(false, "claude-sonnet-4-5");
  request.system = "Stable prefix.";
  request.tools.push_back({"compile", "Compile", json{{"type", "object"}}});

  ChatOutcome plain = call(config, request);
  REQUIRE(plain.ok());
  CHECK(plain.response->text == "Calling.");
  REQUIRE(plain.response->tool_calls.size() == 1);
  CHECK(json::parse(plain.response->tool_calls[0].arguments) == json{{"path", "k.cpp"}});
  CHECK(plain.response->usage == Usage{1020, 0, 1000, 42, 0, true, false});

  request.stream = true;
  ChatOutcome streamed = call(config, request);
  REQUIRE(streamed.ok());
  CHECK(streamed.response->text == "Here.");
  CHECK(streamed.response->tool_calls[0].arguments == R"({"a":2})");
  CHECK(streamed.response->usage == Usage{1020, 1000, 0, 61, 0, true, false});

  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].target == "/v1/messages");
  CHECK(requests[0].header("x-api-key") == kKey);
  CHECK(requests[0].header("authorization").empty());
  CHECK(requests[0].header("anthropic-version") == "2023-06-01");
  CHECK(json::parse(requests[0].body)["system"][0]["cache_control"]["type"] == "ephemeral");
}

TEST_CASE("retries: each retryable status is retried once, then succeeds") {
  for (int status : {408, 409, 429, 500, 502, 503, 504, 529}) {
    CAPTURE(status);
    ScriptedServer server([&](const RecordedRequest&, int index) {
      if (index == 0) return Reply::json(status, R"({"error":{"message":"try again","type":"server_error"}})");
      return Reply::json(200, openai_ok("fine"));
    });
    ChatOutcome out = call(scripted_config(server), simple_request());
    REQUIRE(out.ok());
    CHECK(out.stats.attempts == 2);
    CHECK(out.stats.retries == 1);
    REQUIRE(out.stats.attempt_log.size() == 2);
    CHECK(out.stats.attempt_log[0].http_status == status);
    CHECK(out.stats.attempt_log[1].waited_before == 10ms);
    CHECK(server.requests().size() == 2);
  }
}

TEST_CASE("retries: connection errors are retried") {
  ScriptedServer server([](const RecordedRequest&, int index) {
    if (index == 0) {
      Reply r;
      r.raw = "";  // close without a response
      return r;
    }
    return Reply::json(200, openai_ok("after reset"));
  });
  ChatOutcome out = call(scripted_config(server), simple_request());
  REQUIRE(out.ok());
  CHECK(out.stats.attempts == 2);
  CHECK(out.stats.attempt_log[0].error->kind == ErrorKind::Network);
}

TEST_CASE("retries: retry-after-ms is honoured") {
  ScriptedServer server([](const RecordedRequest&, int index) {
    if (index == 0) {
      Reply r = Reply::json(429, R"({"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}})");
      r.headers.push_back({"retry-after-ms", "180"});
      r.headers.push_back({"retry-after", "1"});
      return r;
    }
    return Reply::json(200, openai_ok("ok"));
  });
  ChatOutcome out = call(scripted_config(server), simple_request());
  REQUIRE(out.ok());
  CHECK(out.stats.attempts == 2);
  CHECK(out.stats.backoff_wait == 180ms);
  auto requests = server.requests();
  CHECK(gap_ms(requests, 1) >= 180);
  CHECK(gap_ms(requests, 1) < 1000);  // retry-after: 1 (seconds) was not used
}

TEST_CASE("retries: retry-after in seconds, capped") {
  ScriptedServer server([](const RecordedRequest&, int index) {
    if (index == 0) {
      Reply r = Reply::json(503, R"({"error":{"message":"busy"}})");
      r.headers.push_back({"Retry-After", "30"});
      return r;
    }
    return Reply::json(200, openai_ok("ok"));
  });
  ProviderConfig config = scripted_config(server);
  config.retry.max_retry_after = 250ms;
  ChatOutcome out = call(config, simple_request());
  REQUIRE(out.ok());
  CHECK(out.stats.backoff_wait == 250ms);
  CHECK(gap_ms(server.requests(), 1) >= 250);
  CHECK(gap_ms(server.requests(), 1) < 5000);
}

TEST_CASE("retries: retry-after as an HTTP date") {
  // Dates have one-second resolution: ask for 3 s ahead, cap at 300 ms, so the
  // wait is exactly the cap; a past date means no wait at all.
  ScriptedServer server([](const RecordedRequest&, int index) {
    Reply r = Reply::json(429, R"({"error":{"message":"later","type":"rate_limit_error"}})");
    if (index == 0) r.headers.push_back({"Retry-After", format_http_date(std::chrono::system_clock::now() + 3s)});
    else if (index == 1) r.headers.push_back({"Retry-After", "Thu, 01 Jan 2015 00:00:00 GMT"});
    else return Reply::json(200, openai_ok("ok"));
    return r;
  });
  ProviderConfig config = scripted_config(server);
  config.retry.max_retry_after = 300ms;
  ChatOutcome out = call(config, simple_request());
  REQUIRE(out.ok());
  CHECK(out.stats.attempts == 3);
  CHECK(out.stats.attempt_log[1].waited_before == 300ms);
  CHECK(out.stats.attempt_log[2].waited_before == 0ms);
  CHECK(gap_ms(server.requests(), 1) >= 300);
}

TEST_CASE("retries: exponential backoff without retry-after, then give up after max_retries") {
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(500, R"({"error":{"message":"down"}})"); });
  ProviderConfig config = scripted_config(server);
  config.retry.initial_backoff = 40ms;
  config.retry.multiplier = 2;
  config.retry.max_backoff = 1s;
  config.retry.max_retries = 3;
  ChatOutcome out = call(config, simple_request());
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::HttpStatus);
  CHECK(out.error->http_status == 500);
  CHECK(out.error->message == "down");
  CHECK(out.stats.attempts == 4);
  CHECK(out.stats.retries == 3);
  CHECK(out.stats.backoff_wait == 40ms + 80ms + 160ms);
  auto requests = server.requests();
  REQUIRE(requests.size() == 4);
  CHECK(gap_ms(requests, 1) >= 40);
  CHECK(gap_ms(requests, 2) >= 80);
  CHECK(gap_ms(requests, 3) >= 160);
}

TEST_CASE("no retry: insufficient_quota and request errors") {
  ScriptedServer quota([](const RecordedRequest&, int) {
    Reply r = Reply::json(429, R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})");
    r.headers.push_back({"retry-after", "1"});
    return r;
  });
  ChatOutcome q = call(scripted_config(quota), simple_request());
  REQUIRE_FALSE(q.ok());
  CHECK(q.error->kind == ErrorKind::Quota);
  CHECK(q.error->http_status == 429);
  CHECK(q.stats.attempts == 1);
  CHECK(quota.requests().size() == 1);

  for (int status : {400, 401, 403, 404, 413, 422}) {
    CAPTURE(status);
    ScriptedServer server([&](const RecordedRequest&, int) {
      return Reply::json(status, R"({"error":{"message":"no","type":"invalid_request_error"}})");
    });
    ChatOutcome out = call(scripted_config(server), simple_request());
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->kind == ErrorKind::HttpStatus);
    CHECK(out.error->http_status == status);
    CHECK(out.error->provider_type == "invalid_request_error");
    CHECK(out.stats.attempts == 1);
  }
}

TEST_CASE("mid-stream error: reported with type and message, retried when asked, with a restart signal") {
  std::string failing;
  failing += sse_event(R"({"choices":[{"index":0,"delta":{"content":"partial "}}]})");
  failing += sse_event(R"({"error":{"message":"The model is overloaded","type":"server_error","code":"overloaded"}})");
  failing += sse_event("[DONE]");
  std::string good;
  good += sse_event(R"({"choices":[{"index":0,"delta":{"content":"whole"},"finish_reason":"stop"}]})");
  good += sse_event(R"({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2}})");
  good += sse_event("[DONE]");
  ScriptedServer server([&](const RecordedRequest&, int index) { return Reply::sse({index == 0 ? failing : good}); });

  ProviderConfig no_retry = scripted_config(server);
  no_retry.retry.retry_mid_stream = false;
  ChatOutcome failed = call(no_retry, simple_request(true));
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error->kind == ErrorKind::MidStream);
  CHECK(failed.error->http_status == 200);
  CHECK(failed.error->provider_type == "server_error");
  CHECK(failed.error->provider_code == "overloaded");
  CHECK(failed.error->message == "The model is overloaded");

  ScriptedServer again([&](const RecordedRequest&, int index) { return Reply::sse({index == 0 ? failing : good}); });
  std::string text;
  int restarts = 0;
  CallOptions options;
  options.on_delta = [&](const StreamDelta& d) {
    if (d.kind == StreamDelta::Kind::Restart) {
      ++restarts;
      text.clear();
    }
    if (d.kind == StreamDelta::Kind::Text) text += d.text;
  };
  ChatOutcome retried = call(scripted_config(again), simple_request(true), options);
  REQUIRE(retried.ok());
  CHECK(retried.stats.attempts == 2);
  CHECK(restarts == 1);
  CHECK(text == "whole");
  CHECK(retried.response->text == "whole");
}

TEST_CASE("anthropic mid-stream overloaded_error event") {
  std::string stream;
  stream += sse_event(R"({"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":5,"output_tokens":1}}})", "message_start");
  stream += sse_event(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", "error");
  ScriptedServer server([&](const RecordedRequest&, int) { return Reply::sse({stream}); });
  ProviderConfig config = scripted_config(server, ApiKind::Anthropic);
  config.retry.max_retries = 1;
  ChatOutcome out = call(config, simple_request(true, "claude-haiku-4-5"));
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::MidStream);
  CHECK(out.error->provider_type == "overloaded_error");
  CHECK(out.stats.attempts == 2);  // retried once: overloaded is a server-side condition
  CHECK(out.usage.input_tokens == 10);  // both failed attempts reported (and are billed) 5 input tokens
}

TEST_CASE("truncated streams and bodies") {
  std::string partial = sse_event(R"({"choices":[{"index":0,"delta":{"content":"cut"}}]})");
  SUBCASE("connection closes inside a chunked stream") {
    ScriptedServer server([&](const RecordedRequest&, int) {
      Reply r = Reply::sse({partial});
      r.cut = true;
      return r;
    });
    ProviderConfig config = scripted_config(server);
    config.retry.retry_truncated = false;
    ChatOutcome out = call(config, simple_request(true));
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->kind == ErrorKind::Truncated);
    CHECK(out.stats.attempts == 1);
  }
  SUBCASE("clean end of body without [DONE] or finish_reason") {
    ScriptedServer server([&](const RecordedRequest&, int) { return Reply::sse({partial}); });
    ProviderConfig config = scripted_config(server);
    config.retry.max_retries = 2;
    ChatOutcome out = call(config, simple_request(true));
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->kind == ErrorKind::Truncated);
    CHECK(out.stats.attempts == 3);  // retried by default
  }
  SUBCASE("Content-Length body cut short") {
    ScriptedServer server([](const RecordedRequest&, int) {
      Reply r = Reply::json(200, openai_ok("a long enough answer to cut"));
      r.cut = true;
      return r;
    });
    ProviderConfig config = scripted_config(server);
    config.retry.max_retries = 0;
    ChatOutcome out = call(config, simple_request());
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->kind == ErrorKind::Truncated);
    CHECK(out.error->http_status == 200);
  }
}

TEST_CASE("malformed JSON is reported, not retried") {
  ScriptedServer server([](const RecordedRequest& r, int) {
    if (json::parse(r.body).value("stream", false)) return Reply::sse({sse_event("{\"choices\": [oops")});
    return Reply::json(200, "{\"choices\": [ {\"message\": ");
  });
  ChatOutcome plain = call(scripted_config(server), simple_request());
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.error->kind == ErrorKind::Malformed);
  CHECK(plain.stats.attempts == 1);
  ChatOutcome streamed = call(scripted_config(server), simple_request(true));
  REQUIRE_FALSE(streamed.ok());
  CHECK(streamed.error->kind == ErrorKind::Malformed);
  CHECK(streamed.stats.attempts == 1);
}

TEST_CASE("a stream request answered with plain JSON is still understood") {
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, openai_ok("plain", 4, 1)); });
  ChatOutcome out = call(scripted_config(server), simple_request(true));
  REQUIRE(out.ok());
  CHECK(out.response->text == "plain");
  CHECK(out.response->usage.output_tokens == 1);
}

TEST_CASE("body over the size limit") {
  const std::string huge(20000, 'x');
  ScriptedServer server([&](const RecordedRequest& r, int) {
    if (json::parse(r.body).value("stream", false)) {
      std::vector<std::string> events;
      for (int i = 0; i < 50; ++i)
        events.push_back(sse_event(json{{"choices", {{{"index", 0}, {"delta", {{"content", std::string(500, 'y')}}}}}}}.dump()));
      return Reply::sse(events);
    }
    return Reply::json(200, openai_ok(huge));
  });
  ProviderConfig config = scripted_config(server);
  config.http.max_body_bytes = 8000;
  ChatOutcome plain = call(config, simple_request());
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.error->kind == ErrorKind::BodyTooLarge);
  CHECK(plain.stats.attempts == 1);
  ChatOutcome streamed = call(config, simple_request(true));
  REQUIRE_FALSE(streamed.ok());
  CHECK(streamed.error->kind == ErrorKind::BodyTooLarge);
}

TEST_CASE("API keys never appear in errors") {
  ScriptedServer server([](const RecordedRequest& r, int) {
    // A hostile or careless server echoes the credential back.
    return Reply::json(401, json{{"error", {{"message", "Incorrect API key provided: " + r.header("authorization").substr(7)},
                                            {"type", "invalid_request_error"}, {"code", "invalid_api_key"}}}}.dump());
  });
  ChatOutcome out = call(scripted_config(server), simple_request());
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->http_status == 401);
  CHECK(out.error->message.find(kKey) == std::string::npos);
  CHECK(out.error->message.find("[redacted]") != std::string::npos);
  for (const auto& attempt : out.stats.attempt_log) CHECK(attempt.error->message.find(kKey) == std::string::npos);
  CHECK(out.error->to_error().message.find(kKey) == std::string::npos);
}

TEST_CASE("a missing key variable fails before any request") {
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, openai_ok("x")); });
  ProviderConfig config = scripted_config(server);
  config.api_key_env = "KGB_TEST_UNSET_KEY_VARIABLE";
  unsetenv("KGB_TEST_UNSET_KEY_VARIABLE");
  ChatOutcome out = call(config, simple_request());
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::Config);
  CHECK(out.error->message.find("KGB_TEST_UNSET_KEY_VARIABLE") != std::string::npos);
  CHECK(server.requests().empty());
}

TEST_CASE("models that reject temperature or max_tokens: adapt once and remember") {
  ScriptedServer server([](const RecordedRequest& r, int) {
    json body = json::parse(r.body);
    if (body.contains("temperature"))
      return Reply::json(400, R"({"error":{"message":"Unsupported value: 'temperature' does not support 0.3 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}})");
    if (body.contains("max_tokens"))
      return Reply::json(400, R"({"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}})");
    return Reply::json(200, openai_ok("adapted"));
  });
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), scripted_config(server));
  ChatOutcome first = kgb::test::run_one(io, client.chat(simple_request(false, "new-reasoner")));
  REQUIRE(first.ok());
  CHECK(first.stats.parameter_fixups == 2);
  CHECK(first.stats.attempts == 3);
  CHECK(first.stats.retries == 0);
  ChatOutcome second = kgb::test::run_one(io, client.chat(simple_request(false, "new-reasoner")));
  REQUIRE(second.ok());
  CHECK(second.stats.attempts == 1);  // learned for this model
  json last = json::parse(server.requests().back().body);
  CHECK(last["max_completion_tokens"] == 256);
  CHECK_FALSE(last.contains("temperature"));
}
