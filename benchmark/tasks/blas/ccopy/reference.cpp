// Reference for blas/ccopy: y = x on logical c64 elements, both parts (the
// views' signed strides are the BLAS increments; incx == 0 repeats x[0]), exact.
#include "../level1_reference.h"

namespace {

void ccopy_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& x = args.tensor("x");
  kgb::HostTensor& y = args.tensor("y");
  kgb::level1_reference::require_pair(x, y, "blas/ccopy");
  kgb::level1_reference::copy_values(x, y);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/ccopy", ccopy_reference);
