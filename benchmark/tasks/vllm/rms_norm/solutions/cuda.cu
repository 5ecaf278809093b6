// vllm/rms_norm on CUDA: out[t, :] = x * (1 / sqrt(mean(x^2) + eps)) * w.
//
// One thread block per token. When the row, the weight and out are unit
// stride and 16-byte aligned and the row fits in registers (up to 8 vectors
// per thread), the row is read once with 16-byte loads, kept in registers
// for the normalisation and written with 16-byte stores: one pass over
// memory. Otherwise the block strides over the row twice (the second read
// mostly hits L1/L2). The sum of squares is reduced in float with warp
// shuffles, then across warps through shared memory.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxPacks = 8;  // vectors per thread kept in registers

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

struct Tokens {
  int lead;
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

// Sum over the block; every thread gets the total.
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float partial[kThreads / 32];
  __shared__ float total;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    float s = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) total = s;
  }
  __syncthreads();
  return total;
}

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

template <typename T>
__global__ void __launch_bounds__(kThreads) rms_norm_registers(T* __restrict__ out, const T* __restrict__ in,
                                                               const T* __restrict__ weight, Tokens tk, int64_t hidden,
                                                               float epsilon) {
  constexpr int V = 16 / sizeof(T);
  using P = Pack<T, V>;
  int64_t io, oo;
  tk.offsets(blockIdx.x, io, oo);
  const P* row = reinterpret_cast<const P*>(in + io);
  P* orow = reinterpret_cast<P*>(out + oo);
  const P* w = reinterpret_cast<const P*>(weight);
  const int packs = static_cast<int>(hidden / V);
  P x[kMaxPacks];
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kMaxPacks; ++k) {
    const int p = threadIdx.x + k * kThreads;
    if (p < packs) {
      x[k] = row[p];
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const float f = to_float(x[k].v[e]);
        sum += f * f;
      }
    }
  }
  const float inv_rms = rsqrtf(block_sum(sum) / static_cast<float>(hidden) + epsilon);
#pragma unroll
  for (int k = 0; k < kMaxPacks; ++k) {
    const int p = threadIdx.x + k * kThreads;
    if (p < packs) {
      const P wv = w[p];
      P r;
#pragma unroll
      for (int e = 0; e < V; ++e) r.v[e] = from_float<T>(to_float(x[k].v[e]) * inv_rms * to_float(wv.v[e]));
      orow[p] = r;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) rms_norm_strided(T* __restrict__ out, const T* __restrict__ in,
                                                             const T* __restrict__ weight, Tokens tk, int64_t hidden,
                                                             int64_t in_inner, int64_t out_inner, int64_t w_stride,
                                                             float epsilon) {
  int64_t io, oo;
  tk.offsets(blockIdx.x, io, oo);
  const T* row = in + io;
  T* orow = out + oo;
  float sum = 0.0f;
  for (int64_t j = threadIdx.x; j < hidden; j += kThreads) {
    const float f = to_float(row[j * in_inner]);
    sum += f * f;
  }
  const float inv_rms = rsqrtf(block_sum(sum) / static_cast<float>(hidden) + epsilon);
  for (int64_t j = threadIdx.x; j < hidden; j += kThreads)
    orow[j * out_inner] = from_float<T>(to_float(row[j * in_inner]) * inv_rms * to_float(weight[j * w_stride]));
}

template <typename T>
int run(kgb_tensor* out, const kgb_tensor* in, const kgb_tensor* weight, float epsilon, cudaStream_t stream) {
  const int rank = in->rank;
  const int64_t hidden = in->sizes[rank - 1];
  if (out->rank != rank || weight->rank != 1 || weight->sizes[0] != hidden) return KGB_ERR_INVALID;
  if (hidden == 0) return KGB_OK;
  const int64_t tokens = kgb_numel(in) / hidden;
  if (tokens == 0) return KGB_OK;
  Tokens tk{};
  tk.lead = rank - 1;
  for (int k = 0; k < rank - 1; ++k) {
    tk.sizes[k] = in->sizes[k];
    tk.in_strides[k] = in->strides[k];
    tk.out_strides[k] = out->strides[k];
  }
  const int64_t in_inner = in->strides[rank - 1], out_inner = out->strides[rank - 1], w_stride = weight->strides[0];
  constexpr int V = 16 / sizeof(T);
  bool fast = in_inner == 1 && out_inner == 1 && w_stride == 1 && hidden % V == 0 &&
              hidden / V <= static_cast<int64_t>(kThreads) * kMaxPacks &&
              ((reinterpret_cast<uintptr_t>(in->data) | reinterpret_cast<uintptr_t>(out->data) |
                reinterpret_cast<uintptr_t>(weight->data)) % 16) == 0;
  for (int k = 0; k < rank - 1; ++k) fast = fast && tk.in_strides[k] % V == 0 && tk.out_strides[k] % V == 0;
  T* o = static_cast<T*>(out->data);
  const T* i = static_cast<const T*>(in->data);
  const T* w = static_cast<const T*>(weight->data);
  if (tokens > 0x7fffffffLL) return KGB_ERR_UNSUPPORTED;
  const unsigned grid = static_cast<unsigned>(tokens);
  if (fast) rms_norm_registers<T><<<grid, kThreads, 0, stream>>>(o, i, w, tk, hidden, epsilon);
  else rms_norm_strided<T><<<grid, kThreads, 0, stream>>>(o, i, w, tk, hidden, in_inner, out_inner, w_stride, epsilon);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_vllm_rms_norm(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon,
                                 kgb_stream stream) {
  if (input->dtype != out->dtype || weight->dtype != out->dtype || input->rank < 1) return KGB_ERR_UNSUPPORTED;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const float eps = static_cast<float>(epsilon);
  switch (out->dtype) {
    case KGB_F32: return run<float>(out, input, weight, eps, s);
    case KGB_F16: return run<__half>(out, input, weight, eps, s);
    case KGB_BF16: return run<__nv_bfloat16>(out, input, weight, eps, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
