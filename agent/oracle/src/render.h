// A Reply written in each wire dialect: the whole answer as JSON, or the SSE
// events of a streamed one. Private to the oracle server.
#pragma once

#include <cstddef>
#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/oracle/brain.h"
#include "kgb/oracle/query.h"

namespace kgb::oracle::render {

using json = nlohmann::json;

// Solutions may hold any bytes in comments: never let a dump throw.
std::string dump(const json& j);

struct Envelope {
  std::string request_id;  // "oracle-17"
  std::time_t created = 0;
  std::string model;
  json oracle_meta = json::object();  // the kgb_oracle field: task, attempt, fault, ...
  std::size_t chunk_chars = 64;       // text per streamed delta
};

json answer_body(const Query& query, const Reply& reply, const Envelope& envelope);

struct Events {
  std::vector<std::string> events;  // complete SSE events ("event: ...\ndata: ...\n\n")
  std::size_t cut_at = 0;           // where an injected failure strikes: inside the content
};
Events answer_events(const Query& query, const Reply& reply, const Envelope& envelope);

// An error body in the dialect's own shape (OpenAI: {"error": {...}};
// Anthropic: {"type": "error", "error": {...}}).
json error_body(Dialect dialect, const std::string& type, const std::string& message, const std::string& code = "");
// The error event a failing stream sends in the dialect's own form.
std::string stream_error_event(Dialect dialect, const std::string& type, const std::string& message);

}  // namespace kgb::oracle::render
