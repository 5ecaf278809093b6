// Reference for aten/add_: self = self + alpha * other in place, other
// broadcast to self (.Tensor) or an ATen Scalar (.Scalar). Promotion and
// rounding as binary_reference.h states, with self as the output: the result
// is rounded once into self's dtype.
#include <cstdint>

#include "../binary_reference.h"
#include "../pointwise_inputs.h"

namespace {

void reference(kgb::RefArgs& args, bool scalar_other) {
  kgb::HostTensor& self = args.tensor("self");
  const double alpha = args.scalar("alpha");
  const int64_t ialpha = kgb::is_floating(self.dtype()) ? 0 : kgb::pointwise::integral_scalar(args, "alpha");
  auto f = [alpha](double a, double b) { return a + alpha * b; };
  auto fi = [ialpha](int64_t a, int64_t b) { return a + ialpha * b; };
  if (scalar_other) kgb::pointwise::binary_scalar(args, self, "other", self, f, fi);
  else kgb::pointwise::binary_tensors(self, args.tensor("other"), self, f, fi);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/add_/self", kgb::pointwise::normal_with_specials);
KGB_REGISTER_GENERATOR("aten/add_/other", kgb::pointwise::normal_with_specials);
KGB_REGISTER_REFERENCE("aten/add_", [](kgb::RefArgs& args) { reference(args, false); });
KGB_REGISTER_REFERENCE("aten/add_.Scalar", [](kgb::RefArgs& args) { reference(args, true); });
