// API keys: read from environment variables only, held apart from
// configuration, and scrubbed from any text that could reach a log, an error
// message or the run store.
#pragma once

#include <string>
#include <string_view>

#include "kgb/result.h"

namespace kgb::llm {

class ApiKey {
 public:
  ApiKey() = default;
  // Empty `variable`: no key. A required key whose variable is unset or empty
  // is an error naming the variable (never a value).
  static kgb::Result<ApiKey> from_environment(std::string_view variable, bool required);
  static ApiKey literal(std::string value);  // tests and programmatic set-ups

  bool empty() const { return value_.empty(); }
  std::string_view reveal() const { return value_; }  // only for the auth header
  std::string redact(std::string text) const;

 private:
  std::string value_;
};

// Replaces `secret` and anything shaped like a provider key ("sk-…", "Bearer …")
// by "[redacted]".
std::string redact_secrets(std::string text, std::string_view secret = {});

}  // namespace kgb::llm
