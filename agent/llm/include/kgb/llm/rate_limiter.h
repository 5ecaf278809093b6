// Client-side rate limiting for one provider: requests per minute and tokens
// per minute as token buckets, and a cap on calls in flight. Waiting is
// asynchronous, bounded by the call's deadline and cancellable.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "kgb/llm/cancel.h"

namespace kgb::llm {

struct RateLimits {
  double requests_per_minute = 0;  // 0: unlimited
  double tokens_per_minute = 0;    // 0: unlimited (prompt estimate + max output, settled on usage)
  int max_concurrent = 0;          // 0: unlimited
  // Requests allowed back to back; 0: a second's share of requests_per_minute
  // (so 600/min means at most 10 at once, then one every 100 ms).
  double request_burst = 0;
};

class RateLimiter {
 public:
  // All calls must come from `strand` (the owning client's strand).
  RateLimiter(boost::asio::any_io_executor strand, RateLimits limits);
  ~RateLimiter();

  class Permit {
   public:
    Permit() = default;
    Permit(Permit&&) noexcept;
    Permit& operator=(Permit&&) noexcept;
    ~Permit();
    // Replaces the reserved token estimate by the tokens actually used.
    void settle(int64_t actual_tokens);
    explicit operator bool() const { return static_cast<bool>(state_); }

   private:
    friend class RateLimiter;
    struct State;
    std::shared_ptr<State> state_;
  };

  struct Admission {
    Permit permit;          // empty when not admitted
    std::chrono::milliseconds waited{0};
    bool cancelled = false;
    bool deadline_passed = false;
  };
  boost::asio::awaitable<Admission> acquire(int64_t estimated_tokens, std::chrono::steady_clock::time_point deadline,
                                            const std::optional<CancelToken>& cancel);

  // Holds new admissions until `when` (a server's retry-after on a 429).
  void pause_until(std::chrono::steady_clock::time_point when);
  int in_flight() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace kgb::llm
