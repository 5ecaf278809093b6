#include <algorithm>
#include <cctype>

#include "kgb/llm/provider.h"
#include "wire_util.h"

namespace kgb::llm {

namespace wire {

std::string excerpt(std::string_view body, std::size_t limit) {
  std::string out;
  for (char c : body.substr(0, limit)) out += (std::isprint(static_cast<unsigned char>(c)) || c == ' ') ? c : ' ';
  if (body.size() > limit) out += "...";
  return out;
}

CallError malformed(std::string message) {
  CallError error;
  error.kind = ErrorKind::Malformed;
  error.message = std::move(message);
  error.retryable = false;
  return error;
}

CallError mid_stream_error(const json& error_object, std::string_view fallback_type) {
  CallError error;
  error.kind = ErrorKind::MidStream;
  error.http_status = 200;
  if (error_object.is_object()) {
    error.provider_type = text(error_object, "type");
    error.provider_code = text(error_object, "code");
    error.message = text(error_object, "message");
  } else if (error_object.is_string()) {
    error.message = error_object.get<std::string>();
  }
  if (error.provider_type.empty()) error.provider_type = error.provider_code.empty() ? std::string(fallback_type) : error.provider_code;
  if (error.message.empty()) error.message = "the server reported an error inside the response";
  error.retryable = retryable_error_type(error.provider_type);
  return error;
}

std::string normalise_finish_reason(std::string_view raw) {
  if (raw == "stop" || raw == "end_turn" || raw == "stop_sequence") return "stop";
  if (raw == "length" || raw == "max_tokens") return "length";
  if (raw == "tool_calls" || raw == "function_call" || raw == "tool_use") return "tool_calls";
  if (raw == "content_filter" || raw == "refusal") return "content_filter";
  return std::string(raw);
}

}  // namespace wire

std::string_view to_string(ApiKind kind) { return kind == ApiKind::Anthropic ? "anthropic" : "openai"; }

ModelQuirks default_quirks(ApiKind api, std::string_view model) {
  ModelQuirks quirks;
  if (api != ApiKind::OpenAI) return quirks;
  if (auto slash = model.rfind('/'); slash != std::string_view::npos) model = model.substr(slash + 1);
  // OpenAI reasoning families: fixed sampling temperature, and the output cap is
  // max_completion_tokens (max_tokens is rejected).
  for (std::string_view family : {"o1", "o3", "o4", "gpt-5"}) {
    if (model.starts_with(family) && (model.size() == family.size() || model[family.size()] == '-')) {
      quirks.temperature_supported = false;
      quirks.max_completion_tokens = true;
    }
  }
  return quirks;
}

std::vector<std::string> provider_preset_names() {
  return {"openai", "anthropic", "deepseek", "openrouter", "ollama", "vllm", "llamacpp", "oracle", "oracle-anthropic"};
}

kgb::Result<ProviderConfig> provider_preset(std::string_view name) {
  ProviderConfig config;
  config.name = std::string(name);
  auto openai_compatible = [&](std::string url, std::string key_env, bool required) {
    config.api = ApiKind::OpenAI;
    config.base_url = std::move(url);
    config.api_key_env = std::move(key_env);
    config.api_key_required = required;
  };
  if (name == "openai") {
    openai_compatible("https://api.openai.com/v1", "OPENAI_API_KEY", true);
  } else if (name == "anthropic") {
    config.api = ApiKind::Anthropic;
    config.base_url = "https://api.anthropic.com/v1";
    config.api_key_env = "ANTHROPIC_API_KEY";
  } else if (name == "deepseek") {
    openai_compatible("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", true);
  } else if (name == "openrouter") {
    openai_compatible("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", true);
  } else if (name == "ollama") {
    openai_compatible("http://localhost:11434/v1", "OLLAMA_API_KEY", false);
  } else if (name == "vllm") {
    openai_compatible("http://localhost:8000/v1", "VLLM_API_KEY", false);
  } else if (name == "llamacpp") {
    openai_compatible("http://localhost:8080/v1", "LLAMA_API_KEY", false);
  } else if (name == "oracle") {
    openai_compatible("http://127.0.0.1:8765/v1", "", false);
  } else if (name == "oracle-anthropic") {
    config.api = ApiKind::Anthropic;
    config.base_url = "http://127.0.0.1:8765/v1";
    config.api_key_required = false;
  } else {
    std::string known;
    for (const auto& n : provider_preset_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error("llm.provider", "unknown provider '" + std::string(name) + "' (known: " + known + ")");
  }
  return config;
}

void use_base_url(ProviderConfig& config, std::string base_url) {
  auto trimmed = [](std::string url) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    return url;
  };
  if (trimmed(base_url) != trimmed(config.base_url)) config.api_key_required = false;
  config.base_url = std::move(base_url);
}

kgb::Status add_extra_field(nlohmann::json& extra, std::string_view field) {
  const auto eq = field.find('=');
  const std::string name(field.substr(0, eq));
  if (eq == std::string_view::npos || name.empty() || name.front() == '.' || name.back() == '.' ||
      name.find("..") != std::string::npos)
    return make_error("llm.extra", "a request field is NAME=VALUE (e.g. top_k=40), got '" + std::string(field) + "'");
  const std::string text(field.substr(eq + 1));
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) value = text;  // a bare word is a string
  if (!extra.is_object()) extra = nlohmann::json::object();
  nlohmann::json* node = &extra;
  std::size_t start = 0;
  for (std::size_t dot = name.find('.'); dot != std::string::npos; start = dot + 1, dot = name.find('.', start)) {
    nlohmann::json& next = (*node)[name.substr(start, dot - start)];
    if (!next.is_object()) next = nlohmann::json::object();
    node = &next;
  }
  (*node)[name.substr(start)] = std::move(value);
  return Ok{};
}

