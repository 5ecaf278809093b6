// aten/sum on CUDA: out = self summed over one dimension (keepdim or not).
//
// The kept dimensions are folded (size-1 dimensions dropped, contiguous
// neighbours merged); then:
//  - reduced dimension with unit stride: one warp per output, 16-byte
//    vector loads along the row when aligned, warp-shuffle reduction;
//  - otherwise: a block covers 16 neighbouring outputs (x) and splits the
//    reduced dimension into 32 chunks (y); neighbouring outputs are
//    neighbours in memory for the usual layouts, so the loads coalesce;
//    the chunk sums are combined through shared memory in a fixed order.
// Summation order is fixed, so results are bitwise deterministic.
// Accumulators: float for f32/f16/bf16, double for f64, int64 for integers.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

template <typename T> struct Acc;
template <> struct Acc<float> {
  using A = float;
  static __device__ __forceinline__ A load(float v) { return v; }
  static __device__ __forceinline__ float store(A v) { return v; }
};
template <> struct Acc<double> {
  using A = double;
  static __device__ __forceinline__ A load(double v) { return v; }
  static __device__ __forceinline__ double store(A v) { return v; }
};
template <> struct Acc<__half> {
  using A = float;
  static __device__ __forceinline__ A load(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half store(A v) { return __float2half_rn(v); }
};
template <> struct Acc<__nv_bfloat16> {
  using A = float;
  static __device__ __forceinline__ A load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 store(A v) { return __float2bfloat16_rn(v); }
};
template <> struct Acc<int32_t> {
  using A = long long;
  static __device__ __forceinline__ A load(int32_t v) { return v; }
  static __device__ __forceinline__ int32_t store(A v) { return static_cast<int32_t>(v); }
};
template <> struct Acc<int64_t> {
  using A = long long;
  static __device__ __forceinline__ A load(int64_t v) { return v; }
  static __device__ __forceinline__ int64_t store(A v) { return static_cast<int64_t>(v); }
};

// Output index -> (self offset, out offset) over the folded kept dimensions.
struct Kept {
  int ndim = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t self_strides[KGB_MAX_RANK] = {};
  int64_t out_strides[KGB_MAX_RANK] = {};
  __device__ __forceinline__ void offsets(int64_t i, int64_t& so, int64_t& oo) const {
    so = 0;
    oo = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t c = i % sizes[d];
      i /= sizes[d];
      so += c * self_strides[d];
      oo += c * out_strides[d];
    }
  }
};

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

constexpr int kRowThreads = 256;  // 8 warps, one output each

template <typename T, int VEC>
__global__ void __launch_bounds__(kRowThreads) sum_rows(const T* __restrict__ self, T* __restrict__ out, Kept kept,
                                                        int64_t outputs, int64_t length) {
  using A = typename Acc<T>::A;
  using P = Pack<T, VEC>;
  const int lane = threadIdx.x & 31;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * (kRowThreads / 32) + (threadIdx.x >> 5);
  if (o >= outputs) return;
  int64_t so, oo;
  kept.offsets(o, so, oo);
  const T* row = self + so;
  A acc = 0;
  const int64_t packs = length / VEC;
  const P* prow = reinterpret_cast<const P*>(row);
  int64_t p = lane;
  // Four independent loads in flight per lane.
  for (; p + 96 < packs; p += 128) {
    P v0 = prow[p], v1 = prow[p + 32], v2 = prow[p + 64], v3 = prow[p + 96];
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc += (Acc<T>::load(v0.v[e]) + Acc<T>::load(v1.v[e])) + (Acc<T>::load(v2.v[e]) + Acc<T>::load(v3.v[e]));
  }
  for (; p < packs; p += 32) {
    P v = prow[p];
#pragma unroll
    for (int e = 0; e < VEC; ++e) acc += Acc<T>::load(v.v[e]);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) out[oo] = Acc<T>::store(acc);
}

// The reduced dimension has unit stride but no vector alignment: scalar loads.
template <typename T>
__global__ void __launch_bounds__(kRowThreads) sum_rows_scalar(const T* __restrict__ self, T* __restrict__ out, Kept kept,
                                                               int64_t outputs, int64_t length, int64_t stride) {
  using A = typename Acc<T>::A;
  const int lane = threadIdx.x & 31;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * (kRowThreads / 32) + (threadIdx.x >> 5);
  if (o >= outputs) return;
  int64_t so, oo;
  kept.offsets(o, so, oo);
  A acc = 0;
  for (int64_t j = lane; j < length; j += 32) acc += Acc<T>::load(self[so + j * stride]);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) out[oo] = Acc<T>::store(acc);
}

constexpr int kColsX = 16;  // neighbouring outputs per block
constexpr int kColsY = 32;  // chunks of the reduced dimension per block

