// Reference for aten/mish_backward: ATen's formula in double on logical
// indices with broadcasting, rounded once into grad_input's dtype.
#include <cmath>
#include <vector>

#include "../loss_inputs.h"
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void mish_backward_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& grad_output = args.tensor("grad_output");
  const kgb::HostTensor& self = args.tensor("self");
  kgb::pointwise::map_doubles({&grad_output, &self}, args.tensor("grad_input"), [](const std::vector<double>& v) {
    const double g = v[0], x = v[1];
    const double sig = 1.0 / (1.0 + std::exp(-x));
    const double tsp = std::tanh(std::log1p(std::exp(x)));
    return g * (tsp + x * sig * (1.0 - tsp * tsp));  // ±Inf: Inf * 0 = NaN, as ATen
  });
}

// self: normal(0, 3), so that both tails of the formula are reached, with
// NaN and ±Inf mixed in where the tensor is large enough.
void generate_self(kgb::GeneratorArgs& a) { kgb::loss_inputs::normal_with_specials(a, 0.0, 3.0, 0.02); }

}  // namespace

KGB_REGISTER_REFERENCE("aten/mish_backward", mish_backward_reference);
KGB_REGISTER_GENERATOR("aten/mish_backward/self", generate_self);
