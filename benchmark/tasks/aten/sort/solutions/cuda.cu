// aten/sort on CUDA: per-slice sort with source indices, NaN greatest.
//
// Values become order-preserving unsigned keys (sign-flipped IEEE bits with
// NaN mapped to the largest key and -0 to +0; integers with the sign bit
// flipped); descending order sorts the complemented keys. Each element is
// sorted as (key, index), so every element is distinct and the order is
// fully determined. Output values are gathered from self at the sorted
// indices (bit-exact).
// Slices that fit in shared memory (the usual case): one block per slice
// runs a bitonic sorting network over the slice in shared memory. The
// network uses the "flip" form (every comparator puts the minimum first), so
// a length that is not a power of two is handled as if padded with +inf:
// comparators that reach past the end are skipped.
// Longer slices: the same network, one launch per stage, in global memory,
// using the output tensors' own storage as the work area.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

// Order-preserving keys.
template <typename T> struct Key;
template <> struct Key<float> {
  using K = uint32_t;
  static __device__ __forceinline__ K of(float v) {
    uint32_t u = __float_as_uint(v);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0xFFFFFFFFu;  // NaN: above +inf
    if (u == 0x80000000u) u = 0;                              // -0 == +0
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
};
template <> struct Key<double> {
  using K = unsigned long long;
  static __device__ __forceinline__ K of(double v) {
    unsigned long long u = static_cast<unsigned long long>(__double_as_longlong(v));
    if ((u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) return ~0ull;
    if (u == 0x8000000000000000ull) u = 0;
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
  }
};
template <> struct Key<__half> {
  using K = uint32_t;
  static __device__ __forceinline__ K of(__half v) {
    uint32_t u = __half_as_ushort(v);
    if ((u & 0x7FFFu) > 0x7C00u) return 0xFFFFu;
    if (u == 0x8000u) u = 0;
    return (u & 0x8000u) ? (~u & 0xFFFFu) : (u | 0x8000u);
  }
};
template <> struct Key<__nv_bfloat16> {
  using K = uint32_t;
  static __device__ __forceinline__ K of(__nv_bfloat16 v) {
    uint32_t u = __bfloat16_as_ushort(v);
    if ((u & 0x7FFFu) > 0x7F80u) return 0xFFFFu;
    if (u == 0x8000u) u = 0;
    return (u & 0x8000u) ? (~u & 0xFFFFu) : (u | 0x8000u);
  }
};
template <> struct Key<int32_t> {
  using K = uint32_t;
  static __device__ __forceinline__ K of(int32_t v) { return static_cast<uint32_t>(v) ^ 0x80000000u; }
};
template <> struct Key<int64_t> {
  using K = unsigned long long;
  static __device__ __forceinline__ K of(int64_t v) { return static_cast<unsigned long long>(v) ^ 0x8000000000000000ull; }
};

// Sort element: (key, index) compared lexicographically. Keys of at most 32
// bits and the index pack into one 64-bit word; wider keys keep a pair.
template <typename K> struct Item;
template <> struct Item<uint32_t> {
  unsigned long long packed;
  static __device__ __forceinline__ Item make(uint32_t key, uint32_t index) {
    return Item{(static_cast<unsigned long long>(key) << 32) | index};
  }
  __device__ __forceinline__ uint32_t index() const { return static_cast<uint32_t>(packed); }
  __device__ __forceinline__ bool operator<(const Item& o) const { return packed < o.packed; }
};
template <> struct Item<unsigned long long> {
  unsigned long long key;
  uint32_t idx;
  static __device__ __forceinline__ Item make(unsigned long long key, uint32_t index) { return Item{key, index}; }
  __device__ __forceinline__ uint32_t index() const { return idx; }
  __device__ __forceinline__ bool operator<(const Item& o) const { return key < o.key || (key == o.key && idx < o.idx); }
};

struct Slices {
  int ndim = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t in_strides[KGB_MAX_RANK] = {};
  int64_t val_strides[KGB_MAX_RANK] = {};
  int64_t idx_strides[KGB_MAX_RANK] = {};
  __device__ __forceinline__ void offsets(int64_t i, int64_t& io, int64_t& vo, int64_t& xo) const {
    io = vo = xo = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t c = i % sizes[d];
      i /= sizes[d];
      io += c * in_strides[d];
      vo += c * val_strides[d];
      xo += c * idx_strides[d];
    }
  }
};

struct SliceStrides {
  int64_t in, val, idx;  // along the sorted dimension
};

template <typename T>
__device__ __forceinline__ typename Key<T>::K sort_key(T v, bool descending) {
  const typename Key<T>::K k = Key<T>::of(v);
  return descending ? static_cast<typename Key<T>::K>(~k) : k;
}

template <typename I>
__device__ __forceinline__ void compare_exchange(I* s, int64_t i, int64_t j) {
  const I a = s[i], b = s[j];
  if (b < a) {
    s[i] = b;
    s[j] = a;
  }
}

template <typename T>
__global__ void sort_in_shared(const T* __restrict__ self, T* __restrict__ values, int64_t* __restrict__ indices, Slices sl,
                               SliceStrides st, int64_t n, int64_t pow2, bool descending) {
  using I = Item<typename Key<T>::K>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  I* s = reinterpret_cast<I*>(shared_raw);
  int64_t io, vo, xo;
  sl.offsets(blockIdx.x, io, vo, xo);
  const T* x = self + io;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s[i] = I::make(sort_key(x[i * st.in], descending), static_cast<uint32_t>(i));
  __syncthreads();
  const int64_t half = pow2 / 2;
  for (int64_t k = 2; k <= pow2; k <<= 1) {
    // Flip: i against its mirror in the k-block.
    for (int64_t q = threadIdx.x; q < half; q += blockDim.x) {
      const int64_t i = (q / (k / 2)) * k + (q % (k / 2)), j = i ^ (k - 1);
      if (j < n) compare_exchange(s, i, j);
    }
    __syncthreads();
    for (int64_t d = k / 4; d >= 1; d >>= 1) {
      for (int64_t q = threadIdx.x; q < half; q += blockDim.x) {
        const int64_t i = (q / d) * 2 * d + (q % d), j = i + d;
        if (j < n) compare_exchange(s, i, j);
      }
      __syncthreads();
    }
  }
  T* v = values + vo;
  int64_t* ix = indices + xo;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const uint32_t src = s[i].index();
    v[i * st.val] = x[static_cast<int64_t>(src) * st.in];
    ix[i * st.idx] = src;
  }
}

