// The host CPU as a runner device: plain memory, a steady_clock timer and a
// cache flush that streams through a buffer larger than the last-level cache.
#pragma once

#include <vector>

#include "kgb_runner_device.h"

namespace kgb::runner {

class CpuDevice final : public Device {
 public:
  std::string backend() const override { return "cpu"; }
  std::string describe() const override;
  void* allocate(size_t bytes) override;
  void release(void* p) override;
  void upload(void* dst, const void* src, size_t bytes) override;
  void download(void* dst, const void* src, size_t bytes) override;
  void copy(void* dst, const void* src, size_t bytes) override;
  void fill(void* dst, uint8_t byte, size_t bytes) override;
  kgb_stream stream() override { return nullptr; }
  void synchronize() override {}
  void flush_cache(int64_t bytes) override;
  void idle() override;
  double timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status,
                    double& host_us) override;

 private:
  std::vector<unsigned char> flush_buffer_;
};

}  // namespace kgb::runner
