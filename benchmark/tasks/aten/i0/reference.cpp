// Reference for aten/i0: out = I0(x), elementwise.
// Computed in double from the logical input values (integer and bool inputs
// read as their value) and rounded once into out's dtype.
#include <cmath>
#include <limits>
#include <vector>
#include <boost/math/special_functions/bessel.hpp>
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void i0_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  // ATen's large-|x| branch is e^|x| * p(|x|) / sqrt(|x|): +inf once e^|x| overflows the
  // compute type (float unless out is f64), NaN at |x| = inf.
  const double overflow = out.dtype() == kgb::DType::F64 ? std::log(std::numeric_limits<double>::max())
                                                         : std::log(std::numeric_limits<float>::max());
  kgb::pointwise::map_doubles({&self}, out, [&](const std::vector<double>& v) {
    const double x = v[0];
    if (std::isnan(x) || std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
    const double ax = std::fabs(x);
    if (ax > overflow) return std::numeric_limits<double>::infinity();
    return boost::math::cyl_bessel_i(0, ax);
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/i0", i0_reference);
