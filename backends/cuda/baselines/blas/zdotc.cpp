// blas/zdotc on CUDA: cublasZdotc in device pointer mode, the result written
// to the one-element device output (as the published benchmark calls it).
#include "../cublas_common.h"
#include "kgb_entries/blas/zdotc.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int zdotc_cublas(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || result->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  DevicePointerMode device_mode(h);
  return status(cublasZdotc(h, blas_n(x), blas_pointer<const cuDoubleComplex>(x), blas_inc(x), blas_pointer<const cuDoubleComplex>(y),
                            blas_inc(y), static_cast<cuDoubleComplex*>(result->data)));
}

}  // namespace

KGB_BASELINE(blas_zdotc, "cublas", zdotc_cublas);
