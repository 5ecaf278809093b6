// Reference for blas/sger: A := alpha * x * y^T + A on logical elements of the
// column-major view (the views' signed strides are the BLAS increments), in
// double, rounded once to f32; alpha == 0 returns before reading x or y.
// x's generator puts NaN and infinities into x (a quarter of it when
// alpha == 0), so a kernel that reads x when BLAS says not to is caught.
#include "../level2_reference.h"

namespace {

void sger_reference(kgb::RefArgs& args) { kgb::level2_reference::ger<double>(args, "blas/sger", false); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/sger", sger_reference);
KGB_REGISTER_GENERATOR("blas/sger/x", kgb::level2_reference::vector_with_specials);
