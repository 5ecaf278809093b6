// When to try a failed call again and how long to wait first.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

#include "kgb/llm/types.h"

namespace kgb::llm {

using namespace std::chrono_literals;

struct RetryPolicy {
  int max_retries = 4;                         // attempts after the first
  std::chrono::milliseconds initial_backoff = 500ms;
  double multiplier = 2.0;
  std::chrono::milliseconds max_backoff = 30s;
  double jitter = 0.5;                         // the wait is scaled by 1 - jitter * U[0,1)
  std::chrono::milliseconds max_retry_after = 60s;  // cap on what a server may ask for
  bool retry_truncated = true;                 // a cut stream is a network failure
  bool retry_mid_stream = true;                // only for server-side error types
  uint64_t seed = 0;                           // 0: seeded from the clock
};

// The server's requested wait: `retry-after-ms` (milliseconds) first, then
// `retry-after` as delta-seconds or an HTTP-date relative to `now`. A date in
// the past gives 0. Empty when neither header is usable.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view retry_after_ms, std::string_view retry_after,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// Parses an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850
// and asctime forms too.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text);
std::string format_http_date(std::chrono::system_clock::time_point when);

// Whether an HTTP status is worth another attempt (before looking at the body).
bool retryable_status(int status);

class Backoff {
 public:
  explicit Backoff(const RetryPolicy& policy);
  // Wait before retry number `retry` (1-based): the server's request if any
  // (capped), else exponential backoff with jitter.
  std::chrono::milliseconds delay(int retry, const std::optional<std::chrono::milliseconds>& server_asked);

 private:
  RetryPolicy policy_;
  std::mt19937_64 rng_;
};

}  // namespace kgb::llm
