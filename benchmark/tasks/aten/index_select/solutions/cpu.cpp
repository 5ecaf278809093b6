// aten/index_select on the CPU: a pure copy, so it works on element sizes
// (1, 2, 4, 8 bytes) rather than dtypes. self/out are seen as
// outer x dim x inner. With inner > 1 every (outer, k) pair copies one inner
// block (memcpy when both sides are dense, split into chunks for long blocks);
// with inner == 1 each outer row is a gather, vectorised when out is dense.
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

struct Geometry {
  int64_t outer = 1, len = 1, inner = 1, k_count = 1;
  int nouter = 0;
  int64_t osize[KGB_MAX_RANK], ostride_x[KGB_MAX_RANK], ostride_y[KGB_MAX_RANK];
  int64_t xs = 0, ys = 0;             // strides along dim
  std::vector<int64_t> xin, yin;      // offsets of the inner positions (row-major over dims after dim)
  bool x_unit = true, y_unit = true;  // inner offsets are 0, 1, 2, ...

  void outer_offsets(int64_t o, int64_t* xo, int64_t* yo) const {
    int64_t a = 0, b = 0;
    for (int d = nouter - 1; d >= 0; --d) {
      const int64_t i = o % osize[d];
      o /= osize[d];
      a += i * ostride_x[d];
      b += i * ostride_y[d];
    }
    *xo = a;
    *yo = b;
  }
};

void build_geometry(const kgb_tensor* x, const kgb_tensor* y, int dim, Geometry& g) {
  for (int d = 0; d < dim; ++d) {
    g.osize[g.nouter] = x->sizes[d];
    g.ostride_x[g.nouter] = x->strides[d];
    g.ostride_y[g.nouter] = y->strides[d];
    ++g.nouter;
    g.outer *= x->sizes[d];
  }
  g.len = x->sizes[dim];
  g.k_count = y->sizes[dim];
  g.xs = x->strides[dim];
  g.ys = y->strides[dim];
  for (int d = dim + 1; d < x->rank; ++d) g.inner *= x->sizes[d];
  if (g.inner <= 1) return;
  g.xin.assign(static_cast<size_t>(g.inner), 0);
  g.yin.assign(static_cast<size_t>(g.inner), 0);
  int64_t idx[KGB_MAX_RANK] = {0};
  int64_t a = 0, b = 0;
  for (int64_t i = 0; i < g.inner; ++i) {
    g.xin[static_cast<size_t>(i)] = a;
    g.yin[static_cast<size_t>(i)] = b;
    g.x_unit = g.x_unit && a == i;
    g.y_unit = g.y_unit && b == i;
    for (int d = x->rank - 1; d > dim; --d) {  // odometer over the inner dims
      a += x->strides[d];
      b += y->strides[d];
      if (++idx[d] < x->sizes[d]) break;
      a -= x->strides[d] * x->sizes[d];
      b -= y->strides[d] * x->sizes[d];
      idx[d] = 0;
    }
  }
}

// inner == 1: out row o is a gather of self row o at the selected positions.
template <typename E>
void gather_rows(const Geometry& g, const E* x, E* y, const int64_t* index) {
#pragma omp parallel for schedule(static) if (g.outer * g.k_count > 32768)
  for (int64_t o = 0; o < g.outer; ++o) {
    int64_t xo, yo;
    g.outer_offsets(o, &xo, &yo);
    const E* __restrict src = x + xo;
    E* __restrict dst = y + yo;
    if (g.ys == 1 && g.xs == 1) {
      for (int64_t k = 0; k < g.k_count; ++k) dst[k] = src[index[k]];
    } else {
      for (int64_t k = 0; k < g.k_count; ++k) dst[k * g.ys] = src[index[k] * g.xs];
    }
  }
}

// inner > 1: (outer, k, chunk of inner) work items.
template <typename E>
void copy_blocks(const Geometry& g, const E* x, E* y, const int64_t* index) {
  const int64_t kChunk = 16384;
  const int64_t chunks = (g.inner + kChunk - 1) / kChunk;
  const int64_t items = g.outer * g.k_count * chunks;
#pragma omp parallel for schedule(static) if (g.outer * g.k_count * g.inner > 32768)
  for (int64_t t = 0; t < items; ++t) {
    const int64_t c = t % chunks, k = (t / chunks) % g.k_count, o = t / (chunks * g.k_count);
    int64_t xo, yo;
    g.outer_offsets(o, &xo, &yo);
    const E* src = x + xo + index[k] * g.xs;
    E* dst = y + yo + k * g.ys;
    const int64_t i0 = c * kChunk, n = g.inner - i0 < kChunk ? g.inner - i0 : kChunk;
    if (g.x_unit && g.y_unit) {
      memcpy(dst + i0, src + i0, static_cast<size_t>(n) * sizeof(E));
    } else {
      const int64_t* xin = g.xin.data() + i0;
      const int64_t* yin = g.yin.data() + i0;
      for (int64_t i = 0; i < n; ++i) dst[yin[i]] = src[xin[i]];
    }
  }
}

template <typename E>
void run(const Geometry& g, const kgb_tensor* self, kgb_tensor* out, const int64_t* index) {
  const E* x = static_cast<const E*>(self->data);
  E* y = static_cast<E*>(out->data);
  if (g.inner == 1) gather_rows<E>(g, x, y, index);
  else copy_blocks<E>(g, x, y, index);
}

}  // namespace

extern "C" int kgb_aten_index_select(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_tensor* out,
                                     kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype || index->dtype != KGB_I64 || index->rank > 1) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if (rank < 1 || out->rank != rank || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);
  const int64_t k_count = index->rank == 0 ? 1 : index->sizes[0];
  for (int k = 0; k < rank; ++k)
    if (out->sizes[k] != (k == d ? k_count : self->sizes[k])) return KGB_ERR_INVALID;
  int esize;
  switch (self->dtype) {
    case KGB_BOOL: case KGB_I8: esize = 1; break;
    case KGB_F16: case KGB_BF16: esize = 2; break;
    case KGB_F32: case KGB_I32: esize = 4; break;
    case KGB_F64: case KGB_I64: esize = 8; break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (kgb_numel(out) == 0) return KGB_OK;

  // Dense, validated copy of the indices (PyTorch rejects out-of-range ones).
  std::vector<int64_t> idx(static_cast<size_t>(k_count));
  const int64_t* src = static_cast<const int64_t*>(index->data);
  const int64_t istride = index->rank == 0 ? 0 : index->strides[0];
  for (int64_t k = 0; k < k_count; ++k) {
    const int64_t v = src[k * istride];
    if (v < 0 || v >= self->sizes[d]) return KGB_ERR_INVALID;
    idx[static_cast<size_t>(k)] = v;
  }
  Geometry g;
  build_geometry(self, out, d, g);
  switch (esize) {
    case 1: run<uint8_t>(g, self, out, idx.data()); break;
    case 2: run<uint16_t>(g, self, out, idx.data()); break;
    case 4: run<uint32_t>(g, self, out, idx.data()); break;
    case 8: run<uint64_t>(g, self, out, idx.data()); break;
  }
  return KGB_OK;
}
