// Reference for aten/expand_as: self.expand(other.sizes()), the view ATen
// returns, as metadata (inferExpandGeometry walked from the innermost dim,
// including ATen's stride for a new leading dim of size 1, the next dim's
// extent, which the check ignores because a size-1 dim moves nothing).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void expand_as_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const std::vector<int64_t>& size = args.tensor("other").sizes();
  const int64_t rank = static_cast<int64_t>(size.size()), self_rank = self.rank();
  if (rank < self_rank) throw std::runtime_error("aten/expand_as: other has a lower rank than self");
  std::vector<int64_t> sizes(static_cast<size_t>(rank)), strides(static_cast<size_t>(rank));
  for (int64_t i = rank - 1; i >= 0; --i) {
    const auto at = static_cast<size_t>(i);
    const int64_t j = i - (rank - self_rank);  // self's matching dim; < 0 for a new leading dim
    int64_t dim_size = j >= 0 ? self.sizes()[static_cast<size_t>(j)] : 1;
    int64_t stride = j >= 0 ? self.strides()[static_cast<size_t>(j)] : (i + 1 < rank ? sizes[at + 1] * strides[at + 1] : 1);
    if (dim_size != size[at]) {
      if (dim_size != 1)
        throw std::runtime_error("aten/expand_as: dim " + std::to_string(i) + " of size " + std::to_string(dim_size) +
                                 " cannot be expanded to " + std::to_string(size[at]));
      dim_size = size[at];
      stride = 0;
    }
    sizes[at] = dim_size;
    strides[at] = stride;
  }
  if (sizes != args.tensor("out").sizes()) throw std::runtime_error("aten/expand_as: the case's out shape differs from other's");
  args.set_view("out", sizes, strides, self.offset());
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/expand_as", expand_as_reference);
