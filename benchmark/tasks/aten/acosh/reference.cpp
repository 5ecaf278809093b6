// Reference for aten/acosh: out = acosh(x), elementwise.
// Computed in double from the logical input values (integer and bool inputs
// read as their value) and rounded once into out's dtype.
#include <cmath>
#include <limits>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void acosh_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  kgb::pointwise::map_doubles({&self}, out, [&](const std::vector<double>& v) {
    const double x = v[0];
    return std::acosh(x);
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/acosh", acosh_reference);
