// blas/dgemv baseline (emitted by scripts/taskgen/gemv.py): CLBlast's Gemv<double>,
// column-major; the plain kernel of gemv.h (written here) where CLBlast
// cannot take a call (negative increments, alpha == 0, beta == 0 with a
// stepped y) or is not installed.
#include <complex>
#include <cstdint>

#include "gemv.h"
#include "kgb_entries/blas/dgemv.h"

namespace kgb::opencl::plain {
namespace {

int dgemv_baseline(int trans, double alpha_in, const kgb_tensor* A, const kgb_tensor* x, double beta_in, kgb_tensor* y, kgb_stream stream) {
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const gemv::Shape s{trans, A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};
  const double alpha = static_cast<double>(alpha_in), beta = static_cast<double>(beta_in);
  gemv::Item it;
  if (!gemv::locate(stream, A, &it.a, &it.ao) || !gemv::locate(stream, x, &it.x, &it.xo) || !gemv::locate(stream, y, &it.y, &it.yo))
    return KGB_ERR_INVALID;
  return gemv::call(stream, s, it, alpha, beta);
}

KGB_BASELINE(blas_dgemv, gemv::kKindGemv, dgemv_baseline);

}  // namespace
}  // namespace kgb::opencl::plain
