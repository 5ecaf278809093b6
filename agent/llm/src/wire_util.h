// Private helpers for reading provider JSON defensively: a missing field or a
// field of the wrong type reads as empty, never as an exception.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kgb/llm/provider.h"

namespace kgb::llm::wire {

using json = nlohmann::json;

// A token count as a server reports it, made safe to add up: a negative count
// (or one past INT64_MAX, which arrives wrapped) reads as 0, and none exceeds
// 2^50, so sums over the fields of one answer and over calls cannot overflow.
inline int64_t token_count(int64_t reported) { return std::clamp<int64_t>(reported, 0, int64_t{1} << 50); }

inline Usage token_counts(Usage u) {
  for (int64_t* count : {&u.input_tokens, &u.cached_input_tokens, &u.cache_write_tokens, &u.output_tokens, &u.reasoning_tokens})
    *count = token_count(*count);
  return u;
}

inline const json* field(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

inline std::string text(const json& object, std::string_view key) {
  const json* value = field(object, key);
  if (!value) return {};
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number_integer()) return std::to_string(value->get<int64_t>());
  return {};
}

inline int64_t integer(const json& object, std::string_view key) {
  const json* value = field(object, key);
  if (!value || !value->is_number()) return 0;
  if (value->is_number_float()) {
    // 1e300 or nan as an integer: converting it would be undefined; the
    // nearest representable count (0 for nan) is what the caller clamps.
    const double d = value->get<double>();
    if (std::isnan(d)) return 0;
    if (d >= 9.2e18) return INT64_MAX;
    if (d <= -9.2e18) return INT64_MIN;
    return static_cast<int64_t>(d);
  }
  if (value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return INT64_MAX;
  return value->get<int64_t>();
}

inline bool has_integer(const json& object, std::string_view key) {
  const json* value = field(object, key);
  return value && value->is_number();
}

inline bool boolean(const json& object, std::string_view key) {
  const json* value = field(object, key);
  return value && value->is_boolean() && value->get<bool>();
}

// Merges `extra` into `body` at the top level; a null value removes the key.
inline void merge_extra(json& body, const json& extra) {
  if (!extra.is_object()) return;
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    if (it.value().is_null()) body.erase(it.key());
    else body[it.key()] = it.value();
  }
}

// A short, printable excerpt of a body for error messages.
std::string excerpt(std::string_view body, std::size_t limit = 300);

CallError malformed(std::string message);
CallError mid_stream_error(const json& error_object, std::string_view fallback_type);
std::string normalise_finish_reason(std::string_view raw);

}  // namespace kgb::llm::wire

namespace kgb::llm {
std::unique_ptr<ProviderApi> make_openai_api(const ProviderConfig& config);
std::unique_ptr<ProviderApi> make_anthropic_api(const ProviderConfig& config);
}  // namespace kgb::llm
