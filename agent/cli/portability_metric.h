// The performance-portability metric of `kgb portability` (Pennycook et al.):
// the harmonic mean of the per-platform efficiencies of a kernel, 0 when it
// fails on any platform. A platform that passed without an efficiency (it
// cannot time: emulated or compile-only) adds no term; with no term at all
// the metric is undefined (nullopt).
#pragma once

#include <optional>
#include <vector>

namespace kgb::cli {

struct PlatformOutcome {
  bool passed = false;
  std::optional<double> efficiency;  // speedup over the platform's baseline, or roofline fraction
};

inline std::optional<double> performance_portability(const std::vector<PlatformOutcome>& outcomes) {
  double inverse_sum = 0;
  int terms = 0;
  for (const auto& o : outcomes) {
    if (!o.passed) return 0.0;
    if (!o.efficiency) continue;
    if (*o.efficiency <= 0) return 0.0;
    inverse_sum += 1.0 / *o.efficiency;
    ++terms;
  }
  if (terms == 0) return std::nullopt;
  return static_cast<double>(terms) / inverse_sum;
}

}  // namespace kgb::cli
