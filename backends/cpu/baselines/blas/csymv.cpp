// Baseline for blas/csymv: OpenBLAS's csymv (CBLAS has no complex symv, so
// the Fortran interface OpenBLAS exports: arguments by reference, the pointer
// of a vector with a negative increment at its lowest address, as in CBLAS),
// column-major A with its leading dimension. Also the oracle of the
// reference's cross-check.
#include <complex>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/csymv.h"
#include "vector.h"

extern "C" void csymv_(const char* uplo, const blasint* n, const void* alpha, const void* a, const blasint* lda, const void* x,
                       const blasint* incx, const void* beta, void* y, const blasint* incy);

namespace {

using namespace kgb::cpu_blas;
using c64 = std::complex<float>;

int csymv_openblas(int uplo, kgb_complex alpha_d, const kgb_tensor* a, const kgb_tensor* x, kgb_complex beta_d, kgb_tensor* y,
                   kgb_stream) {
  if (a->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const blasint n = static_cast<blasint>(a->sizes[0]);
  if (n == 0) return KGB_OK;
  const c64 alpha(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  const c64 beta(static_cast<float>(beta_d.re), static_cast<float>(beta_d.im));
  auto ca = as_col_major<c64>(a, true);
  const blasint lda = static_cast<blasint>(ca.ld), incx = blas_inc(x), incy = blas_inc(y);
  const char fill = uplo == 0 ? 'L' : 'U';
  csymv_(&fill, &n, &alpha, ca.data, &lda, blas_pointer<const c64>(x), &incx, &beta, blas_pointer<c64>(y), &incy);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_csymv, "openblas", csymv_openblas);
