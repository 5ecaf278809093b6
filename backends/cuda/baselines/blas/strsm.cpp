// blas/strsm on CUDA: cublasStrsm itself (side, fill mode, op and diagonal
// with cuBLAS's numbers; CUBLAS_OP_C is the transpose of a real matrix),
// alpha in host pointer mode, B overwritten in place.
#include "../cublas_common.h"
#include "kgb_entries/blas/strsm.h"

namespace {

using namespace kgb::cuda_blas;

int strsm_cublas(int side, int uplo, int trans, int diag, double alpha_d, const kgb_tensor* a, kgb_tensor* b,
                 kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = b->sizes[0], n = b->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a), ldb = column_major_ld(b);
  if (lda == 0 || ldb == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const float alpha = static_cast<float>(alpha_d);
  const cublasStatus_t st = cublasStrsm(
      h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
      trans ? CUBLAS_OP_T : CUBLAS_OP_N, diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, static_cast<int>(m), static_cast<int>(n),
      &alpha, static_cast<const float*>(a->data), static_cast<int>(lda), static_cast<float*>(b->data), static_cast<int>(ldb));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_strsm, "cublas", strsm_cublas);
