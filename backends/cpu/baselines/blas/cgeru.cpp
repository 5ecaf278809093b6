// Baseline for blas/cgeru: OpenBLAS cblas_cgeru, column-major A with its
// leading dimension, the views' signed strides as the increments, alpha as a
// float complex. Also the CBLAS oracle of the reference's cross-check.
#include <complex>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/cgeru.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;
using cplx = std::complex<float>;

int cgeru_openblas(kgb_complex alpha_d, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream) {
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || a->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t m = a->sizes[0], n = a->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const cplx alpha(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  auto ca = as_col_major<cplx>(a, true);
  cblas_cgeru(CblasColMajor, static_cast<blasint>(m), static_cast<blasint>(n), &alpha, blas_pointer<const cplx>(x), blas_inc(x),
             blas_pointer<const cplx>(y), blas_inc(y), ca.data, static_cast<blasint>(ca.ld));
  copy_back(ca, a);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_cgeru, "openblas", cgeru_openblas);
