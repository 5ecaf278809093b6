// vllm/scaled_fp8_quant (static) and its overloads dynamic and
// dynamic_per_token on CUDA: plain kernels written here in the structure of
// vLLM's (see vllm_common.cuh): one block per token striding over the hidden
// dimension, float arithmetic, the value clamped to +-448 and converted with
// CUDA's saturating e4m3 conversion (cuda_fp8.h). The dynamic op zeroes its
// scale, folds every token's absmax / 448 into it with an atomic max on the
// float's bits (vLLM's atomicMaxFloat), then quantises by the reciprocal.
#include <cuda_fp8.h>

#include "vllm_common.cuh"
#include "kgb_entries/vllm/scaled_fp8_quant.h"

namespace {

using namespace kgb::cuda_vllm;

constexpr int kThreads = 256;
constexpr float kFp8Max = 448.0f;

__device__ uint8_t quantize(float v) {
  return static_cast<uint8_t>(__nv_cvt_float_to_fp8(fmaxf(-kFp8Max, fminf(v, kFp8Max)), __NV_SATFINITE, __NV_E4M3));
}

__device__ float block_absmax(float m) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = m;
  __syncthreads();
  m = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  return m;  // valid in warp 0
}

struct View {
  const void* x;
  int64_t x0, x1;
  uint8_t* q;
  int64_t q0, q1, hidden;
};

// Token blockIdx.x times `factor` (or divided by it).
template <typename T>
__device__ void quant_row(const View& v, float factor, bool divide) {
  const T* x = static_cast<const T*>(v.x) + blockIdx.x * v.x0;
  uint8_t* q = v.q + blockIdx.x * v.q0;
  for (int64_t j = threadIdx.x; j < v.hidden; j += blockDim.x) {
    const float f = to_float(x[j * v.x1]);
    q[j * v.q1] = quantize(divide ? f / factor : f * factor);
  }
}

template <typename T>
__global__ void static_quant(View v, const float* scale) {
  quant_row<T>(v, 1.0f / *scale, false);
}

template <typename T>
__device__ float row_absmax(const View& v) {
  const T* x = static_cast<const T*>(v.x) + blockIdx.x * v.x0;
  float m = 0.0f;
  for (int64_t j = threadIdx.x; j < v.hidden; j += blockDim.x) m = fmaxf(m, fabsf(to_float(x[j * v.x1])));
  return block_absmax(m);
}

template <typename T>
__global__ void fold_absmax(View v, float* scale) {
  const float m = row_absmax<T>(v);
  if (threadIdx.x == 0) atomicMax(reinterpret_cast<unsigned int*>(scale), __float_as_uint(m / kFp8Max));
}

template <typename T>
__global__ void per_token_quant(View v, float* scale, int64_t scale_stride, const float* scale_ub) {
  __shared__ float s;
  float m = row_absmax<T>(v);
  if (threadIdx.x == 0) {
    if (scale_ub) m = fminf(m, *scale_ub);
    s = fmaxf(m / kFp8Max, 1.0f / (kFp8Max * 512.0f));
    scale[blockIdx.x * scale_stride] = s;
  }
  __syncthreads();
  quant_row<T>(v, s, true);
}

enum class Mode { Static, Dynamic, PerToken };

template <typename T>
int run(Mode mode, kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, const kgb_tensor* scale_ub, cudaStream_t st) {
  const View v{input->data, input->strides[0], input->strides[1], static_cast<uint8_t*>(result->data), result->strides[0],
               result->strides[1], input->sizes[1]};
  const unsigned tokens = static_cast<unsigned>(input->sizes[0]);
  float* s = static_cast<float*>(scale->data);
  switch (mode) {
    case Mode::Static:
      if (tokens) static_quant<T><<<tokens, kThreads, 0, st>>>(v, s);
      break;
    case Mode::Dynamic:
      if (cudaMemsetAsync(s, 0, sizeof(float), st) != cudaSuccess) return KGB_ERR_INVALID;
      if (tokens) {
        fold_absmax<T><<<tokens, kThreads, 0, st>>>(v, s);
        static_quant<T><<<tokens, kThreads, 0, st>>>(v, s);
      }
      break;
    case Mode::PerToken:
      if (tokens)
        per_token_quant<T><<<tokens, kThreads, 0, st>>>(v, s, scale->strides[0],
                                                        scale_ub ? static_cast<const float*>(scale_ub->data) : nullptr);
      break;
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

int dispatch(Mode mode, kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, const kgb_tensor* scale_ub,
             kgb_stream stream) {
  if (input->rank != 2 || result->rank != 2 || result->dtype != KGB_F8E4M3FN) return KGB_ERR_UNSUPPORTED;
  auto st = static_cast<cudaStream_t>(stream);
  switch (input->dtype) {
    case KGB_F32: return run<float>(mode, result, input, scale, scale_ub, st);
    case KGB_F16: return run<__half>(mode, result, input, scale, scale_ub, st);
    case KGB_BF16: return run<__nv_bfloat16>(mode, result, input, scale, scale_ub, st);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

int static_plain(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream stream) {
  // The static scale is only read.
  return dispatch(Mode::Static, result, input, const_cast<kgb_tensor*>(scale), nullptr, stream);
}
int dynamic_plain(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, kgb_stream stream) {
  return dispatch(Mode::Dynamic, result, input, scale, nullptr, stream);
}
int dynamic_per_token_plain(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, const kgb_tensor* scale_ub,
                            kgb_stream stream) {
  return dispatch(Mode::PerToken, result, input, scale, scale_ub, stream);
}

}  // namespace

KGB_BASELINE(vllm_scaled_fp8_quant, "plain (written here)", static_plain);
KGB_BASELINE(vllm_scaled_fp8_quant_dynamic, "plain (written here)", dynamic_plain);
KGB_BASELINE(vllm_scaled_fp8_quant_dynamic_per_token, "plain (written here)", dynamic_per_token_plain);
