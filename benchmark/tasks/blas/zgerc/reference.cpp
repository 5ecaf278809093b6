// Reference for blas/zgerc: A := alpha * x * y^H + A (y conjugated), c128,
// on logical elements of the column-major view (the views' signed strides
// are the BLAS increments), in complex<double> with the textbook product,
// rounded once; alpha == 0 returns before reading x or y. x's generator puts
// NaN (both parts) into x, a quarter of it when alpha == 0, so a kernel that
// reads x when BLAS says not to is caught.
#include "../level2_reference.h"

namespace {

void zgerc_reference(kgb::RefArgs& args) { kgb::level2_reference::ger<std::complex<double>>(args, "blas/zgerc", true); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/zgerc", zgerc_reference);
KGB_REGISTER_GENERATOR("blas/zgerc/x", kgb::level2_reference::vector_with_specials);