template <typename T>
__global__ void __launch_bounds__(kColsX* kColsY) sum_columns(const T* __restrict__ self, T* __restrict__ out, Kept kept,
                                                              int64_t outputs, int64_t length, int64_t stride) {
  using A = typename Acc<T>::A;
  __shared__ A partial[kColsY][kColsX + 1];
  const int64_t o = static_cast<int64_t>(blockIdx.x) * kColsX + threadIdx.x;
  const int64_t chunk = (length + kColsY - 1) / kColsY;
  const int64_t begin = threadIdx.y * chunk;
  const int64_t end = begin + chunk < length ? begin + chunk : length;
  A acc = 0;
  int64_t so = 0, oo = 0;
  if (o < outputs) {
    kept.offsets(o, so, oo);
    const T* p = self + so;
    int64_t j = begin;
    for (; j + 3 < end; j += 4) {
      const A a0 = Acc<T>::load(p[j * stride]), a1 = Acc<T>::load(p[(j + 1) * stride]);
      const A a2 = Acc<T>::load(p[(j + 2) * stride]), a3 = Acc<T>::load(p[(j + 3) * stride]);
      acc += (a0 + a1) + (a2 + a3);
    }
    for (; j < end; ++j) acc += Acc<T>::load(p[j * stride]);
  }
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && o < outputs) {
    A total = 0;
#pragma unroll 8
    for (int y = 0; y < kColsY; ++y) total += partial[y][threadIdx.x];
    out[oo] = Acc<T>::store(total);
  }
}

template <typename T>
int run(const kgb_tensor* self, int64_t dim, bool keepdim, kgb_tensor* out, cudaStream_t stream) {
  const int rank = self->rank;
  if (rank == 0) {
    // A rank-0 input has one element: the sum over "dimension 0" is itself.
    if (dim != 0 && dim != -1) return KGB_ERR_INVALID;
    dim = -1;
  }
  const int r = rank == 0 ? 1 : rank;
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r) return KGB_ERR_INVALID;
  const int64_t length = rank == 0 ? 1 : self->sizes[dim];
  const int64_t stride = rank == 0 ? 1 : self->strides[dim];
  if ((keepdim ? rank : rank - 1) != out->rank && rank != 0) return KGB_ERR_INVALID;
  // Kept dimensions: self's dims except `dim`, matched with out's.
  Kept kept;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) continue;
    const int od = keepdim ? d : (d < dim ? d : d - 1);
    const int64_t size = self->sizes[d];
    if (size == 1) continue;
    if (kept.ndim > 0) {
      const int last = kept.ndim - 1;
      if (kept.self_strides[last] == self->strides[d] * size && kept.out_strides[last] == out->strides[od] * size) {
        kept.sizes[last] *= size;
        kept.self_strides[last] = self->strides[d];
        kept.out_strides[last] = out->strides[od];
        continue;
      }
    }
    kept.sizes[kept.ndim] = size;
    kept.self_strides[kept.ndim] = self->strides[d];
    kept.out_strides[kept.ndim] = out->strides[od];
    ++kept.ndim;
  }
  const int64_t outputs = kgb_numel(out);
  const T* s = static_cast<const T*>(self->data);
  T* o = static_cast<T*>(out->data);
  if (stride == 1 || length <= 1) {
    constexpr int V = 16 / sizeof(T);
    bool vec = length % V == 0 && reinterpret_cast<uintptr_t>(s) % 16 == 0 && stride == 1;
    for (int d = 0; d < kept.ndim; ++d) vec = vec && kept.self_strides[d] % V == 0;
    const unsigned grid = static_cast<unsigned>((outputs + kRowThreads / 32 - 1) / (kRowThreads / 32));
    if (vec) sum_rows<T, V><<<grid, kRowThreads, 0, stream>>>(s, o, kept, outputs, length);
    else sum_rows_scalar<T><<<grid, kRowThreads, 0, stream>>>(s, o, kept, outputs, length, stride);
  } else {
    const unsigned grid = static_cast<unsigned>((outputs + kColsX - 1) / kColsX);
    sum_columns<T><<<grid, dim3(kColsX, kColsY), 0, stream>>>(s, o, kept, outputs, length, stride);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_sum(const kgb_tensor* self, int64_t dim, int keepdim, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const bool keep = keepdim != 0;
  switch (out->dtype) {
    case KGB_F32: return run<float>(self, dim, keep, out, s);
    case KGB_F64: return run<double>(self, dim, keep, out, s);
    case KGB_F16: return run<__half>(self, dim, keep, out, s);
    case KGB_BF16: return run<__nv_bfloat16>(self, dim, keep, out, s);
    case KGB_I32: return run<int32_t>(self, dim, keep, out, s);
    case KGB_I64: return run<int64_t>(self, dim, keep, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
