// JSON-RPC 2.0 as MCP uses it (revision 2025-06-18): one message at a time
// (no batches), ids that are strings or integers, params that are objects.
// parse() classifies one message and, for one that is malformed, builds the
// error response the protocol prescribes (-32700 for text that is not JSON,
// -32600 for JSON that is not a valid message). A message nested deeper than
// kMaxNesting is refused with -32700 before it is parsed: nlohmann's values
// copy and compare recursively, so a few hundred thousand '[' would overflow
// the server's stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kgb::mcp::jsonrpc {

enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kResourceNotFound = -32002,  // MCP: resources/read of an unknown URI
};

// Arrays and objects inside one another, the message object included. MCP
// messages need a handful; tool arguments (kernel sources travel as strings)
// a few more.
inline constexpr int kMaxNesting = 512;

struct Message {
  enum class Kind { Request, Notification, Response, Invalid };
  Kind kind = Kind::Invalid;
  nlohmann::json id;  // requests and responses: a string or an integer; null otherwise
  std::string method;
  nlohmann::json params = nlohmann::json::object();
  // Invalid: the error response to send (its id is the message's when one
  // could be read, else null). Absent for an invalid notification, which is
  // never answered.
  std::optional<nlohmann::json> error_response;
};

Message parse(std::string_view text);
// The same for a value already parsed.
Message classify(const nlohmann::json& message);

nlohmann::json result(const nlohmann::json& id, nlohmann::json result);
nlohmann::json error(const nlohmann::json& id, int code, std::string message, nlohmann::json data = nullptr);
nlohmann::json notification(std::string method, nlohmann::json params);

// One line of text: never throws on invalid UTF-8 inside strings (a verdict
// may quote a kernel's stderr), and holds no newline.
std::string serialize(const nlohmann::json& message);

}  // namespace kgb::mcp::jsonrpc
