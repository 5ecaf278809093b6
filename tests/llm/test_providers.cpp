// The provider adapters without any I/O: request bodies as the APIs document
// them, answers and streams parsed to exact values, errors classified.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "kgb/llm/provider.h"

using namespace kgb::llm;
using json = nlohmann::json;

namespace {

ProviderConfig config_for(ApiKind api) {
  ProviderConfig c;
  c.name = "test";
  c.api = api;
  c.base_url = "http://127.0.0.1:1/v1";
  return c;
}

ChatRequest tool_conversation() {
  ChatRequest r;
  r.model = "gpt-4o";
  r.system = "You write kernels.";
  r.messages.push_back(Message::user("Compile this."));
  Message call = Message::assistant("");
  call.tool_calls.push_back({"call_1", "compile", R"({"source":"int x;"})"});
  r.messages.push_back(call);
  r.messages.push_back(Message::tool_result("call_1", "ok: 0 errors"));
  r.tools.push_back({"compile", "Compile a source file", json{{"type", "object"}, {"properties", {{"source", {{"type", "string"}}}}}}});
  r.tool_choice.mode = ToolChoice::Mode::Required;
  r.temperature = 0.2;
  r.max_output_tokens = 512;
  return r;
}

struct Collected {
  std::string text, reasoning;
  std::vector<std::pair<int, std::string>> tool_pieces;
  DeltaHandler handler() {
    return [this](const StreamDelta& d) {
      if (d.kind == StreamDelta::Kind::Text) text += d.text;
      if (d.kind == StreamDelta::Kind::Reasoning) reasoning += d.text;
      if (d.kind == StreamDelta::Kind::ToolCall) tool_pieces.emplace_back(d.tool_index, std::string(d.text));
    };
  }
};

SseEvent event(std::string data, std::string name = "message") { return SseEvent{std::move(name), std::move(data), ""}; }

}  // namespace

TEST_CASE("openai: request body with tools, tool results and sampling") {
  auto api = make_provider_api(config_for(ApiKind::OpenAI));
  ChatRequest r = tool_conversation();
  r.stream = true;
  r.extra = {{"user", "run-7"}, {"seed", nullptr}};
  WireRequest wire = api->build(r, default_quirks(ApiKind::OpenAI, r.model));
  CHECK(wire.path == "/chat/completions");
  json body = json::parse(wire.body);
  CHECK(body["model"] == "gpt-4o");
  CHECK(body["messages"].size() == 4);
  CHECK(body["messages"][0] == json{{"role", "system"}, {"content", "You write kernels."}});
  CHECK(body["messages"][2]["content"].is_null());
  CHECK(body["messages"][2]["tool_calls"][0]["function"]["name"] == "compile");
  CHECK(body["messages"][2]["tool_calls"][0]["function"]["arguments"] == R"({"source":"int x;"})");
  CHECK(body["messages"][3] == json{{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "ok: 0 errors"}});
  CHECK(body["tools"][0]["type"] == "function");
  CHECK(body["tools"][0]["function"]["parameters"]["type"] == "object");
  CHECK(body["tool_choice"] == "required");
  CHECK(body["temperature"] == 0.2);
  CHECK(body["max_tokens"] == 512);
  CHECK_FALSE(body.contains("max_completion_tokens"));
  CHECK(body["stream"] == true);
  CHECK(body["stream_options"]["include_usage"] == true);
  CHECK(body["user"] == "run-7");
  CHECK_FALSE(body.contains("seed"));

  std::vector<HttpHeader> headers;
  api->add_auth("secret", headers);
  REQUIRE(headers.size() == 1);
  CHECK(headers[0].name == "authorization");
  CHECK(headers[0].value == "Bearer secret");
}

TEST_CASE("openai: reasoning models get max_completion_tokens and no temperature") {
  for (const char* model : {"o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini", "openai/o3"}) {
    CAPTURE(model);
    ModelQuirks q = default_quirks(ApiKind::OpenAI, model);
    CHECK_FALSE(q.temperature_supported);
    CHECK(q.max_completion_tokens);
  }
  for (const char* model : {"gpt-4o", "gpt-4.1-mini", "o1x", "deepseek-chat", "claude-sonnet-4-5"}) {
    CAPTURE(model);
    CHECK(default_quirks(ApiKind::OpenAI, model).temperature_supported);
  }
  auto api = make_provider_api(config_for(ApiKind::OpenAI));
  ChatRequest r = tool_conversation();
  r.model = "o3-mini";
  r.top_p = 0.9;
  json body = json::parse(api->build(r, default_quirks(ApiKind::OpenAI, r.model)).body);
  CHECK(body["max_completion_tokens"] == 512);
  CHECK_FALSE(body.contains("max_tokens"));
  CHECK_FALSE(body.contains("temperature"));
  CHECK_FALSE(body.contains("top_p"));
}

