// Reference for blas/dsbmv: y := alpha * A * x + beta * y for a symmetric
// band matrix given by the `uplo` triangle of its (k + 1) x n band, in
// double. A's generator fills the unused band corners with NaN (a kernel that
// reads them produces NaN); y's generator puts NaN elements into y (beta == 0
// must not read them).
#include "../level2_reference.h"

namespace {

void dsbmv_reference(kgb::RefArgs& args) { kgb::level2_reference::sbmv(args, "blas/dsbmv"); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/dsbmv", dsbmv_reference);
KGB_REGISTER_GENERATOR("blas/dsbmv/A", kgb::level2_reference::poisoned_band);
KGB_REGISTER_GENERATOR("blas/dsbmv/y", kgb::level2_reference::output_vector_with_nans);
