// blas/dtrsm_batched on CUDA: cublasDtrsmBatched on the lists' device pointer
// arrays (device_data), one lda and ldb per call as cuBLAS takes them; side,
// fill mode, op and diagonal with cuBLAS's numbers (CUBLAS_OP_C is the
// transpose of a real matrix), alpha in host pointer mode.
#include "../cublas_common.h"
#include "kgb_entries/blas/dtrsm_batched.h"

namespace {

using namespace kgb::cuda_blas;

int dtrsm_batched_cublas(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor_list* a, kgb_tensor_list* b,
                         kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  const int64_t batch = b->count;
  if (a->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  if (!a->device_data || !b->device_data) return KGB_ERR_INVALID;
  const kgb_tensor* a0 = a->items[0];
  const kgb_tensor* b0 = b->items[0];
  if (a0->dtype != KGB_F64 || b0->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const int64_t m = b0->sizes[0], n = b0->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a0), ldb = column_major_ld(b0);
  if (lda == 0 || ldb == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const cublasStatus_t st = cublasDtrsmBatched(
      h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
      trans ? CUBLAS_OP_T : CUBLAS_OP_N, diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, static_cast<int>(m), static_cast<int>(n),
      &alpha, reinterpret_cast<const double* const*>(a->device_data), static_cast<int>(lda),
      reinterpret_cast<double* const*>(b->device_data), static_cast<int>(ldb), static_cast<int>(batch));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_dtrsm_batched, "cublas", dtrsm_batched_cublas);
