// blas/dsyr2 on CUDA: cublasDsyr2 (the fill-mode enum keeps cuBLAS's
// numbers), host pointer mode, signed increments (the pointer cuBLAS takes is
// the lowest address a vector touches).
#include "../cublas_common.h"
#include "kgb_entries/blas/dsyr2.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int dsyr2_cublas(int uplo, double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64 || a->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const int64_t n = a->sizes[0];
  if (n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  return status(cublasDsyr2(h, static_cast<cublasFillMode_t>(uplo), static_cast<int>(n), &alpha, blas_pointer<const double>(x),
                            blas_inc(x), blas_pointer<const double>(y), blas_inc(y), static_cast<double*>(a->data),
                            static_cast<int>(lda)));
}

}  // namespace

KGB_BASELINE(blas_dsyr2, "cublas", dsyr2_cublas);
