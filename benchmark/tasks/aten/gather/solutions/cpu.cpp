// aten/gather on the CPU: out[p] = self[p with coordinate dim := index[p]].
//
// A pure copy, so elements move as 1/2/4/8-byte words. The work is cut into
// rows along the last dimension of index (= of out); each row resolves its
// out/index/self offsets once, then runs one tight loop over the row:
//  - dim is the last dimension: out[j] = self_row[index[j]] (a gather);
//  - otherwise: out[j] = self[base + index[j] * dim_stride + j * last_stride]
//    (a gather whose addresses move with j).
// Unit-stride rows get their own loop so the compiler vectorises them; the
// range check is an OR across the row that does not break vectorisation.
// Rows are split across cores with OpenMP.
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

struct Geometry {
  int rank = 1;  // of index/out (a 0-dim gather is treated as 1-D of size 1)
  int dim = 0;
  int64_t size[KGB_MAX_RANK] = {1};
  int64_t out_stride[KGB_MAX_RANK] = {0}, index_stride[KGB_MAX_RANK] = {0}, self_stride[KGB_MAX_RANK] = {0};
  int64_t len = 1;  // size(self, dim): valid index values are [0, len)
};

// Gathers one row of L elements; returns nonzero when an index is out of range.
template <typename E>
uint64_t gather_row(const Geometry& g, const E* __restrict self, const int64_t* __restrict index, E* __restrict out,
                    int64_t L) {
  const int last = g.rank - 1;
  const int64_t os = g.out_stride[last], is = g.index_stride[last];
  const uint64_t len = static_cast<uint64_t>(g.len);
  uint64_t bad = 0;
  if (g.dim == last) {
    const int64_t ds = g.self_stride[last];
    if (os == 1 && is == 1 && ds == 1) {
      for (int64_t j = 0; j < L; ++j) {
        const int64_t v = index[j];
        const bool ok = static_cast<uint64_t>(v) < len;
        bad |= !ok;
        out[j] = self[ok ? v : 0];
      }
    } else {
      for (int64_t j = 0; j < L; ++j) {
        const int64_t v = index[j * is];
        const bool ok = static_cast<uint64_t>(v) < len;
        bad |= !ok;
        out[j * os] = self[(ok ? v : 0) * ds];
      }
    }
  } else {
    const int64_t ds = g.self_stride[g.dim], ls = g.self_stride[last];
    if (os == 1 && is == 1 && ls == 1) {
      for (int64_t j = 0; j < L; ++j) {
        const int64_t v = index[j];
        const bool ok = static_cast<uint64_t>(v) < len;
        bad |= !ok;
        out[j] = self[(ok ? v : 0) * ds + j];
      }
    } else {
      for (int64_t j = 0; j < L; ++j) {
        const int64_t v = index[j * is];
        const bool ok = static_cast<uint64_t>(v) < len;
        bad |= !ok;
        out[j * os] = self[(ok ? v : 0) * ds + j * ls];
      }
    }
  }
  return bad;
}

template <typename E>
int run(const Geometry& g, const kgb_tensor* self, const kgb_tensor* index, kgb_tensor* out) {
  const int last = g.rank - 1;
  const int64_t L = g.size[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= g.size[d];
  const E* x = static_cast<const E*>(self->data);
  const int64_t* ix = static_cast<const int64_t*>(index->data);
  E* y = static_cast<E*>(out->data);
  uint64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (rows * L > 32768 && rows > 1)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rest = r, xo = 0, io = 0, oo = 0;
    for (int d = last - 1; d >= 0; --d) {
      const int64_t c = rest % g.size[d];
      rest /= g.size[d];
      oo += c * g.out_stride[d];
      io += c * g.index_stride[d];
      if (d != g.dim) xo += c * g.self_stride[d];
    }
    bad |= gather_row<E>(g, x + xo, ix + io, y + oo, L);
  }
  return bad ? KGB_ERR_INVALID : KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_gather(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_tensor* out,
                               kgb_stream stream) {
  (void)stream;
  if (out->dtype != self->dtype || index->dtype != KGB_I64) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if (index->rank != rank || out->rank != rank) return KGB_ERR_INVALID;
  const int nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  Geometry g;
  g.dim = static_cast<int>(dim);
  if (rank > 0) {
    g.rank = rank;
    for (int d = 0; d < rank; ++d) {
      if (out->sizes[d] != index->sizes[d]) return KGB_ERR_INVALID;
      if (d != g.dim && index->sizes[d] > self->sizes[d]) return KGB_ERR_INVALID;
      g.size[d] = index->sizes[d];
      g.out_stride[d] = out->strides[d];
      g.index_stride[d] = index->strides[d];
      g.self_stride[d] = self->strides[d];
    }
    g.len = self->sizes[g.dim];
  }
  for (int d = 0; d < g.rank; ++d)
    if (g.size[d] == 0) return KGB_OK;
  switch (self->dtype) {
    case KGB_BOOL: case KGB_I8: case KGB_U8: return run<uint8_t>(g, self, index, out);
    case KGB_F16: case KGB_BF16: case KGB_I16: return run<uint16_t>(g, self, index, out);
    case KGB_F32: case KGB_I32: return run<uint32_t>(g, self, index, out);
    case KGB_F64: case KGB_I64: return run<uint64_t>(g, self, index, out);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
