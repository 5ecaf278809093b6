// Provider-neutral chat types: what the agent sends, what comes back, how
// tokens were counted and how a call failed. Both provider adapters map their
// wire formats onto these, so the rest of the agent never sees JSON dialects.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/result.h"

namespace kgb::llm {

enum class Role { System, User, Assistant, Tool };
std::string_view to_string(Role role);

// A function call requested by the model. `arguments` is the JSON text exactly
// as the model produced it (it may be invalid JSON: the caller decides).
struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;
};

struct Message {
  Role role = Role::User;
  std::string content;
  // Assistant turns: the calls the model made. Tool turns: which call this answers.
  std::vector<ToolCall> tool_calls;
  std::string tool_call_id;
  // Assistant turns from a thinking model. Anthropic needs the signature to
  // accept a thinking block sent back; OpenAI-compatible servers never get it.
  std::string reasoning;
  std::string reasoning_signature;
  // Anthropic prompt caching: end a cached prefix after this message.
  bool cache_breakpoint = false;

  static Message make(Role role, std::string text) {
    Message m;
    m.role = role;
    m.content = std::move(text);
    return m;
  }
  static Message system(std::string text) { return make(Role::System, std::move(text)); }
  static Message user(std::string text) { return make(Role::User, std::move(text)); }
  static Message assistant(std::string text) { return make(Role::Assistant, std::move(text)); }
  static Message tool_result(std::string call_id, std::string text) {
    Message m = make(Role::Tool, std::move(text));
    m.tool_call_id = std::move(call_id);
    return m;
  }
};

struct ToolSpec {
  std::string name;
  std::string description;
  nlohmann::json parameters = nlohmann::json::object();  // JSON Schema of the arguments
};

struct ToolChoice {
  enum class Mode { Auto, None, Required, Named };
  Mode mode = Mode::Auto;
  std::string name;  // Mode::Named
};

struct ChatRequest {
  std::string model;
  std::string system;              // sent as the provider's system prompt
  std::vector<Message> messages;   // System-role messages here are merged into `system`
  std::vector<ToolSpec> tools;
  ToolChoice tool_choice;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int64_t> max_output_tokens;
  std::optional<int64_t> seed;
  std::optional<int64_t> thinking_budget;  // Anthropic extended thinking
  std::string reasoning_effort;            // OpenAI reasoning models: low|medium|high
  bool stream = false;
  bool cache_system_prompt = true;         // Anthropic: cache_control on the system prompt
  nlohmann::json extra = nlohmann::json::object();  // merged into the request body last
  std::vector<std::pair<std::string, std::string>> headers;  // extra non-secret headers
};

// Token counts, normalised across providers.
struct Usage {
  int64_t input_tokens = 0;         // every prompt token, cached ones included
  int64_t cached_input_tokens = 0;  // of input_tokens: read from the provider's prompt cache
  int64_t cache_write_tokens = 0;   // of input_tokens: written to the prompt cache (Anthropic)
  int64_t output_tokens = 0;        // every generated token, reasoning included
  int64_t reasoning_tokens = 0;     // of output_tokens
  bool reported = false;            // the server sent usage at all
  bool estimated = false;           // the server says its counts are estimates

  int64_t total_tokens() const { return input_tokens + output_tokens; }
  Usage& operator+=(const Usage& other);
  bool operator==(const Usage&) const = default;
};

struct ChatResponse {
  std::string id;
  std::string model;
  std::string text;
  std::string reasoning;
  std::string reasoning_signature;
  std::vector<ToolCall> tool_calls;
  // Normalised: "stop", "length", "tool_calls", "content_filter", or the raw value.
  std::string finish_reason;
  std::string raw_finish_reason;
  Usage usage;
  std::optional<double> cost_usd;  // empty when the model has no price
  std::vector<std::pair<std::string, std::string>> headers;  // response headers, lower-case names

  std::string_view header(std::string_view name) const;
};

// Why a call failed. `kind` decides retries; status, provider type and message
// are kept for records and for a person reading them.
enum class ErrorKind {
  Config,        // bad URL, missing API key variable, unsupported setting
  Network,       // resolve, connect, reset, write or read failure
  Timeout,       // one network operation ran past its deadline
  Deadline,      // the whole call ran past its deadline
  Tls,           // handshake or certificate verification
  Proxy,         // the proxy refused or broke the CONNECT tunnel
  HttpStatus,    // a non-2xx answer (see http_status and provider_type)
  Quota,         // insufficient_quota / billing: never retried
  MidStream,     // an error object inside a 200 stream
  Truncated,     // the body or stream ended before it was complete
  Malformed,     // the body is not the JSON the protocol promises
  BodyTooLarge,  // the response passed the configured size limit
  Cancelled,     // the caller cancelled
  RateLimited,   // the client-side limiter could not admit the call before the deadline
};
std::string_view to_string(ErrorKind kind);

struct CallError {
  ErrorKind kind = ErrorKind::Network;
  int http_status = 0;          // 0 when no status line arrived
  std::string provider_type;    // e.g. "rate_limit_error", "insufficient_quota"
  std::string provider_code;    // OpenAI "code" when different from the type
  std::string message;          // free of API keys
  bool retryable = false;
  std::optional<std::chrono::milliseconds> retry_after;  // what the server asked for

  kgb::Error to_error() const;  // code "llm.<kind>"
};

// One attempt of a call, as recorded.
struct AttemptRecord {
  int http_status = 0;
  std::optional<CallError> error;
  std::chrono::milliseconds waited_before{0};  // backoff / retry-after sleep before it
  std::chrono::milliseconds duration{0};
  bool connection_reused = false;
};

struct CallStats {
  int attempts = 0;
  int retries = 0;                        // attempts after the first one caused by errors
  int parameter_fixups = 0;               // resent after the server rejected a parameter
  std::chrono::milliseconds elapsed{0};   // whole call
  std::chrono::milliseconds backoff_wait{0};
  std::chrono::milliseconds rate_limit_wait{0};
  std::optional<std::chrono::milliseconds> time_to_first_token;  // streaming, last attempt
  std::vector<AttemptRecord> attempt_log;
};

// The outcome of one chat call: a response or an error, and in both cases the
// statistics and the usage of every attempt (failed streams are billed too).
struct ChatOutcome {
  std::optional<ChatResponse> response;
  std::optional<CallError> error;
  CallStats stats;
  Usage usage;                      // summed over attempts that reported usage
  std::optional<double> cost_usd;   // for `usage`; empty when the model has no price

  bool ok() const { return response.has_value(); }
  kgb::Result<ChatResponse> into_result() &&;
};

// Incremental output while streaming. On a retry after partial output the
// client emits Restart: whatever the caller accumulated is void.
struct StreamDelta {
  enum class Kind { Text, Reasoning, ToolCall, Restart };
  Kind kind = Kind::Text;
  std::string_view text;     // Text, Reasoning: the new piece; ToolCall: argument piece
  int tool_index = 0;        // ToolCall
  std::string_view tool_id;  // ToolCall: set on the first piece of a call
  std::string_view tool_name;

  static StreamDelta of(Kind kind, std::string_view text = {}) {
    StreamDelta d;
    d.kind = kind;
    d.text = text;
    return d;
  }
};

}  // namespace kgb::llm
