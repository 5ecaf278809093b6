// Baselines for the vLLM tasks on CUDA: plain kernels written here that follow
// the structure of vLLM's own CUDA ops (one thread block per token, the block
// striding over the hidden dimension, float arithmetic). Labelled
// "plain (written here)": vLLM is not a dependency of this project.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kgb_baseline.h"

namespace {

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

Rows rows_of(const kgb_tensor* t) {
  Rows r{};
  r.rank = t->rank;
  for (int d = 0; d < t->rank; ++d) {
    r.sizes[d] = t->sizes[d];
    r.strides[d] = t->strides[d];
  }
  return r;
}

template <typename T> __device__ float to_float(T v);
template <> __device__ float to_float<float>(float v) { return v; }
template <> __device__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ T from_float(float v);
template <> __device__ float from_float<float>(float v) { return v; }
template <> __device__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T>
__global__ void rms_norm_kernel(T* out, Rows out_rows, const T* in, Rows in_rows, const T* weight, int64_t weight_stride,
                                int64_t hidden, float epsilon) {
  __shared__ float partial[32];
  __shared__ float inv_rms;
  const int64_t token = blockIdx.x;
  const T* x = in + in_rows.offset(token);
  T* y = out + out_rows.offset(token);
  const int64_t xs = in_rows.inner_stride(), ys = out_rows.inner_stride();
  float sum = 0.0f;
  for (int64_t j = threadIdx.x; j < hidden; j += blockDim.x) {
    float v = to_float(x[j * xs]);
    sum += v * v;
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float s = threadIdx.x < (blockDim.x + 31) / 32 ? partial[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) inv_rms = rsqrtf(s / static_cast<float>(hidden) + epsilon);
  }
  __syncthreads();
  for (int64_t j = threadIdx.x; j < hidden; j += blockDim.x) {
    // As vLLM: the normalised value is rounded to T before the weight.
    T normed = from_float<T>(to_float(x[j * xs]) * inv_rms);
    y[j * ys] = from_float<T>(to_float(normed) * to_float(weight[j * weight_stride]));
  }
}

template <typename T>
int launch_rms_norm(kgb_tensor* out, const kgb_tensor* in, const kgb_tensor* weight, float epsilon, cudaStream_t stream) {
  const int64_t hidden = in->sizes[in->rank - 1];
  if (hidden == 0) return KGB_OK;
  const int64_t tokens = kgb_numel(in) / hidden;
  if (tokens == 0) return KGB_OK;
  const int threads = static_cast<int>(hidden < 1024 ? ((hidden + 31) / 32) * 32 : 1024);
  rms_norm_kernel<T><<<static_cast<unsigned>(tokens), threads, 0, stream>>>(
      static_cast<T*>(out->data), rows_of(out), static_cast<const T*>(in->data), rows_of(in),
      static_cast<const T*>(weight->data), weight->strides[0], hidden, epsilon);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

// vllm/rms_norm: params out, input, weight, epsilon.
int rms_norm_plain(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  kgb_tensor* out = t[0];
  const float eps = static_cast<float>(s[3].f);
  auto st = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return launch_rms_norm<float>(out, t[1], t[2], eps, st);
    case KGB_F16: return launch_rms_norm<__half>(out, t[1], t[2], eps, st);
    case KGB_BF16: return launch_rms_norm<__nv_bfloat16>(out, t[1], t[2], eps, st);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

template <typename T>
__global__ void silu_and_mul_kernel(T* out, Rows out_rows, const T* in, Rows in_rows, int64_t d) {
  const int64_t token = blockIdx.x;
  const T* x = in + in_rows.offset(token);
  T* y = out + out_rows.offset(token);
  const int64_t xs = in_rows.inner_stride(), ys = out_rows.inner_stride();
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    const float a = to_float(x[j * xs]), b = to_float(x[(d + j) * xs]);
    // As vLLM: silu(x) is rounded to T before the product.
    const T act = from_float<T>(a / (1.0f + expf(-a)));
    y[j * ys] = from_float<T>(to_float(act) * b);
  }
}

template <typename T>
int launch_silu_and_mul(kgb_tensor* out, const kgb_tensor* in, cudaStream_t stream) {
  const int64_t d = out->sizes[out->rank - 1];
  if (d == 0) return KGB_OK;
  const int64_t tokens = kgb_numel(out) / d;
  if (tokens == 0) return KGB_OK;
  const int threads = static_cast<int>(d < 1024 ? ((d + 31) / 32) * 32 : 1024);
  silu_and_mul_kernel<T><<<static_cast<unsigned>(tokens), threads, 0, stream>>>(
      static_cast<T*>(out->data), rows_of(out), static_cast<const T*>(in->data), rows_of(in), d);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

// vllm/silu_and_mul: params out, input.
int silu_and_mul_plain(kgb_tensor* const* t, const kgb_scalar_value*, kgb_stream stream) {
  kgb_tensor* out = t[0];
  auto st = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return launch_silu_and_mul<float>(out, t[1], st);
    case KGB_F16: return launch_silu_and_mul<__half>(out, t[1], st);
    case KGB_BF16: return launch_silu_and_mul<__nv_bfloat16>(out, t[1], st);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

KGB_REGISTER_BASELINE("vllm/rms_norm", "plain (written here)", rms_norm_plain);
KGB_REGISTER_BASELINE("vllm/silu_and_mul", "plain (written here)", silu_and_mul_plain);
