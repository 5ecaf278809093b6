// vllm/silu_and_mul in HIP: out[t, j] = silu(input[t, j]) * input[t, d + j].
// A 2-D grid: x runs over j (coalesced in the usual layouts), y over tokens in
// a grid-stride loop. Computed in float; f16/bf16 are uint16_t data converted
// in the kernel.
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

template <typename K>
__global__ void silu_and_mul(typename K::S* __restrict__ out, const typename K::S* __restrict__ in, Tokens g,
                             int64_t d, int64_t in_step, int64_t out_step) {
  const int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (j >= d) return;
  for (int64_t t = blockIdx.y; t < g.count; t += gridDim.y) {
    int64_t bi, bo;
    token_base(g, t, bi, bo);
    const float x = K::load(in[bi + j * in_step]);
    const float y = K::load(in[bi + (d + j) * in_step]);
    out[bo + j * out_step] = K::store(x / (1.0f + expf(-x)) * y);
  }
}

template <typename K>
int launch(kgb_tensor* out, const kgb_tensor* input, const Tokens& g, int64_t d, hipStream_t stream) {
  using S = typename K::S;
  const unsigned threads = 256;
  const dim3 grid(static_cast<unsigned>((d + threads - 1) / threads),
                  static_cast<unsigned>(g.count < 65535 ? g.count : 65535));
  hipLaunchKernelGGL(silu_and_mul<K>, grid, dim3(threads), 0, stream, static_cast<S*>(out->data),
                     static_cast<const S*>(input->data), g, d, input->strides[input->rank - 1],
                     out->strides[out->rank - 1]);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  if (input->dtype != out->dtype) return KGB_ERR_INVALID;
  if (out->dtype != KGB_F32 && out->dtype != KGB_F16 && out->dtype != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  const int rank = input->rank;
  if (rank < 1 || out->rank != rank) return KGB_ERR_INVALID;
  const int64_t d = out->sizes[rank - 1];
  if (input->sizes[rank - 1] != 2 * d) return KGB_ERR_INVALID;
  Tokens g{};
  if (!token_geometry(input, out, g)) return KGB_ERR_INVALID;
  if (g.count == 0 || d == 0) return KGB_OK;
  auto s = static_cast<hipStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return launch<F32>(out, input, g, d, s);
    case KGB_F16: return launch<F16>(out, input, g, d, s);
    default: return launch<BF16>(out, input, g, d, s);
  }
}
