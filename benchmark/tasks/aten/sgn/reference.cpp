// Reference for aten/sgn: out = sgn(self), elementwise.
// Real dtypes: the sign as ATen computes it, (0 < x) - (x < 0): 1, -1, or 0
// for +-0 and NaN. Complex dtypes: z / |z| in complex<double> with
// |z| = hypot(re, im), 0 for z == 0. Rounded once into out's dtype.
#include <cmath>
#include <complex>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/dtype.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void sgn_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (kgb::is_complex(out.dtype())) {
    kgb::pointwise::map_complex({&self}, out, [](const std::vector<std::complex<double>>& v) {
      const std::complex<double> z = v[0];
      if (z.real() == 0 && z.imag() == 0) return std::complex<double>(0, 0);
      const double h = std::hypot(z.real(), z.imag());
      return std::complex<double>(z.real() / h, z.imag() / h);
    });
    return;
  }
  kgb::pointwise::map_doubles({&self}, out, [](const std::vector<double>& v) {
    return static_cast<double>((0 < v[0]) - (v[0] < 0));
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/sgn", sgn_reference);
