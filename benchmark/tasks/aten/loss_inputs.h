// Input generators shared by the ATen loss and pointwise-backward tasks
// (mish_backward, softplus_backward, log_sigmoid_backward, ...), registered
// per task with KGB_REGISTER_GENERATOR in each task's reference.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::loss_inputs {

// normal(mean, stddev) values, with NaN, +Inf and -Inf mixed in (a share of
// `special`, at least one of each kind) in tensors of `min_numel` to
// `max_numel` elements. Smaller tensors (rank 0, size 1) stay finite, so that
// their few outputs are not all NaN, which would check nothing (the `dist`
// modifier "special" always plants a NaN, even in one element); larger ones
// (performance sizes) stay finite as model activations are, and the largest
// correctness grid checks finite values at scale.
inline void normal_with_specials(GeneratorArgs& a, double mean, double stddev, double special,
                                 int64_t min_numel = 16, int64_t max_numel = 131072) {
  HostTensor& t = a.tensor;
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) t.set(i, mean + stddev * standard_normal(a.rng));
  if (n < min_numel || n > max_numel) return;
  const double values[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  int64_t k = static_cast<int64_t>(special * static_cast<double>(n));
  if (k < 3) k = 3;
  for (int64_t j = 0; j < k; ++j) t.set(static_cast<int64_t>(a.rng() % static_cast<uint64_t>(n)), values[j % 3]);
}

}  // namespace kgb::loss_inputs
