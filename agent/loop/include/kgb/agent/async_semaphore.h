// A counting semaphore for coroutines on one executor: FIFO waiters, and
// cancel_all() for a clean stop. Not thread-safe: use it from the executor's
// thread only (the loop, and the MCP server, run all of their coroutines on
// one I/O thread).
#pragma once

#include <chrono>
#include <deque>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace kgb::agent {

class AsyncSemaphore {
 public:
  AsyncSemaphore(boost::asio::any_io_executor executor, int count) : executor_(std::move(executor)), available_(count) {}

  // True when a unit was granted; false when cancel_all() woke the waiter.
  boost::asio::awaitable<bool> acquire() {
    if (cancelled_) co_return false;
    if (available_ > 0 && waiters_.empty()) {
      --available_;
      co_return true;
    }
    auto waiter = std::make_shared<Waiter>(executor_);
    waiters_.push_back(waiter);
    co_await waiter->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    co_return waiter->granted;
  }

  void release() {
    while (!waiters_.empty()) {
      auto w = waiters_.front();
      waiters_.pop_front();
      if (w->done) continue;
      w->granted = true;
      w->done = true;
      w->timer.cancel();
      return;
    }
    ++available_;
  }

  void cancel_all() {
    cancelled_ = true;
    for (auto& w : waiters_) {
      w->done = true;
      w->timer.cancel();
    }
    waiters_.clear();
  }

  int available() const { return available_; }
  int waiting() const { return static_cast<int>(waiters_.size()); }

 private:
  struct Waiter {
    explicit Waiter(const boost::asio::any_io_executor& ex) : timer(ex, std::chrono::steady_clock::time_point::max()) {}
    boost::asio::steady_timer timer;
    bool granted = false;
    bool done = false;
  };
  boost::asio::any_io_executor executor_;
  int available_;
  bool cancelled_ = false;
  std::deque<std::shared_ptr<Waiter>> waiters_;
};

// Holds a unit until destroyed.
class SemaphoreUnit {
 public:
  SemaphoreUnit() = default;
  explicit SemaphoreUnit(AsyncSemaphore* s) : s_(s) {}
  SemaphoreUnit(SemaphoreUnit&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  SemaphoreUnit& operator=(SemaphoreUnit&& o) noexcept {
    if (this != &o) {
      reset();
      s_ = o.s_;
      o.s_ = nullptr;
    }
    return *this;
  }
  ~SemaphoreUnit() { reset(); }
  void reset() {
    if (s_) s_->release();
    s_ = nullptr;
  }

 private:
  AsyncSemaphore* s_ = nullptr;
};

}  // namespace kgb::agent
