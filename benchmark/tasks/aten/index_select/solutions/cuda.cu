// aten/index_select on CUDA: out[..., k, ...] = self[..., index[k], ...].
//
// A pure copy, so elements move as raw 1/2/4/8-byte words. The views are
// folded into (outer, K, inner) around `dim`:
//  - inner part contiguous in self and out (selecting rows): one warp per
//    selected row, copying it with 16-byte vector loads and stores when the
//    row length and alignment allow, otherwise word by word;
//  - anything else (selecting columns, transposed views): one thread per
//    output element; the index vector is small and stays in cache, and with
//    the usual layouts neighbouring threads write neighbouring elements.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

// Output element -> (self offset without the dim term, out offset, k).
struct Layout {
  int ndim = 0;  // out's dimensions
  int dim = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t self_strides[KGB_MAX_RANK] = {};
  int64_t out_strides[KGB_MAX_RANK] = {};
};

template <typename W>
__global__ void __launch_bounds__(kThreads) select_elements(const W* __restrict__ self, W* __restrict__ out,
                                                            const int64_t* __restrict__ index, int64_t index_stride,
                                                            int64_t dim_stride, Layout l, int64_t numel) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < numel;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    int64_t rest = i, so = 0, oo = 0;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t c = rest % l.sizes[d];
      rest /= l.sizes[d];
      oo += c * l.out_strides[d];
      so += d == l.dim ? __ldg(index + c * index_stride) * dim_stride : c * l.self_strides[d];
    }
    out[oo] = self[so];
  }
}

// rows = outer * K selected rows of `inner` words each; row r = (o, k).
template <typename W>
__global__ void __launch_bounds__(kThreads) select_rows(const W* __restrict__ self, W* __restrict__ out,
                                                        const int64_t* __restrict__ index, int64_t index_stride,
                                                        int64_t outer, int64_t K, int64_t inner, int64_t self_outer_stride,
                                                        int64_t self_dim_stride, int64_t out_outer_stride,
                                                        int64_t out_dim_stride) {
  const int lane = threadIdx.x & 31;
  const int64_t rows = outer * K;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + (threadIdx.x >> 5); r < rows;
       r += static_cast<int64_t>(gridDim.x) * (kThreads / 32)) {
    const int64_t o = r / K, k = r % K;
    const int64_t src_row = __ldg(index + k * index_stride);
    const W* src = self + o * self_outer_stride + src_row * self_dim_stride;
    W* dst = out + o * out_outer_stride + k * out_dim_stride;
    int64_t j = lane;
    for (; j + 96 < inner; j += 128) {
      const W a = src[j], b = src[j + 32], c = src[j + 64], d = src[j + 96];
      dst[j] = a;
      dst[j + 32] = b;
      dst[j + 64] = c;
      dst[j + 96] = d;
    }
    for (; j < inner; j += 32) dst[j] = src[j];
  }
}

unsigned grid_for(int64_t items, int64_t per_block) {
  int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 1048576 ? 1048576 : blocks));
}

// Copies with a word type W; strides and sizes are in elements of `elem` bytes.
template <typename W>
void launch_elements(const kgb_tensor* self, const kgb_tensor* index, kgb_tensor* out, const Layout& l, int64_t dim_stride,
                     int64_t index_stride, cudaStream_t stream) {
  const int64_t numel = kgb_numel(out);
  select_elements<W><<<grid_for(numel, kThreads), kThreads, 0, stream>>>(static_cast<const W*>(self->data),
                                                                          static_cast<W*>(out->data),
                                                                          static_cast<const int64_t*>(index->data),
                                                                          index_stride, dim_stride, l, numel);
}

template <typename W>
void launch_rows(const void* self, void* out, const int64_t* index, int64_t index_stride, int64_t outer, int64_t K,
                 int64_t inner, int64_t s_outer, int64_t s_dim, int64_t o_outer, int64_t o_dim, cudaStream_t stream) {
  select_rows<W><<<grid_for(outer * K, kThreads / 32), kThreads, 0, stream>>>(
      static_cast<const W*>(self), static_cast<W*>(out), index, index_stride, outer, K, inner, s_outer, s_dim, o_outer, o_dim);
}

// Folds dims [from, to) of self/out into one dimension if they are
// contiguous with each other in both; returns false otherwise.
bool fold_range(const kgb_tensor* self, const kgb_tensor* out, int from, int to, int64_t& size, int64_t& s_stride,
                int64_t& o_stride) {
  size = 1;
  s_stride = 1;
  o_stride = 1;
  bool first = true;
  for (int d = to - 1; d >= from; --d) {
    if (out->sizes[d] == 1) continue;
    if (first) {
      s_stride = self->strides[d];
      o_stride = out->strides[d];
      size = out->sizes[d];
      first = false;
      continue;
    }
    if (self->strides[d] != s_stride * size || out->strides[d] != o_stride * size) return false;
    size *= out->sizes[d];
  }
  return true;
}

