// Reference for aten/_to_copy (layout, device, pin_memory None; memory_format
// preserve): every element of self converted as ATen's copy kernels convert
// (conversion_reference.h) into out, whose layout the case gives as ATen's
// preserve rule allocates it. A case whose out dtype or layout contradicts
// ATen is a task bug.
#include "../conversion_reference.h"
#include "../fill_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

constexpr const char* kTask = "aten/_to_copy";

void to_copy_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  kgb::fill::expect_dtype(out, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : self.dtype(), kTask);
  kgb::conversion::expect_preserve_layout(self, out, kTask);
  kgb::conversion::convert(self, out, kTask);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/_to_copy/self", kgb::conversion::fill_values);
KGB_REGISTER_REFERENCE("aten/_to_copy", to_copy_reference);
