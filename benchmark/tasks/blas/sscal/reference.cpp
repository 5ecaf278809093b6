// Reference for blas/sscal: x = alpha * x on logical elements, in double from
// the f32 values, rounded once to f32. incx <= 0 (a zero or negative stride)
// and n == 0 leave x unchanged, as reference BLAS, OpenBLAS and cuBLAS do.
#include "../level1_reference.h"

namespace {

void sscal_reference(kgb::RefArgs& args) {
  const double alpha = args.scalar("alpha");
  kgb::HostTensor& x = args.tensor("x");
  kgb::level1_reference::require_vector(x, "blas/sscal", "x");
  if (x.size(0) == 0 || x.strides()[0] <= 0) return;
  std::vector<double> xv = kgb::to_doubles(x);
  for (double& v : xv) v *= alpha;
  kgb::from_doubles(x, xv);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/sscal", sscal_reference);
