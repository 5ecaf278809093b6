// Reference for aten/fmax: out = fmax(self, other) with PyTorch broadcasting
// and type promotion: the larger value, a NaN loses against a number (C's
// fmax); the plain maximum on integers.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../binary_reference.h"
#include "../pointwise_inputs.h"

namespace {

void fmax_reference(kgb::RefArgs& args) {
  kgb::pointwise::binary_tensors(
      args.tensor("self"), args.tensor("other"), args.tensor("out"), [](double a, double b) { return std::fmax(a, b); },
      [](int64_t a, int64_t b) { return std::max(a, b); });
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/fmax/self", kgb::pointwise::normal_with_specials);
KGB_REGISTER_GENERATOR("aten/fmax/other", kgb::pointwise::normal_with_specials);
KGB_REGISTER_REFERENCE("aten/fmax", fmax_reference);
