// Reference for aten/expand: the view ATen's expand returns, as metadata
// (inferExpandGeometry, then as_strided with self's storage offset). Written
// from the rule, dim by dim from the innermost, including ATen's choice of
// stride for a new leading dim of size 1 (the next dim's extent), which the
// check ignores anyway because a size-1 dim's stride moves nothing.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

struct Geometry {
  std::vector<int64_t> sizes, strides;
};

Geometry expand_geometry(const std::vector<int64_t>& self_sizes, const std::vector<int64_t>& self_strides,
                         const std::vector<int64_t>& size) {
  const int64_t rank = static_cast<int64_t>(size.size());
  const int64_t self_rank = static_cast<int64_t>(self_sizes.size());
  if (rank < self_rank)
    throw std::runtime_error("aten/expand: size has " + std::to_string(rank) + " entries, fewer than self's rank " +
                             std::to_string(self_rank));
  Geometry g{std::vector<int64_t>(static_cast<size_t>(rank)), std::vector<int64_t>(static_cast<size_t>(rank))};
  if (self_rank == 0) {  // one element: every dim is broadcast
    for (int64_t i = 0; i < rank; ++i) {
      if (size[static_cast<size_t>(i)] < 0) throw std::runtime_error("aten/expand: -1 is not allowed for a rank-0 self");
      g.sizes[static_cast<size_t>(i)] = size[static_cast<size_t>(i)];
    }
    return g;
  }
  for (int64_t i = rank - 1; i >= 0; --i) {
    const auto at = static_cast<size_t>(i);
    const int64_t j = i - (rank - self_rank);  // the matching dim of self, < 0 for a new leading dim
    int64_t dim_size = j >= 0 ? self_sizes[static_cast<size_t>(j)] : 1;
    int64_t stride = j >= 0 ? self_strides[static_cast<size_t>(j)] : g.sizes[at + 1] * g.strides[at + 1];
    int64_t target = size[at];
    if (target == -1) {
      if (j < 0) throw std::runtime_error("aten/expand: -1 in the new leading dim " + std::to_string(i));
      target = dim_size;
    }
    if (target < 0) throw std::runtime_error("aten/expand: negative size " + std::to_string(target));
    if (dim_size != target) {
      if (dim_size != 1)
        throw std::runtime_error("aten/expand: dim " + std::to_string(i) + " of size " + std::to_string(dim_size) +
                                 " cannot be expanded to " + std::to_string(target));
      dim_size = target;
      stride = 0;
    }
    g.sizes[at] = dim_size;
    g.strides[at] = stride;
  }
  return g;
}

void expand_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const Geometry g = expand_geometry(self.sizes(), self.strides(), args.int_list("size"));
  // The spec gives out's shape; a case whose shape disagrees with ATen's is a task bug.
  if (g.sizes != args.tensor("out").sizes()) throw std::runtime_error("aten/expand: the case's out shape differs from the expanded shape");
  args.set_view("out", g.sizes, g.strides, self.offset());
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/expand", expand_reference);
