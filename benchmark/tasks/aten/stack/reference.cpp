// Reference for aten/stack: ATen's stack over the items' logical elements:
// the shape checks ATen makes (one shape for every item, dim in
// [-(R+1), R]) and an exact copy of item k into slice k of out along the new
// dimension (bit for bit, any dtype).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void stack_reference(kgb::RefArgs& args) {
  const std::vector<kgb::HostTensor*>& items = args.list("tensors");
  kgb::HostTensor& out = args.tensor("out");
  int64_t dim = args.int_scalar("dim");
  if (items.empty()) throw std::runtime_error("aten/stack: expects a non-empty list");
  for (size_t k = 0; k < items.size(); ++k) {
    if (!items[k]) throw std::runtime_error("aten/stack: item " + std::to_string(k) + " is None");
    if (items[k]->dtype() != out.dtype()) throw std::runtime_error("aten/stack: item " + std::to_string(k) + " has another dtype");
    if (items[k]->sizes() != items[0]->sizes())
      throw std::runtime_error("aten/stack: item " + std::to_string(k) + " has another shape than item 0");
  }
  const int rank = items[0]->rank();
  if (dim < -(rank + 1) || dim > rank) throw std::runtime_error("aten/stack: dim " + std::to_string(dim) + " out of range");
  if (dim < 0) dim += rank + 1;
  const auto d = static_cast<size_t>(dim);

  std::vector<int64_t> expected = items[0]->sizes();
  expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(d), static_cast<int64_t>(items.size()));
  if (out.sizes() != expected) throw std::runtime_error("aten/stack: out has the wrong shape");

  // Slice k of out along dim: the items' sizes with out's other strides.
  std::vector<int64_t> slice_strides = out.strides();
  slice_strides.erase(slice_strides.begin() + static_cast<std::ptrdiff_t>(d));
  const kgb::HostTensor slice(out.dtype(), items[0]->sizes(), slice_strides, 0);
  const int32_t elem = kgb::dtype_size(out.dtype());
  for (size_t k = 0; k < items.size(); ++k) {
    const kgb::HostTensor& t = *items[k];
    std::byte* dst = out.data() + static_cast<int64_t>(k) * out.strides()[d] * elem;
    const std::byte* src = t.data();
    kgb::parallel_chunks(t.numel(), [&](int64_t first_element, int64_t last) {
      kgb::OffsetWalker from(t, first_element), to(slice, first_element);
      for (int64_t i = first_element; i < last; ++i, from.next(), to.next())
        std::memcpy(dst + to.offset() * elem, src + from.offset() * elem, static_cast<size_t>(elem));
    });
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/stack", stack_reference);
