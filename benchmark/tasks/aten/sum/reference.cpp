// Reference for aten/sum (one dimension, keepdim): sums in double (floating
// types) or int64 (integer types) over the logical values, rounded once into
// the output dtype.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

// With or without the kept size-1 dim, out's row-major order is (outer, inner).
template <typename V>
std::vector<V> reduce(const std::vector<V>& x, int64_t outer, int64_t len, int64_t inner) {
  std::vector<V> y(static_cast<size_t>(outer * inner), V(0));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      V acc = 0;
      for (int64_t l = 0; l < len; ++l) acc += x[static_cast<size_t>((o * len + l) * inner + i)];
      y[static_cast<size_t>(o * inner + i)] = acc;
    }
  return y;
}

void sum_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const int rank = self.rank();
  int64_t dim = args.int_scalar("dim");
  const bool keepdim = args.int_scalar("keepdim") != 0;
  if (rank == 0 || dim < -rank || dim >= rank) throw std::runtime_error("aten/sum: dim out of range");
  if (dim < 0) dim += rank;

  std::vector<int64_t> expected_shape;
  int64_t outer = 1, len = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t s = self.sizes()[d];
    if (d < dim) outer *= s;
    else if (d == dim) len = s;
    else inner *= s;
    if (d != dim) expected_shape.push_back(s);
    else if (keepdim) expected_shape.push_back(1);
  }
  if (out.sizes() != expected_shape) throw std::runtime_error("aten/sum: out has the wrong shape for dim/keepdim");

  if (kgb::is_floating(self.dtype())) {
    kgb::from_doubles(out, reduce(kgb::to_doubles(self), outer, len, inner));
  } else {
    kgb::from_ints(out, reduce(kgb::to_ints(self), outer, len, inner));
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/sum", sum_reference);
