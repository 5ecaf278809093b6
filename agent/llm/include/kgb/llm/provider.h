// Provider configuration and the wire formats of the two API families:
// OpenAI-compatible chat completions and Anthropic messages. The adapters are
// pure (no I/O) so they are tested byte for byte; LlmClient does the I/O.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kgb/llm/http_client.h"
#include "kgb/llm/rate_limiter.h"
#include "kgb/llm/retry.h"
#include "kgb/llm/sse.h"
#include "kgb/llm/types.h"

namespace kgb::llm {

enum class ApiKind { OpenAI, Anthropic };
std::string_view to_string(ApiKind kind);

// Per-model differences inside one API family.
struct ModelQuirks {
  bool temperature_supported = true;  // OpenAI reasoning models reject temperature/top_p
  bool max_completion_tokens = false; // send max_completion_tokens instead of max_tokens
};
// Built-in rules (o1/o3/o4/gpt-5 families on OpenAI); everything else default.
ModelQuirks default_quirks(ApiKind api, std::string_view model);

struct ProviderConfig {
  std::string name;                 // "openai", "anthropic", "oracle", ...
  ApiKind api = ApiKind::OpenAI;
  std::string base_url;             // up to and including the version: "https://api.openai.com/v1"
  std::string api_key_env;          // environment variable holding the key; empty: none
  bool api_key_required = true;     // false: send the key only when the variable is set
  std::string anthropic_version = "2023-06-01";
  std::vector<std::pair<std::string, std::string>> headers;  // extra, non-secret
  bool stream_usage = true;         // OpenAI: ask for usage in the stream (stream_options)
  std::optional<ModelQuirks> quirks;  // overrides default_quirks for every model
  int64_t default_max_output_tokens = 8192;  // Anthropic requires max_tokens
  RateLimits limits;
  RetryPolicy retry;
  HttpClientConfig http;
  std::chrono::milliseconds call_timeout = std::chrono::minutes(30);  // one call, retries included
};

// Named set-ups: openai, anthropic, deepseek, openrouter, ollama, vllm,
// llamacpp, oracle. Fields may be changed afterwards.
kgb::Result<ProviderConfig> provider_preset(std::string_view name);
std::vector<std::string> provider_preset_names();

// Points a preset at another server. A URL other than the preset's own makes
// the API key optional (sent when its variable is set): a local server needs
// none; when a server answers 401 or 403 to a call sent without a key, the
// error names the variable to set.
void use_base_url(ProviderConfig& config, std::string base_url);

// Adds one provider-specific request field, "NAME=VALUE", to `extra` (which
// ChatRequest::extra merges into the body last). VALUE is JSON when it parses
// as JSON ("40", "false", "{...}") and a string otherwise; a dotted NAME
// ("chat_template_kwargs.enable_thinking=false") builds nested objects.
kgb::Status add_extra_field(nlohmann::json& extra, std::string_view field);

// What goes on the wire for one attempt (authentication added by the client).
struct WireRequest {
  std::string path;  // appended to the base URL: "/chat/completions", "/messages"
  std::string body;
  std::vector<HttpHeader> headers;
};

// The parse of a complete answer. On failure `response` still carries
// whatever arrived (usage especially: a failed stream may be billed).
struct ParsedReply {
  ChatResponse response;
  std::optional<CallError> error;
};

using DeltaHandler = std::function<void(const StreamDelta&)>;

// Turns the SSE events of one streamed answer into a ChatResponse.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  // Returns false when reading must stop (an error event arrived).
  virtual bool on_event(const SseEvent& event, const DeltaHandler& emit) = 0;
  // `body_complete`: HTTP framing ended cleanly (else the transport cut it).
  virtual ParsedReply finish(bool body_complete) = 0;
  virtual bool produced_output() const = 0;
};

class ProviderApi {
 public:
  virtual ~ProviderApi() = default;
  virtual WireRequest build(const ChatRequest& request, const ModelQuirks& quirks) const = 0;
  virtual void add_auth(std::string_view api_key, std::vector<HttpHeader>& headers) const = 0;
  virtual ParsedReply parse_response(std::string_view body) const = 0;
  // A non-2xx answer: provider error type, message, retry rules, retry-after.
  virtual CallError parse_error(const HttpResponse& response) const = 0;
  virtual std::unique_ptr<StreamDecoder> stream_decoder() const = 0;
};

std::unique_ptr<ProviderApi> make_provider_api(const ProviderConfig& config);

// Shared classification: quota errors are final, 408/409/429/5xx retry.
CallError classify_http_error(int status, std::string provider_type, std::string provider_code, std::string message,
                              const HttpResponse& response);
// Whether an error a provider reports inside a stream is worth a retry.
bool retryable_error_type(std::string_view type);

// The parameter a 400 answer rejects, if it is one the client can adapt to
// ("temperature", "top_p", "max_tokens"); empty otherwise.
std::string rejected_parameter(const CallError& error);

// The client's token estimates, for budgets before a call and for calls whose
// server reports no usage. The approximation: one token per 4 bytes of UTF-8
// text, rounded up (the usual rule of thumb for BPE tokenizers such as
// cl100k/o200k on English; code tokenizes denser, about 3.3 bytes a token, so
// the estimate errs low on code by up to a fifth), plus 4 tokens per message
// and per tool call for the framing, and the JSON text of tool schemas.
int64_t estimate_text_tokens(std::string_view text);
int64_t estimate_prompt_tokens(const ChatRequest& request);
// Output tokens of a reply: text, reasoning, tool-call names and arguments.
int64_t estimate_reply_tokens(const ChatResponse& response);

}  // namespace kgb::llm
