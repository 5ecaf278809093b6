#include "runner_kernels.h"

namespace kgb::runner::cuda {
namespace {

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void kgb_runner_stream_hold(const volatile int* release, volatile int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      __threadfence_system();
      return;
    }
    __nanosleep(500);
  }
}

// Reads every 16 bytes of the buffer once. The loads allocate clean lines in
// L2, evicting (and writing back) whatever was there; the sink store never
// happens in practice but keeps the loads alive.
__global__ void kgb_runner_l2_flush_read(const uint4* __restrict__ data, size_t n, unsigned int* sink) {
  unsigned int acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

}  // namespace

cudaError_t enqueue_l2_flush_read(cudaStream_t stream, const void* buffer, size_t bytes, unsigned int* sink, int blocks) {
  kgb_runner_l2_flush_read<<<blocks, 256, 0, stream>>>(static_cast<const uint4*>(buffer), bytes / sizeof(uint4), sink);
  return cudaGetLastError();
}

cudaError_t enqueue_stream_hold(cudaStream_t stream, const volatile int* release, volatile int* timed_out,
                                unsigned long long timeout_ns) {
  kgb_runner_stream_hold<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  return cudaGetLastError();
}

}  // namespace kgb::runner::cuda
