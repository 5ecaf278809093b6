#include "kgb/llm/rate_limiter.h"

#include <algorithm>
#include <list>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace kgb::llm {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct RateLimiter::Impl {
  Impl(asio::any_io_executor ex, RateLimits l) : executor(std::move(ex)), limits(l) {
    request_capacity = limits.request_burst > 0 ? limits.request_burst
                                                : std::max(1.0, limits.requests_per_minute / 60.0);
    request_tokens = request_capacity;
    token_capacity = limits.tokens_per_minute;
    token_level = token_capacity;
    last_refill = Clock::now();
  }

  void refill() {
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last_refill).count();
    last_refill = now;
    if (limits.requests_per_minute > 0)
      request_tokens = std::min(request_capacity, request_tokens + seconds * limits.requests_per_minute / 60.0);
    if (limits.tokens_per_minute > 0)
      token_level = std::min(token_capacity, token_level + seconds * limits.tokens_per_minute / 60.0);
  }

  // How long until a call needing `tokens` could start; zero when it can now.
  Clock::duration wait_for(int64_t tokens) const {
    Clock::duration wait = Clock::duration::zero();
    const auto now = Clock::now();
    if (paused_until > now) wait = paused_until - now;
    auto seconds_to = [](double missing, double per_minute) {
      return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(missing * 60.0 / per_minute));
    };
    if (limits.requests_per_minute > 0 && request_tokens < 1.0)
      wait = std::max(wait, seconds_to(1.0 - request_tokens, limits.requests_per_minute));
    if (limits.tokens_per_minute > 0) {
      // A call larger than the whole bucket waits for a full bucket, never forever.
      const double need = std::min(static_cast<double>(tokens), token_capacity);
      if (token_level < need) wait = std::max(wait, seconds_to(need - token_level, limits.tokens_per_minute));
    }
    return wait;
  }

  bool slot_free() const { return limits.max_concurrent <= 0 || in_flight < limits.max_concurrent; }

  void release_slot() {
    --in_flight;
    wake_one();
  }

  void wake_one() {
    // Pop while waking, so that a second release wakes a second waiter.
    if (waiters.empty()) return;
    auto timer = std::move(waiters.front());
    waiters.pop_front();
    timer->cancel();
  }

  asio::any_io_executor executor;
  RateLimits limits;
  double request_capacity = 1, request_tokens = 1;
  double token_capacity = 0, token_level = 0;
  Clock::time_point last_refill;
  Clock::time_point paused_until{};
  int in_flight = 0;
  std::list<std::shared_ptr<asio::steady_timer>> waiters;  // blocked on the concurrency cap
};

struct RateLimiter::Permit::State {
  std::shared_ptr<RateLimiter::Impl> limiter;
  int64_t reserved_tokens = 0;
  bool settled = false;
  // An unsettled permit keeps its reservation charged: errs on the safe side.
  ~State() { limiter->release_slot(); }
};

RateLimiter::Permit::Permit(Permit&&) noexcept = default;
RateLimiter::Permit& RateLimiter::Permit::operator=(Permit&&) noexcept = default;
RateLimiter::Permit::~Permit() = default;

void RateLimiter::Permit::settle(int64_t actual_tokens) {
  if (!state_ || state_->settled) return;
  state_->settled = true;
  auto& impl = *state_->limiter;
  if (impl.limits.tokens_per_minute <= 0) return;
  impl.refill();
  impl.token_level = std::min(impl.token_capacity,
                              impl.token_level + static_cast<double>(state_->reserved_tokens - actual_tokens));
}

RateLimiter::RateLimiter(asio::any_io_executor strand, RateLimits limits)
    : impl_(std::make_shared<Impl>(std::move(strand), limits)) {}

RateLimiter::~RateLimiter() = default;

int RateLimiter::in_flight() const { return impl_->in_flight; }

void RateLimiter::pause_until(Clock::time_point when) {
  impl_->paused_until = std::max(impl_->paused_until, when);
}

asio::awaitable<RateLimiter::Admission> RateLimiter::acquire(int64_t estimated_tokens, Clock::time_point deadline,
                                                             const std::optional<CancelToken>& cancel) {
  Admission out;
  const auto start = Clock::now();
  auto impl = impl_;
  struct Waiter {
    std::shared_ptr<asio::steady_timer> timer;
    bool cancelled = false;
  };
  auto waiter = std::make_shared<Waiter>();
  waiter->timer = std::make_shared<asio::steady_timer>(impl->executor);
  uint64_t handle = 0;
  if (cancel) {
    handle = cancel->on_cancel([waiter, executor = impl->executor] {
      asio::post(executor, [waiter] {
        waiter->cancelled = true;
        waiter->timer->cancel();
      });
    });
  }
  struct Unregister {
    const std::optional<CancelToken>& token;
    uint64_t handle;
    ~Unregister() {
      if (token && handle) token->remove(handle);
    }
  } unregister{cancel, handle};

  while (true) {
    if (waiter->cancelled) {
      out.cancelled = true;
      break;
    }
    impl->refill();
    const auto wait = impl->wait_for(estimated_tokens);
    const bool slot = impl->slot_free();
    if (wait == Clock::duration::zero() && slot) {
      ++impl->in_flight;
      if (impl->limits.requests_per_minute > 0) impl->request_tokens -= 1.0;
      if (impl->limits.tokens_per_minute > 0) impl->token_level -= static_cast<double>(estimated_tokens);
      out.permit.state_ = std::make_shared<Permit::State>();
      out.permit.state_->limiter = impl;
      out.permit.state_->reserved_tokens = estimated_tokens;
      break;
    }
    const auto now = Clock::now();
    if (now + wait >= deadline) {
      out.deadline_passed = true;
      break;
    }
    // Blocked on the cap: sleep until a release wakes us (or the deadline);
    // blocked on a bucket: sleep until it has refilled enough.
    Clock::time_point wake = wait > Clock::duration::zero() ? now + wait : deadline;
    if (wake > deadline) wake = deadline;
    waiter->timer->expires_at(wake);
    if (!slot) impl->waiters.push_back(waiter->timer);
    co_await waiter->timer->async_wait(asio::as_tuple(asio::use_awaitable));
    impl->waiters.remove(waiter->timer);
  }
  // A release may have woken this waiter just before it gave up: pass it on.
  if (!out.permit && impl->slot_free()) impl->wake_one();
  out.waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  co_return out;
}

}  // namespace kgb::llm
