// Reference for aten/softmax: the textbook formula in double on the logical
// values, rounded once into the output dtype. IEEE arithmetic gives the special
// value rules of the spec (NaN or +inf in a slice -> NaN slice, -inf -> 0).
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void softmax_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (out.sizes() != self.sizes()) throw std::runtime_error("aten/softmax: out and self differ in shape");
  const int rank = self.rank();
  int64_t dim = args.int_scalar("dim");
  const int64_t nominal = rank == 0 ? 1 : rank;  // a scalar behaves as one dimension of size 1
  if (dim < -nominal || dim >= nominal) throw std::runtime_error("aten/softmax: dim out of range");
  if (dim < 0) dim += nominal;

  // Row-major logical index of (o, l, i) is (o * len + l) * inner + i.
  int64_t outer = 1, len = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < dim) outer *= self.sizes()[d];
    else if (d == dim) len = self.sizes()[d];
    else inner *= self.sizes()[d];
  }
  const std::vector<double> x = kgb::to_doubles(self);
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t l) { return static_cast<size_t>((o * len + l) * inner + i); };
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t l = 0; l < len; ++l) {
        const double v = x[at(l)];
        if (std::isnan(v) || std::isnan(m)) m = std::numeric_limits<double>::quiet_NaN();
        else if (v > m) m = v;
      }
      double sum = 0;
      for (int64_t l = 0; l < len; ++l) sum += std::exp(x[at(l)] - m);
      for (int64_t l = 0; l < len; ++l) y[at(l)] = std::exp(x[at(l)] - m) / sum;
    }
  }
  kgb::from_doubles(out, y);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/softmax", softmax_reference);
