// kgb_mcp units: JSON-RPC classification (malformed input of every kind),
// tool argument checks, reading agent-reported usage in the shapes harnesses
// print, and attaching it to a recorded attempt of a real run store.
#include <doctest/doctest.h>

#include <string>

#include "catalog.h"
#include "kgb/mcp/jsonrpc.h"
#include "kgb/mcp/usage.h"
#include "kgb/store/run_store.h"
#include "test_support.h"

using namespace kgb;
using kgb::mcp::test::temp_dir;
using namespace kgb::mcp;
using json = nlohmann::json;
using Kind = jsonrpc::Message::Kind;

namespace {

int error_code(const jsonrpc::Message& m) {
  REQUIRE(m.error_response.has_value());
  return (*m.error_response)["error"]["code"].get<int>();
}

}  // namespace

TEST_CASE("JSON-RPC: requests, notifications and responses are told apart") {
  auto r = jsonrpc::parse(R"({"jsonrpc":"2.0","id":7,"method":"tools/list"})");
  CHECK(r.kind == Kind::Request);
  CHECK(r.id == 7);
  CHECK(r.method == "tools/list");
  CHECK(r.params == json::object());

  auto s = jsonrpc::parse(R"({"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"lint"}})");
  CHECK(s.kind == Kind::Request);
  CHECK(s.id == "abc");
  CHECK(s.params["name"] == "lint");

  auto n = jsonrpc::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  CHECK(n.kind == Kind::Notification);
  CHECK(n.id.is_null());

  auto resp = jsonrpc::parse(R"({"jsonrpc":"2.0","id":3,"result":{}})");
  CHECK(resp.kind == Kind::Response);
  auto err = jsonrpc::parse(R"({"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}})");
  CHECK(err.kind == Kind::Response);
}

TEST_CASE("JSON-RPC: malformed messages get the protocol's error objects") {
  // Not JSON, or not UTF-8: parse error, id null.
  for (const char* text : {"", "{", "nonsense", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", "\xff\xfe{}",
                           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xc3\"}"}) {
    auto m = jsonrpc::parse(text);
    CHECK(m.kind == Kind::Invalid);
    CHECK(error_code(m) == jsonrpc::kParseError);
    CHECK((*m.error_response)["id"].is_null());
  }
  // JSON that is not a message: invalid request.
  for (const char* text : {"42", "\"ping\"", "null", "[]", R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])",
                           R"({"id":1,"method":"ping"})", R"({"jsonrpc":"1.0","id":1,"method":"ping"})",
                           R"({"jsonrpc":"2.0","id":1})", R"({"jsonrpc":"2.0","id":1,"method":7})",
                           R"({"jsonrpc":"2.0","id":1,"method":""})", R"({"jsonrpc":"2.0","id":null,"method":"ping"})",
                           R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})",
                           R"({"jsonrpc":"2.0","id":true,"method":"ping"})"}) {
    CAPTURE(text);
    auto m = jsonrpc::parse(text);
    CHECK(m.kind == Kind::Invalid);
    CHECK(error_code(m) == jsonrpc::kInvalidRequest);
  }
  // The id is echoed when it could be read.
  auto wrong_version = jsonrpc::parse(R"({"jsonrpc":"1.0","id":"x9","method":"ping"})");
  CHECK((*wrong_version.error_response)["id"] == "x9");
  // Params must be an object (MCP); a notification with bad params is ignored, never answered.
  auto array_params = jsonrpc::parse(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":[1,2]})");
  CHECK(error_code(array_params) == jsonrpc::kInvalidParams);
  CHECK((*array_params.error_response)["id"] == 2);
  auto bad_notification = jsonrpc::parse(R"({"jsonrpc":"2.0","method":"notifications/x","params":"s"})");
  CHECK(bad_notification.kind == Kind::Invalid);
  CHECK_FALSE(bad_notification.error_response.has_value());
}

namespace {

// A message nested `depth` levels deep in all (the message object is level 1).
std::string nested_message(int depth) {
  std::string text = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":)";
  const int arrays = depth - 2;
  text.append(arrays, '[');
  text.append(arrays, ']');
  return text + "}}";
}

}  // namespace

