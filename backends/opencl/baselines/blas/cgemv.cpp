// blas/cgemv baseline (emitted by scripts/taskgen/gemv.py): CLBlast's Gemv<std::complex<float>>,
// column-major; the plain kernel of gemv.h (written here) where CLBlast
// cannot take a call (negative increments, alpha == 0, beta == 0 with a
// stepped y) or is not installed.
#include <complex>
#include <cstdint>

#include "gemv.h"
#include "kgb_entries/blas/cgemv.h"

namespace kgb::opencl::plain {
namespace {

int cgemv_baseline(int trans, kgb_complex alpha_in, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta_in, kgb_tensor* y, kgb_stream stream) {
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const gemv::Shape s{trans, A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};
  const std::complex<float> alpha(static_cast<float>(alpha_in.re), static_cast<float>(alpha_in.im));
  const std::complex<float> beta(static_cast<float>(beta_in.re), static_cast<float>(beta_in.im));
  gemv::Item it;
  if (!gemv::locate(stream, A, &it.a, &it.ao) || !gemv::locate(stream, x, &it.x, &it.xo) || !gemv::locate(stream, y, &it.y, &it.yo))
    return KGB_ERR_INVALID;
  return gemv::call(stream, s, it, alpha, beta);
}

KGB_BASELINE(blas_cgemv, gemv::kKindGemv, cgemv_baseline);

}  // namespace
}  // namespace kgb::opencl::plain
