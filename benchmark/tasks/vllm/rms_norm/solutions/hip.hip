// vllm/rms_norm in HIP: out[t, j] = x[j] * inv_rms(t) * w[j].
// One block of 256 threads per token (grid-stride over tokens): the threads
// stride over the hidden dimension accumulating x^2 in float, a shared-memory
// tree gives the mean square, then the same threads write the row.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// Storage type S, compute type C and the conversions, per dtype.
struct F32 {
  using S = float; using C = float;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_f16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_bf16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_bf16(v); }
};
// Leading (token) dimensions of input and out, merged where both allow it.
struct Tokens {
  int64_t size[KGB_MAX_RANK], si[KGB_MAX_RANK], so[KGB_MAX_RANK];
  int rank;
  int64_t count;
};

bool token_geometry(const kgb_tensor* input, const kgb_tensor* out, Tokens& g) {
  g.rank = 0;
  g.count = 1;
  for (int k = 0; k + 1 < input->rank; ++k) {
    if (input->sizes[k] != out->sizes[k]) return false;
    const int64_t size = input->sizes[k];
    g.count *= size;
    if (size == 1) continue;
    int p = g.rank - 1;
    if (p >= 0 && g.si[p] == input->strides[k] * size && g.so[p] == out->strides[k] * size) {
      g.size[p] *= size;
      g.si[p] = input->strides[k];
      g.so[p] = out->strides[k];
      continue;
    }
    g.size[g.rank] = size;
    g.si[g.rank] = input->strides[k];
    g.so[g.rank] = out->strides[k];
    ++g.rank;
  }
  return true;
}

__device__ inline void token_base(const Tokens& g, int64_t t, int64_t& bi, int64_t& bo) {
  bi = 0;
  bo = 0;
  for (int k = g.rank - 1; k >= 0; --k) {
    int64_t q = t / g.size[k], i = t - q * g.size[k];
    t = q;
    bi += i * g.si[k];
    bo += i * g.so[k];
  }
}

constexpr int kThreads = 256;

template <typename K>
__global__ void __launch_bounds__(kThreads) rms_norm(typename K::S* __restrict__ out, const typename K::S* __restrict__ in,
                                                     const typename K::S* __restrict__ w, Tokens g, int64_t hidden,
                                                     int64_t in_step, int64_t out_step, int64_t w_step, float eps) {
  __shared__ float partial[kThreads];
  for (int64_t t = blockIdx.x; t < g.count; t += gridDim.x) {
    int64_t bi, bo;
    token_base(g, t, bi, bo);
    float acc = 0.0f;
    for (int64_t j = threadIdx.x; j < hidden; j += kThreads) {
      const float x = K::load(in[bi + j * in_step]);
      acc += x * x;
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
      if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    const float inv = 1.0f / sqrtf(partial[0] / static_cast<float>(hidden) + eps);
    __syncthreads();  // partial[0] is read before the next token overwrites it
    for (int64_t j = threadIdx.x; j < hidden; j += kThreads)
      out[bo + j * out_step] = K::store(K::load(in[bi + j * in_step]) * inv * K::load(w[j * w_step]));
  }
}

template <typename K>
int launch(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, const Tokens& g, int64_t hidden,
           float eps, hipStream_t stream) {
  using S = typename K::S;
  const unsigned blocks = static_cast<unsigned>(g.count < 65536 ? g.count : 65536);
  hipLaunchKernelGGL(rms_norm<K>, dim3(blocks), dim3(kThreads), 0, stream, static_cast<S*>(out->data),
                     static_cast<const S*>(input->data), static_cast<const S*>(weight->data), g, hidden,
                     input->strides[input->rank - 1], out->strides[out->rank - 1], weight->strides[0], eps);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_vllm_rms_norm(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon,
                                 kgb_stream stream) {
  if (input->dtype != out->dtype || weight->dtype != out->dtype) return KGB_ERR_INVALID;
  if (out->dtype != KGB_F32 && out->dtype != KGB_F16 && out->dtype != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  const int rank = input->rank;
  if (rank < 1 || out->rank != rank || weight->rank != 1) return KGB_ERR_INVALID;
  const int64_t hidden = input->sizes[rank - 1];
  if (out->sizes[rank - 1] != hidden || weight->sizes[0] != hidden) return KGB_ERR_INVALID;
  Tokens g{};
  if (!token_geometry(input, out, g)) return KGB_ERR_INVALID;
  if (g.count == 0 || hidden == 0) return KGB_OK;
  auto s = static_cast<hipStream_t>(stream);
  const float eps = static_cast<float>(epsilon);
  switch (out->dtype) {
    case KGB_F32: return launch<F32>(out, input, weight, g, hidden, eps, s);
    case KGB_F16: return launch<F16>(out, input, weight, g, hidden, eps, s);
    default: return launch<BF16>(out, input, weight, g, hidden, eps, s);
  }
}
