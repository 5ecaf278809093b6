// blas/sgemv_batched baseline (emitted by scripts/taskgen/gemv.py): a loop of CLBlast Gemv<float> calls, one per item of the lists
// (CLBlast has no batched GEMV): labelled "clblast loop",
// column-major; the plain kernel of gemv.h (written here) where CLBlast
// cannot take a call (negative increments, alpha == 0, beta == 0 with a
// stepped y) or is not installed.
#include <complex>
#include <cstdint>

#include "gemv.h"
#include "kgb_entries/blas/sgemv_batched.h"

namespace kgb::opencl::plain {
namespace {

int sgemv_batched_baseline(int trans, double alpha_in, const kgb_tensor_list* Aarray, const kgb_tensor_list* xarray, double beta_in, kgb_tensor_list* yarray, kgb_stream stream) {
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const int64_t batch = yarray->count;
  if (Aarray->count != batch || xarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* x = xarray->items[0];
  const kgb_tensor* y = yarray->items[0];
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const gemv::Shape s{trans, A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};
  const float alpha = static_cast<float>(alpha_in), beta = static_cast<float>(beta_in);
  for (int64_t b = 0; b < batch; ++b) {
    gemv::Item it;
    if (!gemv::locate(stream, Aarray->items[b], &it.a, &it.ao) || !gemv::locate(stream, xarray->items[b], &it.x, &it.xo) ||
        !gemv::locate(stream, yarray->items[b], &it.y, &it.yo))
      return KGB_ERR_INVALID;
    if (const int rc = gemv::call(stream, s, it, alpha, beta); rc != KGB_OK) return rc;
  }
  return KGB_OK;
}

KGB_BASELINE(blas_sgemv_batched, gemv::kKindGemvLoop, sgemv_batched_baseline);

}  // namespace
}  // namespace kgb::opencl::plain
