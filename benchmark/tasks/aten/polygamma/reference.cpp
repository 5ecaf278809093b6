// Reference for aten/polygamma: out = psi^(n)(x), elementwise.
// Computed in double from the logical input values (integer and bool inputs
// read as their value) and rounded once into out's dtype.
#include <cmath>
#include <limits>
#include <vector>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void polygamma_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const int n = static_cast<int>(args.int_scalar("n"));
  kgb::pointwise::map_doubles({&self}, out, [&](const std::vector<double>& v) {
    const double x = v[0];
    if (std::isnan(x)) return x;
    if (x == 0) {  // the pole: digamma(+0) = -inf; (-1)^(n+1) * inf for n >= 1
      const double inf = std::numeric_limits<double>::infinity();
      return n == 0 ? -inf : (n % 2 ? inf : -inf);
    }
    return n == 0 ? boost::math::digamma(x) : boost::math::polygamma(n, x);
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/polygamma", polygamma_reference);
