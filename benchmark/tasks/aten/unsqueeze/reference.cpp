// Reference for aten/unsqueeze: the view ATen's unsqueeze returns, as
// metadata (inferUnsqueezeGeometry): a size-1 dim inserted at the wrapped
// dim, with stride sizes[d] * strides[d] (1 at the end), self's offset.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void unsqueeze_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const int64_t rank = self.rank();
  int64_t dim = args.int_scalar("dim");
  if (dim < -(rank + 1) || dim > rank) throw std::runtime_error("aten/unsqueeze: dim " + std::to_string(dim) + " out of range");
  if (dim < 0) dim += rank + 1;
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  const int64_t new_stride = dim < rank ? sizes[static_cast<size_t>(dim)] * strides[static_cast<size_t>(dim)] : 1;
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, new_stride);
  if (sizes != args.tensor("out").sizes()) throw std::runtime_error("aten/unsqueeze: the case's out shape differs from the result's");
  args.set_view("out", sizes, strides, self.offset());
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/unsqueeze", unsqueeze_reference);
