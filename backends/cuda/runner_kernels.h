// Device code of the CUDA runner itself (compiled by nvcc into the runner
// library for every supported architecture).
#pragma once

#include <cuda_runtime.h>

namespace kgb::runner::cuda {

// Enqueues a one-thread kernel that holds `stream` until the host writes a
// non-zero value to `release` (host-mapped memory) or `timeout_ns` has passed;
// on a timeout it sets *timed_out to 1. Work enqueued behind it starts back to
// back once it ends, so the start event of a timed call is not stretched by
// the host's launch latency.
cudaError_t enqueue_stream_hold(cudaStream_t stream, const volatile int* release, volatile int* timed_out,
                                unsigned long long timeout_ns);

// Enqueues a kernel that reads `bytes` of `buffer` (a multiple of 16, from
// a 16-byte aligned start) with `blocks` blocks: an L2 flush that leaves only
// clean lines behind, so no write-back of the flush lands in the next timed
// kernel (a memset leaves up to the whole L2 dirty).
cudaError_t enqueue_l2_flush_read(cudaStream_t stream, const void* buffer, size_t bytes, unsigned int* sink, int blocks);

}  // namespace kgb::runner::cuda
