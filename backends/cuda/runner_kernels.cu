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

}  // namespace

cudaError_t enqueue_stream_hold(cudaStream_t stream, const volatile int* release, volatile int* timed_out,
                                unsigned long long timeout_ns) {
  kgb_runner_stream_hold<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  return cudaGetLastError();
}

}  // namespace kgb::runner::cuda
