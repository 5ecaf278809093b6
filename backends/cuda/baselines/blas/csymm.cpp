// blas/csymm on CUDA: cublasCsymm itself (side and fill mode with cuBLAS's
// numbers), alpha and beta as cuComplex in host pointer mode.
#include "../cublas_common.h"
#include "kgb_entries/blas/csymm.h"

namespace {

using namespace kgb::cuda_blas;

int csymm_cublas(int side, int uplo, kgb_complex alpha_d, const kgb_tensor* a, const kgb_tensor* b, kgb_complex beta_d,
                 kgb_tensor* c, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_C64 || b->dtype != KGB_C64 || c->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t m = c->sizes[0], n = c->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a), ldb = column_major_ld(b), ldc = column_major_ld(c);
  if (lda == 0 || ldb == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const cuComplex alpha = make_cuComplex(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  const cuComplex beta = make_cuComplex(static_cast<float>(beta_d.re), static_cast<float>(beta_d.im));
  const cublasStatus_t st =
      cublasCsymm(h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                  static_cast<int>(m), static_cast<int>(n), &alpha, static_cast<const cuComplex*>(a->data), static_cast<int>(lda),
                  static_cast<const cuComplex*>(b->data), static_cast<int>(ldb), &beta, static_cast<cuComplex*>(c->data),
                  static_cast<int>(ldc));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_csymm, "cublas", csymm_cublas);