int run(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_tensor* out, int elem, cudaStream_t stream) {
  const int rank = out->rank;
  const int r = rank == 0 ? 1 : rank;
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r) return KGB_ERR_INVALID;
  const int64_t index_stride = index->rank == 0 ? 0 : index->strides[0];
  const int64_t dim_stride = self->rank == 0 ? 0 : self->strides[dim];
  const int64_t* idx = static_cast<const int64_t*>(index->data);
  // Rows: everything after dim contiguous (one unit-stride run), everything
  // before dim foldable into one outer dimension.
  int64_t inner = 1, s_inner = 1, o_inner = 1, outer = 1, s_outer = 0, o_outer = 0;
  bool rows = self->rank == rank && rank >= 1 && fold_range(self, out, static_cast<int>(dim) + 1, rank, inner, s_inner, o_inner) &&
              fold_range(self, out, 0, static_cast<int>(dim), outer, s_outer, o_outer) && inner > 1 &&
              s_inner == 1 && o_inner == 1;
  if (rows) {
    const int64_t K = out->sizes[dim];
    const int64_t o_dim = out->strides[dim];
    // Widest word that keeps every row start aligned.
    const uintptr_t align_bits = reinterpret_cast<uintptr_t>(self->data) | reinterpret_cast<uintptr_t>(out->data);
    for (int w : {16, 8, 4, 2, 1}) {
      if (w < elem) break;
      const int64_t per = w / elem;
      if ((align_bits % w) != 0 || inner % per != 0 || dim_stride % per != 0 || o_dim % per != 0 ||
          (outer > 1 && (s_outer % per != 0 || o_outer % per != 0)))
        continue;
      const int64_t n = inner / per, sd = dim_stride / per, od = o_dim / per, so = outer > 1 ? s_outer / per : 0,
                    oo = outer > 1 ? o_outer / per : 0;
      switch (w) {
        case 16: launch_rows<uint4>(self->data, out->data, idx, index_stride, outer, K, n, so, sd, oo, od, stream); break;
        case 8: launch_rows<unsigned long long>(self->data, out->data, idx, index_stride, outer, K, n, so, sd, oo, od, stream); break;
        case 4: launch_rows<uint32_t>(self->data, out->data, idx, index_stride, outer, K, n, so, sd, oo, od, stream); break;
        case 2: launch_rows<uint16_t>(self->data, out->data, idx, index_stride, outer, K, n, so, sd, oo, od, stream); break;
        default: launch_rows<uint8_t>(self->data, out->data, idx, index_stride, outer, K, n, so, sd, oo, od, stream); break;
      }
      return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
    }
  }
  Layout l;
  l.ndim = rank;
  l.dim = static_cast<int>(dim);
  for (int d = 0; d < rank; ++d) {
    l.sizes[d] = out->sizes[d];
    l.out_strides[d] = out->strides[d];
    l.self_strides[d] = self->rank == rank ? self->strides[d] : 0;
  }
  if (rank == 0) {  // rank-0 out: one element, self[index[0]]
    l.ndim = 1;
    l.sizes[0] = 1;
    l.out_strides[0] = 0;
  }
  switch (elem) {
    case 1: launch_elements<uint8_t>(self, index, out, l, dim_stride, index_stride, stream); break;
    case 2: launch_elements<uint16_t>(self, index, out, l, dim_stride, index_stride, stream); break;
    case 4: launch_elements<uint32_t>(self, index, out, l, dim_stride, index_stride, stream); break;
    default: launch_elements<unsigned long long>(self, index, out, l, dim_stride, index_stride, stream); break;
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_index_select(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_tensor* out,
                                     kgb_stream stream) {
  if (self->dtype != out->dtype || index->dtype != KGB_I64) return KGB_ERR_UNSUPPORTED;
  int elem = 0;
  switch (out->dtype) {
    case KGB_BOOL: case KGB_I8: elem = 1; break;
    case KGB_F16: case KGB_BF16: elem = 2; break;
    case KGB_F32: case KGB_I32: elem = 4; break;
    case KGB_F64: case KGB_I64: elem = 8; break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (kgb_numel(out) == 0) return KGB_OK;
  return run(self, dim, index, out, elem, static_cast<cudaStream_t>(stream));
}
