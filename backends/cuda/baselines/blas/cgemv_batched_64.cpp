// blas/cgemv_batched_64 on CUDA (emitted by scripts/taskgen/gemv.py): cublasCgemvBatched_64 on the lists' device pointer arrays (device_data), one lda,
// incx, incy per call as cuBLAS takes them,
// host pointer mode; a negative increment passes the lowest address the vector touches, as BLAS
// expects.
#include <cstdint>

#include "../cublas_common.h"
#include "kgb_entries/blas/cgemv_batched_64.h"

namespace {

using namespace kgb::cuda_blas;

template <class T>
T* lowest(T* element0, int64_t len, int64_t inc) {
  return len > 0 && inc < 0 ? element0 + (len - 1) * inc : element0;
}

int status(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID; }

int cgemv_batched_64_cublas(int trans, kgb_complex alpha_in, const kgb_tensor_list* Aarray, const kgb_tensor_list* xarray, kgb_complex beta_in, kgb_tensor_list* yarray, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const int64_t batch = yarray->count;
  if (Aarray->count != batch || xarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* x = xarray->items[0];
  const kgb_tensor* y = yarray->items[0];
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t m = A->sizes[0], n = A->sizes[1], lda = column_major_ld(A);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  if (m == 0 || n == 0) return KGB_OK;  // BLAS's quick return: y untouched
  const int64_t len_x = trans == 0 ? n : m, len_y = trans == 0 ? m : n;
  const int64_t incx = x->strides[0], incy = y->strides[0];
  const cuComplex alpha = make_cuComplex(static_cast<float>(alpha_in.re), static_cast<float>(alpha_in.im));
  const cuComplex beta = make_cuComplex(static_cast<float>(beta_in.re), static_cast<float>(beta_in.im));
  (void)len_x;
  (void)len_y;
  if (incx <= 0 || incy <= 0) return KGB_ERR_UNSUPPORTED;  // the pointer arrays hold element 0, not the lowest address
  if (!Aarray->device_data || !xarray->device_data || !yarray->device_data) return KGB_ERR_INVALID;
  return status(cublasCgemvBatched_64(h, static_cast<cublasOperation_t>(trans), static_cast<int64_t>(m), static_cast<int64_t>(n), &alpha,
                          reinterpret_cast<const cuComplex* const*>(Aarray->device_data), static_cast<int64_t>(lda),
                          reinterpret_cast<const cuComplex* const*>(xarray->device_data), static_cast<int64_t>(incx), &beta,
                          reinterpret_cast<cuComplex* const*>(yarray->device_data), static_cast<int64_t>(incy), static_cast<int64_t>(batch)));
}

}  // namespace

KGB_BASELINE(blas_cgemv_batched_64, "cublas", cgemv_batched_64_cublas);
