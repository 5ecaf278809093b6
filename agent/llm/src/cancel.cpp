#include "kgb/llm/cancel.h"

#include <mutex>
#include <utility>
#include <vector>

namespace kgb::llm {

struct CancelToken::State {
  std::mutex mutex;
  bool cancelled = false;
  uint64_t next_handle = 1;
  std::vector<std::pair<uint64_t, std::function<void()>>> actions;
};

CancelToken::CancelToken() : state_(std::make_shared<State>()) {}

void CancelToken::cancel() {
  std::vector<std::pair<uint64_t, std::function<void()>>> actions;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->cancelled) return;
    state_->cancelled = true;
    actions.swap(state_->actions);
  }
  // Run outside the lock: an action may post work that calls remove().
  for (auto& [handle, action] : actions) action();
}

bool CancelToken::cancelled() const {
  std::lock_guard lock(state_->mutex);
  return state_->cancelled;
}

uint64_t CancelToken::on_cancel(std::function<void()> action) const {
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->cancelled) {
      const uint64_t handle = state_->next_handle++;
      state_->actions.emplace_back(handle, std::move(action));
      return handle;
    }
  }
  action();
  return 0;
}

void CancelToken::remove(uint64_t handle) const {
  std::lock_guard lock(state_->mutex);
  std::erase_if(state_->actions, [&](const auto& entry) { return entry.first == handle; });
}

}  // namespace kgb::llm
