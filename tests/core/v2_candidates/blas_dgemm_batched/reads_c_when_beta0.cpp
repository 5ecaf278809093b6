// Wrong on purpose: computes alpha * op(A) op(B) + beta * C even when
// beta == 0, so the NaN and infinities C arrives with leak into the result
// (0 * NaN = NaN) where BLAS says C is not read at all.
#include "kgb_kernel.h"

extern "C" int kgb_blas_dgemm_batched(int transa, int transb, double alpha, const kgb_tensor_list* Aarray,
                                      const kgb_tensor_list* Barray, double beta, kgb_tensor_list* Carray,
                                      kgb_stream stream) {
  (void)stream;
  for (int64_t b = 0; b < Carray->count; ++b) {
    const kgb_tensor* at = Aarray->items[b];
    const kgb_tensor* bt = Barray->items[b];
    kgb_tensor* ct = Carray->items[b];
    const int64_t m = ct->sizes[0], n = ct->sizes[1], k = transa ? at->sizes[0] : at->sizes[1];
    const int64_t lda = at->strides[1], ldb = bt->strides[1], ldc = ct->strides[1];
    const double* a = static_cast<const double*>(at->data);
    const double* bm = static_cast<const double*>(bt->data);
    double* c = static_cast<double*>(ct->data);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        double sum = 0.0;
        for (int64_t l = 0; l < k; ++l)
          sum += (transa ? a[l + i * lda] : a[i + l * lda]) * (transb ? bm[j + l * ldb] : bm[l + j * ldb]);
        c[i + j * ldc] = alpha * sum + beta * c[i + j * ldc];
      }
  }
  return KGB_OK;
}
