// Reference for aten/contiguous (contiguous_format): self itself when ATen's
// contiguity rule holds (an alias: set_view with self's metadata), else the
// row-major copy of its values, bit for bit, into the pre-allocated out.
#include "kgb/reference.h"
#include "kgb/tensor.h"
#include "../layout_reference.h"

namespace {

void contiguous_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  if (kgb::layout::is_contiguous(self.sizes(), self.strides())) {
    args.set_view("out", self.sizes(), self.strides(), self.offset());
    return;
  }
  kgb::layout::copy_bits(self, args.tensor("out"));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/contiguous", contiguous_reference);
