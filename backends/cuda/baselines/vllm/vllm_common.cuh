// Shared by the plain vLLM baselines on CUDA: kernels written here that follow
// the structure of vLLM's own CUDA ops (one thread block per token, the block
// striding over the hidden dimension, float arithmetic). Labelled
// "plain (written here)": vLLM is not a dependency of this project.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kgb_baseline.h"

namespace kgb::cuda_vllm {
struct Rows {
  // A tensor of rank >= 1 seen as [tokens, inner]: token t starts at
  // offset(t) = sum over leading dims of index * stride.
  int64_t sizes[KGB_MAX_RANK];
  int64_t strides[KGB_MAX_RANK];
  int rank;
  __device__ int64_t offset(int64_t t) const {
    int64_t off = 0;
    for (int d = rank - 2; d >= 0; --d) {
      off += (t % sizes[d]) * strides[d];
      t /= sizes[d];
    }
    return off;
  }
  __device__ int64_t inner_stride() const { return strides[rank - 1]; }
};

inline Rows rows_of(const kgb_tensor* t) {
  Rows r{};
  r.rank = t->rank;
  for (int d = 0; d < t->rank; ++d) {
    r.sizes[d] = t->sizes[d];
    r.strides[d] = t->strides[d];
  }
  return r;
}

template <typename T> __device__ float to_float(T v);
template <> __device__ inline float to_float<float>(float v) { return v; }
template <> __device__ inline float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ inline float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ T from_float(float v);
template <> __device__ inline float from_float<float>(float v) { return v; }
template <> __device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

}  // namespace kgb::cuda_vllm
