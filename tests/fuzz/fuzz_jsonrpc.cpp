// The MCP JSON-RPC message parser on arbitrary bytes. Invariants: it never
// throws; text that nlohmann refuses gets the -32700 parse error; an error
// response is a well-formed JSON-RPC error that serialises to one line; a
// request has a method and an id that is a string or an integer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kgb/mcp/jsonrpc.h"

namespace {

using kgb::mcp::jsonrpc::Message;
using json = nlohmann::json;

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

void check_error_response(const json& response) {
  if (!response.is_object() || response.value("jsonrpc", "") != "2.0") std::abort();
  const auto error = response.find("error");
  if (error == response.end() || !error->is_object() || !error->contains("code") || !(*error)["code"].is_number_integer())
    std::abort();
  if (!(*error)["message"].is_string()) std::abort();
  const json& id = response["id"];
  if (!id.is_null() && !valid_id(id)) std::abort();
  if (kgb::mcp::jsonrpc::serialize(response).find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Message m = kgb::mcp::jsonrpc::parse(text);  // a throw ends the run as a crash
  switch (m.kind) {
    case Message::Kind::Request:
      if (m.method.empty() || !valid_id(m.id) || !m.params.is_object()) std::abort();
      break;
    case Message::Kind::Notification:
      if (m.method.empty() || !m.id.is_null() || !m.params.is_object()) std::abort();
      break;
    case Message::Kind::Response:
      if (!valid_id(m.id)) std::abort();
      break;
    case Message::Kind::Invalid:
      if (m.error_response) check_error_response(*m.error_response);
      break;
  }
  // Text nlohmann itself refuses is always a parse error, never anything else.
  if (!json::accept(text.begin(), text.end())) {
    if (m.kind != Message::Kind::Invalid || !m.error_response) std::abort();
    if ((*m.error_response)["error"]["code"] != kgb::mcp::jsonrpc::kParseError) std::abort();
  }
  return 0;
}
