// Reference for aten/sort: a stable sort of every slice of (value, index)
// pairs, NaN ordered above everything (PyTorch's order). The checker accepts
// any index order among equal values; this reference just gives one valid one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

bool ascending_less(double a, double b) { return (!std::isnan(a) && std::isnan(b)) || a < b; }
bool ascending_less(int64_t a, int64_t b) { return a < b; }

template <typename V>
void sort_slices(const std::vector<V>& x, std::vector<V>& values, std::vector<int64_t>& indices, int64_t outer,
                 int64_t len, int64_t inner, bool descending) {
  std::vector<int64_t> order(static_cast<size_t>(len));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t l) { return static_cast<size_t>((o * len + l) * inner + i); };  // row-major logical index
      for (int64_t l = 0; l < len; ++l) order[static_cast<size_t>(l)] = l;
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return descending ? ascending_less(x[at(b)], x[at(a)]) : ascending_less(x[at(a)], x[at(b)]);
      });
      for (int64_t l = 0; l < len; ++l) {
        values[at(l)] = x[at(order[static_cast<size_t>(l)])];
        indices[at(l)] = order[static_cast<size_t>(l)];
      }
    }
}

void sort_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& values = args.tensor("values");
  kgb::HostTensor& indices = args.tensor("indices");
  if (values.sizes() != self.sizes() || indices.sizes() != self.sizes())
    throw std::runtime_error("aten/sort: outputs differ from self in shape");
  const int rank = self.rank();
  int64_t dim = args.int_scalar("dim");
  const bool descending = args.int_scalar("descending") != 0;
  const int64_t nominal = rank == 0 ? 1 : rank;  // a scalar behaves as one dimension of size 1
  if (dim < -nominal || dim >= nominal) throw std::runtime_error("aten/sort: dim out of range");
  if (dim < 0) dim += nominal;

  int64_t outer = 1, len = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < dim) outer *= self.sizes()[d];
    else if (d == dim) len = self.sizes()[d];
    else inner *= self.sizes()[d];
  }
  std::vector<int64_t> idx(static_cast<size_t>(self.numel()));
  if (kgb::is_floating(self.dtype())) {
    const std::vector<double> x = kgb::to_doubles(self);
    std::vector<double> v(x.size());
    sort_slices(x, v, idx, outer, len, inner, descending);
    kgb::from_doubles(values, v);
  } else {
    const std::vector<int64_t> x = kgb::to_ints(self);
    std::vector<int64_t> v(x.size());
    sort_slices(x, v, idx, outer, len, inner, descending);
    kgb::from_ints(values, v);
  }
  kgb::from_ints(indices, idx);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/sort", sort_reference);
