// Reference for aten/unsafe_split_with_sizes: the chunks ATen returns, as
// metadata. Chunk k is narrow(dim, split_sizes[0] + ... + split_sizes[k-1],
// split_sizes[k]); the lengths must sum to the dim's size.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void unsafe_split_with_sizes_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const int64_t rank = self.rank();
  if (rank == 0) throw std::runtime_error("aten/unsafe_split_with_sizes: a rank-0 self");
  int64_t dim = args.int_scalar("dim");
  if (dim < -rank || dim >= rank) throw std::runtime_error("aten/unsafe_split_with_sizes: dim " + std::to_string(dim) + " out of range");
  if (dim < 0) dim += rank;
  const auto d = static_cast<size_t>(dim);
  const std::vector<int64_t>& lengths = args.int_list("split_sizes");
  const std::vector<kgb::HostTensor*>& out = args.list("out");
  if (out.size() != lengths.size()) throw std::runtime_error("aten/unsafe_split_with_sizes: item count differs from split_sizes");
  int64_t start = 0;
  for (size_t k = 0; k < lengths.size(); ++k) {
    if (lengths[k] < 0) throw std::runtime_error("aten/unsafe_split_with_sizes: a negative length");
    std::vector<int64_t> sizes = self.sizes();
    sizes[d] = lengths[k];
    if (sizes != out[k]->sizes())
      throw std::runtime_error("aten/unsafe_split_with_sizes: the case's item " + std::to_string(k) + " has another shape than ATen's chunk");
    args.set_view_item("out", k, sizes, self.strides(), self.offset() + start * self.strides()[d]);
    start += lengths[k];
  }
  if (start != self.sizes()[d]) throw std::runtime_error("aten/unsafe_split_with_sizes: the lengths do not sum to the dim's size");
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/unsafe_split_with_sizes", unsafe_split_with_sizes_reference);
