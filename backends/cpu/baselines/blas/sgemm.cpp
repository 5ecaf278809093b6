// Baseline for blas/sgemm: OpenBLAS cblas_sgemm, column-major, with the
// leading dimensions taken from the views (strides [1, ld]). A view that BLAS
// cannot express (strides[0] != 1) is first copied into a dense column-major
// buffer; C is copied back after the call in that case.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kgb_baseline.h"

namespace {

// A column-major operand for BLAS: pointer and leading dimension, with a dense
// copy when the view is not column-major.
struct ColMajor {
  float* data = nullptr;
  int64_t ld = 1;
  std::vector<float> copy;
};

ColMajor as_col_major(const kgb_tensor* t, bool need_values) {
  ColMajor r;
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  float* base = static_cast<float*>(t->data);
  if (t->strides[0] == 1 || rows <= 1) {
    r.data = base;
    // ld is irrelevant for a single column but BLAS still wants ld >= max(1, rows).
    r.ld = cols <= 1 ? std::max<int64_t>(1, rows) : t->strides[1];
    if (r.ld >= std::max<int64_t>(1, rows)) return r;
  }
  r.ld = std::max<int64_t>(1, rows);
  r.copy.assign(static_cast<size_t>(r.ld * std::max<int64_t>(1, cols)), 0.0f);
  if (need_values)
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < rows; ++i) r.copy[static_cast<size_t>(i + j * r.ld)] = base[i * t->strides[0] + j * t->strides[1]];
  r.data = r.copy.data();
  return r;
}

int sgemm_openblas(int64_t transa, int64_t transb, double alpha_d, const kgb_tensor* a, const kgb_tensor* b, double beta_d,
                   kgb_tensor* c, kgb_stream) {
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = c->sizes[0], n = c->sizes[1], k = transa ? a->sizes[0] : a->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;

  ColMajor ca = as_col_major(a, true), cb = as_col_major(b, true), cc = as_col_major(c, beta != 0.0f);
  cblas_sgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans, transb ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha, ca.data,
              static_cast<blasint>(ca.ld), cb.data, static_cast<blasint>(cb.ld), beta, cc.data,
              static_cast<blasint>(cc.ld));
  if (!cc.copy.empty()) {
    float* base = static_cast<float*>(c->data);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) base[i * c->strides[0] + j * c->strides[1]] = cc.copy[static_cast<size_t>(i + j * cc.ld)];
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sgemm, "openblas", sgemm_openblas);
