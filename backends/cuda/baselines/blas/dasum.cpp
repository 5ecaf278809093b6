// blas/dasum on CUDA: cublasDasum in device pointer mode, the result written
// to the one-element device output (as the published benchmark calls it).
#include "../cublas_common.h"
#include "kgb_entries/blas/dasum.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int dasum_cublas(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_F64 || result->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  DevicePointerMode device_mode(h);
  return status(cublasDasum(h, blas_n(x), blas_pointer<const double>(x), blas_inc(x), static_cast<double*>(result->data)));
}

}  // namespace

KGB_BASELINE(blas_dasum, "cublas", dasum_cublas);
