// blas/dsbmv on CUDA: cublasDsbmv (the fill-mode enum keeps cuBLAS's
// numbers), host pointer mode, the band's leading dimension, signed
// increments (the pointer cuBLAS takes is the lowest address a vector
// touches).
#include "../cublas_common.h"
#include "kgb_entries/blas/dsbmv.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int dsbmv_cublas(int uplo, double alpha, const kgb_tensor* a, const kgb_tensor* x, double beta, kgb_tensor* y, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const int64_t k = a->sizes[0] - 1, n = a->sizes[1];
  if (n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  return status(cublasDsbmv(h, static_cast<cublasFillMode_t>(uplo), static_cast<int>(n), static_cast<int>(k), &alpha,
                            static_cast<const double*>(a->data), static_cast<int>(lda), blas_pointer<const double>(x), blas_inc(x), &beta,
                            blas_pointer<double>(y), blas_inc(y)));
}

}  // namespace

KGB_BASELINE(blas_dsbmv, "cublas", dsbmv_cublas);