TEST_CASE("openai: full answer with reasoning, tool calls and detailed usage") {
  auto api = make_provider_api(config_for(ApiKind::OpenAI));
  const char* body = R"({
    "id": "chatcmpl-1", "model": "deepseek-reasoner",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
      "role": "assistant", "content": "Calling the compiler.", "reasoning_content": "Think first.",
      "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "compile", "arguments": "{\"source\":\"x\"}"}}]}}],
    "usage": {"prompt_tokens": 1200, "completion_tokens": 350, "total_tokens": 1550,
              "prompt_tokens_details": {"cached_tokens": 1024},
              "completion_tokens_details": {"reasoning_tokens": 200}}})";
  ParsedReply reply = api->parse_response(body);
  REQUIRE_FALSE(reply.error);
  const ChatResponse& r = reply.response;
  CHECK(r.id == "chatcmpl-1");
  CHECK(r.text == "Calling the compiler.");
  CHECK(r.reasoning == "Think first.");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "call_9");
  CHECK(r.tool_calls[0].arguments == R"({"source":"x"})");
  CHECK(r.usage.input_tokens == 1200);
  CHECK(r.usage.cached_input_tokens == 1024);
  CHECK(r.usage.output_tokens == 350);
  CHECK(r.usage.reasoning_tokens == 200);
  CHECK(r.usage.reported);
  CHECK_FALSE(r.usage.estimated);

  // DeepSeek reports cache hits with its own field names; "reasoning" is the OpenRouter spelling.
  ParsedReply ds = api->parse_response(R"({"choices":[{"message":{"content":"a","reasoning":"r"},"finish_reason":"stop"}],
      "usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_cache_hit_tokens":8,"prompt_cache_miss_tokens":2}})");
  REQUIRE_FALSE(ds.error);
  CHECK(ds.response.usage.cached_input_tokens == 8);
  CHECK(ds.response.reasoning == "r");

  CHECK(api->parse_response("{\"choices\": [").error->kind == ErrorKind::Malformed);
  CHECK(api->parse_response(R"({"choices": []})").error->kind == ErrorKind::Malformed);
  CHECK(api->parse_response(R"([1,2])").error->kind == ErrorKind::Malformed);
  auto in_body = api->parse_response(R"({"error": {"message": "boom", "type": "server_error"}})");
  REQUIRE(in_body.error);
  CHECK(in_body.error->kind == ErrorKind::MidStream);
  CHECK(in_body.error->retryable);
}

TEST_CASE("openai: stream decoding with interleaved tool-call pieces and final usage") {
  auto api = make_provider_api(config_for(ApiKind::OpenAI));
  auto decoder = api->stream_decoder();
  Collected got;
  auto emit = got.handler();
  const std::vector<std::string> chunks = {
      R"({"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})",
      R"({"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"Let me "}}]})",
      R"({"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"think."}}]})",
      R"({"id":"c1","choices":[{"index":0,"delta":{"content":"Hello"}}]})",
      R"({"id":"c1","choices":[{"index":0,"delta":{"content":", world"}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"lint","arguments":""}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"run","arguments":"{\"n\""}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"f\":1}"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
      R"({"choices":[],"usage":{"prompt_tokens":77,"completion_tokens":33,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":4}}})",
  };
  for (const auto& c : chunks) REQUIRE(decoder->on_event(event(c), emit));
  REQUIRE(decoder->on_event(event("[DONE]"), emit));
  ParsedReply reply = decoder->finish(true);
  REQUIRE_FALSE(reply.error);
  const ChatResponse& r = reply.response;
  CHECK(r.text == "Hello, world");
  CHECK(got.text == "Hello, world");
  CHECK(r.reasoning == "Let me think.");
  CHECK(got.reasoning == "Let me think.");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 2);
  CHECK(r.tool_calls[0].name == "lint");
  CHECK(r.tool_calls[0].arguments == R"({"f":1})");
  CHECK(r.tool_calls[1].id == "call_b");
  CHECK(r.tool_calls[1].arguments == R"({"n":2})");
  CHECK(r.usage == Usage{77, 64, 0, 33, 4, true, false});
  CHECK(got.tool_pieces.size() == 4);
}

