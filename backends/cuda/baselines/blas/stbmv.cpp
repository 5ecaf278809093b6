// blas/stbmv on CUDA: cublasStbmv (the fill/op/diag enums keep cuBLAS's
// numbers), the band's leading dimension, signed increment (the pointer
// cuBLAS takes is the lowest address the vector touches).
#include "../cublas_common.h"
#include "kgb_entries/blas/stbmv.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int stbmv_cublas(int uplo, int trans, int diag, const kgb_tensor* a, kgb_tensor* x, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t k = a->sizes[0] - 1, n = a->sizes[1];
  if (n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  return status(cublasStbmv(h, static_cast<cublasFillMode_t>(uplo), static_cast<cublasOperation_t>(trans),
                            static_cast<cublasDiagType_t>(diag), static_cast<int>(n), static_cast<int>(k),
                            static_cast<const float*>(a->data), static_cast<int>(lda), blas_pointer<float>(x), blas_inc(x)));
}

}  // namespace

KGB_BASELINE(blas_stbmv, "cublas", stbmv_cublas);
