// Reference for blas/saxpy: y = alpha * x + y on logical elements (the views'
// signed strides are the BLAS increments), in double from the logical values,
// rounded once to f32; alpha == 0 leaves y unchanged (BLAS).
#include "../level1_reference.h"

namespace {

void saxpy_reference(kgb::RefArgs& args) { kgb::level1_reference::axpy(args, "blas/saxpy"); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/saxpy", saxpy_reference);
