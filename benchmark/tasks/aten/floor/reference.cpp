// Reference for aten/floor: out = floor(self), the identity on integers.
// floor of a float is exact, so the double result stores without rounding.
#include <cmath>
#include <cstdint>
#include <vector>

#include "../pointwise_inputs.h"
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void floor_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (kgb::is_floating(out.dtype())) {
    kgb::pointwise::map_doubles({&self}, out, [](const std::vector<double>& v) { return std::floor(v[0]); });
    return;
  }
  kgb::pointwise::map_ints({&self}, out, [](const std::vector<int64_t>& v) { return v[0]; });
}

// Values spread over [-8, 8) so that floor moves most of them (and a few
// whole numbers and halves stay exact ties), plus NaN and infinities.
void floor_input(kgb::GeneratorArgs& g) {
  kgb::pointwise::normal_with_specials(g);
  if (!kgb::is_floating(g.tensor.dtype())) return;
  const int64_t n = g.tensor.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double v = g.tensor.get(i);
    if (!std::isfinite(v)) continue;
    // every eighth value a multiple of 0.5 (exact in every float dtype), the rest scaled by 4
    g.tensor.set(i, i % 8 == 0 ? std::round(v * 8.0) / 2.0 : v * 4.0);
  }
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/floor/self", floor_input);
KGB_REGISTER_REFERENCE("aten/floor", floor_reference);
