// Reference for aten/logit: out = log(z / (1 - z)), z = clamp(x, eps, 1 - eps) when eps is given, elementwise.
// Computed in double from the logical input values (integer and bool inputs
// read as their value) and rounded once into out's dtype.
// With eps, the clamp bounds are rounded as ATen's CUDA kernel has them (in
// float unless out is f64); the logarithm is then exact in double.
#include <cmath>
#include <limits>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void logit_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  // The clamp bounds in the kernel's compute type: float unless out is f64.
  const bool clamp = args.has("eps");
  const double eps = clamp ? args.scalar("eps") : 0.0;
  const bool in_double = out.dtype() == kgb::DType::F64;
  const double lo = in_double ? eps : static_cast<double>(static_cast<float>(eps));
  const double hi = in_double ? 1.0 - eps : static_cast<double>(1.0f - static_cast<float>(eps));
  kgb::pointwise::map_doubles({&self}, out, [&](const std::vector<double>& v) {
    const double x = v[0];
    const double z = !clamp ? x : (x < lo ? lo : (x > hi ? hi : x));
    return std::log(z / (1.0 - z));
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/logit", logit_reference);
