// Reference for aten/pow (.Tensor_Tensor, .Tensor_Scalar, .Scalar): the
// operands are converted to ATen's common dtype (torch.result_type); floats
// take IEEE pow in double (pow(x, 0) = 1, 0^0 = 1), rounded once into out;
// a Scalar exponent of 0.5 or -0.5 is sqrt or 1/sqrt, as ATen computes it.
// Integers are exact: repeated multiplication in int64, ATen's rule for
// negative exponents (1 for base 1, +-1 for base -1, else 0).
#include <cmath>
#include <cstdint>
#include <vector>

#include "../promoted_binary.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::DType;
using kgb::pointwise::common_dtype;
using kgb::pointwise::operand_of;

int64_t integer_pow(int64_t base, int64_t exp) {
  if (exp < 0) return base == 1 ? 1 : (base == -1 ? ((exp & 1) ? -1 : 1) : 0);
  int64_t result = 1;
  for (int64_t k = 0; k < exp; ++k) result *= base;
  return result;
}

double float_pow(double base, double exp, bool scalar_exponent) {
  if (scalar_exponent && exp == 0.5) return std::sqrt(base);
  if (scalar_exponent && exp == -0.5) return 1.0 / std::sqrt(base);
  return std::pow(base, exp);
}

// pow over a tensor and a tensor or Scalar; `scalar_base`: b is the base (pow.Scalar).
void pow_reference(kgb::RefArgs& args, const kgb::HostTensor& a, const kgb::HostTensor* b, const kgb_scalar* bs,
                   bool scalar_base, const char* task) {
  const DType common = common_dtype({operand_of(a), b ? operand_of(*b) : operand_of(*bs)}, task);
  const bool scalar_exponent = !b && !scalar_base;
  kgb::pointwise::binary_map(
      a, b, bs, args.tensor("out"), common,
      [&](double x, double y) { return scalar_base ? float_pow(y, x, false) : float_pow(x, y, scalar_exponent); },
      [&](int64_t x, int64_t y) { return scalar_base ? integer_pow(y, x) : integer_pow(x, y); });
}

void pow_tensor_tensor(kgb::RefArgs& args) {
  pow_reference(args, args.tensor("self"), &args.tensor("exponent"), nullptr, false, "aten/pow");
}
void pow_tensor_scalar(kgb::RefArgs& args) {
  const kgb_scalar exponent = args.aten_scalar("exponent");
  pow_reference(args, args.tensor("self"), nullptr, &exponent, false, "aten/pow.Tensor_Scalar");
}
void pow_scalar(kgb::RefArgs& args) {
  const kgb_scalar self = args.aten_scalar("self");
  pow_reference(args, args.tensor("exponent"), nullptr, &self, true, "aten/pow.Scalar");
}

// Bases uniform in [-2, 4) (integers -2..3), exponents in [0, 4) (integers
// 0..3, never negative); 2% NaN/+-inf on floating tensors. A one-element
// operand draws from [1, 4) (integers 1..3), so that its single power is a
// number other than 0.
void bases(kgb::GeneratorArgs& g) {
  const double low = g.tensor.numel() == 1 ? 1.0 : -2.0;
  kgb::pointwise::fill_operand(
      g, [low](kgb::SplitMix64& rng) { return low + (4.0 - low) * kgb::uniform_open01(rng); },
      [low](kgb::SplitMix64& rng) { return kgb::pointwise::uniform_int(rng, static_cast<int64_t>(low), 3); }, 0.02);
}
void exponents(kgb::GeneratorArgs& g) {
  const double low = g.tensor.numel() == 1 ? 1.0 : 0.0;
  kgb::pointwise::fill_operand(
      g, [low](kgb::SplitMix64& rng) { return low + (4.0 - low) * kgb::uniform_open01(rng); },
      [low](kgb::SplitMix64& rng) { return kgb::pointwise::uniform_int(rng, static_cast<int64_t>(low), 3); }, 0.02);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/pow/self", bases);
KGB_REGISTER_GENERATOR("aten/pow/exponent", exponents);
KGB_REGISTER_REFERENCE("aten/pow", pow_tensor_tensor);
KGB_REGISTER_REFERENCE("aten/pow.Tensor_Scalar", pow_tensor_scalar);
KGB_REGISTER_REFERENCE("aten/pow.Scalar", pow_scalar);
