// blas/ssyrk on CUDA: cublasSsyrk itself, fill mode and op with cuBLAS's
// meaning (CUBLAS_OP_C is the transpose of a real matrix), alpha and beta in
// host pointer mode.
#include "../cublas_common.h"
#include "kgb_entries/blas/ssyrk.h"

namespace {

using namespace kgb::cuda_blas;

int ssyrk_cublas(int uplo, int trans, double alpha_d, const kgb_tensor* a, double beta_d, kgb_tensor* c, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t n = c->sizes[0], k = trans ? a->sizes[0] : a->sizes[1];
  if (n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a), ldc = column_major_ld(c);
  if (lda == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  const cublasStatus_t st =
      cublasSsyrk(h, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                  static_cast<int>(n), static_cast<int>(k), &alpha, static_cast<const float*>(a->data), static_cast<int>(lda),
                  &beta, static_cast<float*>(c->data), static_cast<int>(ldc));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_ssyrk, "cublas", ssyrk_cublas);
