// A thread-safe map of shared values bounded by their total size in bytes,
// evicting the least recently used first. The reference cache (evaluator.h)
// and the build cache (compile_cache.h) are two of these.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace kgb {

template <typename Value>
class ByteBoundedCache {
 public:
  struct Stats {
    uint64_t hits = 0, misses = 0, bytes = 0;
    size_t entries = 0;
  };

  explicit ByteBoundedCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  std::shared_ptr<const Value> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(key);
    if (it == slots_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    it->second.last_use = ++clock_;
    return it->second.value;
  }

  // A value larger than the whole budget, or a key already held, is not kept.
  void insert(const std::string& key, std::shared_ptr<const Value> value, uint64_t bytes) {
    std::lock_guard lock(mutex_);
    if (bytes > max_bytes_ || slots_.count(key)) return;
    while (held_bytes_ + bytes > max_bytes_ && !slots_.empty()) {
      auto oldest = std::min_element(slots_.begin(), slots_.end(),
                                     [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
      held_bytes_ -= oldest->second.bytes;
      slots_.erase(oldest);
    }
    slots_[key] = Slot{std::move(value), bytes, ++clock_};
    held_bytes_ += bytes;
  }

  Stats stats() const {
    std::lock_guard lock(mutex_);
    return Stats{hits_, misses_, held_bytes_, slots_.size()};
  }

 private:
  struct Slot {
    std::shared_ptr<const Value> value;
    uint64_t bytes = 0, last_use = 0;
  };
  uint64_t max_bytes_;
  mutable std::mutex mutex_;
  std::map<std::string, Slot> slots_;
  uint64_t held_bytes_ = 0, clock_ = 0, hits_ = 0, misses_ = 0;
};

}  // namespace kgb
