// aten/bernoulli on CUDA: out[i] = 1 with probability self[i], else 0.
//
// Randomness is counter-based (Philox4x32-10): the key is the 64-bit seed,
// the counter is the logical element index (row-major over the shape) / 4,
// and one Philox call gives the four uniforms of four consecutive elements.
// The output is therefore a pure function of (seed, self), whatever the
// layout, grid or scheduling. Each comparison uses 24 random bits (32 for
// f64 probabilities).
// Contiguous tensors: one thread per four elements with vector loads and
// stores; other layouts: the same per-thread work through strided offsets.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Philox4 {
  uint32_t x[4];
};

__device__ __forceinline__ Philox4 philox4x32_10(uint64_t counter, uint64_t seed) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    const uint32_t lo0 = 0xD2511F53u * c0, hi0 = __umulhi(0xD2511F53u, c0);
    const uint32_t lo1 = 0xCD9E8D57u * c2, hi1 = __umulhi(0xCD9E8D57u, c2);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Philox4{{c0, c1, c2, c3}};
}

template <typename T> struct Prob;
template <> struct Prob<float> {
  static __device__ __forceinline__ float one(bool b) { return b ? 1.0f : 0.0f; }
  static __device__ __forceinline__ bool draw(float p, uint32_t r) { return static_cast<float>(r >> 8) * 0x1.0p-24f < p; }
};
template <> struct Prob<double> {
  static __device__ __forceinline__ double one(bool b) { return b ? 1.0 : 0.0; }
  static __device__ __forceinline__ bool draw(double p, uint32_t r) { return static_cast<double>(r) * 0x1.0p-32 < p; }
};
template <> struct Prob<__half> {
  static __device__ __forceinline__ __half one(bool b) { return __ushort_as_half(b ? 0x3C00 : 0); }
  static __device__ __forceinline__ bool draw(__half p, uint32_t r) {
    return static_cast<float>(r >> 8) * 0x1.0p-24f < __half2float(p);
  }
};
template <> struct Prob<__nv_bfloat16> {
  static __device__ __forceinline__ __nv_bfloat16 one(bool b) { return __ushort_as_bfloat16(b ? 0x3F80 : 0); }
  static __device__ __forceinline__ bool draw(__nv_bfloat16 p, uint32_t r) {
    return static_cast<float>(r >> 8) * 0x1.0p-24f < __bfloat162float(p);
  }
};

struct Strided {
  int rank;
  int64_t sizes[KGB_MAX_RANK];
  int64_t in_strides[KGB_MAX_RANK];
  int64_t out_strides[KGB_MAX_RANK];
};

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Contiguous input and output, numel a multiple of 4 handled in packs of 4.
template <typename T>
__global__ void __launch_bounds__(kThreads) bernoulli_contiguous(const T* __restrict__ p, T* __restrict__ out, int64_t groups,
                                                                 uint64_t seed) {
  using P4 = Pack<T, 4>;
  for (int64_t g = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; g < groups;
       g += static_cast<int64_t>(gridDim.x) * kThreads) {
    const P4 probs = *reinterpret_cast<const P4*>(p + 4 * g);
    const Philox4 r = philox4x32_10(static_cast<uint64_t>(g), seed);
    P4 res;
#pragma unroll
    for (int k = 0; k < 4; ++k) res.v[k] = Prob<T>::one(Prob<T>::draw(probs.v[k], r.x[k]));
    *reinterpret_cast<P4*>(out + 4 * g) = res;
  }
}

// Any layout: thread per group of four logical indices, offsets from the index.
template <typename T>
__global__ void __launch_bounds__(kThreads) bernoulli_strided(const T* __restrict__ p, T* __restrict__ out, Strided s,
                                                              int64_t numel, uint64_t seed) {
  const int64_t groups = (numel + 3) / 4;
  for (int64_t g = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; g < groups;
       g += static_cast<int64_t>(gridDim.x) * kThreads) {
    const Philox4 r = philox4x32_10(static_cast<uint64_t>(g), seed);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int64_t i = 4 * g + k;
      if (i >= numel) break;
      int64_t rest = i, io = 0, oo = 0;
      for (int d = s.rank - 1; d >= 0; --d) {
        const int64_t c = rest % s.sizes[d];
        rest /= s.sizes[d];
        io += c * s.in_strides[d];
        oo += c * s.out_strides[d];
      }
      out[oo] = Prob<T>::one(Prob<T>::draw(p[io], r.x[k]));
    }
  }
}

unsigned grid_for(int64_t items) {
  int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 1048576 ? 1048576 : blocks));
}

template <typename T>
int run(const kgb_tensor* self, kgb_tensor* out, uint64_t seed, cudaStream_t stream) {
  const int64_t numel = kgb_numel(out);
  const T* p = static_cast<const T*>(self->data);
  T* o = static_cast<T*>(out->data);
  const bool aligned = ((reinterpret_cast<uintptr_t>(p) | reinterpret_cast<uintptr_t>(o)) % (4 * sizeof(T))) == 0;
  if (kgb_is_contiguous(self) && kgb_is_contiguous(out) && numel % 4 == 0 && aligned) {
    bernoulli_contiguous<T><<<grid_for(numel / 4), kThreads, 0, stream>>>(p, o, numel / 4, seed);
  } else {
    Strided s{};
    s.rank = out->rank;
    for (int d = 0; d < out->rank; ++d) {
      s.sizes[d] = out->sizes[d];
      s.in_strides[d] = self->strides[d];
      s.out_strides[d] = out->strides[d];
    }
    bernoulli_strided<T><<<grid_for((numel + 3) / 4), kThreads, 0, stream>>>(p, o, s, numel, seed);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_bernoulli(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const uint64_t key = static_cast<uint64_t>(seed);
  switch (out->dtype) {
    case KGB_F32: return run<float>(self, out, key, s);
    case KGB_F64: return run<double>(self, out, key, s);
    case KGB_F16: return run<__half>(self, out, key, s);
    case KGB_BF16: return run<__nv_bfloat16>(self, out, key, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