// Global-memory variant for long slices. Work area: for keys of at most 32
// bits the packed item lives in `indices` (8 bytes per element); wider keys
// keep the key bits in `values` and the index in `indices`.
template <typename T>
__device__ __forceinline__ Item<typename Key<T>::K> load_item(T* values, int64_t* indices, int64_t vs, int64_t is, int64_t i) {
  using I = Item<typename Key<T>::K>;
  I item;
  if constexpr (sizeof(typename Key<T>::K) == 4) {
    item.packed = static_cast<unsigned long long>(indices[i * is]);
  } else {
    item.key = *reinterpret_cast<const unsigned long long*>(values + i * vs);
    item.idx = static_cast<uint32_t>(indices[i * is]);
  }
  return item;
}

template <typename T>
__device__ __forceinline__ void store_item(T* values, int64_t* indices, int64_t vs, int64_t is, int64_t i,
                                           const Item<typename Key<T>::K>& item) {
  if constexpr (sizeof(typename Key<T>::K) == 4) {
    indices[i * is] = static_cast<int64_t>(item.packed);
  } else {
    *reinterpret_cast<unsigned long long*>(values + i * vs) = item.key;
    indices[i * is] = item.idx;
  }
}

template <typename T>
__global__ void global_init(const T* __restrict__ self, T* __restrict__ values, int64_t* __restrict__ indices, Slices sl,
                            SliceStrides st, int64_t n, bool descending) {
  using I = Item<typename Key<T>::K>;
  int64_t io, vo, xo;
  sl.offsets(blockIdx.y, io, vo, xo);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    store_item<T>(values + vo, indices + xo, st.val, st.idx, i, I::make(sort_key(self[io + i * st.in], descending), static_cast<uint32_t>(i)));
}

// One stage of the network: flip (mirror partners within k-blocks) or a
// half-cleaner with distance d.
template <typename T>
__global__ void global_stage(T* __restrict__ values, int64_t* __restrict__ indices, Slices sl, SliceStrides st, int64_t n,
                             int64_t half, int64_t k, int64_t d, bool flip) {
  int64_t io, vo, xo;
  sl.offsets(blockIdx.y, io, vo, xo);
  T* v = values + vo;
  int64_t* ix = indices + xo;
  for (int64_t q = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < half; q += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t i, j;
    if (flip) {
      i = (q / (k / 2)) * k + (q % (k / 2));
      j = i ^ (k - 1);
    } else {
      i = (q / d) * 2 * d + (q % d);
      j = i + d;
    }
    if (j >= n) continue;
    const auto a = load_item<T>(v, ix, st.val, st.idx, i), b = load_item<T>(v, ix, st.val, st.idx, j);
    if (b < a) {
      store_item<T>(v, ix, st.val, st.idx, i, b);
      store_item<T>(v, ix, st.val, st.idx, j, a);
    }
  }
}

