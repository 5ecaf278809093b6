// Reference for aten/cat: ATen's cat over the items' logical elements, with
// its legacy rule (an item of shape [0] is skipped whatever its rank), the
// shape checks ATen makes, and an exact copy (bit for bit, any dtype).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

bool skipped(const kgb::HostTensor& t) { return t.rank() == 1 && t.sizes()[0] == 0; }

void cat_reference(kgb::RefArgs& args) {
  const std::vector<kgb::HostTensor*>& items = args.list("tensors");
  kgb::HostTensor& out = args.tensor("out");
  int64_t dim = args.int_scalar("dim");

  const kgb::HostTensor* first = nullptr;
  for (size_t k = 0; k < items.size(); ++k) {
    if (!items[k]) throw std::runtime_error("aten/cat: item " + std::to_string(k) + " is None");
    if (items[k]->rank() == 0) throw std::runtime_error("aten/cat: zero-dimensional item " + std::to_string(k));
    if (items[k]->dtype() != out.dtype()) throw std::runtime_error("aten/cat: item " + std::to_string(k) + " has another dtype");
    if (!first && !skipped(*items[k])) first = items[k];
  }
  if (!first) {  // every item skipped: the result is the empty [0]
    if (out.numel() != 0) throw std::runtime_error("aten/cat: every item is skipped but out is not empty");
    return;
  }
  const int rank = first->rank();
  if (dim < -rank || dim >= rank) throw std::runtime_error("aten/cat: dim " + std::to_string(dim) + " out of range");
  if (dim < 0) dim += rank;
  const auto d = static_cast<size_t>(dim);

  std::vector<int64_t> expected = first->sizes();
  expected[d] = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    const kgb::HostTensor& t = *items[k];
    if (skipped(t)) continue;
    if (t.rank() != rank) throw std::runtime_error("aten/cat: item " + std::to_string(k) + " has another rank");
    for (int i = 0; i < rank; ++i)
      if (i != dim && t.sizes()[i] != first->sizes()[i])
        throw std::runtime_error("aten/cat: item " + std::to_string(k) + " differs outside dim in dimension " + std::to_string(i));
    expected[d] += t.sizes()[d];
  }
  if (out.sizes() != expected) throw std::runtime_error("aten/cat: out has the wrong shape");

  const int32_t elem = kgb::dtype_size(out.dtype());
  int64_t offset = 0;  // along dim, where the next item starts in out
  for (const kgb::HostTensor* item : items) {
    const kgb::HostTensor& t = *item;
    if (skipped(t)) continue;
    // The slice of out this item fills: its sizes with out's strides (geometry only).
    const kgb::HostTensor slice(out.dtype(), t.sizes(), out.strides(), 0);
    std::byte* dst = out.data() + offset * out.strides()[d] * elem;
    const std::byte* src = t.data();
    kgb::parallel_chunks(t.numel(), [&](int64_t first_element, int64_t last) {
      kgb::OffsetWalker from(t, first_element), to(slice, first_element);
      for (int64_t i = first_element; i < last; ++i, from.next(), to.next())
        std::memcpy(dst + to.offset() * elem, src + from.offset() * elem, static_cast<size_t>(elem));
    });
    offset += t.sizes()[d];
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/cat", cat_reference);
