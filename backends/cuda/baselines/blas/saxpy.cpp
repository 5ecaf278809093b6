// blas/saxpy on CUDA: cublasSaxpy.
#include "../cublas_common.h"
#include "kgb_entries/blas/saxpy.h"

namespace {

using namespace kgb::cuda_blas;

int saxpy_cublas(double alpha_d, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  const float alpha = static_cast<float>(alpha_d);
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t n = x->sizes[0];
  if (n == 0) return KGB_OK;
  // A negative increment walks down from data: cuBLAS wants the lowest address.
  const float* xp = static_cast<const float*>(x->data) + (x->strides[0] < 0 ? (n - 1) * x->strides[0] : 0);
  float* yp = static_cast<float*>(y->data) + (y->strides[0] < 0 ? (n - 1) * y->strides[0] : 0);
  cublasStatus_t st = cublasSaxpy(h, static_cast<int>(n), &alpha, xp, static_cast<int>(x->strides[0]), yp, static_cast<int>(y->strides[0]));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_saxpy, "cublas", saxpy_cublas);
