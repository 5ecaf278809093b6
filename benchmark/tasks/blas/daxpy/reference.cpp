// Reference for blas/daxpy: y = alpha * x + y on logical elements (the views'
// signed strides are the BLAS increments), in double; alpha == 0 returns
// before reading x, as BLAS does.
#include "../level1_reference.h"

namespace {

void daxpy_reference(kgb::RefArgs& args) { kgb::level1_reference::axpy(args, "blas/daxpy"); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/daxpy", daxpy_reference);
