// Shared by the custom statistical checks and samplers of the random ATen
// tasks (aten/poisson, aten/rrelu_with_noise): the splitmix64 finaliser their
// reference samplers key by (seed, logical index), the two-sample
// Kolmogorov-Smirnov distance and the correlation of two series.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

namespace kgb::random_check {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Two-sample Kolmogorov-Smirnov statistic of two sorted samples (ties, as
// in discrete or rounded data, are stepped over together).
inline double ks_distance(std::span<const double> a, std::span<const double> b) {
  size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::fabs(static_cast<double>(i) / static_cast<double>(a.size()) -
                              static_cast<double>(j) / static_cast<double>(b.size())));
  }
  return d;
}

// The two-sample statistic with one representable step of slack: how far
// either sample's CDF at a value v exceeds the other's at next_up(v), the
// next value of the output dtype above v. Two correct samplers that round in
// a different order move a draw by at most one step (ATen's CUDA kernel rounds
// its uniform to the 16-bit T before scaling it; the reference scales in
// double and rounds once: a plain distance of 0.0022 over 2e7 bf16 draws,
// twice the test's bound), so the comparison is made at the dtype's
// resolution; a distribution off by more than a step still shows.
template <typename NextUp>
inline double ks_distance_within_step(std::span<const double> a, std::span<const double> b, NextUp next_up) {
  double d = 0;
  auto one_side = [&](std::span<const double> p, std::span<const double> q) {
    for (size_t i = 0; i < p.size();) {
      const double v = p[i];
      const size_t at_or_below = static_cast<size_t>(std::upper_bound(p.begin(), p.end(), v) - p.begin());
      const size_t other = static_cast<size_t>(std::upper_bound(q.begin(), q.end(), next_up(v)) - q.begin());
      d = std::max(d, static_cast<double>(at_or_below) / static_cast<double>(p.size()) -
                          static_cast<double>(other) / static_cast<double>(q.size()));
      i = at_or_below;
    }
  };
  if (a.empty() || b.empty()) return 0;
  one_side(a, b);
  one_side(b, a);
  return d;
}

// Pearson correlation of the first min(|a|, |b|) elements (1 when either is
// constant: a constant series is as dependent as it gets).
inline double correlation(std::span<const double> a, std::span<const double> b) {
  const size_t n = std::min(a.size(), b.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= static_cast<double>(n), mb /= static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    const double da = a[i] - ma, db = b[i] - mb;
    sab += da * db, saa += da * da, sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 1.0;
}

}  // namespace kgb::random_check
