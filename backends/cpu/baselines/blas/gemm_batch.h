// Shared by the batched GEMM baselines (blas/*gemm_batched*,
// blas/*gemm_strided_batched*): CBLAS has no batched GEMM in Debian's
// OpenBLAS 0.3.21, so a batch is a labelled loop of cblas_?gemm calls, one
// per item; an item of a strided batch is a 2-D slice of the rank-3 view
// [rows, cols, batch]. f16 has no CBLAS routine at all: hgemm_2d_float is a
// plain loop written here (f16 inputs, float accumulation, one rounding).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "col_major.h"
#include "kgb_half.h"
#include "kgb_kernel.h"

namespace kgb::cpu_blas {

// Item b of a rank-3 [rows, cols, batch] view with strides [1, ld, stride].
inline kgb_tensor strided_item(const kgb_tensor* t, int64_t b) {
  kgb_tensor v = *t;
  v.rank = 2;
  v.sizes[2] = 0;
  v.strides[2] = 0;
  v.data = static_cast<char*>(t->data) + b * t->strides[2] * kgb_dtype_size(t->dtype);
  v.storage_offset += b * t->strides[2];
  return v;
}

// One column-major C := alpha op(A) op(B) + beta C on 2-D views through
// `gemm(opA, opB, m, n, k, A, lda, B, ldb, C, ldc)` (a cblas_?gemm call with
// alpha and beta bound), copying views BLAS cannot take as they are.
template <class T, class Gemm>
void gemm_2d(int transa, int transb, const kgb_tensor* a, const kgb_tensor* b, kgb_tensor* c, bool read_c, Gemm gemm) {
  const int64_t m = c->sizes[0], n = c->sizes[1], k = transa ? a->sizes[0] : a->sizes[1];
  if (m == 0 || n == 0) return;
  auto ca = as_col_major<T>(a, true), cb = as_col_major<T>(b, true), cc = as_col_major<T>(c, read_c);
  gemm(cblas_op(transa), cblas_op(transb), static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), ca.data,
       static_cast<blasint>(ca.ld), cb.data, static_cast<blasint>(cb.ld), cc.data, static_cast<blasint>(cc.ld));
  copy_back(cc, c);
}

// f16 C := alpha op(A) op(B) + beta C on 2-D views: a plain column-by-column
// loop (no vendor routine exists on the CPU), products and sums in float,
// rounded to f16 once; beta == 0 never reads C, alpha == 0 never reads A or B.
// op(A) is widened to a dense float copy first so the inner loop is a plain
// float axpy the compiler vectorises.
inline void hgemm_2d_float(int transa, int transb, float alpha, const kgb_tensor* a, const kgb_tensor* b, float beta,
                           kgb_tensor* c) {
  const int64_t m = c->sizes[0], n = c->sizes[1], k = alpha != 0.0f ? (transa ? a->sizes[0] : a->sizes[1]) : 0;
  const auto* ap = static_cast<const uint16_t*>(a->data);
  const auto* bp = static_cast<const uint16_t*>(b->data);
  auto* cp = static_cast<uint16_t*>(c->data);
  // op(A)(i, l) at ap[i * ai + l * al]; op(B)(l, j) at bp[l * bl + j * bj].
  const int64_t ai = transa ? a->strides[1] : a->strides[0], al = transa ? a->strides[0] : a->strides[1];
  const int64_t bl = transb ? b->strides[1] : b->strides[0], bj = transb ? b->strides[0] : b->strides[1];
  std::vector<float> opa(static_cast<size_t>(m * k)), acc(static_cast<size_t>(m));  // opa: column-major m x k
  for (int64_t l = 0; l < k; ++l)
    for (int64_t i = 0; i < m; ++i) opa[static_cast<size_t>(i + l * m)] = kgb_f16_to_float(ap[i * ai + l * al]);
  for (int64_t j = 0; j < n; ++j) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t l = 0; l < k; ++l) {
      const float bv = kgb_f16_to_float(bp[l * bl + j * bj]);
      const float* column = opa.data() + l * m;
      for (int64_t i = 0; i < m; ++i) acc[static_cast<size_t>(i)] += column[i] * bv;
    }
    for (int64_t i = 0; i < m; ++i) {
      uint16_t& out = cp[i * c->strides[0] + j * c->strides[1]];
      float v = alpha * acc[static_cast<size_t>(i)];
      if (beta != 0.0f) v += beta * kgb_f16_to_float(out);
      out = kgb_float_to_f16(v);
    }
  }
}

}  // namespace kgb::cpu_blas
