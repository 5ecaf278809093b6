// Reference for aten/add: out = self + alpha * other with PyTorch broadcasting.
// Floating types are computed in double from the logical values and rounded
// once into the output dtype; integer types are computed exactly in int64.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

// For every element of out (row-major order), the row-major logical index of
// the input element it reads, following right-aligned broadcasting.
std::vector<int64_t> broadcast_sources(const std::vector<int64_t>& out_sizes, const std::vector<int64_t>& in_sizes) {
  const size_t r = out_sizes.size(), k = in_sizes.size();
  if (k > r) throw std::runtime_error("aten/add: input has a higher rank than out");
  std::vector<int64_t> step(r, 0);  // input index advance per unit of each out dim
  int64_t stride = 1;
  for (size_t j = 0; j < k; ++j) {
    const size_t din = k - 1 - j, dout = r - 1 - j;
    if (in_sizes[din] != 1) {
      if (in_sizes[din] != out_sizes[dout]) throw std::runtime_error("aten/add: shapes do not broadcast to out");
      step[dout] = stride;
    }
    stride *= in_sizes[din];
  }
  int64_t n = 1;
  for (int64_t s : out_sizes) n *= s;
  std::vector<int64_t> src(static_cast<size_t>(n));
  std::vector<int64_t> idx(r, 0);
  int64_t cur = 0;
  for (int64_t i = 0; i < n; ++i) {
    src[static_cast<size_t>(i)] = cur;
    for (size_t d = r; d-- > 0;) {  // odometer increment over out's index
      cur += step[d];
      if (++idx[d] < out_sizes[d]) break;
      cur -= step[d] * out_sizes[d];
      idx[d] = 0;
    }
  }
  return src;
}

void add_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& other = args.tensor("other");
  kgb::HostTensor& out = args.tensor("out");
  const double alpha = args.scalar("alpha");

  const std::vector<int64_t> sa = broadcast_sources(out.sizes(), self.sizes());
  const std::vector<int64_t> sb = broadcast_sources(out.sizes(), other.sizes());
  const size_t n = sa.size();

  if (kgb::is_floating(out.dtype())) {
    const std::vector<double> a = kgb::to_doubles(self), b = kgb::to_doubles(other);
    std::vector<double> r(n);
    for (size_t i = 0; i < n; ++i) r[i] = a[static_cast<size_t>(sa[i])] + alpha * b[static_cast<size_t>(sb[i])];
    kgb::from_doubles(out, r);
    return;
  }
  if (alpha != std::floor(alpha)) throw std::runtime_error("aten/add: non-integral alpha for an integer dtype");
  const int64_t ialpha = static_cast<int64_t>(alpha);
  const std::vector<int64_t> a = kgb::to_ints(self), b = kgb::to_ints(other);
  std::vector<int64_t> r(n);
  for (size_t i = 0; i < n; ++i) r[i] = a[static_cast<size_t>(sa[i])] + ialpha * b[static_cast<size_t>(sb[i])];
  kgb::from_ints(out, r);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/add", add_reference);
