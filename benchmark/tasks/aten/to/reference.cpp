// Reference for aten/to (.dtype, .other, .dtype_layout, .device; memory_format
// preserve, layout and device unchanged): ATen's to_will_alias. When the
// target dtype is self's and copy is false, to() returns self: an alias
// (set_view with self's metadata, whatever its layout). Otherwise _to_copy:
// self's values converted as ATen's copy kernels convert
// (conversion_reference.h) into the pre-allocated out, whose layout the case
// gives as the preserve rule allocates it.
#include <string>

#include "../conversion_reference.h"
#include "../fill_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

constexpr const char* kTask = "aten/to";

void to_with_target(kgb::RefArgs& args, kgb::DType target) {
  const kgb::HostTensor& self = args.tensor("self");
  if (target == self.dtype() && !args.bool_scalar("copy")) {
    args.set_view("out", self.sizes(), self.strides(), self.offset());
    return;
  }
  kgb::HostTensor& out = args.tensor("out");
  kgb::fill::expect_dtype(out, target, kTask);
  kgb::conversion::expect_preserve_layout(self, out, kTask);
  kgb::conversion::convert(self, out, kTask);
}

void to_dtype(kgb::RefArgs& args) { to_with_target(args, kgb::fill::dtype_named(args.enum_name("dtype"))); }
void to_other(kgb::RefArgs& args) { to_with_target(args, args.tensor("other").dtype()); }
void to_dtype_layout(kgb::RefArgs& args) {
  to_with_target(args, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : args.tensor("self").dtype());
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/to/self", kgb::conversion::fill_values);
KGB_REGISTER_REFERENCE("aten/to", to_dtype);
KGB_REGISTER_REFERENCE("aten/to.other", to_other);
KGB_REGISTER_REFERENCE("aten/to.dtype_layout", to_dtype_layout);
KGB_REGISTER_REFERENCE("aten/to.device", to_dtype);
