// Reference for aten/prelu: out = self > 0 ? self : weight[c] * self, c the
// index along dim 1 (a 1-element weight is shared), in double on logical
// indices, rounded once into the output dtype.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../promoted_binary.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void prelu_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& weight = args.tensor("weight");
  kgb::HostTensor& out = args.tensor("out");
  const std::vector<double> x = kgb::to_doubles(self), w = kgb::to_doubles(weight);
  if (w.size() != 1 && (self.rank() < 2 || static_cast<int64_t>(w.size()) != self.sizes()[1]))
    throw std::runtime_error("aten/prelu: weight has neither 1 nor size(self, 1) elements");
  // Row-major logical order: the channel of element i is (i / inner) % C.
  int64_t inner = 1;
  for (int d = 2; d < self.rank(); ++d) inner *= self.sizes()[d];
  const int64_t channels = self.rank() >= 2 ? self.sizes()[1] : 1;
  std::vector<double> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double wi = w.size() == 1 ? w[0] : w[static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels)];
    r[i] = x[i] > 0 ? x[i] : wi * x[i];
  }
  kgb::from_doubles(out, r);
}

// self: normal values with 3% NaN/+-inf; weight: normal, stddev 0.5 (negative weights too).
void self_values(kgb::GeneratorArgs& g) {
  kgb::pointwise::fill_operand(
      g, [](kgb::SplitMix64& rng) { return 2.0 * kgb::standard_normal(rng); },
      [](kgb::SplitMix64& rng) { return std::llround(2.0 * kgb::standard_normal(rng)); }, 0.03);
}
void weight_values(kgb::GeneratorArgs& g) {
  kgb::pointwise::fill_operand(
      g, [](kgb::SplitMix64& rng) { return 0.5 * kgb::standard_normal(rng); },
      [](kgb::SplitMix64& rng) { return std::llround(0.5 * kgb::standard_normal(rng)); }, 0.0);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/prelu/self", self_values);
KGB_REGISTER_GENERATOR("aten/prelu/weight", weight_values);
KGB_REGISTER_REFERENCE("aten/prelu", prelu_reference);
