// The reduction step shared by the references of ATen's loss tasks
// (huber_loss, soft_margin_loss, margin_ranking_loss,
// binary_cross_entropy_with_logits): ATen computes the elementwise loss as a
// tensor of the inputs' dtype, then apply_loss_reduction takes its mean or sum.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "pointwise_reference.h"
#include "kgb/tensor.h"

namespace kgb::loss_reference {

// The inputs' broadcast shape (right-aligned; a None input is skipped).
inline std::vector<int64_t> broadcast_shape(const std::vector<const HostTensor*>& inputs) {
  size_t rank = 0;
  for (const HostTensor* t : inputs) rank = std::max(rank, t->sizes().size());
  std::vector<int64_t> shape(rank, 1);
  for (const HostTensor* t : inputs)
    for (size_t j = 0; j < t->sizes().size(); ++j) {
      const size_t d = rank - t->sizes().size() + j;
      const int64_t n = t->sizes()[j];
      if (n == 1) continue;
      if (shape[d] != 1 && shape[d] != n) throw std::runtime_error("loss reference: inputs do not broadcast");
      shape[d] = n;
    }
  return shape;
}

// reduction none (0): out = f(inputs) elementwise with broadcasting, in double,
// rounded once. mean (1) / sum (2): out is 0-dim; each element's loss is
// rounded to out's dtype first (ATen's loss tensor), the values are summed in
// double (mean divides by their count: the mean of nothing is NaN, as in
// ATen) and the result is rounded once.
template <class F>
void apply(const std::vector<const HostTensor*>& inputs, HostTensor& out, int64_t reduction, F f) {
  if (reduction == 0) {
    pointwise::map_doubles(inputs, out, f);
    return;
  }
  if (reduction != 1 && reduction != 2) throw std::runtime_error("loss reference: reduction must be 0, 1 or 2");
  HostTensor loss = HostTensor::contiguous(out.dtype(), broadcast_shape(inputs));
  pointwise::map_doubles(inputs, loss, f);
  const int64_t n = loss.numel();
  double total = 0;
  for (int64_t i = 0; i < n; ++i) total += loss.get(i);
  if (reduction == 1) total /= static_cast<double>(n);
  out.set(0, total);
}

}  // namespace kgb::loss_reference
