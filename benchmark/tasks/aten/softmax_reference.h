// Shared by the references of aten/softmax and aten/_softmax: the textbook
// softmax along one dimension in double on the logical values of self,
// rounded once into out's dtype (which may differ from self's: _softmax's
// half_to_float). IEEE arithmetic gives the special-value rules (NaN or +inf
// in a slice -> NaN slice, -inf -> 0, an all -inf slice -> NaN).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/tensor.h"

namespace kgb::softmax {

inline void softmax_into(const std::string& task, const HostTensor& self, int64_t dim, HostTensor& out) {
  if (out.sizes() != self.sizes()) throw std::runtime_error(task + ": out and self differ in shape");
  const int rank = self.rank();
  const int64_t nominal = rank == 0 ? 1 : rank;  // a scalar behaves as one dimension of size 1
  if (dim < -nominal || dim >= nominal) throw std::runtime_error(task + ": dim out of range");
  if (dim < 0) dim += nominal;

  // Row-major logical index of (o, l, i) is (o * len + l) * inner + i.
  int64_t outer = 1, len = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < dim) outer *= self.sizes()[d];
    else if (d == dim) len = self.sizes()[d];
    else inner *= self.sizes()[d];
  }
  const std::vector<double> x = to_doubles(self);
  std::vector<double> y(x.size());
  parallel_chunks(outer * inner, [&](int64_t first, int64_t last) {
    for (int64_t s = first; s < last; ++s) {
      const int64_t o = s / inner, i = s % inner;
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
  });
  from_doubles(out, y);
}

}  // namespace kgb::softmax