CallError classify_http_error(int status, std::string provider_type, std::string provider_code, std::string message,
                              const HttpResponse& response) {
  CallError error;
  error.kind = ErrorKind::HttpStatus;
  error.http_status = status;
  error.provider_type = std::move(provider_type);
  error.provider_code = std::move(provider_code);
  error.message = std::move(message);
  error.retry_after = parse_retry_after(response.header("retry-after-ms"), response.header("retry-after"));
  // An empty account does not refill by waiting: a 429 "insufficient_quota"
  // must not be retried like a rate limit.
  auto is = [&](std::string_view what) { return error.provider_type == what || error.provider_code == what; };
  if (is("insufficient_quota") || is("billing_error") || is("billing_hard_limit_reached") || status == 402) {
    error.kind = ErrorKind::Quota;
    error.retryable = false;
    return error;
  }
  error.retryable = retryable_status(status);
  return error;
}

bool retryable_error_type(std::string_view type) {
  for (std::string_view final_type :
       {"invalid_request_error", "authentication_error", "permission_error", "not_found_error", "insufficient_quota",
        "billing_error", "request_too_large", "context_length_exceeded", "invalid_api_key"})
    if (type == final_type) return false;
  return true;
}

std::string rejected_parameter(const CallError& error) {
  if (error.kind != ErrorKind::HttpStatus || error.http_status != 400) return {};
  std::string message = error.message;
  std::transform(message.begin(), message.end(), message.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool unsupported = error.provider_code == "unsupported_parameter" || error.provider_code == "unsupported_value" ||
                           message.find("unsupported") != std::string::npos ||
                           message.find("not supported") != std::string::npos ||
                           message.find("does not support") != std::string::npos;
  if (!unsupported) return {};
  for (const char* param : {"temperature", "top_p"})
    if (message.find(param) != std::string::npos) return param;
  // "'max_tokens' is not supported ... use 'max_completion_tokens'": the message
  // names both, so look for the rejected one on its own.
  for (std::size_t pos = message.find("max_tokens"); pos != std::string::npos; pos = message.find("max_tokens", pos + 1)) {
    if (pos < 11 || message.compare(pos - 11, 11, "completion_") != 0) return "max_tokens";
  }
  return {};
}

int64_t estimate_text_tokens(std::string_view text) { return static_cast<int64_t>((text.size() + 3) / 4); }

int64_t estimate_prompt_tokens(const ChatRequest& request) {
  int64_t tokens = 8 + estimate_text_tokens(request.system);
  for (const Message& m : request.messages) {
    tokens += 4 + estimate_text_tokens(m.content) + estimate_text_tokens(m.reasoning);
    for (const ToolCall& call : m.tool_calls) tokens += 4 + estimate_text_tokens(call.name) + estimate_text_tokens(call.arguments);
  }
  for (const ToolSpec& tool : request.tools)
    tokens += estimate_text_tokens(tool.name) + estimate_text_tokens(tool.description) +
              estimate_text_tokens(tool.parameters.dump());
  return tokens;
}

int64_t estimate_reply_tokens(const ChatResponse& response) {
  int64_t tokens = estimate_text_tokens(response.text) + estimate_text_tokens(response.reasoning);
  for (const ToolCall& call : response.tool_calls) tokens += 4 + estimate_text_tokens(call.name) + estimate_text_tokens(call.arguments);
  return tokens;
}

}  // namespace kgb::llm

namespace kgb::llm {

std::unique_ptr<ProviderApi> make_provider_api(const ProviderConfig& config) {
  return config.api == ApiKind::Anthropic ? make_anthropic_api(config) : make_openai_api(config);
}

}  // namespace kgb::llm
