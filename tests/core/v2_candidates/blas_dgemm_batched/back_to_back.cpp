// Wrong on purpose: treats each list as a strided batch, the matrices back to
// back from the lowest item address (item b at base + b * ld * cols), as
// cublasDgemmStridedBatched would take them. The harness places the items of
// a list in a shuffled order with poisoned gaps, so this reads poison and
// other items, and writes into the gaps of C.
#include "kgb_kernel.h"

namespace {

const double* lowest(const kgb_tensor_list* l) {
  const double* p = static_cast<const double*>(l->items[0]->data);
  for (int64_t b = 1; b < l->count; ++b)
    if (static_cast<const double*>(l->items[b]->data) < p) p = static_cast<const double*>(l->items[b]->data);
  return p;
}

}  // namespace

extern "C" int kgb_blas_dgemm_batched(int transa, int transb, double alpha, const kgb_tensor_list* Aarray,
                                      const kgb_tensor_list* Barray, double beta, kgb_tensor_list* Carray,
                                      kgb_stream stream) {
  (void)stream;
  if (Carray->count == 0) return KGB_OK;
  const kgb_tensor* a0 = Aarray->items[0];
  const kgb_tensor* b0 = Barray->items[0];
  const kgb_tensor* c0 = Carray->items[0];
  const int64_t m = c0->sizes[0], n = c0->sizes[1], k = transa ? a0->sizes[0] : a0->sizes[1];
  const int64_t lda = a0->strides[1], ldb = b0->strides[1], ldc = c0->strides[1];
  const double* abase = lowest(Aarray);
  const double* bbase = lowest(Barray);
  double* cbase = const_cast<double*>(lowest(Carray));
  for (int64_t b = 0; b < Carray->count; ++b) {
    const double* a = abase + b * lda * a0->sizes[1];
    const double* bm = bbase + b * ldb * b0->sizes[1];
    double* c = cbase + b * ldc * n;
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
