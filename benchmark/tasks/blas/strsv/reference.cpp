// Reference for blas/strsv: solves op(A) * x_new = x in place by exact
// substitution in double on logical elements, rounded once to f32. A's
// generator makes the `uplo` triangle well conditioned and fills the other
// triangle with NaN, and the stored diagonal too for CUBLAS_DIAG_UNIT (which
// must not be read).
#include "../level2_reference.h"

namespace {

void strsv_reference(kgb::RefArgs& args) { kgb::level2_reference::trsv(args, "blas/strsv"); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/strsv", strsv_reference);
KGB_REGISTER_GENERATOR("blas/strsv/A", kgb::level2_reference::well_conditioned_triangle);
