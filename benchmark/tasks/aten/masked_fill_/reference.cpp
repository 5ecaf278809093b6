// Reference for aten/masked_fill_ (.Scalar, .Tensor): in place, self[i] =
// value where the broadcast mask is true. The value is converted once into
// self's dtype (rounded for floats, integral for integers, != 0 for bool).
#include <cstdint>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void fill_where(kgb::HostTensor& self, const kgb::HostTensor& mask, double real_value, int64_t int_value) {
  if (kgb::is_floating(self.dtype())) {
    kgb::pointwise::map_doubles({&self, &mask}, self,
                                [&](const std::vector<double>& v) { return v[1] != 0 ? real_value : v[0]; });
  } else {
    kgb::pointwise::map_ints({&self, &mask}, self,
                             [&](const std::vector<int64_t>& v) { return v[1] != 0 ? int_value : v[0]; });
  }
}

void masked_fill_scalar(kgb::RefArgs& args) {
  const kgb_scalar value = args.aten_scalar("value");
  const double real = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
  const int64_t integer = value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i;
  fill_where(args.tensor("self"), args.tensor("mask"), real, integer);
}

void masked_fill_tensor(kgb::RefArgs& args) {
  const kgb::HostTensor& value = args.tensor("value");
  fill_where(args.tensor("self"), args.tensor("mask"), value.get(0), value.get_int(0));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/masked_fill_", masked_fill_scalar);
KGB_REGISTER_REFERENCE("aten/masked_fill_.Tensor", masked_fill_tensor);
