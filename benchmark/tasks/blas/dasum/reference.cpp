// Reference for blas/dasum: the sum of |x[i]| over the logical elements, in
// double, into the one-element result. incx <= 0 (a zero or negative stride)
// and n == 0 give 0, as reference BLAS, OpenBLAS and cuBLAS return.
#include <cmath>

#include "../level1_reference.h"

namespace {

void dasum_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& x = args.tensor("x");
  kgb::level1_reference::require_vector(x, "blas/dasum", "x");
  double sum = 0.0;
  if (x.size(0) > 0 && x.strides()[0] > 0)
    for (double v : kgb::to_doubles(x)) sum += std::fabs(v);
  const std::vector<double> result{sum};
  kgb::from_doubles(args.tensor("result"), result);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/dasum", dasum_reference);
