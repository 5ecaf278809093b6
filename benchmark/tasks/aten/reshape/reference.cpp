// Reference for aten/reshape: ATen's rule. The size list is completed first
// (one -1 takes the remaining count); then ATen's computeStride decides
// whether self's elements can be addressed in the new shape with strides
// alone. If so, reshape returns that alias (set_view with the computed
// strides and self's storage offset); else a row-major copy of self's values
// (bit for bit) in the new shape, which goes into the pre-allocated out.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

// ATen's infer_size: at most one -1, replaced by numel / (product of the others).
std::vector<int64_t> infer_size(const std::vector<int64_t>& shape, int64_t numel) {
  std::vector<int64_t> out = shape;
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (infer) throw std::runtime_error("aten/reshape: only one dimension can be inferred");
      infer = d;
    } else if (shape[d] >= 0) {
      known *= shape[d];
    } else {
      throw std::runtime_error("aten/reshape: invalid shape dimension " + std::to_string(shape[d]));
    }
  }
  if (infer) {
    if (known == 0) throw std::runtime_error("aten/reshape: cannot infer a dimension next to a 0");
    if (numel % known != 0) throw std::runtime_error("aten/reshape: shape is invalid for the input size");
    out[*infer] = numel / known;
  } else if (known != numel) {
    throw std::runtime_error("aten/reshape: shape is invalid for the input size");
  }
  return out;
}

// ATen's computeStride: walks self's dims from the innermost in chunks of
// dims that are contiguous with each other (size-1 dims join any chunk) and
// requires every chunk to be covered by whole dims of the new shape.
std::optional<std::vector<int64_t>> compute_stride(const std::vector<int64_t>& oldshape, const std::vector<int64_t>& oldstride,
                                                   const std::vector<int64_t>& newshape) {
  if (oldshape.empty()) return std::vector<int64_t>(newshape.size(), 1);
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && oldshape == newshape) return oldstride;
  std::vector<int64_t> newstride(newshape.size());
  if (numel == 0) {
    for (int64_t d = static_cast<int64_t>(newshape.size()) - 1; d >= 0; --d)
      newstride[d] = d == static_cast<int64_t>(newshape.size()) - 1 ? 1 : std::max<int64_t>(newshape[d + 1], 1) * newstride[d + 1];
    return newstride;
  }
  int64_t view_d = static_cast<int64_t>(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

void reshape_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const std::vector<int64_t> shape = infer_size(args.int_list("shape"), self.numel());
  if (out.sizes() != shape) throw std::runtime_error("aten/reshape: out has the wrong shape");
  if (auto strides = compute_stride(self.sizes(), self.strides(), shape)) {
    args.set_view("out", shape, *strides, self.offset());
    return;
  }
  // The copy: self's elements in row-major order, written in out's row-major order.
  const int64_t n = self.numel();
  const size_t elem = static_cast<size_t>(kgb::dtype_size(self.dtype()));
  const std::byte* src = self.data();
  std::byte* dst = out.data();
  kgb::parallel_chunks(n, [&](int64_t first, int64_t last) {
    kgb::OffsetWalker from(self, first), to(out, first);
    for (int64_t i = first; i < last; ++i, from.next(), to.next())
      std::memcpy(dst + to.offset() * static_cast<int64_t>(elem), src + from.offset() * static_cast<int64_t>(elem), elem);
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/reshape", reshape_reference);
