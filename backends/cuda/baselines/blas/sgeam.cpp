// blas/sgeam on CUDA: cublasSgeam itself, alpha and beta in host pointer
// mode; the in-place case (C == A) is passed through as cuBLAS allows it.
#include "../cublas_common.h"
#include "kgb_entries/blas/sgeam.h"

namespace {

using namespace kgb::cuda_blas;

int sgeam_cublas(int transa, int transb, double alpha_d, const kgb_tensor* a, double beta_d, const kgb_tensor* b,
                 kgb_tensor* c, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = c->sizes[0], n = c->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a), ldb = column_major_ld(b), ldc = column_major_ld(c);
  if (lda == 0 || ldb == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  const cublasStatus_t st =
      cublasSgeam(h, static_cast<cublasOperation_t>(transa), static_cast<cublasOperation_t>(transb), static_cast<int>(m),
                  static_cast<int>(n), &alpha, static_cast<const float*>(a->data), static_cast<int>(lda), &beta,
                  static_cast<const float*>(b->data), static_cast<int>(ldb), static_cast<float*>(c->data),
                  static_cast<int>(ldc));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_sgeam, "cublas", sgeam_cublas);
