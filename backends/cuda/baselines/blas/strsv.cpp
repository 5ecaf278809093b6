// blas/strsv on CUDA: cublasStrsv (the fill/op/diag enums keep cuBLAS's
// numbers), signed increment (the pointer cuBLAS takes is the lowest address
// the vector touches).
#include "../cublas_common.h"
#include "kgb_entries/blas/strsv.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int strsv_cublas(int uplo, int trans, int diag, const kgb_tensor* a, kgb_tensor* x, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t n = a->sizes[0];
  if (n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  return status(cublasStrsv(h, static_cast<cublasFillMode_t>(uplo), static_cast<cublasOperation_t>(trans),
                            static_cast<cublasDiagType_t>(diag), static_cast<int>(n), static_cast<const float*>(a->data),
                            static_cast<int>(lda), blas_pointer<float>(x), blas_inc(x)));
}

}  // namespace

KGB_BASELINE(blas_strsv, "cublas", strsv_cublas);
