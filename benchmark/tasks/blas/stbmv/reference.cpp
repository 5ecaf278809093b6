// Reference for blas/stbmv: x := op(A) * x for a triangular band matrix in
// (k + 1) x n band storage, in double on logical elements, rounded once to
// f32. A's generator fills the unused band corners with NaN, and the
// diagonal row too for CUBLAS_DIAG_UNIT (which must not be read).
#include "../level2_reference.h"

namespace {

void stbmv_reference(kgb::RefArgs& args) { kgb::level2_reference::tbmv(args, "blas/stbmv"); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/stbmv", stbmv_reference);
KGB_REGISTER_GENERATOR("blas/stbmv/A", kgb::level2_reference::poisoned_band);
