// aten/index (index.Tensor) in HIP for gfx90a: a port of the CUDA solution
// (plain loads where CUDA uses __ldg; the block scans use shared memory, so
// the 64-wide wavefront needs no change).
//
// The host works out the geometry from shapes alone (no index or mask value
// is read on the host): the list items are walked against the dims of self
// (None: one sliced dim; integer item: one advanced dim; bool mask: as many
// advanced dims as it has), B (the broadcast advanced shape) is read off
// out's shape, and B sits in place when the advanced dims are adjacent, else
// first. out is then a set of rows: (sliced position before B, b in B, outer
// sliced position after B) picks a source row; the innermost sliced dims,
// merged where self and out are contiguous across them, form the row.
//
// Masks are compacted on the device, three kernels per mask: per-tile true
// counts, one block scanning the tile counts, and per tile an in-order write
// of the self offset of each true element (its mask coordinates times the
// strides of the dims it covers). The copy kernel then reads integer indices
// (wrapping negative ones) and the compacted mask offsets per row; it is a
// grid-stride loop, 16-byte vectorised when rows and their starts allow.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kMax = KGB_MAX_RANK;
constexpr int kTile = 1024;  // mask elements per compaction block (256 threads x 4)
constexpr int kThreads = 256;

struct Geometry {
  int rb, nbefore_dims, npost_dims, nint, nmask;
  int64_t nb, nbefore, npost, len, rows;
  int64_t bsize[kMax], bout[kMax];                               // B and out's strides along it
  int64_t pre_size[kMax], pre_self[kMax], pre_out[kMax];         // sliced dims before B
  int64_t post_size[kMax], post_self[kMax], post_out[kMax];      // sliced dims after B, except the row
  int64_t row_self, row_out;                                     // strides along the row
  const void* item[kMax];                                        // integer items
  int item_i64[kMax];
  int64_t item_size[kMax], item_stride[kMax], item_b[kMax][kMax];  // dim size / self stride; strides along B
  const int64_t* mask_offs[kMax];                                 // compacted masks: self offset per true
  int64_t mask_m[kMax];
};

struct MaskWalk {  // a mask's logical order: its strides and the self strides of the dims it covers
  int rank;
  int64_t n;
  int64_t size[kMax], stride[kMax], self_stride[kMax];
};

__device__ __forceinline__ void mask_at(const MaskWalk& w, int64_t i, int64_t& at, int64_t& so) {
  at = 0;
  so = 0;
  for (int j = w.rank - 1; j >= 0; --j) {
    const int64_t q = i / w.size[j], r = i - q * w.size[j];
    at += r * w.stride[j];
    so += r * w.self_stride[j];
    i = q;
  }
}

// Exclusive scan of one value per thread across the block (shared memory).
__device__ __forceinline__ int64_t block_exclusive_scan(int64_t v, int64_t* tmp, int64_t& total) {
  const int t = threadIdx.x;
  tmp[t] = v;
  __syncthreads();
  for (int step = 1; step < blockDim.x; step <<= 1) {
    const int64_t add = t >= step ? tmp[t - step] : 0;
    __syncthreads();
    tmp[t] += add;
    __syncthreads();
  }
  total = tmp[blockDim.x - 1];
  const int64_t inclusive = tmp[t];
  __syncthreads();
  return inclusive - v;
}

