// blas/zgerc on CUDA: cublasZgerc, host pointer mode, alpha as cuDoubleComplex, signed
// increments (the pointer cuBLAS takes is the lowest address a vector touches).
#include "../cublas_common.h"
#include "kgb_entries/blas/zgerc.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int zgerc_cublas(kgb_complex alpha_d, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || a->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  const int64_t m = a->sizes[0], n = a->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const cuDoubleComplex alpha = make_cuDoubleComplex(static_cast<double>(alpha_d.re), static_cast<double>(alpha_d.im));
  return status(cublasZgerc(h, static_cast<int>(m), static_cast<int>(n), &alpha, blas_pointer<const cuDoubleComplex>(x), blas_inc(x),
                           blas_pointer<const cuDoubleComplex>(y), blas_inc(y), static_cast<cuDoubleComplex*>(a->data), static_cast<int>(lda)));
}

}  // namespace

KGB_BASELINE(blas_zgerc, "cublas", zgerc_cublas);