template <typename T>
__global__ void global_finish(const T* __restrict__ self, T* __restrict__ values, int64_t* __restrict__ indices, Slices sl,
                              SliceStrides st, int64_t n) {
  int64_t io, vo, xo;
  sl.offsets(blockIdx.y, io, vo, xo);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint32_t src = load_item<T>(values + vo, indices + xo, st.val, st.idx, i).index();
    values[vo + i * st.val] = self[io + static_cast<int64_t>(src) * st.in];
    indices[xo + i * st.idx] = src;
  }
}

int64_t next_pow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

template <typename T>
int run(const kgb_tensor* self, int64_t dim, bool descending, kgb_tensor* values, kgb_tensor* indices, cudaStream_t stream) {
  using I = Item<typename Key<T>::K>;
  const int rank = self->rank;
  const int r = rank == 0 ? 1 : rank;
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r || values->rank != rank || indices->rank != rank) return KGB_ERR_INVALID;
  const int64_t n = rank == 0 ? 1 : self->sizes[dim];
  if (n > 0xFFFFFFFFll) return KGB_ERR_UNSUPPORTED;
  SliceStrides st{rank == 0 ? 1 : self->strides[dim], rank == 0 ? 1 : values->strides[dim], rank == 0 ? 1 : indices->strides[dim]};
  Slices sl;
  for (int d = 0; d < rank; ++d) {
    if (d == dim || self->sizes[d] == 1) continue;
    sl.sizes[sl.ndim] = self->sizes[d];
    sl.in_strides[sl.ndim] = self->strides[d];
    sl.val_strides[sl.ndim] = values->strides[d];
    sl.idx_strides[sl.ndim] = indices->strides[d];
    ++sl.ndim;
  }
  const int64_t slices = kgb_numel(values) / n;
  if (slices > 0x7FFFFFFFll) return KGB_ERR_UNSUPPORTED;
  const T* x = static_cast<const T*>(self->data);
  T* v = static_cast<T*>(values->data);
  int64_t* ix = static_cast<int64_t*>(indices->data);
  const int64_t pow2 = next_pow2(n);
  int device = 0, max_shared = 48 * 1024;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return KGB_ERR_INVALID;
  const size_t shared = static_cast<size_t>(n) * sizeof(I);
  if (shared <= static_cast<size_t>(max_shared)) {
    if (shared > 48 * 1024 &&
        cudaFuncSetAttribute(sort_in_shared<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)) != cudaSuccess)
      return KGB_ERR_INVALID;
    const int64_t threads = pow2 / 2 < 32 ? 32 : (pow2 / 2 > 1024 ? 1024 : pow2 / 2);
    sort_in_shared<T><<<static_cast<unsigned>(slices), static_cast<unsigned>(threads), shared, stream>>>(
        x, v, ix, sl, st, n, pow2, descending);
  } else {
    if (slices > 65535) return KGB_ERR_UNSUPPORTED;
    const int threads = 256;
    const int64_t half = pow2 / 2;
    const unsigned bx = static_cast<unsigned>((half + threads - 1) / threads > 4096 ? 4096 : (half + threads - 1) / threads);
    const unsigned ex = static_cast<unsigned>((n + threads - 1) / threads > 4096 ? 4096 : (n + threads - 1) / threads);
    const dim3 stage_grid(bx, static_cast<unsigned>(slices)), elem_grid(ex, static_cast<unsigned>(slices));
    global_init<T><<<elem_grid, threads, 0, stream>>>(x, v, ix, sl, st, n, descending);
    for (int64_t k = 2; k <= pow2; k <<= 1) {
      global_stage<T><<<stage_grid, threads, 0, stream>>>(v, ix, sl, st, n, half, k, 0, true);
      for (int64_t d = k / 4; d >= 1; d >>= 1) global_stage<T><<<stage_grid, threads, 0, stream>>>(v, ix, sl, st, n, half, k, d, false);
    }
    global_finish<T><<<elem_grid, threads, 0, stream>>>(x, v, ix, sl, st, n);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_sort(const kgb_tensor* self, int64_t dim, int descending, kgb_tensor* values, kgb_tensor* indices,
                             kgb_stream stream) {
  if (self->dtype != values->dtype || indices->dtype != KGB_I64) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(values) == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const bool desc = descending != 0;
  switch (values->dtype) {
    case KGB_F32: return run<float>(self, dim, desc, values, indices, s);
    case KGB_F64: return run<double>(self, dim, desc, values, indices, s);
    case KGB_F16: return run<__half>(self, dim, desc, values, indices, s);
    case KGB_BF16: return run<__nv_bfloat16>(self, dim, desc, values, indices, s);
    case KGB_I32: return run<int32_t>(self, dim, desc, values, indices, s);
    case KGB_I64: return run<int64_t>(self, dim, desc, values, indices, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
