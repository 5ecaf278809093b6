// Reference for blas/saxpy: y = alpha * x + y elementwise, in double from the
// logical values, rounded once to f32; alpha == 0 leaves y unchanged (BLAS).
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void saxpy_reference(kgb::RefArgs& args) {
  const double alpha = args.scalar("alpha");
  const kgb::HostTensor& x = args.tensor("x");
  kgb::HostTensor& y = args.tensor("y");
  if (x.rank() != 1 || y.rank() != 1 || x.size(0) != y.size(0))
    throw std::runtime_error("blas/saxpy: x and y must be 1-D of the same length");
  if (alpha == 0.0) return;
  const std::vector<double> xv = kgb::to_doubles(x);
  std::vector<double> yv = kgb::to_doubles(y);
  for (size_t i = 0; i < yv.size(); ++i) yv[i] += alpha * xv[i];
  kgb::from_doubles(y, yv);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/saxpy", saxpy_reference);
