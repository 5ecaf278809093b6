// Reference for blas/dcopy: y = x on logical elements (the views' signed
// strides are the BLAS increments; incx == 0 repeats x[0]), exact.
#include "../level1_reference.h"

namespace {

void dcopy_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& x = args.tensor("x");
  kgb::HostTensor& y = args.tensor("y");
  kgb::level1_reference::require_pair(x, y, "blas/dcopy");
  kgb::level1_reference::copy_values(x, y);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/dcopy", dcopy_reference);
