// Reference for aten/unsafe_split (unsafe_split.Tensor): the chunks ATen
// returns, as metadata. max(ceil(size / split_size), 1) chunks (one for an
// empty dim, split_size 0 included); chunk k is narrow(dim, k * split_size,
// min(split_size, size - k * split_size)).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void unsafe_split_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const int64_t rank = self.rank();
  if (rank == 0) throw std::runtime_error("aten/unsafe_split: a rank-0 self");
  int64_t dim = args.int_scalar("dim");
  const int64_t split_size = args.int_scalar("split_size");
  if (dim < -rank || dim >= rank) throw std::runtime_error("aten/unsafe_split: dim " + std::to_string(dim) + " out of range");
  if (dim < 0) dim += rank;
  const auto d = static_cast<size_t>(dim);
  const int64_t size = self.sizes()[d];
  if (split_size < 0 || (split_size == 0 && size > 0)) throw std::runtime_error("aten/unsafe_split: invalid split_size");
  const int64_t chunks = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  const std::vector<kgb::HostTensor*>& out = args.list("out");
  if (static_cast<int64_t>(out.size()) != chunks)
    throw std::runtime_error("aten/unsafe_split: the case has " + std::to_string(out.size()) + " items, ATen gives " + std::to_string(chunks));
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t start = k * split_size;
    std::vector<int64_t> sizes = self.sizes();
    sizes[d] = std::min(split_size, size - start);
    if (sizes != out[static_cast<size_t>(k)]->sizes())
      throw std::runtime_error("aten/unsafe_split: the case's item " + std::to_string(k) + " has another shape than ATen's chunk");
    args.set_view_item("out", static_cast<size_t>(k), sizes, self.strides(), self.offset() + start * self.strides()[d]);
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/unsafe_split", unsafe_split_reference);
