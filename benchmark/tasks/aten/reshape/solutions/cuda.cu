// aten/reshape on CUDA.
//
// The shape is completed first (one -1 takes the remaining count). Alias
// path (host only, no launch): ATen's computeStride finds strides that
// address self's elements in the new shape (self's dims, cut into chunks
// that are dense runs, are each covered by whole dims of the new shape), so
// out becomes that view.
// Copy path: out is row-major in the new shape, which holds the same bytes as
// a row-major copy in self's shape. Self's dims are folded on the host
// (size-1 dims dropped, dims contiguous in self merged); out is row-major
// over the folded dims. Then:
//  - self's innermost stride is 1: a row copy, 16-byte vectors when every row
//    start is 16-byte aligned on both sides, else element by element;
//  - another dim of self has stride 1 (a transpose): 32 x 32 tiles through
//    shared memory (padded to 33 columns against bank conflicts), read along
//    self's stride-1 dim and written along out's rows, so both the loads and
//    the stores are coalesced; the other dims run over blockIdx.z;
//  - otherwise (stepped, broadcast): one output element per thread, grid-
//    stride, coalesced writes and a gather on the read side.
// Elements move bit for bit: the kernels are instantiated per element size.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;  // tile rows per thread block pass

struct Plan {
  int rank;
  int64_t size[KGB_MAX_RANK];
  int64_t src[KGB_MAX_RANK];  // self's strides; out is row-major over `size`
};

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

// ATen's infer_size: at most one -1; the product must be numel.
bool infer_shape(kgb_int_list shape, int64_t numel, int64_t* sizes) {
  if (shape.count > KGB_MAX_RANK) return false;
  int64_t known = 1, infer = -1;
  for (int64_t d = 0; d < shape.count; ++d) {
    sizes[d] = shape.values[d];
    if (sizes[d] == -1) {
      if (infer >= 0) return false;
      infer = d;
    } else if (sizes[d] < 0) {
      return false;
    } else {
      known *= sizes[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return false;
    sizes[infer] = numel / known;
    return true;
  }
  return known == numel;
}

// ATen's computeStride: strides for the new shape over self's storage, or false.
bool compute_stride(const kgb_tensor* t, const int64_t* shape, int rank, int64_t* strides) {
  if (t->rank == 0) {
    for (int d = 0; d < rank; ++d) strides[d] = 1;
    return true;
  }
  const int64_t numel = kgb_numel(t);
  if (numel == 0) {
    bool same = rank == t->rank;
    for (int d = 0; same && d < rank; ++d) same = shape[d] == t->sizes[d];
    for (int d = rank - 1; d >= 0; --d)
      strides[d] = same ? t->strides[d] : d == rank - 1 ? 1 : (shape[d + 1] > 1 ? shape[d + 1] : 1) * strides[d + 1];
    return true;
  }
  int view_d = rank - 1;
  int64_t base = t->strides[t->rank - 1], tensor_numel = 1, view_numel = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    tensor_numel *= t->sizes[d];
    if (d == 0 || (t->sizes[d - 1] != 1 && t->strides[d - 1] != tensor_numel * base)) {  // end of a chunk
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * base;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        base = t->strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Plan fold(const kgb_tensor* t) {
  Plan p{};
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    if (p.rank > 0 && p.src[p.rank - 1] == t->strides[d] * t->sizes[d]) {
      p.size[p.rank - 1] *= t->sizes[d];
      p.src[p.rank - 1] = t->strides[d];
      continue;
    }
    p.size[p.rank] = t->sizes[d];
    p.src[p.rank] = t->strides[d];
    ++p.rank;
  }
  if (p.rank == 0) {
    p.size[0] = 1;
    p.src[0] = 0;
    p.rank = 1;
  }
  return p;
}

// Source offset of outer index `index` over the first n dims of the plan.
__device__ __forceinline__ int64_t outer_offset(const Plan& p, int n, int64_t index) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    const int64_t q = index / p.size[d];
    off += (index - q * p.size[d]) * p.src[d];
    index = q;
  }
  return off;
}

// Rows of `len` units (elements or 16-byte vectors); row r of out starts at r * len.
template <typename U>
__global__ void copy_rows(const U* __restrict__ src, U* __restrict__ dst, Plan p, int64_t rows, int64_t len,
                          int64_t unit_scale) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const U* from = src + outer_offset(p, p.rank - 1, r) / unit_scale;
    U* to = dst + r * len;
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < len; k += (int64_t)gridDim.x * blockDim.x)
      to[k] = from[k];
  }
}

