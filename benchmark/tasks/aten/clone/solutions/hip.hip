// aten/clone in HIP (a port of the CUDA solution): out[i] = self[i] bit for bit, out in its own layout
// (self's strides when self is dense, row-major otherwise).
//
// The host puts the dims of both views in out's order (largest out stride
// first, size-1 dims dropped) and folds the dims where both are contiguous
// across them; when out has self's strides everything folds into one block.
// Then, per element size:
//  - both innermost strides 1 (one block, or rows of one): a row copy in
//    16-byte vectors when every row start is 16-byte aligned on both sides;
//  - out's innermost stride 1 and another dim of self with stride 1 (a
//    transpose): 32 x 32 tiles through shared memory (33 columns), loads and
//    stores both coalesced, the other dims over blockIdx.z;
//  - otherwise a row kernel with strided reads and writes.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;

struct Plan {
  int rank;
  int64_t size[KGB_MAX_RANK];
  int64_t src[KGB_MAX_RANK];
  int64_t dst[KGB_MAX_RANK];
};

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

Plan fold(const kgb_tensor* from, const kgb_tensor* to) {
  int order[KGB_MAX_RANK], n = 0;
  for (int d = 0; d < to->rank; ++d)
    if (to->sizes[d] != 1) order[n++] = d;
  for (int i = 1; i < n; ++i)  // out's strides descending, stable
    for (int j = i; j > 0 && to->strides[order[j]] > to->strides[order[j - 1]]; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  Plan p{};
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    const int64_t size = to->sizes[d], s = from->strides[d], o = to->strides[d];
    if (p.rank > 0 && p.src[p.rank - 1] == s * size && p.dst[p.rank - 1] == o * size) {
      p.size[p.rank - 1] *= size;
      p.src[p.rank - 1] = s;
      p.dst[p.rank - 1] = o;
      continue;
    }
    p.size[p.rank] = size;
    p.src[p.rank] = s;
    p.dst[p.rank] = o;
    ++p.rank;
  }
  if (p.rank == 0) {
    p.size[0] = 1;
    p.rank = 1;
  }
  return p;
}

// Offsets of outer index `index` over the first n dims, skipping dim `skip`.
__device__ __forceinline__ void outer_offsets(const Plan& p, int n, int skip, int64_t index, int64_t& s, int64_t& o) {
  s = 0;
  o = 0;
  for (int d = n - 1; d >= 0; --d) {
    if (d == skip) continue;
    const int64_t q = index / p.size[d], i = index - q * p.size[d];
    index = q;
    s += i * p.src[d];
    o += i * p.dst[d];
  }
}

// Rows of len units; offsets in elements are divided by `scale` (units per vector).
template <typename U>
__global__ void copy_rows(const U* __restrict__ src, U* __restrict__ dst, Plan p, int64_t rows, int64_t len, int64_t scale,
                          int64_t si, int64_t di) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    int64_t s, o;
    outer_offsets(p, p.rank - 1, -1, r, s, o);
    const U* from = src + s / scale;
    U* to = dst + o / scale;
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < len; k += (int64_t)gridDim.x * blockDim.x)
      to[k * di] = from[k * si];
  }
}

template <typename E>
__global__ void copy_transposed(const E* __restrict__ src, E* __restrict__ dst, Plan p, int a, int64_t batches) {
  __shared__ E tile[kTile][kTile + 1];
  const int last = p.rank - 1;
  const int64_t na = p.size[a], nl = p.size[last], sl = p.src[last], da = p.dst[a];
  const int64_t a0 = (int64_t)blockIdx.y * kTile, l0 = (int64_t)blockIdx.x * kTile;
  for (int64_t b = blockIdx.z; b < batches; b += gridDim.z) {
    int64_t s, o;
    outer_offsets(p, last, a, b, s, o);
    for (int r = threadIdx.y; r < kTile; r += kRows) {  // loads along a (stride 1 in self)
      const int64_t l = l0 + r, i = a0 + threadIdx.x;
      if (l < nl && i < na) tile[r][threadIdx.x] = src[s + l * sl + i];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < kTile; r += kRows) {  // stores along out's rows (stride 1)
      const int64_t i = a0 + r, l = l0 + threadIdx.x;
      if (l < nl && i < na) dst[o + i * da + l] = tile[threadIdx.x][r];
    }
    __syncthreads();
  }
}

unsigned blocks_for(int64_t work, int64_t per_block, int64_t cap) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

template <typename E>
int launch(const kgb_tensor* self, kgb_tensor* out, hipStream_t stream) {
  const Plan p = fold(self, out);
  const E* src = static_cast<const E*>(self->data);
  E* dst = static_cast<E*>(out->data);
  const int last = p.rank - 1;
  if (p.dst[last] == 1 && p.src[last] != 1) {
    for (int a = last - 1; a >= 0; --a) {
      if (p.src[a] != 1 || p.size[a] < 8) continue;
      int64_t batches = 1;
      for (int d = 0; d < last; ++d)
        if (d != a) batches *= p.size[d];
      const int64_t tiles_a = (p.size[a] + kTile - 1) / kTile;
      if (tiles_a > 65535) break;
      dim3 grid(blocks_for(p.size[last], kTile, 2147483647), (unsigned)tiles_a, blocks_for(batches, 1, 65535));
      copy_transposed<E><<<grid, dim3(kTile, kRows), 0, stream>>>(src, dst, p, a, batches);
      return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
    }
  }
  const int64_t len = p.size[last], si = p.src[last], di = p.dst[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.size[d];
  bool vec = sizeof(E) < 16 && si == 1 && di == 1 && (len * sizeof(E)) % 16 == 0 && (uintptr_t)src % 16 == 0 &&
             (uintptr_t)dst % 16 == 0;
  for (int d = 0; d < last && vec; ++d) vec = (p.src[d] * (int64_t)sizeof(E)) % 16 == 0 && (p.dst[d] * (int64_t)sizeof(E)) % 16 == 0;
  if (vec) {
    const int64_t scale = 16 / sizeof(E), units = len / scale;
    dim3 grid(blocks_for(units, 256, rows > 1 ? 64 : 8192), blocks_for(rows, 1, 65535));
    copy_rows<Bytes16><<<grid, 256, 0, stream>>>(reinterpret_cast<const Bytes16*>(src), reinterpret_cast<Bytes16*>(dst), p, rows,
                                                 units, scale, 1, 1);
  } else {
    dim3 grid(blocks_for(len, 256, rows > 1 ? 64 : 8192), blocks_for(rows, 1, 65535));
    copy_rows<E><<<grid, 256, 0, stream>>>(src, dst, p, rows, len, 1, si, di);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_clone(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (self->rank != out->rank || self->dtype != out->dtype) return KGB_ERR_INVALID;
  for (int d = 0; d < self->rank; ++d)
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
  if (kgb_numel(self) == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (kgb_dtype_size(self->dtype)) {
    case 1: return launch<uint8_t>(self, out, s);
    case 2: return launch<uint16_t>(self, out, s);
    case 4: return launch<uint32_t>(self, out, s);
    case 8: return launch<uint64_t>(self, out, s);
    case 16: return launch<Bytes16>(self, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
