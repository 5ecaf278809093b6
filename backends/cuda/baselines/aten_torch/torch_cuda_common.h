// Shared by the libtorch CUDA baselines (a shared library the CUDA baseline
// runner loads only for ATen tasks: loading libtorch's CUDA libraries takes
// seconds that BLAS and vLLM evaluations should not pay). The harness buffers
// are wrapped without copies and every op runs on the harness stream.
#pragma once

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>

#include "aten_dispatch.h"
#include "kgb_runner_abi.h"

namespace kgb::cuda_torch {

// The device that holds the harness buffers (the runner selects it; this
// library's CUDA runtime has a current device of its own).
inline c10::DeviceIndex device_of(const void* p) {
  cudaPointerAttributes attr{};
  if (!p || cudaPointerGetAttributes(&attr, p) != cudaSuccess || attr.type != cudaMemoryTypeDevice) {
    cudaGetLastError();
    return 0;
  }
  return static_cast<c10::DeviceIndex>(attr.device);
}

// Runs op(device) with the harness stream as ATen's current stream.
template <typename Op>
int on_stream(const void* any_device_pointer, kgb_stream stream, Op op) {
  try {
    const c10::DeviceIndex device = device_of(any_device_pointer);
    c10::cuda::CUDAGuard device_guard(device);
    c10::cuda::CUDAStreamGuard stream_guard(c10::cuda::getStreamFromExternal(static_cast<cudaStream_t>(stream), device));
    return op(at::Device(at::kCUDA, device));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kgb cuda aten baseline: %s\n", e.what());
    return KGB_ERR_INVALID;
  }
}

}  // namespace kgb::cuda_torch
