// Baseline for blas/sgemm: OpenBLAS cblas_sgemm, column-major, with the
// leading dimensions taken from the views (strides [1, ld]). A view that BLAS
// cannot express (strides[0] != 1) is first copied into a dense column-major
// buffer; C is copied back after the call in that case.
#include <cstdint>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/sgemm.h"

namespace {

using namespace kgb::cpu_blas;

int sgemm_openblas(int64_t transa, int64_t transb, double alpha_d, const kgb_tensor* a, const kgb_tensor* b, double beta_d,
                   kgb_tensor* c, kgb_stream) {
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = c->sizes[0], n = c->sizes[1], k = transa ? a->sizes[0] : a->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;

  auto ca = as_col_major<float>(a, true), cb = as_col_major<float>(b, true), cc = as_col_major<float>(c, beta != 0.0f);
  cblas_sgemm(CblasColMajor, cblas_op(transa), cblas_op(transb), static_cast<blasint>(m), static_cast<blasint>(n),
              static_cast<blasint>(k), alpha, ca.data, static_cast<blasint>(ca.ld), cb.data, static_cast<blasint>(cb.ld), beta,
              cc.data, static_cast<blasint>(cc.ld));
  copy_back(cc, c);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sgemm, "openblas", sgemm_openblas);
