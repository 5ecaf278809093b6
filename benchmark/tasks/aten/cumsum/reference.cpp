// Reference for aten/cumsum: running sums in double (floating types) or int64
// (integer types) over the logical values, each output rounded once to the
// output dtype.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

template <typename V>
void scan(const std::vector<V>& x, std::vector<V>& y, int64_t outer, int64_t len, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      V acc = 0;
      for (int64_t l = 0; l < len; ++l) {
        const size_t at = static_cast<size_t>((o * len + l) * inner + i);  // row-major logical index
        acc += x[at];
        y[at] = acc;
      }
    }
}

void cumsum_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (out.sizes() != self.sizes()) throw std::runtime_error("aten/cumsum: out and self differ in shape");
  const int rank = self.rank();
  int64_t dim = args.int_scalar("dim");
  const int64_t nominal = rank == 0 ? 1 : rank;  // a scalar behaves as one dimension of size 1
  if (dim < -nominal || dim >= nominal) throw std::runtime_error("aten/cumsum: dim out of range");
  if (dim < 0) dim += nominal;

  int64_t outer = 1, len = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < dim) outer *= self.sizes()[d];
    else if (d == dim) len = self.sizes()[d];
    else inner *= self.sizes()[d];
  }
  if (kgb::is_floating(self.dtype())) {
    const std::vector<double> x = kgb::to_doubles(self);
    std::vector<double> y(x.size());
    scan(x, y, outer, len, inner);
    kgb::from_doubles(out, y);
  } else {
    const std::vector<int64_t> x = kgb::to_ints(self);
    std::vector<int64_t> y(x.size());
    scan(x, y, outer, len, inner);
    kgb::from_ints(out, y);
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/cumsum", cumsum_reference);
