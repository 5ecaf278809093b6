// Input generator shared by the pointwise tasks whose float inputs carry
// special values. The built-in `special` share puts at least one NaN or
// infinity into every tensor, which turns the rank-0 and one-element cases
// (and every output they reach) into NaN, checking no arithmetic at all.
// This generator puts specials only into tensors of at least
// kMinElementsForSpecials elements; each task registers it under its own
// parameter names ("<task id>/<param>").
#pragma once

#include <cstdint>
#include <limits>
#include <random>

#include "kgb/dtype.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::pointwise {

constexpr int64_t kMinElementsForSpecials = 16;

// Floats: normal(0, 1), and in tensors of at least kMinElementsForSpecials
// elements 2% of them (at least one) NaN, +Inf and -Inf at random positions.
// Integers: uniform in [-8, 8] (small enough that no product overflows);
// bool: 0 or 1.
inline void normal_with_specials(GeneratorArgs& g) {
  HostTensor& t = g.tensor;
  const int64_t n = t.numel();
  if (is_floating(t.dtype())) {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (int64_t i = 0; i < n; ++i) t.set(i, normal(g.rng));
    if (n < kMinElementsForSpecials) return;
    const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity()};
    std::uniform_int_distribution<int64_t> pick(0, n - 1);
    const int64_t k = n / 50 > 0 ? n / 50 : 1;
    for (int64_t j = 0; j < k; ++j) t.set(pick(g.rng), specials[j % 3]);
  } else if (t.dtype() == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) t.set_int(i, static_cast<int64_t>(g.rng() >> 63));
  } else {
    std::uniform_int_distribution<int64_t> value(-8, 8);
    for (int64_t i = 0; i < n; ++i) t.set_int(i, value(g.rng));
  }
}

}  // namespace kgb::pointwise
