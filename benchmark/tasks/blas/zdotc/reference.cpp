// Reference for blas/zdotc: sum over i of conj(x[i]) * y[i] on logical elements (signed
// increments as the views' strides), in complex<double> with the textbook
// product, rounded once to c128 into the one-element result; n == 0 gives 0.
#include "../level1_reference.h"

namespace {

void zdotc_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& x = args.tensor("x");
  const kgb::HostTensor& y = args.tensor("y");
  kgb::level1_reference::require_pair(x, y, "blas/zdotc");
  const std::vector<std::complex<double>> sum{kgb::level1_reference::dot<std::complex<double>>(x, y, true)};
  kgb::from_complex(args.tensor("result"), sum);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/zdotc", zdotc_reference);
