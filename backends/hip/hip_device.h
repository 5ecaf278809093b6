// An AMD GPU as a runner device through the HIP runtime: device memory, a
// harness-owned non-blocking stream, HIP events for timing, an L2 flush, launch
// counting by interposing the HIP launch calls, and error checking after every
// HIP call (the first failure is sticky: the runner ends the job and exits).
// Mirrors the CUDA runner; it runs wherever an AMD GPU and ROCm are present.
#pragma once

#include <hip/hip_runtime_api.h>

#include <string>

#include "kgb_runner_device.h"

namespace kgb::runner::hip {

class HipDevice final : public Device {
 public:
  HipDevice();
  ~HipDevice() override;
  HipDevice(const HipDevice&) = delete;
  HipDevice& operator=(const HipDevice&) = delete;

  std::string backend() const override { return "hip"; }
  std::string describe() const override;
  void* allocate(size_t bytes) override;
  void release(void* p) override;
  void* allocate_host(size_t bytes) override;  // pinned (hipHostMalloc)
  void release_host(void* p) override;
  void upload(void* device_dst, const void* host_src, size_t bytes) override;
  void download(void* host_dst, const void* device_src, size_t bytes) override;
  void copy(void* device_dst, const void* device_src, size_t bytes) override;
  void fill(void* device_dst, uint8_t byte, size_t bytes) override;
  kgb_stream stream() override { return static_cast<kgb_stream>(stream_); }
  void synchronize() override;
  void flush_cache(int64_t bytes) override;
  double timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status,
                    double& host_us) override;
  std::string sticky_error() override { return error_; }
  int64_t take_launch_count() override;

 private:
  bool check(hipError_t result, const char* what);
  void ensure_flush_buffer(size_t bytes);

  int ordinal_ = 0;
  hipStream_t stream_ = nullptr;
  hipEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  size_t l2_bytes_ = 0;
  unsigned char flush_round_ = 0;
  std::string error_;
  std::string description_;
};

// Kernel launches through hipLaunchKernel / hipExtLaunchKernel /
// hipLaunchCooperativeKernel since the previous call (interposers in
// launch_interposers.cpp; `<<<>>>` and hipLaunchKernelGGL end up there).
int64_t take_interposed_launches();

}  // namespace kgb::runner::hip
