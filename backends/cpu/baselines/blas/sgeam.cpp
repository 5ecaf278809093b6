// Baseline for blas/sgeam: OpenBLAS's BLAS extensions, as CBLAS has no geam:
// C := alpha * op(A) with cblas_somatcopy (a scaled, optionally transposed
// copy), then C += beta * op(B) through a scaled copy of op(B) and
// cblas_sgeadd. A scale of 0 skips its operand entirely (never reads it), as
// cublasSgeam does. The in-place case (C on A, transa == N) is a same-position
// copy, which somatcopy handles. Also the CBLAS oracle of the reference's
// cross-check.
#include <cstdint>
#include <vector>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/sgeam.h"

namespace {

using namespace kgb::cpu_blas;

int sgeam_openblas(int transa, int transb, double alpha_d, const kgb_tensor* a, double beta_d, const kgb_tensor* b,
                   kgb_tensor* c, kgb_stream) {
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = c->sizes[0], n = c->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  const auto rows = [](const kgb_tensor* x) { return static_cast<blasint>(x->sizes[0]); };
  const auto cols = [](const kgb_tensor* x) { return static_cast<blasint>(x->sizes[1]); };
  auto cc = as_col_major<float>(c, false);
  // beta * op(B) first: in the in-place case A's storage is overwritten below.
  std::vector<float> scaled_b;
  if (beta != 0.0f) {
    auto cb = as_col_major<float>(b, true);
    scaled_b.resize(static_cast<size_t>(m * n));
    cblas_somatcopy(CblasColMajor, cblas_op(transb), rows(b), cols(b), beta, cb.data, static_cast<blasint>(cb.ld),
                    scaled_b.data(), static_cast<blasint>(m));
  }
  if (alpha != 0.0f) {
    auto ca = as_col_major<float>(a, true);
    cblas_somatcopy(CblasColMajor, cblas_op(transa), rows(a), cols(a), alpha, ca.data, static_cast<blasint>(ca.ld), cc.data,
                    static_cast<blasint>(cc.ld));
    if (beta != 0.0f)
      cblas_sgeadd(CblasColMajor, static_cast<blasint>(m), static_cast<blasint>(n), 1.0f, scaled_b.data(),
                   static_cast<blasint>(m), 1.0f, cc.data, static_cast<blasint>(cc.ld));
  } else if (beta != 0.0f) {
    cblas_somatcopy(CblasColMajor, CblasNoTrans, static_cast<blasint>(m), static_cast<blasint>(n), 1.0f, scaled_b.data(),
                    static_cast<blasint>(m), cc.data, static_cast<blasint>(cc.ld));
  } else {
    for (int64_t j = 0; j < n; ++j)  // alpha == beta == 0: zeros, neither operand read
      for (int64_t i = 0; i < m; ++i) cc.data[i + j * cc.ld] = 0.0f;
  }
  copy_back(cc, c);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sgeam, "openblas", sgeam_openblas);
