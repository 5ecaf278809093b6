// Reference for blas/sdot: the dot product of two strided vectors (signed
// increments as the views' strides) summed in double from the f32 values and
// rounded once to f32 into the one-element result; n == 0 gives 0.
#include "../level1_reference.h"

namespace {

void sdot_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& x = args.tensor("x");
  const kgb::HostTensor& y = args.tensor("y");
  kgb::level1_reference::require_pair(x, y, "blas/sdot");
  const std::vector<double> sum{kgb::level1_reference::dot<double>(x, y, false)};
  kgb::from_doubles(args.tensor("result"), sum);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/sdot", sdot_reference);