// Dim a of self has stride 1, the last dim (out's rows) has stride sl in self.
template <typename E>
__global__ void copy_transposed(const E* __restrict__ src, E* __restrict__ dst, Plan p, int a, int64_t batches,
                                int64_t out_stride_a) {
  __shared__ E tile[kTile][kTile + 1];
  const int last = p.rank - 1;
  const int64_t na = p.size[a], nl = p.size[last], sl = p.src[last];
  const int64_t a0 = (int64_t)blockIdx.y * kTile, l0 = (int64_t)blockIdx.x * kTile;
  for (int64_t b = blockIdx.z; b < batches; b += gridDim.z) {
    int64_t rest = b, s_off = 0, o_off = 0, o_stride = 1;
    for (int d = last; d >= 0; --d) {  // out strides are row-major: built while walking inwards-out
      if (d != last && d != a) {
        const int64_t i = rest % p.size[d];
        rest /= p.size[d];
        s_off += i * p.src[d];
        o_off += i * o_stride;
      }
      o_stride *= p.size[d];
    }
    // Load: threadIdx.x runs along a (stride 1 in self).
    for (int r = threadIdx.y; r < kTile; r += kRows) {
      const int64_t l = l0 + r, i = a0 + threadIdx.x;
      if (l < nl && i < na) tile[r][threadIdx.x] = src[s_off + l * sl + i];
    }
    __syncthreads();
    // Store: threadIdx.x runs along out's rows.
    for (int r = threadIdx.y; r < kTile; r += kRows) {
      const int64_t i = a0 + r, l = l0 + threadIdx.x;
      if (l < nl && i < na) dst[o_off + i * out_stride_a + l] = tile[threadIdx.x][r];
    }
    __syncthreads();
  }
}

template <typename E>
__global__ void copy_gather(const E* __restrict__ src, E* __restrict__ dst, Plan p, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = src[outer_offset(p, p.rank, i)];
}

unsigned grid_for(int64_t work, int64_t per_block, unsigned cap) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

template <typename E>
int launch(const kgb_tensor* self, kgb_tensor* out, cudaStream_t stream) {
  const Plan p = fold(self);
  const E* src = static_cast<const E*>(self->data);
  E* dst = static_cast<E*>(out->data);
  const int last = p.rank - 1;
  int64_t numel = 1;
  for (int d = 0; d < p.rank; ++d) numel *= p.size[d];
  if (p.src[last] == 1) {
    const int64_t len = p.size[last], rows = numel / len;
    // 16-byte vectors when both sides' row starts stay 16-byte aligned.
    bool vec = sizeof(E) < 16 && (len * sizeof(E)) % 16 == 0 && (uintptr_t)src % 16 == 0 && (uintptr_t)dst % 16 == 0;
    for (int d = 0; d < last && vec; ++d) vec = (p.src[d] * (int64_t)sizeof(E)) % 16 == 0;
    if (vec) {
      const int64_t scale = 16 / sizeof(E), vlen = len / scale;
      Plan q = p;  // offsets in elements, divided by the vector width inside the kernel
      dim3 grid(grid_for(vlen, 256, 1024), (unsigned)(rows < 65535 ? rows : 65535));
      copy_rows<Bytes16><<<grid, 256, 0, stream>>>(reinterpret_cast<const Bytes16*>(src), reinterpret_cast<Bytes16*>(dst), q,
                                                   rows, vlen, scale);
    } else {
      dim3 grid(grid_for(len, 256, 1024), (unsigned)(rows < 65535 ? rows : 65535));
      copy_rows<E><<<grid, 256, 0, stream>>>(src, dst, p, rows, len, 1);
    }
    return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  for (int a = last - 1; a >= 0; --a) {
    if (p.src[a] != 1 || p.size[a] < 8) continue;
    int64_t batches = 1, out_stride_a = 1;
    for (int d = 0; d < last; ++d)
      if (d != a) batches *= p.size[d];
    for (int d = a + 1; d <= last; ++d) out_stride_a *= p.size[d];
    const int64_t tiles_l = (p.size[last] + kTile - 1) / kTile, tiles_a = (p.size[a] + kTile - 1) / kTile;
    if (tiles_l > 2147483647 || tiles_a > 65535) break;  // fall back to the gather
    dim3 grid((unsigned)tiles_l, (unsigned)tiles_a, (unsigned)(batches < 65535 ? batches : 65535));
    copy_transposed<E><<<grid, dim3(kTile, kRows), 0, stream>>>(src, dst, p, a, batches, out_stride_a);
    return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  copy_gather<E><<<grid_for(numel, 256, 65535), 256, 0, stream>>>(src, dst, p, numel);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_reshape(const kgb_tensor* self, kgb_int_list shape, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  int64_t sizes[KGB_MAX_RANK], strides[KGB_MAX_RANK];
  if (!infer_shape(shape, kgb_numel(self), sizes)) return KGB_ERR_INVALID;
  const int rank = static_cast<int>(shape.count);
  if (out->rank != rank) return KGB_ERR_INVALID;
  for (int d = 0; d < rank; ++d)
    if (out->sizes[d] != sizes[d]) return KGB_ERR_INVALID;
  if (compute_stride(self, sizes, rank, strides)) {  // ATen returns a view: out becomes it, nothing runs
    out->data = self->data;
    for (int d = 0; d < rank; ++d) out->strides[d] = strides[d];
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  // The copy: out is row-major in the new shape, the same bytes as a row-major copy in self's shape.
  if (!kgb_is_contiguous(out)) return KGB_ERR_INVALID;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (kgb_dtype_size(self->dtype)) {
    case 1: return launch<uint8_t>(self, out, s);
    case 2: return launch<uint16_t>(self, out, s);
    case 4: return launch<uint32_t>(self, out, s);
    case 8: return launch<uint64_t>(self, out, s);
    case 16: return launch<Bytes16>(self, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