TEST_CASE("openai: stream errors, truncation and garbage") {
  auto api = make_provider_api(config_for(ApiKind::OpenAI));
  SUBCASE("error object after content") {
    auto d = api->stream_decoder();
    CHECK(d->on_event(event(R"({"choices":[{"index":0,"delta":{"content":"par"}}]})"), {}));
    CHECK_FALSE(d->on_event(event(R"({"error":{"message":"The server had an error","type":"server_error"}})"), {}));
    ParsedReply r = d->finish(true);
    REQUIRE(r.error);
    CHECK(r.error->kind == ErrorKind::MidStream);
    CHECK(r.error->provider_type == "server_error");
    CHECK(r.error->message == "The server had an error");
    CHECK(r.error->retryable);
    CHECK(r.response.text == "par");
  }
  SUBCASE("client-side error type mid-stream is final") {
    auto d = api->stream_decoder();
    CHECK_FALSE(d->on_event(event(R"({"error":{"message":"too long","type":"invalid_request_error"}})"), {}));
    CHECK_FALSE(d->finish(true).error->retryable);
  }
  SUBCASE("cut before [DONE] and before finish_reason") {
    auto d = api->stream_decoder();
    CHECK(d->on_event(event(R"({"choices":[{"index":0,"delta":{"content":"x"}}]})"), {}));
    auto r = d->finish(false);
    REQUIRE(r.error);
    CHECK(r.error->kind == ErrorKind::Truncated);
    CHECK(r.error->retryable);
  }
  SUBCASE("clean end after finish_reason without [DONE] is accepted") {
    auto d = api->stream_decoder();
    CHECK(d->on_event(event(R"({"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]})"), {}));
    CHECK_FALSE(d->finish(true).error);
  }
  SUBCASE("clean end without finish_reason is truncated") {
    auto d = api->stream_decoder();
    CHECK(d->on_event(event(R"({"choices":[{"index":0,"delta":{"content":"x"}}]})"), {}));
    CHECK(d->finish(true).error->kind == ErrorKind::Truncated);
  }
  SUBCASE("malformed event") {
    auto d = api->stream_decoder();
    CHECK_FALSE(d->on_event(event("{\"choices\": [ {"), {}));
    CHECK(d->finish(true).error->kind == ErrorKind::Malformed);
  }
}

TEST_CASE("openai: usage counts out of range read as bounded counts, never as undefined conversions") {
  auto api = make_provider_api(config_for(ApiKind::OpenAI));
  ParsedReply reply = api->parse_response(R"({
    "id": "c", "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "x"}}],
    "usage": {"prompt_tokens": 1e300, "completion_tokens": -5, "total_tokens": 18446744073709551615,
              "completion_tokens_details": {"reasoning_tokens": 2.5}}})");
  REQUIRE_FALSE(reply.error);
  const auto& u = reply.response.usage;
  CHECK(u.input_tokens == (int64_t{1} << 50));
  CHECK(u.output_tokens == 0);
  CHECK(u.reasoning_tokens == 2);
}

