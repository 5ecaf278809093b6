// Reference for aten/t: the view ATen's t() returns, as metadata. Rank 2
// swaps the two dims (transpose(0, 1)); rank 0 and 1 return self's own view.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void t_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  if (self.rank() > 2) throw std::runtime_error("aten/t: self has rank " + std::to_string(self.rank()) + ", more than 2");
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  std::reverse(sizes.begin(), sizes.end());  // a no-op below rank 2
  std::reverse(strides.begin(), strides.end());
  if (sizes != args.tensor("out").sizes()) throw std::runtime_error("aten/t: the case's out shape differs from the transposed shape");
  args.set_view("out", sizes, strides, self.offset());
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/t", t_reference);