__global__ void __launch_bounds__(kThreads) mask_count(const uint8_t* __restrict__ mask, MaskWalk w, int64_t* __restrict__ counts) {
  __shared__ int64_t tmp[kThreads];
  const int64_t first = blockIdx.x * static_cast<int64_t>(kTile) + threadIdx.x * 4;
  int64_t c = 0;
  for (int e = 0; e < 4; ++e) {
    const int64_t i = first + e;
    if (i >= w.n) break;
    int64_t at, so;
    mask_at(w, i, at, so);
    c += mask[at] != 0;
  }
  int64_t total;
  block_exclusive_scan(c, tmp, total);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// One block: exclusive prefix of the tile counts, in chunks of blockDim.
__global__ void __launch_bounds__(1024) scan_counts(int64_t* __restrict__ counts, int64_t tiles) {
  __shared__ int64_t tmp[1024];
  int64_t carry = 0;
  for (int64_t base = 0; base < tiles; base += blockDim.x) {
    const int64_t i = base + threadIdx.x;
    const int64_t v = i < tiles ? counts[i] : 0;
    int64_t total;
    const int64_t ex = block_exclusive_scan(v, tmp, total);
    if (i < tiles) counts[i] = carry + ex;
    carry += total;
  }
}

__global__ void __launch_bounds__(kThreads) mask_write(const uint8_t* __restrict__ mask, MaskWalk w,
                                                        const int64_t* __restrict__ starts, int64_t m,
                                                        int64_t* __restrict__ offs) {
  __shared__ int64_t tmp[kThreads];
  const int64_t first = blockIdx.x * static_cast<int64_t>(kTile) + threadIdx.x * 4;
  int64_t so[4];
  bool on[4];
  int64_t c = 0;
  for (int e = 0; e < 4; ++e) {
    const int64_t i = first + e;
    int64_t at = 0;
    on[e] = false;
    if (i < w.n) {
      mask_at(w, i, at, so[e]);
      on[e] = mask[at] != 0;
    }
    c += on[e];
  }
  int64_t total;
  int64_t j = starts[blockIdx.x] + block_exclusive_scan(c, tmp, total);
  for (int e = 0; e < 4; ++e)
    if (on[e]) {
      if (j < m) offs[j] = so[e];
      ++j;
    }
}

// Offsets in self and out of the first element of row r.
__device__ __forceinline__ void row_start(const Geometry& g, int64_t r, int64_t& s, int64_t& o) {
  int64_t p = r % g.npost, rest = r / g.npost;
  const int64_t b = rest % g.nb, qb = rest / g.nb;
  s = 0;
  o = 0;
  for (int d = g.npost_dims - 1; d >= 0; --d) {
    const int64_t q = p / g.post_size[d], x = p - q * g.post_size[d];
    s += x * g.post_self[d];
    o += x * g.post_out[d];
    p = q;
  }
  rest = qb;
  for (int d = g.nbefore_dims - 1; d >= 0; --d) {
    const int64_t q = rest / g.pre_size[d], x = rest - q * g.pre_size[d];
    s += x * g.pre_self[d];
    o += x * g.pre_out[d];
    rest = q;
  }
  int64_t bi[kMax];
  rest = b;
  for (int d = g.rb - 1; d >= 0; --d) {
    const int64_t q = rest / g.bsize[d];
    bi[d] = rest - q * g.bsize[d];
    o += bi[d] * g.bout[d];
    rest = q;
  }
  for (int k = 0; k < g.nint; ++k) {
    int64_t at = 0;
    for (int d = 0; d < g.rb; ++d) at += bi[d] * g.item_b[k][d];
    int64_t v = g.item_i64[k] ? static_cast<const int64_t*>(g.item[k])[at] : static_cast<const int32_t*>(g.item[k])[at];
    if (v < 0) v += g.item_size[k];
    s += v * g.item_stride[k];
  }
  for (int k = 0; k < g.nmask; ++k) s += g.mask_offs[k][g.mask_m[k] == 1 ? 0 : bi[g.rb - 1]];
}

template <typename E>
__global__ void __launch_bounds__(kThreads) copy_rows(const E* __restrict__ self, E* __restrict__ out, Geometry g) {
  const int64_t total = g.rows * g.len;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / g.len, c = i - r * g.len;
    int64_t s, o;
    row_start(g, r, s, o);
    out[o + c * g.row_out] = self[s + c * g.row_self];
  }
}

// Rows of whole 16-byte vectors (contiguous rows, aligned starts): g.len counts vectors.
__global__ void __launch_bounds__(kThreads) copy_rows_vec(const char* __restrict__ self, char* __restrict__ out, Geometry g, int elem) {
  const int64_t total = g.rows * g.len;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / g.len, c = i - r * g.len;
    int64_t s, o;
    row_start(g, r, s, o);
    const uint4 v = reinterpret_cast<const uint4*>(self + s * elem)[c];
    reinterpret_cast<uint4*>(out + o * elem)[c] = v;
  }
}

unsigned blocks_for(int64_t work) {
  const int64_t b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 110 * 32 ? (b < 1 ? 1 : b) : 110 * 32);
}

}  // namespace

