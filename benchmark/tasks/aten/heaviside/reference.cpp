// Reference for aten/heaviside: out = self == 0 ? values : (self > 0 ? 1 : 0)
// with PyTorch broadcasting, all three in one dtype. The result is 0, 1 or an
// element of values, so the double computation stores exactly.
#include <cmath>
#include <cstdint>

#include "../binary_reference.h"
#include "../pointwise_inputs.h"

namespace {

void heaviside_reference(kgb::RefArgs& args) {
  kgb::pointwise::binary_tensors(
      args.tensor("self"), args.tensor("values"), args.tensor("out"),
      [](double a, double b) { return a == 0 ? b : (a > 0 ? 1.0 : 0.0); },
      [](int64_t a, int64_t b) { return a == 0 ? b : (a > 0 ? int64_t{1} : int64_t{0}); });
}

// self: the shared inputs with every third element a zero (+0.0 and -0.0 in
// turn for floats), so that all three branches occur; a tensor of fewer than
// kMinElementsForSpecials elements gets zeros at even positions and positive
// values at odd ones (its output then shows values, never an all-zero result).
void heaviside_self(kgb::GeneratorArgs& g) {
  kgb::pointwise::normal_with_specials(g);
  kgb::HostTensor& t = g.tensor;
  const int64_t n = t.numel();
  const bool is_float = kgb::is_floating(t.dtype());
  for (int64_t i = 0; i < n; ++i) {
    if (n < kgb::pointwise::kMinElementsForSpecials) {
      if (i % 2 == 0) t.set_int(i, 0);
      else if (is_float) t.set(i, std::fabs(t.get(i)) + 0.5);
      else t.set_int(i, 1 + (t.get(i) < 0 ? -static_cast<int64_t>(t.get(i)) : static_cast<int64_t>(t.get(i))) % 7);
    } else if (i % 3 == 0) {
      if (is_float) t.set(i, (i / 3) % 2 ? -0.0 : 0.0);
      else t.set_int(i, 0);
    }
  }
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/heaviside/self", heaviside_self);
KGB_REGISTER_GENERATOR("aten/heaviside/values", kgb::pointwise::normal_with_specials);
KGB_REGISTER_REFERENCE("aten/heaviside", heaviside_reference);