TEST_CASE("JSON-RPC: deep nesting and huge strings are handled, not crashed on") {
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":)";
  for (int i = 0; i < 200000; ++i) deep += '[';
  auto m = jsonrpc::parse(deep);  // unterminated and too deep: refused before nlohmann sees it
  CHECK(m.kind == Kind::Invalid);
  CHECK(error_code(m) == jsonrpc::kParseError);
  const std::string big(8 << 20, 'a');
  auto big_message = jsonrpc::parse(R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"s":")" + big + "\"}}");
  CHECK(big_message.params["s"].get_ref<const std::string&>().size() == big.size());
}

TEST_CASE("JSON-RPC: messages nested deeper than the limit are refused before they are parsed") {
  auto at_limit = jsonrpc::parse(nested_message(jsonrpc::kMaxNesting));
  CHECK(at_limit.kind == Kind::Request);
  for (int depth : {jsonrpc::kMaxNesting + 1, 100000, 1000000}) {
    CAPTURE(depth);
    // A million levels, parsed and copied into params, overflow the stack.
    auto m = jsonrpc::parse(nested_message(depth));
    CHECK(m.kind == Kind::Invalid);
    CHECK(error_code(m) == jsonrpc::kParseError);
    CHECK((*m.error_response)["id"].is_null());
  }
  // Brackets inside strings are text, escaped quotes do not end a string.
  const std::string brackets(100000, '[');
  auto in_string = jsonrpc::parse(R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"\")" + brackets + R"(\\", "t":"[{"}})");
  REQUIRE(in_string.kind == Kind::Request);
  CHECK(in_string.params["s"].get_ref<const std::string&>().size() == brackets.size() + 2);
  auto escaped_then_deep = jsonrpc::parse(R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"\"","d":)" +
                                          nested_message(jsonrpc::kMaxNesting) + "}}");
  CHECK(error_code(escaped_then_deep) == jsonrpc::kParseError);
}

TEST_CASE("JSON-RPC: serialized messages are one line and survive invalid UTF-8") {
  json m = jsonrpc::result(1, {{"text", "line one\nline two"}, {"stderr", std::string("bad \xff byte")}});
  const std::string line = jsonrpc::serialize(m);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(json::parse(line)["result"]["text"] == "line one\nline two");
  CHECK(jsonrpc::serialize(jsonrpc::error(nullptr, -32700, "x")) == R"({"error":{"code":-32700,"message":"x"},"id":null,"jsonrpc":"2.0"})");
}

TEST_CASE("tool arguments are checked against the tools' schemas") {
  const auto defs = tool_defs(false);
  CHECK(find_tool_def(defs, "profile") == nullptr);
  CHECK(find_tool_def(tool_defs(true), "profile") != nullptr);
  const ToolDef* evaluate = find_tool_def(defs, "evaluate");
  REQUIRE(evaluate);
  CHECK(evaluate->kernel);
  CHECK(evaluate->evaluation);
  const json& schema = evaluate->input_schema;
  CHECK_FALSE(check_arguments(schema, {{"source", "int x;"}}));
  CHECK_FALSE(check_arguments(schema, {{"source", "int x;"}, {"correctness_only", true}}));
  CHECK(*check_arguments(schema, json::object()) == "the argument 'source' is required");
  CHECK(*check_arguments(schema, {{"source", 5}}) == "the argument 'source' must be a string");
  CHECK(*check_arguments(schema, {{"source", "x"}, {"correctness_only", "yes"}}) == "the argument 'correctness_only' must be a boolean");
  CHECK(check_arguments(schema, {{"source", "x"}, {"sourse", "y"}})->find("unknown argument 'sourse'") == 0);
  CHECK(*check_arguments(schema, json::array()) == "the arguments must be a JSON object");
  const ToolDef* usage = find_tool_def(defs, "report_usage");
  REQUIRE(usage);
  CHECK_FALSE(check_arguments(usage->input_schema, {{"input_tokens", 10}, {"output_tokens", 2.0}}));
  CHECK(*check_arguments(usage->input_schema, {{"input_tokens", -1}}) == "the argument 'input_tokens' must be at least 0");
  CHECK(*check_arguments(usage->input_schema, {{"input_tokens", 1.5}}) == "the argument 'input_tokens' must be an integer");
  // Every tool's schemas are objects the SDKs can compile.
  for (const auto& d : tool_defs(true)) {
    CAPTURE(d.name);
    CHECK(d.input_schema["type"] == "object");
    CHECK(d.output_schema["type"] == "object");
    CHECK_FALSE(d.description.empty());
  }
}

