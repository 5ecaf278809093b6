// Reference for aten/rrelu_with_noise_backward: torch 2.x's rule in double
// (grad * noise when training with upper - lower > 1e-6, else the leaky slope
// (lower + upper) / 2 where self <= 0), rounded once into grad_input's dtype.
// noise is generated as the forward pass draws it, consistent with self.
#include <stdexcept>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void rrelu_with_noise_backward_reference(kgb::RefArgs& args) {
  const double lower = args.scalar("lower"), upper = args.scalar("upper");
  const bool use_noise = args.bool_scalar("training") && upper - lower > 1e-6;
  const double slope = (lower + upper) / 2;
  kgb::pointwise::map_doubles({&args.tensor("grad_output"), &args.tensor("self"), &args.tensor("noise")},
                              args.tensor("grad_input"), [&](const std::vector<double>& v) {
                                const double g = v[0], x = v[1], noise = v[2];
                                if (use_noise) return g * noise;
                                return x > 0 ? g : g * slope;
                              });
}

// noise as rrelu_with_noise's forward pass leaves it: 1 where the input is
// positive, uniform in [lower, upper] elsewhere (self may broadcast to it).
void generate_noise(kgb::GeneratorArgs& a) {
  const kgb::HostTensor& self = *a.filled.at("self");
  const double lower = a.scalars.at("lower").number().value(), upper = a.scalars.at("upper").number().value();
  if (self.sizes() != a.tensor.sizes()) throw std::runtime_error("noise must have self's shape");
  for (int64_t i = 0; i < a.tensor.numel(); ++i)
    a.tensor.set(i, self.get(i) > 0 ? 1.0 : lower + (upper - lower) * kgb::uniform_open01(a.rng));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/rrelu_with_noise_backward", rrelu_with_noise_backward_reference);
KGB_REGISTER_GENERATOR("aten/rrelu_with_noise_backward/noise", generate_noise);
