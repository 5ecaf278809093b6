#include "cuda_device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runner_kernels.h"

namespace kgb::runner::cuda {
namespace {

// A timed call normally enqueues its work within microseconds. A call that
// synchronises inside (legal, if slow) keeps the held stream waiting: the hold
// gives up after this long and is not used again in this process.
constexpr unsigned long long kHoldTimeoutNs = 20'000'000ull;

int device_from_environment() {
  const char* v = std::getenv("KGB_CUDA_DEVICE");
  if (!v || !*v) return 0;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  return (end && *end == '\0' && n >= 0 && n < 1024) ? static_cast<int>(n) : -1;
}

std::string error_text(cudaError_t e) {
  return std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
}

}  // namespace

CudaDevice::CudaDevice(CudaDeviceOptions options) : options_(options) {
  ordinal_ = device_from_environment();
  if (ordinal_ < 0) {
    error_ = "KGB_CUDA_DEVICE must be a device ordinal (0, 1, ...)";
    return;
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    error_ = "no usable CUDA device: " + error_text(e);
    return;
  }
  if (ordinal_ >= count) {
    error_ = "KGB_CUDA_DEVICE=" + std::to_string(ordinal_) + " but only " + std::to_string(count) + " CUDA device(s) are visible";
    return;
  }
  // Counting starts before the context exists so that no launch is missed.
  if (options_.count_launches) {
    std::string why;
    if (!counter_.start(why)) std::fprintf(stderr, "kgb cuda runner: launch counting unavailable: %s\n", why.c_str());
  }
  if (!check(cudaSetDevice(ordinal_), "cudaSetDevice") || !check(cudaFree(nullptr), "creating the CUDA context")) return;
  // Non-blocking: work that the candidate puts on the legacy default stream
  // or a stream of its own is not ordered with the harness stream, so it
  // escapes the events and shows up in the hybrid (host clock) check.
  if (!check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags")) return;
  if (!check(cudaEventCreate(&start_), "cudaEventCreate") || !check(cudaEventCreate(&stop_), "cudaEventCreate")) return;

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, ordinal_), "cudaGetDeviceProperties");
  int l2 = 0, persisting = 0, sm_khz = 0, mem_khz = 0, sms = 0, bus_width = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal_), "cudaDeviceGetAttribute(L2)");
  check(cudaDeviceGetAttribute(&persisting, cudaDevAttrMaxPersistingL2CacheSize, ordinal_), "cudaDeviceGetAttribute(persisting L2)");
  check(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, ordinal_), "cudaDeviceGetAttribute(clock)");
  check(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, ordinal_), "cudaDeviceGetAttribute(memory clock)");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal_), "cudaDeviceGetAttribute(SMs)");
  check(cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, ordinal_), "cudaDeviceGetAttribute(bus width)");
  l2_bytes_ = static_cast<size_t>(std::max(l2, 0));
  sm_count_ = sms;
  persisting_l2_ = persisting > 0;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s (device %d, sm_%d%d, %d SMs, %.1f GiB, L2 %.1f MiB, %d-bit bus), SM clock %d MHz, memory clock %d MHz "
                "(peak clocks reported by the driver; never changed by the harness), driver %d.%d, runtime %d.%d",
                prop.name, ordinal_, prop.major, prop.minor, sms, static_cast<double>(prop.totalGlobalMem) / (1 << 30),
                static_cast<double>(l2_bytes_) / (1 << 20), bus_width, sm_khz / 1000, mem_khz / 1000, driver / 1000,
                (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
  description_ = buf;

  if (options_.hold_stream) {
    void* flags = nullptr;
    if (check(cudaHostAlloc(&flags, 64, cudaHostAllocMapped), "cudaHostAlloc(hold flags)")) {
      hold_flags_ = static_cast<volatile int*>(flags);
      hold_flags_[0] = 0;
      hold_flags_[1] = 0;
      hold_enabled_ = true;
    }
  }
  check(cudaDeviceSynchronize(), "initialising the device");
}

CudaDevice::~CudaDevice() {
  counter_.stop();
  // Teardown errors are irrelevant: the process is about to exit.
  if (flush_buffer_) cudaFree(flush_buffer_);
  if (hold_flags_) cudaFreeHost(const_cast<int*>(hold_flags_));
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (stream_) cudaStreamDestroy(stream_);
}

bool CudaDevice::check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return true;
  if (error_.empty()) error_ = std::string(what) + " failed: " + error_text(result);
  cudaGetLastError();  // clear a non-sticky error; a sticky one stays with the context
  return false;
}

std::string CudaDevice::describe() const { return description_.empty() ? "CUDA device unavailable: " + error_ : description_; }

void* CudaDevice::allocate(size_t bytes) {
  if (!error_.empty()) return nullptr;
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // out of memory is reported by the caller, not sticky
    return nullptr;
  }
  return check(e, "cudaMalloc") ? p : nullptr;
}

void CudaDevice::release(void* p) {
  if (p) check(cudaFree(p), "cudaFree");
}

