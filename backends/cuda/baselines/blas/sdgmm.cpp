// blas/sdgmm on CUDA: cublasSdgmm itself. x's increment is its view's
// stride; for incx < 0 cuBLAS takes the lowest address the vector touches
// (the view's data points at element 0, the highest one). In place (C == A)
// is passed through as cuBLAS allows it.
#include "../cublas_common.h"
#include "kgb_entries/blas/sdgmm.h"

namespace {

using namespace kgb::cuda_blas;

int sdgmm_cublas(int mode, const kgb_tensor* a, const kgb_tensor* x, kgb_tensor* c, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = c->sizes[0], n = c->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(a), ldc = column_major_ld(c);
  if (lda == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const int64_t len = x->sizes[0], incx = x->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  if (incx < 0) xp += (len - 1) * incx;  // the lowest address, as BLAS takes it
  const cublasStatus_t st = cublasSdgmm(h, mode == 0 ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT, static_cast<int>(m),
                                        static_cast<int>(n), static_cast<const float*>(a->data), static_cast<int>(lda), xp,
                                        static_cast<int>(incx), static_cast<float*>(c->data), static_cast<int>(ldc));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_sdgmm, "cublas", sdgmm_cublas);
