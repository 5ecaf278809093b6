#include "kgb/llm/secrets.h"

#include <cctype>
#include <cstdlib>

namespace kgb::llm {
namespace {

bool key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

void replace_all(std::string& text, std::string_view what, std::string_view with) {
  if (what.empty()) return;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + with.size()))
    text.replace(pos, what.size(), with);
}

// Replaces the run of key characters after each `marker` (at least
// `min_length` long) by the redaction mark.
void redact_after(std::string& text, std::string_view marker, std::size_t min_length, bool keep_marker) {
  for (std::size_t pos = text.find(marker); pos != std::string::npos; pos = text.find(marker, pos + 1)) {
    std::size_t end = pos + marker.size();
    while (end < text.size() && key_char(text[end])) ++end;
    if (end - pos - marker.size() < min_length) continue;
    const std::size_t from = keep_marker ? pos + marker.size() : pos;
    text.replace(from, end - from, "[redacted]");
  }
}

}  // namespace

kgb::Result<ApiKey> ApiKey::from_environment(std::string_view variable, bool required) {
  ApiKey key;
  if (variable.empty()) return key;
  const std::string name(variable);
  if (const char* value = std::getenv(name.c_str()); value && *value) {
    key.value_ = value;
    while (!key.value_.empty() && std::isspace(static_cast<unsigned char>(key.value_.back()))) key.value_.pop_back();
  }
  if (key.value_.empty() && required)
    return make_error("llm.api-key", "the environment variable " + name + " holding the API key is not set");
  return key;
}

ApiKey ApiKey::literal(std::string value) {
  ApiKey key;
  key.value_ = std::move(value);
  return key;
}

std::string ApiKey::redact(std::string text) const { return redact_secrets(std::move(text), value_); }

std::string redact_secrets(std::string text, std::string_view secret) {
  if (secret.size() >= 4) replace_all(text, secret, "[redacted]");
  redact_after(text, "sk-", 12, false);
  redact_after(text, "Bearer ", 8, true);
  return text;
}

}  // namespace kgb::llm
