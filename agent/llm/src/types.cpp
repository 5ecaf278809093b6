#include "kgb/llm/types.h"

namespace kgb::llm {

std::string_view to_string(Role role) {
  switch (role) {
    case Role::System: return "system";
    case Role::User: return "user";
    case Role::Assistant: return "assistant";
    case Role::Tool: return "tool";
  }
  return "user";
}

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Config: return "config";
    case ErrorKind::Network: return "network";
    case ErrorKind::Timeout: return "timeout";
    case ErrorKind::Deadline: return "deadline";
    case ErrorKind::Tls: return "tls";
    case ErrorKind::Proxy: return "proxy";
    case ErrorKind::HttpStatus: return "http-status";
    case ErrorKind::Quota: return "quota";
    case ErrorKind::MidStream: return "mid-stream";
    case ErrorKind::Truncated: return "truncated";
    case ErrorKind::Malformed: return "malformed";
    case ErrorKind::BodyTooLarge: return "body-too-large";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::RateLimited: return "rate-limited";
  }
  return "unknown";
}

Usage& Usage::operator+=(const Usage& other) {
  input_tokens += other.input_tokens;
  cached_input_tokens += other.cached_input_tokens;
  cache_write_tokens += other.cache_write_tokens;
  output_tokens += other.output_tokens;
  reasoning_tokens += other.reasoning_tokens;
  reported = reported || other.reported;
  estimated = estimated || other.estimated;
  return *this;
}

std::string_view ChatResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return value;
  return {};
}

kgb::Error CallError::to_error() const {
  std::string text = message;
  if (http_status) text = "HTTP " + std::to_string(http_status) + (text.empty() ? "" : ": " + text);
  if (!provider_type.empty()) text += " [" + provider_type + "]";
  return kgb::Error{"llm." + std::string(to_string(kind)), std::move(text)};
}

kgb::Result<ChatResponse> ChatOutcome::into_result() && {
  if (response) return std::move(*response);
  if (error) return error->to_error();
  return kgb::Error{"llm.internal", "call ended with neither a response nor an error"};
}

}  // namespace kgb::llm
