// blas/cgemv_strided_batched baseline (emitted by scripts/taskgen/gemv.py): a loop of CLBlast Gemv<std::complex<float>> calls, one per item at its strides
// (CLBlast has no batched GEMV): labelled "clblast loop",
// column-major; the plain kernel of gemv.h (written here) where CLBlast
// cannot take a call (negative increments, alpha == 0, beta == 0 with a
// stepped y) or is not installed.
#include <complex>
#include <cstdint>

#include "gemv.h"
#include "kgb_entries/blas/cgemv_strided_batched.h"

namespace kgb::opencl::plain {
namespace {

int cgemv_strided_batched_baseline(int trans, kgb_complex alpha_in, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta_in, kgb_tensor* y, kgb_stream stream) {
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t batch = A->sizes[2];
  const gemv::Shape s{trans, A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};
  const std::complex<float> alpha(static_cast<float>(alpha_in.re), static_cast<float>(alpha_in.im));
  const std::complex<float> beta(static_cast<float>(beta_in.re), static_cast<float>(beta_in.im));
  gemv::Item first;
  if (!gemv::locate(stream, A, &first.a, &first.ao) || !gemv::locate(stream, x, &first.x, &first.xo) ||
      !gemv::locate(stream, y, &first.y, &first.yo))
    return KGB_ERR_INVALID;
  for (int64_t b = 0; b < batch; ++b) {
    gemv::Item it = first;
    it.ao += b * A->strides[2];
    it.xo += b * x->strides[1];
    it.yo += b * y->strides[1];
    if (const int rc = gemv::call(stream, s, it, alpha, beta); rc != KGB_OK) return rc;
  }
  return KGB_OK;
}

KGB_BASELINE(blas_cgemv_strided_batched, gemv::kKindGemvLoop, cgemv_strided_batched_baseline);

}  // namespace
}  // namespace kgb::opencl::plain
