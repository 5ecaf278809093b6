// An NVIDIA GPU as a runner device: device memory, a harness-owned stream,
// CUDA events for timing, an L2 flush, CUPTI launch counting, and error
// checking after every CUDA call. The first failing call is remembered and
// returned by sticky_error(), which makes the runner end the job and exit, so
// the next evaluation starts in a fresh process.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kgb_runner_device.h"
#include "launch_counter.h"

namespace kgb::runner::cuda {

struct CudaDeviceOptions {
  bool count_launches = true;  // CUPTI launch counting (off under ncu / compute-sanitizer)
  bool hold_stream = true;     // hold the stream while a timed call is enqueued (see timed_call)
};

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(CudaDeviceOptions options = {});
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  std::string backend() const override { return "cuda"; }
  std::string describe() const override;
  void* allocate(size_t bytes) override;
  void release(void* p) override;
  void* allocate_host(size_t bytes) override;  // pinned (cudaMallocHost)
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
  int64_t take_library_launch_count() override { return last_library_launches_; }
  // Counted with the launches (take_launch_count); runtime and driver memcpy/memset.
  int64_t take_copy_count() override { return counter_.active() ? last_copies_ : -1; }

  int ordinal() const { return ordinal_; }

 private:
  // Records the first failure; returns whether the call succeeded.
  bool check(cudaError_t result, const char* what);
  void ensure_flush_buffer(size_t bytes);

  CudaDeviceOptions options_;
  int ordinal_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  size_t l2_bytes_ = 0;
  int sm_count_ = 0;
  bool persisting_l2_ = false;
  volatile int* hold_flags_ = nullptr;  // [0] release, [1] timed out; host-mapped
  bool hold_enabled_ = false;
  std::string error_;
  std::string description_;
  LaunchCounter counter_;
  int64_t last_library_launches_ = -1;
  int64_t last_copies_ = -1;
};

}  // namespace kgb::runner::cuda
