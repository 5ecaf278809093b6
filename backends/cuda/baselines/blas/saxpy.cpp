// blas/saxpy on CUDA: cublasSaxpy, host pointer mode, signed increments.
#include "../cublas_common.h"
#include "kgb_entries/blas/saxpy.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int saxpy_cublas(double alpha_d, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  const float alpha = static_cast<float>(alpha_d);
  return status(cublasSaxpy(h, blas_n(x), &alpha, blas_pointer<const float>(x), blas_inc(x), blas_pointer<float>(y), blas_inc(y)));
}

}  // namespace

KGB_BASELINE(blas_saxpy, "cublas", saxpy_cublas);
