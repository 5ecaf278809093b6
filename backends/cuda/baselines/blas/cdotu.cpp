// blas/cdotu on CUDA: cublasCdotu in device pointer mode, the result written
// to the one-element device output (as the published benchmark calls it).
#include "../cublas_common.h"
#include "kgb_entries/blas/cdotu.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int cdotu_cublas(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || result->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  DevicePointerMode device_mode(h);
  return status(cublasCdotu(h, blas_n(x), blas_pointer<const cuComplex>(x), blas_inc(x), blas_pointer<const cuComplex>(y),
                            blas_inc(y), static_cast<cuComplex*>(result->data)));
}

}  // namespace

KGB_BASELINE(blas_cdotu, "cublas", cdotu_cublas);
