// aten/_softmax on CUDA: out = exp(x - max(x)) / sum(exp(x - max(x))) per slice;
// out in self's dtype, or f32 from f16 with half_to_float (converted on load,
// the float result stored as is).
//
// Slices along a unit-stride dimension ("rows"): a group of threads per row
// (one warp for rows up to 32 vectors per lane... see pick below, otherwise a
// block of 256 threads). With unit strides and 16-byte alignment the row is
// read once into registers with vector loads, max and sum are reduced with
// warp shuffles (and shared memory across warps), and the result is written
// with vector stores: one read and one write of memory. Rows too long for
// registers, or without vector alignment, take three strided passes (max,
// sum, write).
// Slices along a strided dimension ("columns"): a block covers 16
// neighbouring slices (adjacent in memory for the usual layouts, so the loads
// coalesce) and splits each slice into 32 chunks; partial maxima and sums
// meet in shared memory.
// Arithmetic: float (f32/f16/bf16, expf), double for f64; IEEE semantics of
// the formula, so NaN or +inf in a slice give NaN, and -inf gives 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

template <typename T> struct Num;
template <> struct Num<float> {
  using C = float;
  static __device__ __forceinline__ C load(float v) { return v; }
  static __device__ __forceinline__ float store(C v) { return v; }
  static __device__ __forceinline__ C ex(C v) { return expf(v); }
};
// Output conversion from the input's compute type C to the output's storage O.
template <typename O, typename C> __device__ __forceinline__ O store_as(C v) { return Num<O>::store(v); }
template <> struct Num<double> {
  using C = double;
  static __device__ __forceinline__ C load(double v) { return v; }
  static __device__ __forceinline__ double store(C v) { return v; }
  static __device__ __forceinline__ C ex(C v) { return exp(v); }
};
template <> struct Num<__half> {
  using C = float;
  static __device__ __forceinline__ C load(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half store(C v) { return __float2half_rn(v); }
  static __device__ __forceinline__ C ex(C v) { return expf(v); }
};
template <> struct Num<__nv_bfloat16> {
  using C = float;
  static __device__ __forceinline__ C load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 store(C v) { return __float2bfloat16_rn(v); }
  static __device__ __forceinline__ C ex(C v) { return expf(v); }
};

// max that propagates nothing special: NaN is handled by the sum (exp(NaN) = NaN).
template <typename C> __device__ __forceinline__ C max_of(C a, C b) { return a > b ? a : b; }

// Slice index -> (self offset, out offset) over the folded other dimensions.
struct Slices {
  int ndim = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t in_strides[KGB_MAX_RANK] = {};
  int64_t out_strides[KGB_MAX_RANK] = {};
  __device__ __forceinline__ void offsets(int64_t i, int64_t& io, int64_t& oo) const {
    io = 0;
    oo = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t c = i % sizes[d];
      i /= sizes[d];
      io += c * in_strides[d];
      oo += c * out_strides[d];
    }
  }
};

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

constexpr int kThreads = 256;
constexpr int kMaxPacks = 8;

// Reduction over a group of GROUP threads (32: the warp; 256: the block).
template <int GROUP, typename C, bool IS_MAX>
__device__ __forceinline__ C group_reduce(C v, C* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    C other = __shfl_xor_sync(0xffffffffu, v, o);
    v = IS_MAX ? max_of(v, other) : v + other;
  }
  if (GROUP == 32) return v;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  __syncthreads();  // scratch may still be read from the previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  C r = scratch[0];
#pragma unroll
  for (int w = 1; w < GROUP / 32; ++w) r = IS_MAX ? max_of(r, scratch[w]) : r + scratch[w];
  return r;
}

// One row per GROUP threads; VEC elements per pack; rows cached in registers
// when they fit (cached), otherwise three passes over memory.
template <typename T, typename O, int GROUP, int VEC>
__device__ __forceinline__ void softmax_row(const T* __restrict__ in, O* __restrict__ out, const Slices& sl, int64_t row,
                                            int64_t rows, int64_t length, int64_t in_inner, int64_t out_inner,
                                            bool cached) {
  using C = typename Num<T>::C;
  using P = Pack<T, VEC>;
  using PO = Pack<O, VEC>;
  __shared__ C scratch[kThreads / 32];
  const int t = threadIdx.x % GROUP;
  // Whole blocks stay together for the block-wide reductions (GROUP == 256).
  if (GROUP == 32 && row >= rows) return;
  const bool active = row < rows;
  int64_t io = 0, oo = 0;
  if (active) sl.offsets(row, io, oo);
  const T* x = in + io;
  O* y = out + oo;
  const C neg_inf = -static_cast<C>(INFINITY);
  if (cached) {
    const int64_t packs = length / VEC;
    const P* px = reinterpret_cast<const P*>(x);
    PO* py = reinterpret_cast<PO*>(y);
    C v[kMaxPacks][VEC];
    C m = neg_inf;
#pragma unroll
    for (int k = 0; k < kMaxPacks; ++k) {
      const int64_t p = t + static_cast<int64_t>(k) * GROUP;
      if (active && p < packs) {
        const P raw = px[p];
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          v[k][e] = Num<T>::load(raw.v[e]);
          m = max_of(m, v[k][e]);
        }
      }
    }
    m = group_reduce<GROUP, C, true>(m, scratch);
    C s = 0;
#pragma unroll
    for (int k = 0; k < kMaxPacks; ++k) {
      const int64_t p = t + static_cast<int64_t>(k) * GROUP;
      if (active && p < packs) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          v[k][e] = Num<T>::ex(v[k][e] - m);
          s += v[k][e];
        }
      }
    }
    s = group_reduce<GROUP, C, false>(s, scratch);
