#include "kgb/random.h"

#include <cmath>
#include <cstdlib>

namespace kgb {
namespace {

constexpr int kLayers = 128;
constexpr double kTail = 3.442619855899;       // start of the tail region, r
constexpr double kArea = 9.91256303526217e-3;  // area of every layer, v
constexpr double kScale = 2147483648.0;        // 2^31: candidates are signed 32-bit integers

struct ZigguratTables {
  uint32_t k[kLayers];  // |candidate| below k[i] lies inside layer i's rectangle
  double w[kLayers];    // candidate -> x
  double f[kLayers];    // density at each layer's edge
  ZigguratTables() {
    double d = kTail, t = d;
    const double q = kArea / std::exp(-0.5 * d * d);
    k[0] = static_cast<uint32_t>((d / q) * kScale);
    k[1] = 0;
    w[0] = q / kScale;
    w[kLayers - 1] = d / kScale;
    f[0] = 1.0;
    f[kLayers - 1] = std::exp(-0.5 * d * d);
    for (int i = kLayers - 2; i >= 1; --i) {
      d = std::sqrt(-2.0 * std::log(kArea / d + std::exp(-0.5 * d * d)));
      k[i + 1] = static_cast<uint32_t>((d / t) * kScale);
      t = d;
      f[i] = std::exp(-0.5 * d * d);
      w[i] = d / kScale;
    }
  }
};

const ZigguratTables& tables() {
  static const ZigguratTables t;
  return t;
}

}  // namespace

double standard_normal(SplitMix64& g) {
  const ZigguratTables& z = tables();
  for (;;) {
    const uint64_t bits = g();
    const int layer = static_cast<int>(bits & (kLayers - 1));
    const auto candidate = static_cast<int32_t>(bits >> 32);
    const double x = candidate * z.w[layer];
    const uint32_t magnitude = candidate < 0 ? 0u - static_cast<uint32_t>(candidate) : static_cast<uint32_t>(candidate);
    if (magnitude < z.k[layer]) return x;  // inside the rectangle: the fast path, ~99% of draws
    if (layer == 0) {
      // The tail beyond r, sampled by Marsaglia's exponential method.
      double tx, ty;
      do {
        tx = -std::log(uniform_open01(g)) / kTail;
        ty = -std::log(uniform_open01(g));
      } while (ty + ty < tx * tx);
      return candidate > 0 ? kTail + tx : -kTail - tx;
    }
    // The wedge between the rectangle and the curve.
    if (z.f[layer] + uniform_open01(g) * (z.f[layer - 1] - z.f[layer]) < std::exp(-0.5 * x * x)) return x;
  }
}

}  // namespace kgb
