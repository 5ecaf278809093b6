// Cancellation a caller can trigger from any thread (a signal handler's
// io_context, a UI, a budget watchdog). Copies share one state. The client
// turns cancel() into closing the request's socket or waking its sleep on the
// client's own executor, so cancellation is prompt even in the middle of a
// slow stream. Inside coroutines Asio's own cancellation slots work as well.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace kgb::llm {

class CancelToken {
 public:
  CancelToken();

  void cancel();  // idempotent, thread-safe
  bool cancelled() const;

  // For the library: `action` runs once when cancel() is called (at once if
  // it already was), on the cancelling thread. Returns a handle for remove().
  uint64_t on_cancel(std::function<void()> action) const;
  void remove(uint64_t handle) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace kgb::llm
