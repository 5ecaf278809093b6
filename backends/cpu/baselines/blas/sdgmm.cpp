// Baseline for blas/sdgmm: CBLAS has no dgmm, so this is a plain loop written
// here (labelled as such): one pass over C's columns, each element of A
// multiplied by its x value, x read through its increment (negative or 0
// included). Independent of the reference, it is also the oracle of the
// cross-check; the hand-computed doctest (tests/tasks/blas_hand_check_test.cpp)
// checks both.
#include <cstdint>

#include "kgb_baseline.h"
#include "kgb_entries/blas/sdgmm.h"

namespace {

int sdgmm_plain(int mode, const kgb_tensor* a, const kgb_tensor* x, kgb_tensor* c, kgb_stream) {
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (mode != 0 && mode != 1) return KGB_ERR_INVALID;
  const int64_t m = c->sizes[0], n = c->sizes[1], incx = x->strides[0];
  const float* ap = static_cast<const float*>(a->data);
  const float* xp = static_cast<const float*>(x->data);
  float* cp = static_cast<float*>(c->data);
  for (int64_t j = 0; j < n; ++j) {
    const float* acol = ap + j * a->strides[1];
    float* ccol = cp + j * c->strides[1];
    if (mode == 1) {
      const float xj = xp[j * incx];
      for (int64_t i = 0; i < m; ++i) ccol[i * c->strides[0]] = acol[i * a->strides[0]] * xj;
    } else {
      for (int64_t i = 0; i < m; ++i) ccol[i * c->strides[0]] = xp[i * incx] * acol[i * a->strides[0]];
    }
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sdgmm, "plain (written here)", sdgmm_plain);
