// aten/cumsum on CUDA: inclusive prefix sum along one dimension.
//
// Three shapes of work:
//  - slices with unit stride (rows), or few short slices: one block per
//    slice. The block scans tiles of 2048 elements (256 threads x 8
//    consecutive items): each thread scans its items serially, the thread
//    totals are scanned with warp shuffles and a second level across warps,
//    and a running carry joins the tiles of a long slice.
//  - few long slices (the 1-D case): a proper multi-block scan in three
//    launches, reduce-then-scan. (1) every block sums one tile; (2) one
//    block per slice scans the tile sums; (3) every block rescans its tile
//    starting from its tile's prefix. The tile sums and prefixes need no
//    scratch allocation: each tile keeps its own in the first elements of its
//    own part of `out` (a wide accumulator spread over up to four elements),
//    which launch (3) reads before it overwrites them.
//  - many slices along a strided dimension (columns): a block covers 16
//    neighbouring slices (coalesced loads) and splits the slice into 32
//    chunks: chunk sums, their prefix in shared memory, then the rescan.
// Every order of summation is fixed: results are bitwise deterministic.
// Accumulators: double for f32/f64, float for f16/bf16, int64 for integers.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

template <typename T> struct Acc;
template <> struct Acc<float> {
  using A = double;
  using Bits = uint32_t;
  static __device__ __forceinline__ A load(float v) { return v; }
  static __device__ __forceinline__ float store(A v) { return static_cast<float>(v); }
};
template <> struct Acc<double> {
  using A = double;
  using Bits = unsigned long long;
  static __device__ __forceinline__ A load(double v) { return v; }
  static __device__ __forceinline__ double store(A v) { return v; }
};
template <> struct Acc<__half> {
  using A = float;
  using Bits = uint16_t;
  static __device__ __forceinline__ A load(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half store(A v) { return __float2half_rn(v); }
};
template <> struct Acc<__nv_bfloat16> {
  using A = float;
  using Bits = uint16_t;
  static __device__ __forceinline__ A load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 store(A v) { return __float2bfloat16_rn(v); }
};
template <> struct Acc<int32_t> {
  using A = long long;
  using Bits = uint32_t;
  static __device__ __forceinline__ A load(int32_t v) { return v; }
  static __device__ __forceinline__ int32_t store(A v) { return static_cast<int32_t>(v); }
};
template <> struct Acc<int64_t> {
  using A = long long;
  using Bits = unsigned long long;
  static __device__ __forceinline__ A load(int64_t v) { return v; }
  static __device__ __forceinline__ int64_t store(A v) { return static_cast<int64_t>(v); }
};

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

constexpr int kThreads = 256;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;
constexpr int kWarps = kThreads / 32;

// Exclusive scan of one value per thread over the block; also returns the
// block total. Shared scratch is reused across calls.
template <typename A>
__device__ __forceinline__ A block_exclusive_scan(A v, A& total) {
  __shared__ A warp_sums[kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  A inclusive = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const A up = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) inclusive += up;
  }
  __syncthreads();  // the previous call's readers are done with warp_sums
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  A warp_prefix = 0;
  total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const A s = warp_sums[w];
    if (w < warp) warp_prefix += s;
    total += s;
  }
  return warp_prefix + inclusive - v;
}

template <typename A>
__device__ __forceinline__ A block_sum(A v) {
  A total;
  block_exclusive_scan(v, total);
  return total;
}

// Scans x[begin, end) (element j at x[j * xs]) into y, starting from carry.
template <typename T>
__device__ void scan_range(const T* __restrict__ x, int64_t xs, T* __restrict__ y, int64_t ys, int64_t begin, int64_t end,
                           typename Acc<T>::A carry) {
  using A = typename Acc<T>::A;
  for (int64_t base = begin; base < end; base += kTile) {
    const int64_t first = base + static_cast<int64_t>(threadIdx.x) * kItems;
    A v[kItems];
    A running = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (first + k < end) running += Acc<T>::load(x[(first + k) * xs]);
      v[k] = running;
    }
    A tile_total;
    const A before = block_exclusive_scan(running, tile_total);
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      if (first + k < end) y[(first + k) * ys] = Acc<T>::store(carry + (before + v[k]));
    carry += tile_total;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) scan_slices(const T* __restrict__ in, T* __restrict__ out, Slices sl,
                                                        int64_t length, int64_t xs, int64_t ys) {
  int64_t io, oo;
  sl.offsets(blockIdx.x, io, oo);
  scan_range(in + io, xs, out + oo, ys, 0, length, static_cast<typename Acc<T>::A>(0));
}

