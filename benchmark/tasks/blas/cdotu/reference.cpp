// Reference for blas/cdotu: sum over i of x[i] * y[i] on logical elements (signed
// increments as the views' strides), in complex<double> with the textbook
// product, rounded once to c64 into the one-element result; n == 0 gives 0.
#include "../level1_reference.h"

namespace {

void cdotu_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& x = args.tensor("x");
  const kgb::HostTensor& y = args.tensor("y");
  kgb::level1_reference::require_pair(x, y, "blas/cdotu");
  const std::vector<std::complex<double>> sum{kgb::level1_reference::dot<std::complex<double>>(x, y, false)};
  kgb::from_complex(args.tensor("result"), sum);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/cdotu", cdotu_reference);
