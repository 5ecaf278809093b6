// blas/sscal on CUDA: cublasSscal, host pointer mode (cuBLAS does nothing for
// incx <= 0).
#include "../cublas_common.h"
#include "kgb_entries/blas/sscal.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int sscal_cublas(double alpha_d, kgb_tensor* x, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  const float alpha = static_cast<float>(alpha_d);
  return status(cublasSscal(h, blas_n(x), &alpha, blas_pointer<float>(x), blas_inc(x)));
}

}  // namespace

KGB_BASELINE(blas_sscal, "cublas", sscal_cublas);
