// Input generator shared by the ATen reduction tasks (aten/amin,
// aten/argmax, aten/sum, ...). The built-in `special` share would put a NaN into nearly
// every slice of a long reduction (every output NaN: nothing else checked);
// here a case chooses how many special values land in self, through its dims:
//   "specials": k  -> k positions get NaN, -inf, +inf (in that rotation);
//   "ties": 1      -> values are small integers, so equal values meet inside
//                     a slice (tie rules of argmax / amin).
// Each task registers it under its own parameter name ("<task id>/self").
#pragma once

#include <cstdint>
#include <limits>
#include <random>

#include "kgb/dtype.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::reduction {

inline int64_t case_dim(const GeneratorArgs& g, const char* name) {
  auto it = g.dims.find(name);
  return it == g.dims.end() ? 0 : it->second;
}

// Floats: normal(0, 1) (or integers in [-3, 3] with "ties"); integers:
// uniform in [-1000, 1000] ([-3, 3] with "ties"; u8 from 0); bool: 0 or 1.
inline void values_with_specials(GeneratorArgs& g) {
  HostTensor& t = g.tensor;
  const int64_t n = t.numel();
  const bool ties = case_dim(g, "ties") != 0;
  if (t.dtype() == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) t.set_int(i, static_cast<int64_t>(g.rng() >> 63));
    return;
  }
  if (!is_floating(t.dtype())) {
    const int64_t low = t.dtype() == DType::U8 ? 0 : (ties ? -3 : -1000);  // u8 holds no negatives
    std::uniform_int_distribution<int64_t> value(low, ties ? 3 : (t.dtype() == DType::U8 ? 255 : 1000));
    for (int64_t i = 0; i < n; ++i) t.set_int(i, value(g.rng));
    return;
  }
  if (ties) {
    std::uniform_int_distribution<int64_t> value(-3, 3);
    for (int64_t i = 0; i < n; ++i) t.set(i, static_cast<double>(value(g.rng)));
  } else {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (int64_t i = 0; i < n; ++i) t.set(i, normal(g.rng));
  }
  const int64_t k = case_dim(g, "specials");
  if (k <= 0 || n == 0) return;
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::infinity()};
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  for (int64_t j = 0; j < k; ++j) t.set(pick(g.rng), specials[j % 3]);
}

}  // namespace kgb::reduction
