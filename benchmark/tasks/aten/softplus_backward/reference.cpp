// Reference for aten/softplus_backward: ATen's formula in double on logical
// indices with broadcasting, rounded once into grad_input's dtype.
#include <cmath>
#include <vector>

#include "../loss_inputs.h"
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void softplus_backward_reference(kgb::RefArgs& args) {
  const double beta = args.scalar("beta"), threshold = args.scalar("threshold");
  kgb::pointwise::map_doubles({&args.tensor("grad_output"), &args.tensor("self")}, args.tensor("grad_input"),
                              [&](const std::vector<double>& v) {
                                const double g = v[0], bx = v[1] * beta;
                                if (bx > threshold) return g;  // softplus is linear here
                                const double z = std::exp(bx);
                                return g * z / (z + 1.0);
                              });
}

// self: normal(0, 8), so that beta * x falls on both sides of the threshold,
// with NaN and ±Inf mixed in where the tensor is large enough.
void generate_self(kgb::GeneratorArgs& a) { kgb::loss_inputs::normal_with_specials(a, 0.0, 8.0, 0.02); }

}  // namespace

KGB_REGISTER_REFERENCE("aten/softplus_backward", softplus_backward_reference);
KGB_REGISTER_GENERATOR("aten/softplus_backward/self", generate_self);