TEST_CASE("anthropic: request body with cached system prompt, tool use and thinking") {
  auto api = make_provider_api(config_for(ApiKind::Anthropic));
  ChatRequest r = tool_conversation();
  r.model = "claude-sonnet-4-5";
  r.messages.insert(r.messages.begin(), Message::system("Extra rules."));
  r.messages.push_back(Message::tool_result("call_2", "second result"));
  r.messages.push_back(Message::user("Go on."));
  r.messages.back().cache_breakpoint = true;
  WireRequest wire = api->build(r, default_quirks(ApiKind::Anthropic, r.model));
  CHECK(wire.path == "/messages");
  json body = json::parse(wire.body);
  CHECK(body["max_tokens"] == 512);
  CHECK(body["system"][0]["text"] == "You write kernels.\n\nExtra rules.");
  CHECK(body["system"][0]["cache_control"]["type"] == "ephemeral");
  const json& messages = body["messages"];
  REQUIRE(messages.size() == 3);  // user, assistant(tool_use), user(tool results + text)
  CHECK(messages[0]["role"] == "user");
  CHECK(messages[1]["role"] == "assistant");
  CHECK(messages[1]["content"][0]["type"] == "tool_use");
  CHECK(messages[1]["content"][0]["input"]["source"] == "int x;");
  CHECK(messages[2]["role"] == "user");
  REQUIRE(messages[2]["content"].size() == 3);
  CHECK(messages[2]["content"][0] == json{{"type", "tool_result"}, {"tool_use_id", "call_1"}, {"content", "ok: 0 errors"}});
  CHECK(messages[2]["content"][1]["tool_use_id"] == "call_2");
  CHECK(messages[2]["content"][2]["cache_control"]["type"] == "ephemeral");
  CHECK(body["tools"][0]["input_schema"]["type"] == "object");
  CHECK(body["tool_choice"] == json{{"type", "any"}});
  CHECK(body["temperature"] == 0.2);
  bool has_version = false;
  for (const auto& h : wire.headers) has_version |= h.name == "anthropic-version" && h.value == "2023-06-01";
  CHECK(has_version);

  r.thinking_budget = 2048;
  json thinking = json::parse(api->build(r, {}).body);
  CHECK(thinking["thinking"]["budget_tokens"] == 2048);
  CHECK_FALSE(thinking.contains("temperature"));

  std::vector<HttpHeader> headers;
  api->add_auth("k", headers);
  CHECK(headers[0].name == "x-api-key");

  ChatRequest defaults;
  defaults.model = "claude-haiku-4-5";
  defaults.messages.push_back(Message::user("hi"));
  defaults.cache_system_prompt = false;
  defaults.system = "s";
  json d = json::parse(api->build(defaults, {}).body);
  CHECK(d["max_tokens"] == 8192);
  CHECK_FALSE(d["system"][0].contains("cache_control"));
}

TEST_CASE("anthropic: full answer with thinking and tool use, usage normalised") {
  auto api = make_provider_api(config_for(ApiKind::Anthropic));
  ParsedReply reply = api->parse_response(R"({
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [{"type": "thinking", "thinking": "Hmm.", "signature": "sig=="},
                {"type": "text", "text": "I will compile."},
                {"type": "tool_use", "id": "toolu_1", "name": "compile", "input": {"source": "int y;"}}],
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 100, "cache_creation_input_tokens": 2000, "cache_read_input_tokens": 3000, "output_tokens": 250}})");
  REQUIRE_FALSE(reply.error);
  const ChatResponse& r = reply.response;
  CHECK(r.text == "I will compile.");
  CHECK(r.reasoning == "Hmm.");
  CHECK(r.reasoning_signature == "sig==");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(json::parse(r.tool_calls[0].arguments)["source"] == "int y;");
  CHECK(r.usage == Usage{5100, 3000, 2000, 250, 0, true, false});

  auto err = api->parse_response(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  REQUIRE(err.error);
  CHECK(err.error->provider_type == "overloaded_error");
  CHECK(err.error->retryable);
}

