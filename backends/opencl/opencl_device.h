// An OpenCL device as a runner device: one context and one in-order queue
// with profiling, buffers behind inaccessible placeholder addresses (with
// canary guards around every storage), device time from the profiling events
// of the commands a call enqueued, host time until clFinish.
#pragma once

#include <string>

#include "kgb_runner_device.h"
#include "opencl_runtime.h"

namespace kgb::runner {

class OpenClDevice final : public Device {
 public:
  OpenClDevice();
  ~OpenClDevice() override;
  OpenClDevice(const OpenClDevice&) = delete;
  OpenClDevice& operator=(const OpenClDevice&) = delete;

  // Empty when the device is ready; otherwise why it is not.
  const std::string& init_error() const { return init_error_; }

  std::string backend() const override { return "opencl"; }
  std::string describe() const override { return description_; }
  void* allocate(size_t bytes) override;
  void release(void* p) override;
  void upload(void* device_dst, const void* host_src, size_t bytes) override;
  void download(void* host_dst, const void* device_src, size_t bytes) override;
  void copy(void* device_dst, const void* device_src, size_t bytes) override;
  void fill(void* device_dst, uint8_t byte, size_t bytes) override;
  kgb_stream stream() override { return &context_; }
  void synchronize() override;
  void flush_cache(int64_t bytes) override;
  double timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status,
                    double& host_us) override;
  std::string sticky_error() override;
  int64_t take_launch_count() override;
  int64_t take_copy_count() override;
  // OpenCL kernels take a list as one buffer and an offsets buffer
  // (kgb_cl_tensor_list_buffers), never an array of pointers.
  void* make_pointer_array(void* const*, size_t) override { return nullptr; }

 private:
  bool locate(const void* p, opencl::Allocation& a, size_t& offset, const char* what);
  void fail(const std::string& message);
  void check_guards();

  kgb_cl_context context_;
  opencl::BufferTable buffers_;
  std::string description_;
  std::string init_error_;
  std::string sticky_;
  int64_t next_serial_ = 0;
  cl_mem flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  uint8_t flush_round_ = 0;
};

}  // namespace kgb::runner
