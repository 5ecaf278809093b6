// blas/cgemv_strided_batched on CUDA (emitted by scripts/taskgen/gemv.py): cublasCgemvStridedBatched (strideA, stridex, stridey as given by the
// views' last strides),
// host pointer mode; a negative increment passes the lowest address the vector touches, as BLAS
// expects.
#include <cstdint>

#include "../cublas_common.h"
#include "kgb_entries/blas/cgemv_strided_batched.h"

namespace {

using namespace kgb::cuda_blas;

template <class T>
T* lowest(T* element0, int64_t len, int64_t inc) {
  return len > 0 && inc < 0 ? element0 + (len - 1) * inc : element0;
}

int status(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID; }

int cgemv_strided_batched_cublas(int trans, kgb_complex alpha_in, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta_in, kgb_tensor* y, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t batch = A->sizes[2];
  const int64_t m = A->sizes[0], n = A->sizes[1], lda = column_major_ld(A);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  if (m == 0 || n == 0) return KGB_OK;  // BLAS's quick return: y untouched
  const int64_t len_x = trans == 0 ? n : m, len_y = trans == 0 ? m : n;
  const int64_t incx = x->strides[0], incy = y->strides[0];
  const cuComplex alpha = make_cuComplex(static_cast<float>(alpha_in.re), static_cast<float>(alpha_in.im));
  const cuComplex beta = make_cuComplex(static_cast<float>(beta_in.re), static_cast<float>(beta_in.im));
  return status(cublasCgemvStridedBatched(h, static_cast<cublasOperation_t>(trans), static_cast<int>(m), static_cast<int>(n), &alpha, static_cast<const cuComplex*>(A->data),
                          static_cast<int>(lda), A->strides[2], lowest(static_cast<const cuComplex*>(x->data), len_x, incx), static_cast<int>(incx),
                          x->strides[1], &beta, lowest(static_cast<cuComplex*>(y->data), len_y, incy), static_cast<int>(incy), y->strides[1],
                          static_cast<int>(batch)));
}

}  // namespace

KGB_BASELINE(blas_cgemv_strided_batched, "cublas", cgemv_strided_batched_cublas);
