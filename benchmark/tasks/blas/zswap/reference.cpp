// Reference for blas/zswap: x[i] <-> y[i] on logical c128 elements (the
// views' signed strides are the BLAS increments), exact.
#include "../level1_reference.h"

namespace {

void zswap_reference(kgb::RefArgs& args) {
  kgb::HostTensor& x = args.tensor("x");
  kgb::HostTensor& y = args.tensor("y");
  kgb::level1_reference::require_pair(x, y, "blas/zswap");
  const std::vector<std::complex<double>> old_x = kgb::to_complex(x);
  kgb::level1_reference::copy_values(y, x);
  kgb::from_complex(y, old_x);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/zswap", zswap_reference);