void* CudaDevice::allocate_host(size_t bytes) {
  if (!error_.empty()) return nullptr;
  void* p = nullptr;
  cudaError_t e = cudaMallocHost(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  return check(e, "cudaMallocHost") ? p : nullptr;
}

void CudaDevice::release_host(void* p) {
  if (p) check(cudaFreeHost(p), "cudaFreeHost");
}

void CudaDevice::upload(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  InternalLaunchScope internal;  // the runner's transfers are not the candidate's device work
  if (check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync(upload)"))
    check(cudaStreamSynchronize(stream_), "upload");
}

void CudaDevice::download(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  InternalLaunchScope internal;
  if (check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync(download)"))
    check(cudaStreamSynchronize(stream_), "download");
}

void CudaDevice::copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  InternalLaunchScope internal;
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_), "cudaMemcpyAsync(device to device)");
}

void CudaDevice::fill(void* dst, uint8_t byte, size_t bytes) {
  if (bytes == 0 || !error_.empty()) return;
  InternalLaunchScope internal;
  check(cudaMemsetAsync(dst, byte, bytes, stream_), "cudaMemsetAsync(fill)");
}

void CudaDevice::synchronize() {
  if (!error_.empty()) return;
  // A fault in the candidate's kernels surfaces here; a launch the candidate
  // got wrong (bad configuration, too much shared memory) is the pending
  // error of the runtime.
  if (!check(cudaDeviceSynchronize(), "the kernel (device synchronise after the call)")) return;
  check(cudaGetLastError(), "a kernel launch of the candidate");
}

void CudaDevice::ensure_flush_buffer(size_t bytes) {
  bytes = (bytes + 15) / 16 * 16;
  if (flush_bytes_ >= bytes && flush_buffer_) return;
  if (flush_buffer_) check(cudaFree(flush_buffer_), "cudaFree(flush buffer)");
  flush_buffer_ = nullptr;
  flush_bytes_ = 0;
  // The buffer, then one word for the flush kernel's sink.
  if (!check(cudaMalloc(&flush_buffer_, bytes + 16), "cudaMalloc(flush buffer)")) return;
  if (check(cudaMemsetAsync(flush_buffer_, 1, bytes + 16, stream_), "cudaMemsetAsync(flush buffer)")) flush_bytes_ = bytes;
}

void CudaDevice::flush_cache(int64_t bytes) {
  if (!error_.empty()) return;
  // Twice the L2 (at least what the parent asked for): reading it leaves no
  // line of the candidate's data in the cache, and no dirty line either.
  size_t want = std::max<size_t>(2 * l2_bytes_, bytes > 0 ? static_cast<size_t>(bytes) : 0);
  if (want == 0) want = 128ull << 20;
  ensure_flush_buffer(want);
  if (!flush_buffer_) return;
  {
    InternalLaunchScope internal;
    auto* sink = reinterpret_cast<unsigned int*>(static_cast<char*>(flush_buffer_) + flush_bytes_);
    check(enqueue_l2_flush_read(stream_, flush_buffer_, flush_bytes_, sink, 8 * std::max(sm_count_, 1)), "the L2 flush kernel");
  }
  // Persisting lines survive ordinary traffic; return them to normal.
  if (persisting_l2_) check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
}

double CudaDevice::timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status,
                              double& host_us) {
  using Clock = std::chrono::steady_clock;
  status = 0;
  host_us = 0;
  if (!error_.empty()) {
    status = -1;
    return 0;
  }
  bool held = false;
  if (hold_enabled_) {
    InternalLaunchScope internal;
    hold_flags_[0] = 0;
    hold_flags_[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    held = check(enqueue_stream_hold(stream_, hold_flags_, hold_flags_ + 1, kHoldTimeoutNs), "launching the stream hold");
  }
  if (!check(cudaEventRecord(start_, stream_), "cudaEventRecord(start)")) {
    if (held) hold_flags_[0] = 1;
    status = -1;
    return 0;
  }
  auto t0 = Clock::now();
  status = fn(args, nargs, stream_);
  check(cudaGetLastError(), "a kernel launch of the candidate");
  check(cudaEventRecord(stop_, stream_), "cudaEventRecord(stop)");
  if (held) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    hold_flags_[0] = 1;
  }
  check(cudaDeviceSynchronize(), "the kernel (device synchronise after a timed call)");
  auto t1 = Clock::now();
  host_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  double device_us = static_cast<double>(ms) * 1000.0;
  if (held && hold_flags_[1]) {
    // The call waited for its own held stream (it synchronises inside): its
    // host time includes the hold. Take that out, and time the rest of this
    // process's calls without a hold.
    hold_enabled_ = false;
    host_us = std::max(device_us, host_us - static_cast<double>(kHoldTimeoutNs) / 1000.0);
  }
  if (!error_.empty() && status == 0) status = -1;
  return device_us;
}

int64_t CudaDevice::take_launch_count() {
  if (!counter_.active()) {
    last_library_launches_ = -1;
    return -1;
  }
  LaunchCounts c = counter_.take();
  last_library_launches_ = c.library;
  last_copies_ = c.copies;
  return c.own;
}

}  // namespace kgb::runner::cuda
