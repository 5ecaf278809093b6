// blas/dgemm_batched on CUDA: cublasDgemmBatched on the lists' device pointer
// arrays (device_data), one lda, ldb, ldc per call as cuBLAS takes them.
#include "../cublas_common.h"
#include "kgb_entries/blas/dgemm_batched.h"

namespace {

using namespace kgb::cuda_blas;

int dgemm_batched_cublas(int transa, int transb, double alpha, const kgb_tensor_list* a, const kgb_tensor_list* b,
                         double beta, kgb_tensor_list* c, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  const int64_t batch = c->count;
  if (a->count != batch || b->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  if (!a->device_data || !b->device_data || !c->device_data) return KGB_ERR_INVALID;
  const kgb_tensor* a0 = a->items[0];
  const kgb_tensor* b0 = b->items[0];
  const kgb_tensor* c0 = c->items[0];
  if (a0->dtype != KGB_F64 || b0->dtype != KGB_F64 || c0->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const int64_t m = c0->sizes[0], n = c0->sizes[1], k = transa ? a0->sizes[0] : a0->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a0), ldb = column_major_ld(b0), ldc = column_major_ld(c0);
  if (lda == 0 || ldb == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const cublasStatus_t st = cublasDgemmBatched(
      h, static_cast<cublasOperation_t>(transa), static_cast<cublasOperation_t>(transb), static_cast<int>(m),
      static_cast<int>(n), static_cast<int>(k), &alpha, reinterpret_cast<const double* const*>(a->device_data),
      static_cast<int>(lda), reinterpret_cast<const double* const*>(b->device_data), static_cast<int>(ldb), &beta,
      reinterpret_cast<double* const*>(c->device_data), static_cast<int>(ldc), static_cast<int>(batch));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_dgemm_batched, "cublas", dgemm_batched_cublas);
