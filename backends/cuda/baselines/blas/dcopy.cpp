// blas/dcopy on CUDA: cublasDcopy with signed increments.
#include "../cublas_common.h"
#include "kgb_entries/blas/dcopy.h"
#include "vector.h"

namespace {

using namespace kgb::cuda_blas;

int dcopy_cublas(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  return status(cublasDcopy(h, blas_n(x), blas_pointer<const double>(x), blas_inc(x), blas_pointer<double>(y), blas_inc(y)));
}

}  // namespace

KGB_BASELINE(blas_dcopy, "cublas", dcopy_cublas);
