// Reference for aten/floor_divide (Tensor and .Scalar): Python's self // other
// in ATen's common dtype (torch.result_type). Integers are exact in int64;
// floats follow ATen's div_floor_floating (the floor of the exact quotient,
// via fmod) in the computation type (float for f16/bf16/f32, double for f64),
// then round once into out's dtype.
#include "../promoted_binary.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::DType;

void floor_divide_reference(kgb::RefArgs& args, const kgb::HostTensor* other, const kgb_scalar* scalar) {
  using kgb::pointwise::operand_of;
  const kgb::HostTensor& self = args.tensor("self");
  const DType common =
      kgb::pointwise::common_dtype({operand_of(self), other ? operand_of(*other) : operand_of(*scalar)}, "aten/floor_divide");
  kgb::pointwise::binary_map(
      self, other, scalar, args.tensor("out"), common,
      [common](double x, double y) {
        if (common == DType::F64) return kgb::pointwise::floor_divide_floating(x, y);
        return static_cast<double>(kgb::pointwise::floor_divide_floating(static_cast<float>(x), static_cast<float>(y)));
      },
      kgb::pointwise::floor_divide_integer);
}

void floor_divide_tensor(kgb::RefArgs& args) { floor_divide_reference(args, &args.tensor("other"), nullptr); }
void floor_divide_scalar(kgb::RefArgs& args) {
  const kgb_scalar other = args.aten_scalar("other");
  floor_divide_reference(args, nullptr, &other);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/floor_divide/self", kgb::pointwise::fill_dividends);
KGB_REGISTER_GENERATOR("aten/floor_divide/other", kgb::pointwise::fill_divisors);
KGB_REGISTER_REFERENCE("aten/floor_divide", floor_divide_tensor);
KGB_REGISTER_REFERENCE("aten/floor_divide.Scalar", floor_divide_scalar);
