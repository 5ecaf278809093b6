// Reference for aten/div_: self = self / other in place (true division), other
// broadcast to self (.Tensor) or an ATen Scalar (.Scalar); IEEE division in
// double from the inputs' own values, rounded once into self's float dtype.
#include <cstdint>
#include <stdexcept>

#include "../binary_reference.h"
#include "../pointwise_inputs.h"

namespace {

void reference(kgb::RefArgs& args, bool scalar_other) {
  kgb::HostTensor& self = args.tensor("self");
  if (!kgb::is_floating(self.dtype())) throw std::runtime_error("aten/div_: true division into an integer self");
  auto f = [](double a, double b) { return a / b; };
  auto fi = [](int64_t, int64_t) -> int64_t { throw std::logic_error("aten/div_: no integer result"); };
  if (scalar_other) kgb::pointwise::binary_scalar(args, self, "other", self, f, fi);
  else kgb::pointwise::binary_tensors(self, args.tensor("other"), self, f, fi);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/div_/self", kgb::pointwise::normal_with_specials);
KGB_REGISTER_GENERATOR("aten/div_/other", kgb::pointwise::normal_with_specials);
KGB_REGISTER_REFERENCE("aten/div_", [](kgb::RefArgs& args) { reference(args, false); });
KGB_REGISTER_REFERENCE("aten/div_.Scalar", [](kgb::RefArgs& args) { reference(args, true); });
