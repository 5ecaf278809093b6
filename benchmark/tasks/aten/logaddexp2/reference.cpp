// Reference for aten/logaddexp2: log2(2^a + 2^b) in double in the stable
// form ATen uses, max(a, b) + log1p(2^-|a-b|) / ln 2, equal infinities giving
// themselves; rounded once into the output dtype.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../pointwise_reference.h"
#include "../promoted_binary.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

double logaddexp2(double a, double b) {
  if (std::isinf(a) && a == b) return a;
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return std::max(a, b) + std::log1p(std::exp2(-std::fabs(a - b))) / std::log(2.0);
}

void logaddexp2_reference(kgb::RefArgs& args) {
  kgb::pointwise::map_doubles({&args.tensor("self"), &args.tensor("other")}, args.tensor("out"),
                              [](const std::vector<double>& v) { return logaddexp2(v[0], v[1]); });
}

// Normal values (stddev 4) with 5% NaN/+-inf; about a tenth of other's
// elements repeat self's value at the same logical index where the shapes
// agree, so that equal values and equal infinities occur.
void self_values(kgb::GeneratorArgs& g) {
  kgb::pointwise::fill_operand(
      g, [](kgb::SplitMix64& rng) { return 4.0 * kgb::standard_normal(rng); },
      [](kgb::SplitMix64& rng) { return std::llround(4.0 * kgb::standard_normal(rng)); }, 0.05);
}
void other_values(kgb::GeneratorArgs& g) {
  self_values(g);
  auto it = g.filled.find("self");
  if (it == g.filled.end() || it->second->sizes() != g.tensor.sizes()) return;
  for (int64_t i = 0; i < g.tensor.numel(); ++i)
    if (g.rng() % 10 == 0) g.tensor.set(i, it->second->get(i));
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/logaddexp2/self", self_values);
KGB_REGISTER_GENERATOR("aten/logaddexp2/other", other_values);
KGB_REGISTER_REFERENCE("aten/logaddexp2", logaddexp2_reference);
