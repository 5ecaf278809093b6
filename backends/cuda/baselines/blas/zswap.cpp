// blas/zswap on CUDA: cublasZswap with signed increments.
#include "../cublas_common.h"
#include "kgb_entries/blas/zswap.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int zswap_cublas(kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  return status(cublasZswap(h, blas_n(x), blas_pointer<cuDoubleComplex>(x), blas_inc(x), blas_pointer<cuDoubleComplex>(y), blas_inc(y)));
}

}  // namespace

KGB_BASELINE(blas_zswap, "cublas", zswap_cublas);
