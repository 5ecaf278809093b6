// Baseline for blas/sgemv_batched (emitted by scripts/taskgen/gemv.py): OpenBLAS,
// a loop of cblas_sgemv calls, one per item of the pointer arrays through the
// item's own data pointer (CBLAS has no batched GEMV): labelled "openblas loop", column-major, the views' signed strides as the increments
// (gemv.h). Also the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "gemv.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/sgemv_batched.h"

namespace {

using namespace kgb::cpu_blas;

int sgemv_batched_openblas(int trans, double alpha_in, const kgb_tensor_list* Aarray, const kgb_tensor_list* xarray, double beta_in, kgb_tensor_list* yarray, kgb_stream stream) {
  (void)stream;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const int64_t batch = yarray->count;
  if (Aarray->count != batch || xarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* x = xarray->items[0];
  const kgb_tensor* y = yarray->items[0];
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const float alpha = static_cast<float>(alpha_in), beta = static_cast<float>(beta_in);
  const GemvShape s{trans, A->sizes[0], A->sizes[1], gemv_ld(A), x->strides[0], y->strides[0]};
  if (s.lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  for (int64_t b = 0; b < batch; ++b)
    gemv(s, alpha, static_cast<const float*>(Aarray->items[b]->data), static_cast<const float*>(xarray->items[b]->data), beta,
         static_cast<float*>(yarray->items[b]->data));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sgemv_batched, "openblas loop", sgemv_batched_openblas);
