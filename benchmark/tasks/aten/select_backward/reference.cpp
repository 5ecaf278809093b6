// Reference for aten/select_backward: out = zeros(input_sizes), then the
// slice at `index` along `dim` is grad_output, copied bit for bit (positions
// of grad_output in row-major order map to the slice's).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("aten/select_backward: " + what); }

void select_backward_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& grad = args.tensor("grad_output");
  kgb::HostTensor& out = args.tensor("out");
  const std::vector<int64_t>& sizes = args.int_list("input_sizes");
  const int rank = static_cast<int>(sizes.size());
  int64_t dim = args.int_scalar("dim"), index = args.int_scalar("index");
  if (rank == 0 || dim < -rank || dim >= rank) fail("dim out of range");
  if (dim < 0) dim += rank;
  const int64_t size = sizes[static_cast<size_t>(dim)];
  if (index < -size || index >= size) fail("index out of range");
  if (index < 0) index += size;
  if (out.sizes() != sizes || out.dtype() != grad.dtype()) fail("out must have input_sizes and grad_output's dtype");
  std::vector<int64_t> slice = sizes;
  slice.erase(slice.begin() + dim);
  if (grad.sizes() != slice) fail("grad_output must have input_sizes without dim");

  const int64_t elem = kgb::dtype_size(out.dtype());
  const int64_t n = out.numel();
  kgb::parallel_chunks(n, [&](int64_t first, int64_t last) {
    kgb::OffsetWalker w(out, first);
    for (int64_t i = first; i < last; ++i, w.next()) std::memset(out.data() + w.offset() * elem, 0, static_cast<size_t>(elem));
  });
  const int64_t m = grad.numel();
  if (m == 0 || n == 0) return;
  // The slice of out as a view: out's strides without dim, starting at index.
  std::vector<int64_t> slice_strides = out.strides();
  slice_strides.erase(slice_strides.begin() + dim);
  const int64_t base = index * out.strides()[static_cast<size_t>(dim)];
  const kgb::HostTensor slice_view(out.dtype(), slice, slice_strides, 0);
  kgb::OffsetWalker to(slice_view, 0), from(grad, 0);
  for (int64_t i = 0; i < m; ++i, to.next(), from.next())
    std::memcpy(out.data() + (base + to.offset()) * elem, grad.data() + from.offset() * elem, static_cast<size_t>(elem));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/select_backward", select_backward_reference);
