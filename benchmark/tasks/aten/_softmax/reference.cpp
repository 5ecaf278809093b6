// Reference for aten/_softmax: the textbook formula in double on the logical
// values of self (f16 read exactly), rounded once into out's dtype (f32 for
// half_to_float); softmax_reference.h, shared with aten/softmax.
#include <cstdint>
#include <stdexcept>

#include "../reduction_inputs.h"
#include "../softmax_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void softmax_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const bool half_to_float = args.bool_scalar("half_to_float");
  const bool pair_ok = half_to_float ? (self.dtype() == kgb::DType::F16 && out.dtype() == kgb::DType::F32)
                                     : self.dtype() == out.dtype();
  if (!pair_ok) throw std::runtime_error("aten/_softmax: dtype pair does not match half_to_float");
  kgb::softmax::softmax_into("aten/_softmax", self, args.int_scalar("dim"), out);
}

// normal(shift, 1) values, shift = the case's dims "shift" - "shift_down"
// (dims are non-negative; +-100 make exp overflow or underflow unless the
// slice maximum is subtracted first), then the case's "specials" NaN / -inf /
// +inf (reduction_inputs.h).
void shifted_values(kgb::GeneratorArgs& g) {
  kgb::reduction::values_with_specials(g);
  const double shift =
      static_cast<double>(kgb::reduction::case_dim(g, "shift") - kgb::reduction::case_dim(g, "shift_down"));
  if (shift == 0) return;
  for (int64_t i = 0; i < g.tensor.numel(); ++i) g.tensor.set(i, g.tensor.get(i) + shift);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/_softmax", softmax_reference);
KGB_REGISTER_GENERATOR("aten/_softmax/self", shifted_values);
