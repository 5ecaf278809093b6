// vllm/silu_and_mul on CUDA: a plain kernel written here in the structure of vLLM's (see vllm_common.cuh).
#include "vllm_common.cuh"
#include "kgb_entries/vllm/silu_and_mul.h"

namespace {

using namespace kgb::cuda_vllm;

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

int silu_and_mul_plain(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  auto st = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return launch_silu_and_mul<float>(out, input, st);
    case KGB_F16: return launch_silu_and_mul<__half>(out, input, st);
    case KGB_BF16: return launch_silu_and_mul<__nv_bfloat16>(out, input, st);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

KGB_BASELINE(vllm_silu_and_mul, "plain (written here)", silu_and_mul_plain);