TEST_CASE("anthropic: stream events with cumulative usage, pings and tool input pieces") {
  auto api = make_provider_api(config_for(ApiKind::Anthropic));
  auto d = api->stream_decoder();
  Collected got;
  auto emit = got.handler();
  const std::vector<std::pair<std::string, std::string>> events = {
      {"message_start", R"({"type":"message_start","message":{"id":"msg_2","model":"claude-x","usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":4000,"output_tokens":1}}})"},
      {"ping", R"({"type":"ping"})"},
      {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"},
      {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Plan."}})"},
      {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}})"},
      {"content_block_stop", R"({"type":"content_block_stop","index":0})"},
      {"content_block_start", R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})"},
      {"content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Here "}})"},
      {"content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"it is."}})"},
      {"content_block_stop", R"({"type":"content_block_stop","index":1})"},
      {"content_block_start", R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_9","name":"submit","input":{}}})"},
      {"content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"code\": "}})"},
      {"content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"x\"}"}})"},
      {"content_block_stop", R"({"type":"content_block_stop","index":2})"},
      {"message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}})"},
      {"message_delta", R"({"type":"message_delta","delta":{},"usage":{"output_tokens":57}})"},
      {"message_stop", R"({"type":"message_stop"})"},
  };
  for (const auto& [name, data] : events) REQUIRE(d->on_event(event(data, name), emit));
  ParsedReply reply = d->finish(true);
  REQUIRE_FALSE(reply.error);
  const ChatResponse& r = reply.response;
  CHECK(r.id == "msg_2");
  CHECK(r.text == "Here it is.");
  CHECK(got.text == "Here it is.");
  CHECK(r.reasoning == "Plan.");
  CHECK(r.reasoning_signature == "abc");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "toolu_9");
  CHECK(r.tool_calls[0].arguments == R"({"code": "x"})");
  CHECK(r.usage == Usage{4012, 4000, 0, 57, 0, true, false});

  auto cut = api->stream_decoder();
  CHECK(cut->on_event(event(events[0].second, "message_start"), {}));
  CHECK(cut->finish(false).error->kind == ErrorKind::Truncated);

  auto failed = api->stream_decoder();
  CHECK(failed->on_event(event(events[0].second, "message_start"), {}));
  CHECK_FALSE(failed->on_event(event(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", "error"), {}));
  ParsedReply f = failed->finish(true);
  REQUIRE(f.error);
  CHECK(f.error->kind == ErrorKind::MidStream);
  CHECK(f.error->provider_type == "overloaded_error");
  CHECK(f.error->retryable);
  CHECK(f.response.usage.input_tokens == 4012);  // billed even though it failed
}

TEST_CASE("errors: quota is final, rate limits retry, rejected parameters are recognised") {
  auto openai = make_provider_api(config_for(ApiKind::OpenAI));
  HttpResponse quota;
  quota.status = 429;
  quota.headers.push_back({"retry-after", "1"});
  quota.body = R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})";
  CallError q = openai->parse_error(quota);
  CHECK(q.kind == ErrorKind::Quota);
  CHECK_FALSE(q.retryable);

  HttpResponse limited;
  limited.status = 429;
  limited.headers.push_back({"retry-after-ms", "150"});
  limited.body = R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})";
  CallError l = openai->parse_error(limited);
  CHECK(l.kind == ErrorKind::HttpStatus);
  CHECK(l.retryable);
  CHECK(l.retry_after == std::chrono::milliseconds(150));
  CHECK(l.provider_code == "rate_limit_exceeded");

  HttpResponse html;
  html.status = 502;
  html.body = "<html>Bad gateway</html>";
  CallError h = openai->parse_error(html);
  CHECK(h.retryable);
  CHECK(h.message == "<html>Bad gateway</html>");

  auto anthropic = make_provider_api(config_for(ApiKind::Anthropic));
  HttpResponse overloaded;
  overloaded.status = 529;
  overloaded.body = R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
  CallError o = anthropic->parse_error(overloaded);
  CHECK(o.retryable);
  CHECK(o.provider_type == "overloaded_error");
  HttpResponse bad;
  bad.status = 400;
  bad.body = R"({"type":"error","error":{"type":"invalid_request_error","message":"messages: field required"}})";
  CHECK_FALSE(anthropic->parse_error(bad).retryable);

  HttpResponse temperature;
  temperature.status = 400;
  temperature.body = R"({"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}})";
  CHECK(rejected_parameter(openai->parse_error(temperature)) == "temperature");
  HttpResponse max_tokens;
  max_tokens.status = 400;
  max_tokens.body = R"({"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}})";
  CHECK(rejected_parameter(openai->parse_error(max_tokens)) == "max_tokens");
  CHECK(rejected_parameter(openai->parse_error(bad)) == "");
}

TEST_CASE("presets") {
  for (const auto& name : provider_preset_names()) {
    auto p = provider_preset(name);
    REQUIRE(p);
    CHECK(p->base_url.starts_with("http"));
  }
  CHECK(provider_preset("anthropic")->api == ApiKind::Anthropic);
  CHECK(provider_preset("openai")->api_key_env == "OPENAI_API_KEY");
  CHECK_FALSE(provider_preset("openai")->api_key_env.empty());
  CHECK_FALSE(provider_preset("nonsense"));
}

TEST_CASE("anthropic: an error event keeps the server's text, whatever its shape") {
  auto api = make_provider_api(config_for(ApiKind::Anthropic));
  const std::string start = R"({"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":7,"output_tokens":1}}})";
  struct Case {
    const char* data;
    std::string type, message;
  };
  const std::vector<Case> cases = {
      // llama-server: the error object itself, its "type" naming the error.
      {R"({"code":500,"message":"Failed to parse tool call arguments as JSON","type":"server_error"})", "server_error",
       "Failed to parse tool call arguments as JSON"},
      {R"({"error":{"code":500,"message":"boom","type":"server_error"}})", "server_error", "boom"},
      {R"({"type":"error","error":"the model crashed"})", "api_error", "the model crashed"},
      {R"({"message":"quota gone"})", "api_error", "quota gone"},
      {R"({"code":"overloaded"})", "overloaded", "the server sent an error event: {\"code\":\"overloaded\"}"},
      {"upstream timed out", "api_error", "the server sent an error event: upstream timed out"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.data);
    auto d = api->stream_decoder();
    REQUIRE(d->on_event(event(start, "message_start"), {}));
    CHECK_FALSE(d->on_event(event(c.data, "error"), {}));
    ParsedReply r = d->finish(true);
    REQUIRE(r.error);
    CHECK(r.error->kind == ErrorKind::MidStream);
    CHECK(r.error->provider_type == c.type);
    CHECK(r.error->message == c.message);
    CHECK(r.response.usage.input_tokens == 7);
  }
  // An "error" member in an event of another name is an error too.
  auto d = api->stream_decoder();
  CHECK_FALSE(d->on_event(event(R"({"error":{"type":"overloaded_error","message":"busy"}})", "message"), {}));
  CHECK(d->finish(true).error->message == "busy");
}

