// blas/ccopy on CUDA: cublasCcopy with signed increments.
#include "../cublas_common.h"
#include "kgb_entries/blas/ccopy.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int ccopy_cublas(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  return status(cublasCcopy(h, blas_n(x), blas_pointer<const cuComplex>(x), blas_inc(x), blas_pointer<cuComplex>(y), blas_inc(y)));
}

}  // namespace

KGB_BASELINE(blas_ccopy, "cublas", ccopy_cublas);
