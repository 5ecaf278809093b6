// blas/csymv on CUDA: cublasCsymv (the fill-mode enum keeps cuBLAS's
// numbers), host pointer mode, alpha and beta as cuComplex, signed increments
// (the pointer cuBLAS takes is the lowest address a vector touches).
#include "../cublas_common.h"
#include "kgb_entries/blas/csymv.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int csymv_cublas(int uplo, kgb_complex alpha_d, const kgb_tensor* a, const kgb_tensor* x, kgb_complex beta_d, kgb_tensor* y,
                 kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t n = a->sizes[0];
  if (n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const cuComplex alpha = make_cuComplex(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  const cuComplex beta = make_cuComplex(static_cast<float>(beta_d.re), static_cast<float>(beta_d.im));
  return status(cublasCsymv(h, static_cast<cublasFillMode_t>(uplo), static_cast<int>(n), &alpha, static_cast<const cuComplex*>(a->data),
                            static_cast<int>(lda), blas_pointer<const cuComplex>(x), blas_inc(x), &beta, blas_pointer<cuComplex>(y),
                            blas_inc(y)));
}

}  // namespace

KGB_BASELINE(blas_csymv, "cublas", csymv_cublas);
