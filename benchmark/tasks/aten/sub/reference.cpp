// Reference for aten/sub: out = self - alpha * other with PyTorch broadcasting and type
// promotion (.Tensor), or with other an ATen Scalar (.Scalar); promotion and
// rounding as binary_reference.h states.
#include <cstdint>

#include "../binary_reference.h"
#include "../pointwise_inputs.h"

namespace {

void reference(kgb::RefArgs& args, bool scalar_other) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const double alpha = args.scalar("alpha");
  const int64_t ialpha = kgb::is_floating(out.dtype()) ? 0 : kgb::pointwise::integral_scalar(args, "alpha");
  auto f = [alpha](double a, double b) { return a - alpha * b; };
  auto fi = [ialpha](int64_t a, int64_t b) { return a - ialpha * b; };
  if (scalar_other) kgb::pointwise::binary_scalar(args, self, "other", out, f, fi);
  else kgb::pointwise::binary_tensors(self, args.tensor("other"), out, f, fi);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/sub/self", kgb::pointwise::normal_with_specials);
KGB_REGISTER_GENERATOR("aten/sub/other", kgb::pointwise::normal_with_specials);
KGB_REGISTER_REFERENCE("aten/sub", [](kgb::RefArgs& args) { reference(args, false); });
KGB_REGISTER_REFERENCE("aten/sub.Scalar", [](kgb::RefArgs& args) { reference(args, true); });
