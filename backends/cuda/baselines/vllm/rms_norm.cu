// vllm/rms_norm on CUDA: a plain kernel written here in the structure of vLLM's (see vllm_common.cuh).
#include "vllm_common.cuh"
#include "kgb_entries/vllm/rms_norm.h"

namespace {

using namespace kgb::cuda_vllm;

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

int rms_norm_plain(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon, kgb_stream stream) {
  const float eps = static_cast<float>(epsilon);
  auto st = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return launch_rms_norm<float>(out, input, weight, eps, st);
    case KGB_F16: return launch_rms_norm<__half>(out, input, weight, eps, st);
    case KGB_BF16: return launch_rms_norm<__nv_bfloat16>(out, input, weight, eps, st);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

KGB_BASELINE(vllm_rms_norm, "plain (written here)", rms_norm_plain);