// Tile t of a slice covers [t * kTile, (t + 1) * kTile), the last tile runs to
// the end (so every tile has at least kTile elements to hold its slots).
__device__ __forceinline__ void tile_range(int64_t tile, int64_t tiles, int64_t length, int64_t& begin, int64_t& end) {
  begin = tile * kTile;
  end = tile == tiles - 1 ? length : begin + kTile;
}

// A wide accumulator kept in the first elements of a tile's part of out.
template <typename T>
__device__ __forceinline__ void put_slot(T* y, int64_t ys, int64_t begin, typename Acc<T>::A value) {
  using Bits = typename Acc<T>::Bits;
  constexpr int kPieces = (sizeof(value) + sizeof(Bits) - 1) / sizeof(Bits);
  unsigned long long raw = 0;
  memcpy(&raw, &value, sizeof(value));
  Bits* slots = reinterpret_cast<Bits*>(y);
#pragma unroll
  for (int k = 0; k < kPieces; ++k) slots[(begin + k) * ys] = static_cast<Bits>(raw >> (8 * sizeof(Bits) * k));
}

template <typename T>
__device__ __forceinline__ typename Acc<T>::A get_slot(const T* y, int64_t ys, int64_t begin) {
  using Bits = typename Acc<T>::Bits;
  using A = typename Acc<T>::A;
  constexpr int kPieces = (sizeof(A) + sizeof(Bits) - 1) / sizeof(Bits);
  const Bits* slots = reinterpret_cast<const Bits*>(y);
  unsigned long long raw = 0;
#pragma unroll
  for (int k = 0; k < kPieces; ++k)
    raw |= static_cast<unsigned long long>(slots[(begin + k) * ys]) << (8 * sizeof(Bits) * k);
  A value;
  memcpy(&value, &raw, sizeof(value));
  return value;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) tile_sums(const T* __restrict__ in, T* __restrict__ out, Slices sl, int64_t length,
                                                      int64_t tiles, int64_t xs, int64_t ys) {
  using A = typename Acc<T>::A;
  int64_t io, oo;
  sl.offsets(blockIdx.y, io, oo);
  int64_t begin, end;
  tile_range(blockIdx.x, tiles, length, begin, end);
  const T* x = in + io;
  A sum = 0;
  for (int64_t j = begin + threadIdx.x; j < end; j += kThreads) sum += Acc<T>::load(x[j * xs]);
  // Partial sums per thread in a fixed order, then a fixed-shape block sum.
  sum = block_sum(sum);
  if (threadIdx.x == 0) put_slot(out + oo, ys, begin, sum);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) tile_prefixes(T* __restrict__ out, Slices sl, int64_t length, int64_t tiles,
                                                          int64_t ys) {
  using A = typename Acc<T>::A;
  int64_t io, oo;
  sl.offsets(blockIdx.x, io, oo);
  T* y = out + oo;
  A carry = 0;
  for (int64_t base = 0; base < tiles; base += kThreads) {
    const int64_t t = base + threadIdx.x;
    int64_t begin = 0, end = 0;
    A value = 0;
    if (t < tiles) {
      tile_range(t, tiles, length, begin, end);
      value = get_slot(y, ys, begin);
    }
    A chunk_total;
    const A before = block_exclusive_scan(value, chunk_total);
    if (t < tiles) put_slot(y, ys, begin, carry + before);
    carry += chunk_total;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) tile_scans(const T* __restrict__ in, T* __restrict__ out, Slices sl,
                                                       int64_t length, int64_t tiles, int64_t xs, int64_t ys) {
  using A = typename Acc<T>::A;
  __shared__ A prefix;
  int64_t io, oo;
  sl.offsets(blockIdx.y, io, oo);
  int64_t begin, end;
  tile_range(blockIdx.x, tiles, length, begin, end);
  if (threadIdx.x == 0) prefix = get_slot(out + oo, ys, begin);
  __syncthreads();  // read before anyone overwrites the slots
  scan_range(in + io, xs, out + oo, ys, begin, end, prefix);
}

constexpr int kColsX = 16;
constexpr int kColsY = 32;

template <typename T>
__global__ void __launch_bounds__(kColsX* kColsY) scan_columns(const T* __restrict__ in, T* __restrict__ out, Slices sl,
                                                               int64_t slices, int64_t length, int64_t xs, int64_t ys) {
  using A = typename Acc<T>::A;
  __shared__ A partial[kColsY][kColsX + 1];
  const int64_t slice = static_cast<int64_t>(blockIdx.x) * kColsX + threadIdx.x;
  const bool active = slice < slices;
  const int64_t chunk = (length + kColsY - 1) / kColsY;
  const int64_t begin = threadIdx.y * chunk;
  const int64_t end = begin + chunk < length ? begin + chunk : length;
  int64_t io = 0, oo = 0;
  if (active) sl.offsets(slice, io, oo);
  const T* x = in + io;
  T* y = out + oo;
  A sum = 0;
  if (active)
    for (int64_t j = begin; j < end; ++j) sum += Acc<T>::load(x[j * xs]);
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  A running = 0;
  for (int k = 0; k < static_cast<int>(threadIdx.y); ++k) running += partial[k][threadIdx.x];
  if (active)
    for (int64_t j = begin; j < end; ++j) {
      running += Acc<T>::load(x[j * xs]);
      y[j * ys] = Acc<T>::store(running);
    }
}

template <typename T>
int run(const kgb_tensor* self, int64_t dim, kgb_tensor* out, cudaStream_t stream) {
  const int rank = self->rank;
  const int r = rank == 0 ? 1 : rank;
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r || out->rank != rank) return KGB_ERR_INVALID;
  const int64_t length = rank == 0 ? 1 : self->sizes[dim];
  const int64_t xs = rank == 0 ? 1 : self->strides[dim], ys = rank == 0 ? 1 : out->strides[dim];
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
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return KGB_ERR_INVALID;
  const T* x = static_cast<const T*>(self->data);
  T* y = static_cast<T*>(out->data);
  const bool few = slices < 2 * static_cast<int64_t>(sms);
  if (!few && xs != 1) {
    const unsigned grid = static_cast<unsigned>((slices + kColsX - 1) / kColsX);
    scan_columns<T><<<grid, dim3(kColsX, kColsY), 0, stream>>>(x, y, sl, slices, length, xs, ys);
  } else if (few && length > 2 * kTile) {
    const int64_t tiles = length / kTile;  // the last tile takes the remainder
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(slices));
    tile_sums<T><<<grid, kThreads, 0, stream>>>(x, y, sl, length, tiles, xs, ys);
    tile_prefixes<T><<<static_cast<unsigned>(slices), kThreads, 0, stream>>>(y, sl, length, tiles, ys);
    tile_scans<T><<<grid, kThreads, 0, stream>>>(x, y, sl, length, tiles, xs, ys);
  } else {
    scan_slices<T><<<static_cast<unsigned>(slices), kThreads, 0, stream>>>(x, y, sl, length, xs, ys);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_cumsum(const kgb_tensor* self, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<float>(self, dim, out, s);
    case KGB_F64: return run<double>(self, dim, out, s);
    case KGB_F16: return run<__half>(self, dim, out, s);
    case KGB_BF16: return run<__nv_bfloat16>(self, dim, out, s);
    case KGB_I32: return run<int32_t>(self, dim, out, s);
    case KGB_I64: return run<int64_t>(self, dim, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
