// blas/sger on CUDA: cublasSger, host pointer mode, signed increments (the
// pointer cuBLAS takes is the lowest address a vector touches).
#include "../cublas_common.h"
#include "kgb_entries/blas/sger.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int sger_cublas(double alpha_d, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || a->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = a->sizes[0], n = a->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const float alpha = static_cast<float>(alpha_d);
  return status(cublasSger(h, static_cast<int>(m), static_cast<int>(n), &alpha, blas_pointer<const float>(x), blas_inc(x),
                           blas_pointer<const float>(y), blas_inc(y), static_cast<float*>(a->data), static_cast<int>(lda)));
}

}  // namespace

KGB_BASELINE(blas_sger, "cublas", sger_cublas);
