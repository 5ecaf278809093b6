// Reference for blas/csymv: y := alpha * A * x + beta * y with A complex
// symmetric (not Hermitian: no conjugation) given by its `uplo` triangle, in
// complex<double> with the textbook product, rounded once to c64. A's
// generator fills the other triangle with NaN (a kernel that reads it
// produces NaN); y's generator puts NaN elements into y (beta == 0 must not
// read them).
#include "../level2_reference.h"

namespace {

void csymv_reference(kgb::RefArgs& args) { kgb::level2_reference::symv<std::complex<double>>(args, "blas/csymv"); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/csymv", csymv_reference);
KGB_REGISTER_GENERATOR("blas/csymv/A", kgb::level2_reference::poisoned_triangle);
KGB_REGISTER_GENERATOR("blas/csymv/y", kgb::level2_reference::output_vector_with_nans);