extern "C" int kgb_aten_index(const kgb_tensor* self, const kgb_tensor_list* indices, kgb_tensor* out, kgb_stream stream) {
  hipStream_t s = static_cast<hipStream_t>(stream);
  const int elem = kgb_dtype_size(self->dtype);
  switch (self->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16: case KGB_F64: case KGB_I64: case KGB_I32: case KGB_U8: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (out->dtype != self->dtype) return KGB_ERR_INVALID;
  const int rank = self->rank;

  Geometry g = {};
  const kgb_tensor* masks[kMax];
  int mask_dim[kMax];
  bool sliced[kMax];
  for (int d = 0; d < kMax; ++d) sliced[d] = true;
  int d = 0, first = rank, last = -1, nadv = 0, int_dim[kMax];
  const kgb_tensor* ints[kMax];
  for (int64_t k = 0; k < indices->count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) {
      ++d;
      continue;
    }
    const bool mask = t->dtype == KGB_BOOL;
    if (!mask && t->dtype != KGB_I64 && t->dtype != KGB_I32) return KGB_ERR_UNSUPPORTED;
    const int covers = mask ? t->rank : 1;
    if (d + covers > rank) return KGB_ERR_INVALID;
    if (mask) {
      for (int j = 0; j < covers; ++j)
        if (t->sizes[j] != self->sizes[d + j]) return KGB_ERR_INVALID;
      masks[g.nmask] = t;
      mask_dim[g.nmask++] = d;
    } else {
      ints[g.nint] = t;
      int_dim[g.nint++] = d;
    }
    for (int j = 0; j < covers; ++j) sliced[d + j] = false;
    if (covers > 0) {
      first = first < d ? first : d;
      last = last > d + covers - 1 ? last : d + covers - 1;
    }
    nadv += covers;
    const int r = mask ? 1 : t->rank;
    g.rb = g.rb > r ? g.rb : r;
    d += covers;
  }
  if (nadv == 0 || d > rank) return KGB_ERR_INVALID;
  const bool adjacent = last - first + 1 == nadv;
  int other[kMax], no = 0, b_at = 0;
  for (int k = 0; k < rank; ++k)
    if (sliced[k]) {
      other[no++] = k;
      if (adjacent && k < first) ++b_at;
    }
  if (out->rank != no + g.rb) return KGB_ERR_INVALID;
  int64_t n_out = 1;
  for (int r = 0; r < out->rank; ++r) n_out *= out->sizes[r];
  for (int i = 0; i < no; ++i)
    if (out->sizes[i < b_at ? i : i + g.rb] != self->sizes[other[i]]) return KGB_ERR_INVALID;
  g.nb = 1;
  for (int r = 0; r < g.rb; ++r) {
    g.bsize[r] = out->sizes[b_at + r];
    g.bout[r] = out->strides[b_at + r];
    g.nb *= g.bsize[r];
  }
  for (int k = 0; k < g.nint; ++k) {
    const kgb_tensor* t = ints[k];
    g.item[k] = t->data;
    g.item_i64[k] = t->dtype == KGB_I64;
    g.item_size[k] = self->sizes[int_dim[k]];
    g.item_stride[k] = self->strides[int_dim[k]];
    for (int j = 0; j < t->rank; ++j) {
      const int at = g.rb - t->rank + j;
      if (t->sizes[j] == g.bsize[at]) g.item_b[k][at] = t->sizes[j] == 1 ? 0 : t->strides[j];
      else if (t->sizes[j] != 1) return KGB_ERR_INVALID;
    }
  }
  // Sliced dims: before B as they are; after B merged, the innermost one is the row.
  g.nbefore = 1;
  for (int i = 0; i < b_at; ++i) {
    g.pre_size[g.nbefore_dims] = self->sizes[other[i]];
    g.pre_self[g.nbefore_dims] = self->strides[other[i]];
    g.pre_out[g.nbefore_dims++] = out->strides[i];
    g.nbefore *= self->sizes[other[i]];
  }
  int64_t as[kMax], aself[kMax], aout[kMax];
  int na = 0;
  for (int i = b_at; i < no; ++i) {
    const int64_t size = self->sizes[other[i]], st = self->strides[other[i]], o = out->strides[i + g.rb];
    if (size == 1) continue;
    if (na > 0 && aself[na - 1] == st * size && aout[na - 1] == o * size) {
      as[na - 1] *= size;
      aself[na - 1] = st;
      aout[na - 1] = o;
      continue;
    }
    as[na] = size;
    aself[na] = st;
    aout[na++] = o;
  }
  g.len = 1;
  if (na > 0) {
    --na;
    g.len = as[na];
    g.row_self = aself[na];
    g.row_out = aout[na];
  }
  g.npost = 1;
  for (int i = 0; i < na; ++i) {
    g.post_size[i] = as[i];
    g.post_self[i] = aself[i];
    g.post_out[i] = aout[i];
    g.npost *= as[i];
  }
  g.npost_dims = na;
  g.rows = g.nbefore * g.nb * g.npost;
  if (n_out == 0) return KGB_OK;

  // Compact the masks into scratch: tile counts, then the offsets of their trues.
  int64_t* scratch = nullptr;
  if (g.nmask > 0) {
    const int64_t m = g.bsize[g.rb - 1];
    int64_t need = 0;
    for (int k = 0; k < g.nmask; ++k) {
      int64_t n = 1;
      for (int j = 0; j < masks[k]->rank; ++j) n *= masks[k]->sizes[j];
      need += (n + kTile - 1) / kTile + m;
    }
    if (hipMallocAsync(reinterpret_cast<void**>(&scratch), sizeof(int64_t) * (need > 0 ? need : 1), s) != hipSuccess)
      return KGB_ERR_INVALID;
    int64_t* at = scratch;
    for (int k = 0; k < g.nmask; ++k) {
      const kgb_tensor* t = masks[k];
      MaskWalk w = {};
      w.rank = t->rank;
      w.n = 1;
      for (int j = 0; j < t->rank; ++j) {
        w.size[j] = t->sizes[j];
        w.stride[j] = t->strides[j];
        w.self_stride[j] = self->strides[mask_dim[k] + j];
        w.n *= t->sizes[j];
      }
      const int64_t tiles = (w.n + kTile - 1) / kTile;
      int64_t* counts = at;
      int64_t* offs = at + tiles;
      at += tiles + m;
      g.mask_offs[k] = offs;
      g.mask_m[k] = m;
      if (tiles == 0) continue;
      const uint8_t* flags = static_cast<const uint8_t*>(t->data);
      mask_count<<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(flags, w, counts);
      scan_counts<<<1, 1024, 0, s>>>(counts, tiles);
      mask_write<<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(flags, w, counts, m, offs);
    }
  }

  // Whole 16-byte vectors per row when rows are contiguous and every row start is aligned.
  bool vec = g.row_self == 1 && g.row_out == 1 && (g.len * elem) % 16 == 0 &&
             reinterpret_cast<uintptr_t>(self->data) % 16 == 0 && reinterpret_cast<uintptr_t>(out->data) % 16 == 0;
  auto aligned = [&](int64_t stride) { return (stride * elem) % 16 == 0; };
  for (int i = 0; i < g.nbefore_dims; ++i) vec = vec && aligned(g.pre_self[i]) && aligned(g.pre_out[i]);
  for (int i = 0; i < g.npost_dims; ++i) vec = vec && aligned(g.post_self[i]) && aligned(g.post_out[i]);
  for (int r = 0; r < g.rb; ++r) vec = vec && aligned(g.bout[r]);
  for (int k = 0; k < g.nint; ++k) vec = vec && aligned(g.item_stride[k]);
  for (int k = 0; k < g.nmask; ++k)
    for (int j = 0; j < masks[k]->rank; ++j) vec = vec && aligned(self->strides[mask_dim[k] + j]);
  if (vec) {
    g.len = g.len * elem / 16;
    copy_rows_vec<<<blocks_for(g.rows * g.len), kThreads, 0, s>>>(static_cast<const char*>(self->data), static_cast<char*>(out->data), g, elem);
  } else {
    switch (elem) {
      case 1: copy_rows<uint8_t><<<blocks_for(g.rows * g.len), kThreads, 0, s>>>(static_cast<const uint8_t*>(self->data), static_cast<uint8_t*>(out->data), g); break;
      case 2: copy_rows<uint16_t><<<blocks_for(g.rows * g.len), kThreads, 0, s>>>(static_cast<const uint16_t*>(self->data), static_cast<uint16_t*>(out->data), g); break;
      case 4: copy_rows<uint32_t><<<blocks_for(g.rows * g.len), kThreads, 0, s>>>(static_cast<const uint32_t*>(self->data), static_cast<uint32_t*>(out->data), g); break;
      default: copy_rows<uint64_t><<<blocks_for(g.rows * g.len), kThreads, 0, s>>>(static_cast<const uint64_t*>(self->data), static_cast<uint64_t*>(out->data), g); break;
    }
  }
  if (scratch && hipFreeAsync(scratch, s) != hipSuccess) return KGB_ERR_INVALID;
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
