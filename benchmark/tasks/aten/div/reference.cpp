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
using kgb::pointwise::operand_of;

enum class Mode { True, Trunc, Floor };

Mode mode_of(const kgb::RefArgs& args) {
  if (!args.has("rounding_mode")) return Mode::True;
  const std::string& name = args.enum_name("rounding_mode");
  if (name == "trunc") return Mode::Trunc;
  if (name == "floor") return Mode::Floor;
  throw std::runtime_error("aten/div: unknown rounding_mode " + name);
}

template <typename F>
double rounded_quotient(F a, F b, Mode mode) {
  return mode == Mode::Trunc ? static_cast<double>(std::trunc(a / b)) : static_cast<double>(kgb::pointwise::floor_divide_floating(a, b));
}

double divide(double a, double b, Mode mode, DType compute) {
  if (mode == Mode::True) return a / b;
  if (compute == DType::F64) return rounded_quotient<double>(a, b, mode);
  // "trunc" in f16/bf16: ATen divides in the 16-bit dtype, so the quotient rounds before it is truncated.
  if (mode == Mode::Trunc && compute != DType::F32)
    return std::trunc(kgb::round_to(compute, static_cast<double>(static_cast<float>(a) / static_cast<float>(b))));
  return rounded_quotient<float>(static_cast<float>(a), static_cast<float>(b), mode);
}

int64_t divide(int64_t a, int64_t b, Mode mode) {
  if (mode == Mode::Floor) return kgb::pointwise::floor_divide_integer(a, b);
  if (b == 0) throw std::runtime_error("aten/div: integer division by zero (the spec excludes it)");
  return a / b;
}

// self / other with other a tensor (nullptr: the Scalar `scalar`).
void div_reference(kgb::RefArgs& args, const kgb::HostTensor* other, const kgb_scalar* scalar) {
  const kgb::HostTensor& self = args.tensor("self");
  const Mode mode = mode_of(args);
  const DType common = common_dtype({operand_of(self), other ? operand_of(*other) : operand_of(*scalar)}, "aten/div");
  const DType compute = mode == Mode::True ? kgb::float_of(common) : common;
  kgb::pointwise::binary_map(
      self, other, scalar, args.tensor("out"), compute, [&](double x, double y) { return divide(x, y, mode, compute); },
      [&](int64_t x, int64_t y) { return divide(x, y, mode); });
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
