// Reference for aten/eq (.Tensor and .Scalar): out = (self == other) as bool,
// compared in ATen's common dtype (torch.result_type of the operands): each
// operand is first converted to that dtype (integers into f16 round, for
// instance), floating values are then compared exactly in double, integers
// in int64. NaN is unequal to everything, itself included.
#include "../promoted_binary.h"
#include "kgb/reference.h"

namespace {

constexpr auto kRelation = [](auto a, auto b) { return a == b; };

void eq_tensor(kgb::RefArgs& args) {
  kgb::pointwise::compare_reference(args, &args.tensor("other"), nullptr, kRelation, "aten/eq");
}

void eq_scalar(kgb::RefArgs& args) {
  const kgb_scalar other = args.aten_scalar("other");
  kgb::pointwise::compare_reference(args, nullptr, &other, kRelation, "aten/eq.Scalar");
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/eq/self", kgb::pointwise::fill_small_integers);
KGB_REGISTER_GENERATOR("aten/eq/other", kgb::pointwise::fill_small_integers);
KGB_REGISTER_REFERENCE("aten/eq", eq_tensor);
KGB_REGISTER_REFERENCE("aten/eq.Scalar", eq_scalar);
