// Reference for aten/div_ (.Tensor, .Scalar, .Tensor_mode, .Scalar_mode):
// self = self / other in place, other broadcast to self or an ATen Scalar.
// The operands are converted to ATen's common dtype (torch.result_type of
// self and other); true division (rounding_mode None) divides in double and
// rounds once into self; "trunc" and "floor" round the quotient in the
// computation type as div does (promoted_binary.h), integers exactly in int64.
// The result is written back into self's dtype, so an integer self needs an
// integer common dtype and a rounding mode (ATen raises an error otherwise).
#include <cstdint>
#include <stdexcept>

#include "../pointwise_inputs.h"
#include "../promoted_binary.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::DType;
using kgb::pointwise::DivMode;
using kgb::pointwise::operand_of;

// self /= other with other a tensor (nullptr: the Scalar `scalar`).
void div_reference(kgb::RefArgs& args, const kgb::HostTensor* other, const kgb_scalar* scalar) {
  kgb::HostTensor& self = args.tensor("self");
  const DivMode mode = kgb::pointwise::div_mode_of(args, "aten/div_");
  const DType common =
      kgb::pointwise::common_dtype({operand_of(self), other ? operand_of(*other) : operand_of(*scalar)}, "aten/div_");
  if (!kgb::is_floating(self.dtype()) && (mode == DivMode::True || kgb::is_floating(common)))
    throw std::runtime_error("aten/div_: a float quotient cannot be written into an integer self");
  const DType compute = mode == DivMode::True ? kgb::float_of(common) : common;
  kgb::pointwise::binary_map(
      self, other, scalar, self, compute,
      [&](double x, double y) { return kgb::pointwise::divide_floating(x, y, mode, compute); },
      [&](int64_t x, int64_t y) { return kgb::pointwise::divide_integer(x, y, mode); });
}

void div_tensor(kgb::RefArgs& args) { div_reference(args, &args.tensor("other"), nullptr); }
void div_scalar(kgb::RefArgs& args) {
  const kgb_scalar other = args.aten_scalar("other");
  div_reference(args, nullptr, &other);
}

}  // namespace

// True division: the divisor may be 0 (IEEE). Rounding modes: div's dividends
// and divisors (integer divisors never 0, one-element quotients never 0).
KGB_REGISTER_GENERATOR("aten/div_/self", kgb::pointwise::normal_with_specials);
KGB_REGISTER_GENERATOR("aten/div_/other", kgb::pointwise::normal_with_specials);
KGB_REGISTER_GENERATOR("aten/div_/dividend", kgb::pointwise::fill_dividends);
KGB_REGISTER_GENERATOR("aten/div_/divisor", kgb::pointwise::fill_divisors);
KGB_REGISTER_REFERENCE("aten/div_", div_tensor);
KGB_REGISTER_REFERENCE("aten/div_.Scalar", div_scalar);
KGB_REGISTER_REFERENCE("aten/div_.Tensor_mode", div_tensor);
KGB_REGISTER_REFERENCE("aten/div_.Scalar_mode", div_scalar);
