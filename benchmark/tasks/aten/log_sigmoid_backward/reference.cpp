// Reference for aten/log_sigmoid_backward: ATen's CUDA formula in double,
// z = exp(-|x|) recomputed from self (the CPU kernel reads it from buffer),
// broadcasting grad_output, rounded once into grad_input's dtype.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../loss_inputs.h"
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void log_sigmoid_backward_reference(kgb::RefArgs& args) {
  kgb::pointwise::map_doubles({&args.tensor("grad_output"), &args.tensor("self")}, args.tensor("grad_input"),
                              [](const std::vector<double>& v) {
                                const double g = v[0], x = v[1];
                                const double z = std::exp(-std::fabs(x));
                                const double q = z / (1.0 + z);
                                return x < 0 ? g * (1.0 - q) : g * q;
                              });
}

void generate_self(kgb::GeneratorArgs& a) { kgb::loss_inputs::normal_with_specials(a, 0.0, 4.0, 0.02); }

// buffer: what log_sigmoid_forward leaves for this self, exp(-|x|) rounded
// to the dtype (HostTensor::set rounds), element by element on logical indices.
void generate_buffer(kgb::GeneratorArgs& a) {
  const kgb::HostTensor& self = *a.filled.at("self");
  if (self.sizes() != a.tensor.sizes()) throw std::runtime_error("buffer must have self's shape");
  for (int64_t i = 0; i < a.tensor.numel(); ++i) a.tensor.set(i, std::exp(-std::fabs(self.get(i))));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/log_sigmoid_backward", log_sigmoid_backward_reference);
KGB_REGISTER_GENERATOR("aten/log_sigmoid_backward/self", generate_self);
KGB_REGISTER_GENERATOR("aten/log_sigmoid_backward/buffer", generate_buffer);
