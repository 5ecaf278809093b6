#include "cpu_device.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

// OpenMP 5.0's pause, resolved only when the candidate links an OpenMP
// runtime (weak: baselines without one link too).
extern "C" int omp_pause_resource_all(int kind) __attribute__((weak));

namespace kgb::runner {

std::string CpuDevice::describe() const {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown cpu";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(colon + 2);
      break;
    }
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return model + ", " + std::to_string(cores) + " logical cores";
}

void* CpuDevice::allocate(size_t bytes) {
  // 64-byte alignment: what a vectorised kernel may reasonably assume of a
  // framework allocation (ATen aligns to 64 too).
  constexpr size_t kHugePage = 2u << 20;
  if (bytes < kHugePage) return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  // Large buffers on 2 MiB boundaries, backed by huge pages where the kernel
  // allows: otherwise whether a fresh process gets huge pages varies from run
  // to run, and with it the TLB behaviour of memory-bound kernels (the median
  // of a saxpy moved by ~20% between evaluations).
  size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p) ::madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

void CpuDevice::release(void* p) { std::free(p); }
void CpuDevice::upload(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
void CpuDevice::download(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
void CpuDevice::copy(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
void CpuDevice::fill(void* dst, uint8_t byte, size_t bytes) { std::memset(dst, byte, bytes); }

void CpuDevice::flush_cache(int64_t bytes) {
  if (bytes <= 0) return;
  if (flush_buffer_.size() != static_cast<size_t>(bytes)) flush_buffer_.assign(static_cast<size_t>(bytes), 1);
  // Reading, not writing: the kernel's lines (and the in-place restore's
  // dirty ones) are evicted and written back here, and the cache is left
  // holding clean lines, so no write-back of the flush lands inside the
  // next timed call (a written buffer left up to a cache's worth of dirty
  // lines for the kernel to write back, a varying amount).
  constexpr size_t kLine = 64;
  uint64_t sum = 0;
  const unsigned char* data = flush_buffer_.data();
  for (size_t at = 0; at < flush_buffer_.size(); at += kLine) sum += data[at];
  asm volatile("" : : "r"(sum) : "memory");
}

void CpuDevice::idle() {
  // The platform lets OpenMP workers spin for a while after a parallel
  // region (GOMP_SPINCOUNT), which bridges the flush and restore between
  // timed calls: a worker that sleeps there is woken on a vCPU the host may
  // have given away, and the medians of separate evaluations then differed
  // by up to half. Between jobs the spinning would take cores from the parent
  // and from a baseline being timed, so the pool is released here.
  constexpr int kPauseSoft = 1;  // omp_pause_soft
  if (omp_pause_resource_all) omp_pause_resource_all(kPauseSoft);
}

double CpuDevice::timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status,
                             double& host_us) {
  auto t0 = std::chrono::steady_clock::now();
  status = fn(args, nargs, nullptr);
  auto t1 = std::chrono::steady_clock::now();
  host_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  return host_us;
}

}  // namespace kgb::runner