TEST_CASE("usage: Claude Code's result JSON (Anthropic token kinds, total_cost_usd)") {
  const json result = json::parse(R"({"type":"result","subtype":"success","is_error":false,"duration_ms":81234,
    "duration_api_ms":60500,"num_turns":9,"result":"done","session_id":"s","total_cost_usd":0.4125,
    "usage":{"input_tokens":1200,"cache_creation_input_tokens":3000,"cache_read_input_tokens":45000,"output_tokens":5400,
             "server_tool_use":{"web_search_requests":0},"service_tier":"standard"}})");
  auto u = parse_reported_usage(result);
  REQUIRE(u.ok());
  CHECK(u->tokens.input == 1200 + 3000 + 45000);
  CHECK(u->tokens.cached_input == 45000);
  CHECK(u->tokens.cache_write == 3000);
  CHECK(u->tokens.output == 5400);
  REQUIRE(u->cost_usd.has_value());
  CHECK(*u->cost_usd == doctest::Approx(0.4125));
  CHECK(u->api_seconds == doctest::Approx(60.5));
  CHECK(u->raw == result);
}

TEST_CASE("usage: OpenAI chat, OpenAI responses/Codex and this server's own names") {
  auto chat = parse_reported_usage(json::parse(R"({"model":"gpt-x","usage":{"prompt_tokens":900,"completion_tokens":300,
    "prompt_tokens_details":{"cached_tokens":512},"completion_tokens_details":{"reasoning_tokens":120}}})"));
  REQUIRE(chat.ok());
  CHECK(chat->tokens.input == 900);
  CHECK(chat->tokens.cached_input == 512);
  CHECK(chat->tokens.output == 300);
  CHECK(chat->tokens.reasoning == 120);
  CHECK(chat->model == "gpt-x");

  auto codex = parse_reported_usage(json::parse(R"({"type":"turn.completed","usage":{"input_tokens":2000,
    "cached_input_tokens":1500,"output_tokens":700,"reasoning_output_tokens":300}})"));
  REQUIRE(codex.ok());
  CHECK(codex->tokens.input == 2000);
  CHECK(codex->tokens.cached_input == 1500);
  CHECK(codex->tokens.reasoning == 300);

  auto own = parse_reported_usage({{"input_tokens", 10}, {"output_tokens", 4}, {"cost_usd", 0.01}, {"estimated", true}});
  REQUIRE(own.ok());
  CHECK(own->tokens.total() == 14);
  CHECK(own->estimated);
}

TEST_CASE("usage: wrong input is an error, never zero tokens") {
  CHECK_FALSE(parse_reported_usage(json::array()).ok());
  CHECK(parse_reported_usage({{"type", "result"}, {"result", "ok"}}).error().code == "usage.no-tokens");
  CHECK_FALSE(parse_reported_usage({{"input_tokens", -3}}).ok());
  CHECK_FALSE(parse_reported_usage({{"input_tokens", "12"}}).ok());
  CHECK_FALSE(parse_reported_usage({{"input_tokens", 1.5}}).ok());
  CHECK_FALSE(parse_reported_usage({{"input_tokens", 10}, {"cost_usd", -1}}).ok());
  CHECK_FALSE(parse_reported_usage({{"input_tokens", 10}, {"cached_input_tokens", 11}}).ok());
  CHECK_FALSE(parse_reported_usage({{"output_tokens", 10}, {"reasoning_tokens", 11}}).ok());
  CHECK_FALSE(parse_reported_usage({{"prompt_tokens", 10}, {"prompt_tokens_details", {{"cached_tokens", "x"}}}}).ok());
}

