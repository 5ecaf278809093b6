// Wrong on purpose: knows only CUBLAS_OP_N and CUBLAS_OP_T and refuses
// CUBLAS_OP_C (2), which for a real matrix is just the transpose, so every
// case that passes op C gets an error instead of a result.
#include "kgb_kernel.h"

extern "C" int kgb_blas_dgemm_batched(int transa, int transb, double alpha, const kgb_tensor_list* Aarray,
                                      const kgb_tensor_list* Barray, double beta, kgb_tensor_list* Carray,
                                      kgb_stream stream) {
  (void)stream;
  if (transa > 1 || transb > 1) return KGB_ERR_UNSUPPORTED;
  if (Carray->count == 0) return KGB_OK;
  if (!Aarray->device_data || !Barray->device_data || !Carray->device_data) return KGB_ERR_INVALID;
  const kgb_tensor* a0 = Aarray->items[0];
  const kgb_tensor* b0 = Barray->items[0];
  const kgb_tensor* c0 = Carray->items[0];
  const int64_t m = c0->sizes[0], n = c0->sizes[1], k = transa ? a0->sizes[0] : a0->sizes[1];
  const int64_t lda = a0->strides[1], ldb = b0->strides[1], ldc = c0->strides[1];
  for (int64_t b = 0; b < Carray->count; ++b) {
    const double* a = static_cast<const double*>(Aarray->device_data[b]);
    const double* bm = static_cast<const double*>(Barray->device_data[b]);
    double* c = static_cast<double*>(Carray->device_data[b]);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        double sum = 0.0;
        if (alpha != 0.0)
          for (int64_t l = 0; l < k; ++l)
            sum += (transa ? a[l + i * lda] : a[i + l * lda]) * (transb ? bm[j + l * ldb] : bm[l + j * ldb]);
        c[i + j * ldc] = beta == 0.0 ? alpha * sum : alpha * sum + beta * c[i + j * ldc];
      }
  }
  return KGB_OK;
}
