// Reference for aten/rot90: ATen's rot90(self, k, dims) as an exact copy (bit
// for bit, any dtype) of self read through the rotated index map, with the
// argument checks ATen makes. ATen computes flip(dims[1]).transpose for
// k = 1, flip(dims) for k = 2, flip(dims[0]).transpose for k = 3 and a
// contiguous clone for k = 0, with k taken modulo 4 (negative k too).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void rot90_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const int64_t k = ((args.int_scalar("k") % 4) + 4) % 4;
  const std::vector<int64_t>& dims = args.int_list("dims");
  const int64_t rank = self.rank();
  if (dims.size() != 2) throw std::runtime_error("aten/rot90: dims must hold two dims");
  if (rank < 2) throw std::runtime_error("aten/rot90: self must have at least two dims");
  if (dims[0] == dims[1] || std::abs(dims[0] - dims[1]) == rank) throw std::runtime_error("aten/rot90: the two dims must differ");
  for (int64_t d : dims)
    if (d < -rank || d >= rank) throw std::runtime_error("aten/rot90: dim " + std::to_string(d) + " out of range");
  const auto d0 = static_cast<size_t>(dims[0] < 0 ? dims[0] + rank : dims[0]);
  const auto d1 = static_cast<size_t>(dims[1] < 0 ? dims[1] + rank : dims[1]);

  std::vector<int64_t> expected = self.sizes();
  if (k % 2 == 1) std::swap(expected[d0], expected[d1]);
  if (out.sizes() != expected) throw std::runtime_error("aten/rot90: out has the wrong shape");
  if (out.numel() == 0) return;

  // self read in out's index space: strides per out dim (possibly negative)
  // and the element offset of out's element 0.
  const std::vector<int64_t>& st = self.strides();
  const int64_t s0 = self.sizes()[d0], s1 = self.sizes()[d1];
  std::vector<int64_t> view = st;
  int64_t base = 0;
  switch (k) {
    case 1:  // out[i @ d0, j @ d1] = self[j @ d0, s1 - 1 - i @ d1]
      view[d0] = -st[d1];
      view[d1] = st[d0];
      base = (s1 - 1) * st[d1];
      break;
    case 2:  // out[i @ d0, j @ d1] = self[s0 - 1 - i @ d0, s1 - 1 - j @ d1]
      view[d0] = -st[d0];
      view[d1] = -st[d1];
      base = (s0 - 1) * st[d0] + (s1 - 1) * st[d1];
      break;
    case 3:  // out[i @ d0, j @ d1] = self[s0 - 1 - j @ d0, i @ d1]
      view[d0] = st[d1];
      view[d1] = -st[d0];
      base = (s0 - 1) * st[d0];
      break;
    default: break;  // k = 0: a plain copy
  }
  const std::vector<int64_t>& sizes = out.sizes();
  const size_t elem = static_cast<size_t>(kgb::dtype_size(out.dtype()));
  const std::byte* src = self.data();
  std::byte* dst = out.data();
  kgb::parallel_chunks(out.numel(), [&](int64_t first, int64_t last) {
    std::vector<int64_t> index = out.unravel(first);
    int64_t from = base;
    for (size_t d = 0; d < sizes.size(); ++d) from += index[d] * view[d];
    kgb::OffsetWalker to(out, first);
    for (int64_t i = first; i < last; ++i, to.next()) {
      std::memcpy(dst + to.offset() * static_cast<int64_t>(elem), src + from * static_cast<int64_t>(elem), elem);
      for (size_t d = sizes.size(); d-- > 0;) {  // next index in out's row-major order
        from += view[d];
        if (++index[d] < sizes[d]) break;
        from -= view[d] * sizes[d];
        index[d] = 0;
      }
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/rot90", rot90_reference);
