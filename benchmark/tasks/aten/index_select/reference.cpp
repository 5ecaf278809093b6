// Reference for aten/index_select: out[o, k, i] = self[o, index[k], i] over the
// logical values (outer x dim x inner decomposition), copied exactly.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

template <typename V>
std::vector<V> gather(const std::vector<V>& x, const std::vector<int64_t>& index, int64_t outer, int64_t len,
                      int64_t inner) {
  const int64_t k_count = static_cast<int64_t>(index.size());
  std::vector<V> y(static_cast<size_t>(outer * k_count * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < k_count; ++k)
      for (int64_t i = 0; i < inner; ++i)
        y[static_cast<size_t>((o * k_count + k) * inner + i)] =
            x[static_cast<size_t>((o * len + index[static_cast<size_t>(k)]) * inner + i)];
  return y;
}

void index_select_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& index_t = args.tensor("index");
  kgb::HostTensor& out = args.tensor("out");
  const int rank = self.rank();
  int64_t dim = args.int_scalar("dim");
  if (rank == 0 || dim < -rank || dim >= rank) throw std::runtime_error("aten/index_select: dim out of range");
  if (dim < 0) dim += rank;
  if (index_t.rank() > 1) throw std::runtime_error("aten/index_select: index must have rank 0 or 1");

  const std::vector<int64_t> index = kgb::to_ints(index_t);
  int64_t outer = 1, len = 1, inner = 1;
  std::vector<int64_t> expected_shape = self.sizes();
  expected_shape[static_cast<size_t>(dim)] = static_cast<int64_t>(index.size());
  if (out.sizes() != expected_shape) throw std::runtime_error("aten/index_select: out has the wrong shape");
  for (int d = 0; d < rank; ++d) {
    if (d < dim) outer *= self.sizes()[d];
    else if (d == dim) len = self.sizes()[d];
    else inner *= self.sizes()[d];
  }
  for (int64_t v : index)
    if (v < 0 || v >= len) throw std::runtime_error("aten/index_select: index value " + std::to_string(v) + " out of range");

  if (kgb::is_floating(self.dtype())) kgb::from_doubles(out, gather(kgb::to_doubles(self), index, outer, len, inner));
  else kgb::from_ints(out, gather(kgb::to_ints(self), index, outer, len, inner));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/index_select", index_select_reference);
