// Reference for aten/special_entr: out = -x * ln(x), elementwise.
// Computed in double from the logical input values (integer and bool inputs
// read as their value) and rounded once into out's dtype.
#include <cmath>
#include <limits>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void special_entr_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  kgb::pointwise::map_doubles({&self}, out, [&](const std::vector<double>& v) {
    const double x = v[0];
    if (std::isnan(x)) return x;
    if (x > 0) return -x * std::log(x);
    if (x == 0) return 0.0;
    return -std::numeric_limits<double>::infinity();
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/special_entr", special_entr_reference);
