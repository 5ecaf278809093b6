// Reference for aten/div (.Tensor, .Scalar, .Tensor_mode, .Scalar_mode).
// The operands are converted to ATen's common dtype (torch.result_type); true
// division (rounding_mode None) divides in double and rounds once into out,
// whose dtype is float(common). "trunc" and "floor" keep the common dtype:
// integers are exact in int64; floats round the quotient at the point ATen's
// kernels do, in the computation type (float for f16/bf16/f32, double for
// f64; "trunc" in f16/bf16 rounds the quotient to 16 bits first, as ATen
// divides in that dtype), floor by ATen's fmod-based rule (the floor of the
// exact quotient).
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../promoted_binary.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::DType;
using kgb::pointwise::common_dtype;
using kgb::pointwise::DivMode;
using kgb::pointwise::operand_of;

// self / other with other a tensor (nullptr: the Scalar `scalar`).
void div_reference(kgb::RefArgs& args, const kgb::HostTensor* other, const kgb_scalar* scalar) {
  const kgb::HostTensor& self = args.tensor("self");
  const DivMode mode = kgb::pointwise::div_mode_of(args, "aten/div");
  const DType common = common_dtype({operand_of(self), other ? operand_of(*other) : operand_of(*scalar)}, "aten/div");
  const DType compute = mode == DivMode::True ? kgb::float_of(common) : common;
  kgb::pointwise::binary_map(
      self, other, scalar, args.tensor("out"), compute, [&](double x, double y) { return kgb::pointwise::divide_floating(x, y, mode, compute); },
      [&](int64_t x, int64_t y) { return kgb::pointwise::divide_integer(x, y, mode); });
}

void div_tensor(kgb::RefArgs& args) { div_reference(args, &args.tensor("other"), nullptr); }
void div_scalar(kgb::RefArgs& args) {
  const kgb_scalar other = args.aten_scalar("other");
  div_reference(args, nullptr, &other);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/div/self", kgb::pointwise::fill_dividends);
KGB_REGISTER_GENERATOR("aten/div/other", kgb::pointwise::fill_divisors);
KGB_REGISTER_REFERENCE("aten/div", div_tensor);
KGB_REGISTER_REFERENCE("aten/div.Scalar", div_scalar);
KGB_REGISTER_REFERENCE("aten/div.Tensor_mode", div_tensor);
KGB_REGISTER_REFERENCE("aten/div.Scalar_mode", div_scalar);