#pragma unroll
    for (int k = 0; k < kMaxPacks; ++k) {
      const int64_t p = t + static_cast<int64_t>(k) * GROUP;
      if (active && p < packs) {
        PO r;
#pragma unroll
        for (int e = 0; e < VEC; ++e) r.v[e] = store_as<O>(v[k][e] / s);
        py[p] = r;
      }
    }
    return;
  }
  C m = neg_inf;
  if (active)
    for (int64_t j = t; j < length; j += GROUP) m = max_of(m, Num<T>::load(x[j * in_inner]));
  m = group_reduce<GROUP, C, true>(m, scratch);
  C s = 0;
  if (active)
    for (int64_t j = t; j < length; j += GROUP) s += Num<T>::ex(Num<T>::load(x[j * in_inner]) - m);
  s = group_reduce<GROUP, C, false>(s, scratch);
  if (active)
    for (int64_t j = t; j < length; j += GROUP) y[j * out_inner] = store_as<O>(Num<T>::ex(Num<T>::load(x[j * in_inner]) - m) / s);
}

constexpr int kColsX = 16;
constexpr int kColsY = 32;

template <typename T, typename O>
__device__ __forceinline__ void softmax_column_block(const T* __restrict__ in, O* __restrict__ out, const Slices& sl,
                                                     int64_t first, int64_t slices, int64_t length, int64_t in_stride,
                                                     int64_t out_stride) {
  using C = typename Num<T>::C;
  __shared__ C partial[kColsY][kColsX + 1];
  const int64_t slice = first + threadIdx.x;
  const bool active = slice < slices;
  __syncthreads();  // partial may still be read from the previous block of slices
  const int64_t chunk = (length + kColsY - 1) / kColsY;
  const int64_t begin = threadIdx.y * chunk;
  const int64_t end = begin + chunk < length ? begin + chunk : length;
  int64_t io = 0, oo = 0;
  if (active) sl.offsets(slice, io, oo);
  const T* x = in + io;
  O* y = out + oo;
  C m = -static_cast<C>(INFINITY);
  if (active)
    for (int64_t j = begin; j < end; ++j) m = max_of(m, Num<T>::load(x[j * in_stride]));
  partial[threadIdx.y][threadIdx.x] = m;
  __syncthreads();
  m = partial[0][threadIdx.x];
  for (int k = 1; k < kColsY; ++k) m = max_of(m, partial[k][threadIdx.x]);
  __syncthreads();
  C s = 0;
  if (active)
    for (int64_t j = begin; j < end; ++j) s += Num<T>::ex(Num<T>::load(x[j * in_stride]) - m);
  partial[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  s = 0;
  for (int k = 0; k < kColsY; ++k) s += partial[k][threadIdx.x];
  if (active)
    for (int64_t j = begin; j < end; ++j) y[j * out_stride] = store_as<O>(Num<T>::ex(Num<T>::load(x[j * in_stride]) - m) / s);
}

// Grid-stride loops: a block takes kThreads / GROUP rows (or kColsX slices)
// at a time; the loop bounds are uniform across the block, so the block-wide
// barriers inside stay convergent.
template <typename T, typename O, int GROUP, int VEC>
__global__ void __launch_bounds__(kThreads) softmax_rows(const T* __restrict__ in, O* __restrict__ out, Slices sl,
                                                         int64_t rows, int64_t length, int64_t in_inner, int64_t out_inner,
                                                         bool cached) {
  constexpr int kGroupsPerBlock = kThreads / GROUP;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kGroupsPerBlock; first < rows;
       first += static_cast<int64_t>(gridDim.x) * kGroupsPerBlock)
    softmax_row<T, O, GROUP, VEC>(in, out, sl, first + threadIdx.x / GROUP, rows, length, in_inner, out_inner, cached);
}