TEST_CASE("openai: an error event that is not JSON keeps its text") {
  auto api = make_provider_api(config_for(ApiKind::OpenAI));
  auto d = api->stream_decoder();
  CHECK_FALSE(d->on_event(event("backend exploded", "error"), {}));
  ParsedReply r = d->finish(true);
  REQUIRE(r.error);
  CHECK(r.error->kind == ErrorKind::MidStream);
  CHECK(r.error->message == "the server sent an error event: backend exploded");
  auto top = api->stream_decoder();
  CHECK_FALSE(top->on_event(event(R"({"code":500,"message":"Failed to parse tool call arguments","type":"server_error"})", "error"), {}));
  CHECK(top->finish(true).error->message == "Failed to parse tool call arguments");
}

TEST_CASE("request fields for one provider: NAME=VALUE, JSON or a word, dotted names nest") {
  json extra = json::object();
  REQUIRE(add_extra_field(extra, "top_k=40"));
  REQUIRE(add_extra_field(extra, "logit_bias={\"50256\": -100}"));
  REQUIRE(add_extra_field(extra, "chat_template_kwargs.enable_thinking=false"));
  REQUIRE(add_extra_field(extra, "chat_template_kwargs.style=terse"));
  REQUIRE(add_extra_field(extra, "reasoning.effort=low"));
  CHECK(extra == json{{"top_k", 40},
                      {"logit_bias", {{"50256", -100}}},
                      {"chat_template_kwargs", {{"enable_thinking", false}, {"style", "terse"}}},
                      {"reasoning", {{"effort", "low"}}}});
  for (const char* bad : {"top_k", "=3", ".a=1", "a.=1", "a..b=1"}) {
    CAPTURE(bad);
    auto s = add_extra_field(extra, bad);
    REQUIRE_FALSE(s);
    CHECK(s.error().message.find("NAME=VALUE") != std::string::npos);
  }
  // They reach the body last, over what the adapter wrote, in both dialects.
  for (ApiKind kind : {ApiKind::OpenAI, ApiKind::Anthropic}) {
    ChatRequest r;
    r.model = "m";
    r.messages.push_back(Message::user("hi"));
    r.extra = extra;
    const json body = json::parse(make_provider_api(config_for(kind))->build(r, {}).body);
    CHECK(body["top_k"] == 40);
    CHECK(body["chat_template_kwargs"]["enable_thinking"] == false);
  }
}

TEST_CASE("a base URL of one's own makes the preset's API key optional") {
  ProviderConfig openai = provider_preset("openai").value();
  REQUIRE(openai.api_key_required);
  ProviderConfig same = openai;
  use_base_url(same, "https://api.openai.com/v1/");
  CHECK(same.api_key_required);
  use_base_url(openai, "http://127.0.0.1:8080/v1");
  CHECK_FALSE(openai.api_key_required);
  CHECK(openai.base_url == "http://127.0.0.1:8080/v1");
  CHECK(openai.api_key_env == "OPENAI_API_KEY");  // still sent when set
}

TEST_CASE("token estimates: 4 bytes a token, framing per message and call") {
  CHECK(estimate_text_tokens("") == 0);
  CHECK(estimate_text_tokens("abcde") == 2);
  ChatResponse r;
  r.text = "abcdefgh";
  r.reasoning = "abcd";
  r.tool_calls.push_back({"id", "run", "{\"source\":\"x\"}"});
  CHECK(estimate_reply_tokens(r) == 2 + 1 + 4 + 1 + 4);
  ChatRequest q;
  q.system = "abcd";
  q.messages.push_back(Message::user("abcdefgh"));
  CHECK(estimate_prompt_tokens(q) == 8 + 1 + 4 + 2);
}
