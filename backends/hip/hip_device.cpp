#include "hip_device.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace kgb::runner::hip {
namespace {

int device_from_environment() {
  const char* v = std::getenv("KGB_HIP_DEVICE");
  if (!v || !*v) return 0;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  return (end && *end == '\0' && n >= 0 && n < 1024) ? static_cast<int>(n) : -1;
}

std::string error_text(hipError_t e) { return std::string(hipGetErrorString(e)) + " (" + hipGetErrorName(e) + ")"; }

}  // namespace

HipDevice::HipDevice() {
  ordinal_ = device_from_environment();
  if (ordinal_ < 0) {
    error_ = "KGB_HIP_DEVICE must be a device ordinal (0, 1, ...)";
    return;
  }
  int count = 0;
  hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess || count == 0) {
    error_ = "no usable HIP device: " + (e != hipSuccess ? error_text(e) : std::string("no device visible"));
    return;
  }
  if (ordinal_ >= count) {
    error_ = "KGB_HIP_DEVICE=" + std::to_string(ordinal_) + " but only " + std::to_string(count) + " HIP device(s) are visible";
    return;
  }
  if (!check(hipSetDevice(ordinal_), "hipSetDevice") || !check(hipFree(nullptr), "creating the HIP context")) return;
  // Non-blocking: work on the null stream or another stream is not ordered
  // with the harness stream, escapes the events and shows in the hybrid check.
  if (!check(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), "hipStreamCreateWithFlags")) return;
  if (!check(hipEventCreate(&start_), "hipEventCreate") || !check(hipEventCreate(&stop_), "hipEventCreate")) return;
  hipDeviceProp_t prop{};
  check(hipGetDeviceProperties(&prop, ordinal_), "hipGetDeviceProperties");
  l2_bytes_ = static_cast<size_t>(std::max(prop.l2CacheSize, 0));
  int driver = 0, runtime = 0;
  (void)hipDriverGetVersion(&driver);
  (void)hipRuntimeGetVersion(&runtime);
  char sizes[96];
  std::snprintf(sizes, sizeof sizes, "%.1f GiB, L2 %.1f MiB", static_cast<double>(prop.totalGlobalMem) / (1 << 30),
                static_cast<double>(l2_bytes_) / (1 << 20));
  description_ = std::string(prop.name) + " (" + prop.gcnArchName + ", device " + std::to_string(ordinal_) + ", " +
                 std::to_string(prop.multiProcessorCount) + " CUs, " + sizes + "), clock " +
                 std::to_string(prop.clockRate / 1000) + " MHz, driver " + std::to_string(driver) + ", runtime " +
                 std::to_string(runtime);
  check(hipDeviceSynchronize(), "initialising the device");
  take_interposed_launches();
}

HipDevice::~HipDevice() {
  // Teardown errors are irrelevant: the process is about to exit.
  if (flush_buffer_) (void)hipFree(flush_buffer_);
  if (start_) (void)hipEventDestroy(start_);
  if (stop_) (void)hipEventDestroy(stop_);
  if (stream_) (void)hipStreamDestroy(stream_);
}

bool HipDevice::check(hipError_t result, const char* what) {
  if (result == hipSuccess) return true;
  if (error_.empty()) error_ = std::string(what) + " failed: " + error_text(result);
  (void)hipGetLastError();  // clear a non-sticky error
  return false;
}

std::string HipDevice::describe() const { return description_.empty() ? "HIP device unavailable: " + error_ : description_; }

void* HipDevice::allocate(size_t bytes) {
  if (!error_.empty()) return nullptr;
  void* p = nullptr;
  hipError_t e = hipMalloc(&p, bytes);
  if (e == hipErrorOutOfMemory) {
    (void)hipGetLastError();  // reported by the caller, not sticky
    return nullptr;
  }
  return check(e, "hipMalloc") ? p : nullptr;
}

void HipDevice::release(void* p) {
  if (p) check(hipFree(p), "hipFree");
}

void* HipDevice::allocate_host(size_t bytes) {
  void* p = nullptr;
  hipError_t e = hipHostMalloc(&p, bytes, hipHostMallocDefault);
  if (e == hipErrorOutOfMemory) {
    (void)hipGetLastError();
    return nullptr;
  }
  return check(e, "hipHostMalloc") ? p : nullptr;
}

void HipDevice::release_host(void* p) {
  if (p) check(hipHostFree(p), "hipHostFree");
}

void HipDevice::upload(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  if (check(hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, stream_), "hipMemcpyAsync(upload)"))
    check(hipStreamSynchronize(stream_), "upload");
}

void HipDevice::download(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  if (check(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, stream_), "hipMemcpyAsync(download)"))
    check(hipStreamSynchronize(stream_), "download");
}

void HipDevice::copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  check(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, stream_), "hipMemcpyAsync(device to device)");
}

void HipDevice::fill(void* dst, uint8_t byte, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  check(hipMemsetAsync(dst, byte, bytes, stream_), "hipMemsetAsync(fill)");
}

void HipDevice::synchronize() {
  if (!error_.empty()) return;
  if (!check(hipDeviceSynchronize(), "the kernel (device synchronise after the call)")) return;
  check(hipGetLastError(), "a kernel launch of the candidate");
}

void HipDevice::ensure_flush_buffer(size_t bytes) {
  if (flush_bytes_ >= bytes && flush_buffer_) return;
  if (flush_buffer_) check(hipFree(flush_buffer_), "hipFree(flush buffer)");
  flush_buffer_ = nullptr;
  flush_bytes_ = 0;
  if (check(hipMalloc(&flush_buffer_, bytes), "hipMalloc(flush buffer)")) flush_bytes_ = bytes;
}

void HipDevice::flush_cache(int64_t bytes) {
  if (!error_.empty()) return;
  // Twice the L2, at least what the parent asked for (some runtimes report 0).
  size_t want = std::max<size_t>(2 * l2_bytes_, bytes > 0 ? static_cast<size_t>(bytes) : 0);
  if (want == 0) want = 64ull << 20;
  ensure_flush_buffer(want);
  if (!flush_buffer_) return;
  ++flush_round_;
  check(hipMemsetAsync(flush_buffer_, flush_round_, flush_bytes_, stream_), "hipMemsetAsync(L2 flush)");
}

double HipDevice::timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status,
                             double& host_us) {
  using Clock = std::chrono::steady_clock;
  status = 0;
  host_us = 0;
  if (!error_.empty() || !check(hipEventRecord(start_, stream_), "hipEventRecord(start)")) {
    status = -1;
    return 0;
  }
  auto t0 = Clock::now();
  status = fn(args, nargs, stream_);
  check(hipGetLastError(), "a kernel launch of the candidate");
  check(hipEventRecord(stop_, stream_), "hipEventRecord(stop)");
  check(hipDeviceSynchronize(), "the kernel (device synchronise after a timed call)");
  host_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  float ms = 0;
  check(hipEventElapsedTime(&ms, start_, stop_), "hipEventElapsedTime");
  if (!error_.empty() && status == 0) status = -1;
  return static_cast<double>(ms) * 1000.0;
}

int64_t HipDevice::take_launch_count() { return take_interposed_launches(); }

}  // namespace kgb::runner::hip