template <typename T, typename O>
__global__ void __launch_bounds__(kColsX* kColsY) softmax_columns(const T* __restrict__ in, O* __restrict__ out, Slices sl,
                                                                  int64_t slices, int64_t length, int64_t in_stride,
                                                                  int64_t out_stride) {
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kColsX; first < slices;
       first += static_cast<int64_t>(gridDim.x) * kColsX)
    softmax_column_block<T, O>(in, out, sl, first, slices, length, in_stride, out_stride);
}

constexpr int64_t kMaxBlocks = 65536;

template <typename T, typename O, int GROUP, int VEC>
void launch_rows(const T* in, O* out, const Slices& sl, int64_t rows, int64_t length, int64_t in_inner, int64_t out_inner,
                 bool cached, cudaStream_t stream) {
  const int64_t per_block = kThreads / GROUP;
  const int64_t blocks = (rows + per_block - 1) / per_block;
  const unsigned grid = static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
  softmax_rows<T, O, GROUP, VEC><<<grid, kThreads, 0, stream>>>(in, out, sl, rows, length, in_inner, out_inner, cached);
}

template <typename T, typename O = T>
int run(const kgb_tensor* self, int64_t dim, kgb_tensor* out, cudaStream_t stream) {
  const int rank = self->rank;
  const int r = rank == 0 ? 1 : rank;
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r || out->rank != rank) return KGB_ERR_INVALID;
  const int64_t length = rank == 0 ? 1 : self->sizes[dim];
  const int64_t in_stride = rank == 0 ? 1 : self->strides[dim], out_stride = rank == 0 ? 1 : out->strides[dim];
  Slices sl;
  for (int d = 0; d < rank; ++d) {
    if (d == dim || self->sizes[d] == 1) continue;
    const int64_t size = self->sizes[d];
    if (sl.ndim > 0) {
      const int last = sl.ndim - 1;
      if (sl.in_strides[last] == self->strides[d] * size && sl.out_strides[last] == out->strides[d] * size) {
        sl.sizes[last] *= size;
        sl.in_strides[last] = self->strides[d];
        sl.out_strides[last] = out->strides[d];
        continue;
      }
    }
    sl.sizes[sl.ndim] = size;
    sl.in_strides[sl.ndim] = self->strides[d];
    sl.out_strides[sl.ndim] = out->strides[d];
    ++sl.ndim;
  }
  const int64_t slices = kgb_numel(out) / length;
  const T* x = static_cast<const T*>(self->data);
  O* y = static_cast<O*>(out->data);
  const bool unit = (in_stride == 1 && out_stride == 1) || length == 1;
  if (unit || slices < 64) {
    constexpr int V = 16 / sizeof(T);
    bool vec = in_stride == 1 && out_stride == 1 && length % V == 0 &&
               reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % (sizeof(O) * V) == 0;
    for (int d = 0; d < sl.ndim; ++d) vec = vec && sl.in_strides[d] % V == 0 && sl.out_strides[d] % V == 0;
    const int64_t packs = vec ? length / V : length;
    // A warp per row for short rows (more rows in flight), a block otherwise.
    if (packs <= 32 * kMaxPacks / 2) {
      if (vec) launch_rows<T, O, 32, V>(x, y, sl, slices, length, in_stride, out_stride, true, stream);
      else launch_rows<T, O, 32, 1>(x, y, sl, slices, length, in_stride, out_stride, packs <= 32 * kMaxPacks && unit, stream);
    } else {
      const bool fits = packs <= static_cast<int64_t>(kThreads) * kMaxPacks;
      if (vec) launch_rows<T, O, kThreads, V>(x, y, sl, slices, length, in_stride, out_stride, fits, stream);
      else launch_rows<T, O, kThreads, 1>(x, y, sl, slices, length, in_stride, out_stride, fits && unit, stream);
    }
  } else {
    const int64_t blocks = (slices + kColsX - 1) / kColsX;
    const unsigned grid = static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
    softmax_columns<T, O><<<grid, dim3(kColsX, kColsY), 0, stream>>>(x, y, sl, slices, length, in_stride, out_stride);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten__softmax(const kgb_tensor* self, int64_t dim, int half_to_float, kgb_tensor* out,
                                 kgb_stream stream) {
  if (half_to_float ? (self->dtype != KGB_F16 || out->dtype != KGB_F32) : self->dtype != out->dtype)
    return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (half_to_float) return run<__half, float>(self, dim, out, s);
  switch (out->dtype) {
    case KGB_F32: return run<float>(self, dim, out, s);
    case KGB_F64: return run<double>(self, dim, out, s);
    case KGB_F16: return run<__half>(self, dim, out, s);
    case KGB_BF16: return run<__nv_bfloat16>(self, dim, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
