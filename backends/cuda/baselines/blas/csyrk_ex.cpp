// blas/csyrk_ex on CUDA: cublasCsyrkEx itself with Atype = Ctype =
// CUDA_C_32F (the task's A is complex float only), fill mode and op with
// cuBLAS's numbers, alpha and beta as cuComplex in host pointer mode.
#include "../cublas_common.h"
#include "kgb_entries/blas/csyrk_ex.h"

namespace {

using namespace kgb::cuda_blas;

int csyrk_ex_cublas(int uplo, int trans, kgb_complex alpha_d, const kgb_tensor* a, kgb_complex beta_d, kgb_tensor* c,
                    kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_C64 || c->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t n = c->sizes[0], k = trans ? a->sizes[0] : a->sizes[1];
  if (n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a), ldc = column_major_ld(c);
  if (lda == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const cuComplex alpha = make_cuComplex(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  const cuComplex beta = make_cuComplex(static_cast<float>(beta_d.re), static_cast<float>(beta_d.im));
  const cublasStatus_t st = cublasCsyrkEx(h, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                                          trans ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(k), &alpha,
                                          a->data, CUDA_C_32F, static_cast<int>(lda), &beta, c->data, CUDA_C_32F,
                                          static_cast<int>(ldc));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_csyrk_ex, "cublas", csyrk_ex_cublas);
