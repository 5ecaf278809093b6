// vllm/silu_and_mul on CUDA: out[t, j] = silu(in[t, j]) * in[t, d + j].
//
// Grid: x over the columns of a token row, y over tokens. When the inner
// strides are 1 and rows stay 16-byte aligned, each thread loads one 16-byte
// vector of the gate and one of the up-projection and stores one vector of
// out (4 floats or 8 16-bit values); otherwise one element per thread.
// silu is computed in float with expf; x / (1 + exp(-x)) gives -0 rather
// than NaN for very negative x (exp overflows to +inf).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T>
__device__ __forceinline__ T silu_mul(T x, T y) {
  const float a = to_float(x);
  return from_float<T>(a / (1.0f + expf(-a)) * to_float(y));
}

// Row start of token t: leading dimensions folded by index arithmetic.
struct Tokens {
  int lead;  // number of leading dimensions (rank - 1)
  int64_t sizes[KGB_MAX_RANK];
  int64_t in_strides[KGB_MAX_RANK];
  int64_t out_strides[KGB_MAX_RANK];
  __device__ __forceinline__ void offsets(int64_t t, int64_t& in_off, int64_t& out_off) const {
    in_off = 0;
    out_off = 0;
    for (int d = lead - 1; d >= 0; --d) {
      const int64_t c = t % sizes[d];
      t /= sizes[d];
      in_off += c * in_strides[d];
      out_off += c * out_strides[d];
    }
  }
};

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

template <typename T, int VEC>
__global__ void __launch_bounds__(kThreads) silu_and_mul_rows(T* __restrict__ out, const T* __restrict__ in, Tokens tk,
                                                              int64_t tokens, int64_t d, int64_t in_inner, int64_t out_inner) {
  using P = Pack<T, VEC>;
  const int64_t packs = d / VEC;
  for (int64_t t = blockIdx.y; t < tokens; t += gridDim.y) {
    int64_t io, oo;
    tk.offsets(t, io, oo);
    const T* row = in + io;
    T* orow = out + oo;
    for (int64_t p = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; p < packs;
         p += static_cast<int64_t>(gridDim.x) * kThreads) {
      if (VEC > 1) {
        const P x = *reinterpret_cast<const P*>(row + p * VEC);
        const P y = *reinterpret_cast<const P*>(row + d + p * VEC);
        P r;
#pragma unroll
        for (int k = 0; k < VEC; ++k) r.v[k] = silu_mul(x.v[k], y.v[k]);
        *reinterpret_cast<P*>(orow + p * VEC) = r;
      } else {
        orow[p * out_inner] = silu_mul(row[p * in_inner], row[(d + p) * in_inner]);
      }
    }
  }
}

template <typename T>
int run(kgb_tensor* out, const kgb_tensor* in, cudaStream_t stream) {
  const int rank = out->rank;
  const int64_t d = out->sizes[rank - 1];
  if (in->rank != rank || in->sizes[rank - 1] != 2 * d) return KGB_ERR_INVALID;
  const int64_t tokens = d == 0 ? 0 : kgb_numel(out) / d;
  if (tokens == 0) return KGB_OK;
  Tokens tk{};
  tk.lead = rank - 1;
  for (int k = 0; k < rank - 1; ++k) {
    tk.sizes[k] = out->sizes[k];
    tk.in_strides[k] = in->strides[k];
    tk.out_strides[k] = out->strides[k];
  }
  const int64_t in_inner = in->strides[rank - 1], out_inner = out->strides[rank - 1];
  constexpr int V = 16 / sizeof(T);
  bool vec = in_inner == 1 && out_inner == 1 && d % V == 0 &&
             ((reinterpret_cast<uintptr_t>(in->data) | reinterpret_cast<uintptr_t>(out->data)) % 16) == 0;
  for (int k = 0; k < rank - 1; ++k) vec = vec && (tk.in_strides[k] % V == 0) && (tk.out_strides[k] % V == 0);
  const int64_t packs = vec ? d / V : d;
  int64_t bx = (packs + kThreads - 1) / kThreads;
  dim3 grid(static_cast<unsigned>(bx > 65535 ? 65535 : bx), static_cast<unsigned>(tokens < 65535 ? tokens : 65535));
  T* o = static_cast<T*>(out->data);
  const T* i = static_cast<const T*>(in->data);
  if (vec) silu_and_mul_rows<T, V><<<grid, kThreads, 0, stream>>>(o, i, tk, tokens, d, in_inner, out_inner);
  else silu_and_mul_rows<T, 1><<<grid, kThreads, 0, stream>>>(o, i, tk, tokens, d, in_inner, out_inner);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  if (input->dtype != out->dtype || out->rank < 1) return KGB_ERR_UNSUPPORTED;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<float>(out, input, s);
    case KGB_F16: return run<__half>(out, input, s);
    case KGB_BF16: return run<__nv_bfloat16>(out, input, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
