#include "kgb/mcp/jsonrpc.h"

#include <cstddef>

namespace kgb::mcp::jsonrpc {

using json = nlohmann::json;

namespace {

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

Message invalid(json id, int code, std::string text) {
  Message m;
  m.kind = Message::Kind::Invalid;
  m.error_response = error(id, code, std::move(text));
  return m;
}

// Whether arrays and objects nest deeper than `limit`, found by a scan that
// parses nothing: brackets inside strings are text, and a backslash there
// escapes the next byte. Up to the first error nlohmann would report, this
// counts exactly what its parser would build, so for any text it is an upper
// bound of the depth nlohmann reaches.
bool nested_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

Message classify(const json& j) {
  if (j.is_array())
    return invalid(nullptr, kInvalidRequest,
                   j.empty() ? "an empty batch is not a message"
                             : "batches are not supported: send one JSON-RPC message at a time (MCP 2025-06-18)");
  if (!j.is_object()) return invalid(nullptr, kInvalidRequest, "a JSON-RPC message is a JSON object");
  const auto version = j.find("jsonrpc");
  const bool has_id = j.contains("id");
  const json id = has_id && valid_id(j["id"]) ? j["id"] : json(nullptr);
  if (version == j.end() || !version->is_string() || *version != "2.0")
    return invalid(id, kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
  if (has_id && !valid_id(j["id"])) return invalid(nullptr, kInvalidRequest, "\"id\" must be a string or an integer");

  const auto method = j.find("method");
  if (method == j.end()) {
    // A response to a request of ours (this server sends none): nothing to answer.
    if (has_id && (j.contains("result") || j.contains("error"))) {
      Message m;
      m.kind = Message::Kind::Response;
      m.id = id;
      return m;
    }
    return invalid(id, kInvalidRequest, "a request needs a \"method\"");
  }
  if (!method->is_string() || method->get_ref<const std::string&>().empty())
    return invalid(id, kInvalidRequest, "\"method\" must be a non-empty string");

  Message m;
  m.kind = has_id ? Message::Kind::Request : Message::Kind::Notification;
  m.id = id;
  m.method = method->get<std::string>();
  if (const auto params = j.find("params"); params != j.end() && !params->is_null()) {
    if (!params->is_object()) {
      if (!has_id) {
        Message ignored;
        ignored.kind = Message::Kind::Invalid;  // a notification is never answered
        return ignored;
      }
      return invalid(id, kInvalidParams, "\"params\" must be an object");
    }
    m.params = *params;
  }
  return m;
}

Message parse(std::string_view text) {
  if (nested_deeper_than(text, kMaxNesting))
    return invalid(nullptr, kParseError, "the message nests arrays and objects deeper than " + std::to_string(kMaxNesting) + " levels");
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid(nullptr, kParseError, "the message is not valid JSON (or not UTF-8)");
  return classify(j);
}

json result(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

json error(const json& id, int code, std::string message, json data) {
  json e = {{"code", code}, {"message", std::move(message)}};
  if (!data.is_null()) e["data"] = std::move(data);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}

json notification(std::string method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", std::move(method)}, {"params", std::move(params)}};
}

std::string serialize(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace kgb::mcp::jsonrpc
