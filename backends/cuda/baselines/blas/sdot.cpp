// blas/sdot on CUDA: cublasSdot in device pointer mode, the result written to
// the one-element device output (as the published benchmark calls it).
#include "../cublas_common.h"
#include "kgb_entries/blas/sdot.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int sdot_cublas(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || result->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  DevicePointerMode device_mode(h);
  return status(cublasSdot(h, blas_n(x), blas_pointer<const float>(x), blas_inc(x), blas_pointer<const float>(y), blas_inc(y),
                           static_cast<float*>(result->data)));
}

}  // namespace

KGB_BASELINE(blas_sdot, "cublas", sdot_cublas);