TEST_CASE("usage: JSON lines take the last line that carries usage") {
  const std::string stream =
      R"({"type":"system","subtype":"init"})"
      "\n"
      R"({"type":"assistant","message":{"usage":{"input_tokens":5,"output_tokens":1}}})"
      "\n"
      "not json at all\n"
      R"({"type":"result","total_cost_usd":0.2,"usage":{"input_tokens":100,"cache_read_input_tokens":50,"output_tokens":40}})"
      "\n"
      R"({"type":"trailer"})"
      "\n";
  auto u = parse_reported_usage_text(stream);
  REQUIRE(u.ok());
  CHECK(u->tokens.input == 150);
  CHECK(u->tokens.output == 40);
  CHECK(parse_reported_usage_text("plain text output\nno json").error().code == "usage.no-tokens");
  CHECK(parse_reported_usage_text(R"([{"x":1},{"usage":{"input_tokens":3,"output_tokens":2}}])")->tokens.total() == 5);
}

TEST_CASE("usage: an import lands on the attempt's last iteration and its totals, marked as the agent's") {
  const std::string dir = temp_dir("kgb-mcp-usage");
  auto opened = store::RunStore::open(dir + "/runs.db");
  REQUIRE(opened.ok());
  store::RunStore& db = **opened;
  REQUIRE(db.create_run(mcp::test::mcp_run("mcp-1")).ok());

  // Samples are numbered per task, in order.
  auto a0 = db.add_attempt("mcp-1", "blas/saxpy");
  auto a1 = db.add_attempt("mcp-1", "blas/saxpy");
  auto b0 = db.add_attempt("mcp-1", "aten/add");
  REQUIRE(a0.ok());
  REQUIRE(a1.ok());
  REQUIRE(b0.ok());
  CHECK(a0->sample == 0);
  CHECK(a1->sample == 1);
  CHECK(b0->sample == 0);

  const ReportedUsage usage = *parse_reported_usage({{"input_tokens", 1000}, {"output_tokens", 250}, {"cost_usd", 0.5}});
  // A running attempt belongs to a live session: refused.
  REQUIRE(db.mark_attempt_running(a0->id).ok());
  CHECK(record_reported_usage(db, a0->id, usage, "import", usage.raw).error().code == "usage.attempt-running");

  // An attempt that ended without a kernel gets a "no-code" iteration for the tokens.
  store::AttemptRecord ended = *db.attempt(a0->id);
  ended.status = "failed";
  ended.stop_reason = "session-ended";
  REQUIRE(db.finish_attempt(ended).ok());
  auto first = record_reported_usage(db, a0->id, usage, "import", usage.raw);
  REQUIRE(first.ok());
  CHECK(first->iteration == 0);
  CHECK(first->step == 0);
  auto second = record_reported_usage(db, a0->id, usage, "import", usage.raw);
  REQUIRE(second.ok());
  CHECK(second->step == 1);
  CHECK(second->attempt_tokens.total() == 2500);

  const auto after = *db.attempt(a0->id);
  CHECK(after.status == "failed");  // its outcome is untouched
  CHECK(after.tokens.input == 2000);
  CHECK(after.cost_usd == doctest::Approx(1.0));
  CHECK(after.result["agent_reported_usage"]["reports"] == 2);
  CHECK(after.result["agent_reported_usage"]["reported_by"] == "agent");
  const auto its = *db.iterations(a0->id);
  REQUIRE(its.size() == 1);
  CHECK(its[0].outcome == "no-code");
  CHECK(its[0].tokens.output == 500);
  auto row = *db.find_llm_call(a0->id, 0, 1);
  REQUIRE(row.has_value());
  CHECK(row->provider == "agent");
  CHECK(row->request["reported_by"] == "agent");
  CHECK(row->request["source"] == "import");
  CHECK(row->tokens.input == 1000);
  CHECK(row->usage_source == "agent");
  // The run's totals count it like any LLM call, and say whose word the tokens are.
  const store::RunTotals totals = *db.totals("mcp-1");
  CHECK(totals.tokens.total() == 2500);
  CHECK(totals.llm_calls == 2);
  CHECK(totals.agent_usage_calls == 2);
  CHECK(totals.estimated_usage_calls == 0);
  CHECK(record_reported_usage(db, 999999, usage, "import", usage.raw).error().code == "store.unknown-attempt");
}
