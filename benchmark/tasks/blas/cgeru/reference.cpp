// Reference for blas/cgeru: A := alpha * x * y^T + A (no conjugation), c64,
// on logical elements of the column-major view (the views' signed strides
// are the BLAS increments), in complex<double> with the textbook product,
// rounded once; alpha == 0 returns before reading x or y. x's generator puts
// NaN (both parts) into x, a quarter of it when alpha == 0, so a kernel that
// reads x when BLAS says not to is caught.
#include "../level2_reference.h"

namespace {

void cgeru_reference(kgb::RefArgs& args) { kgb::level2_reference::ger<std::complex<double>>(args, "blas/cgeru", false); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/cgeru", cgeru_reference);
KGB_REGISTER_GENERATOR("blas/cgeru/x", kgb::level2_reference::vector_with_specials);
