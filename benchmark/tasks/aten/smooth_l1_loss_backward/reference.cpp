// Reference for aten/smooth_l1_loss_backward: the gradient in double on
// logical indices with broadcasting (grad_output is 0-dim for mean and sum),
// rounded once into grad_input's dtype.
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void smooth_l1_loss_backward_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const int64_t reduction = args.int_scalar("reduction");  // none 0, mean 1, sum 2
  const double beta = args.scalar("beta");
  const double norm = reduction == 1 ? 1.0 / static_cast<double>(self.numel()) : 1.0;
  kgb::pointwise::map_doubles({&args.tensor("grad_output"), &self, &args.tensor("target")}, args.tensor("grad_input"),
                              [&](const std::vector<double>& v) {
                                const double g = v[0], d = v[1] - v[2];
                                if (beta <= 0) {  // the L1 loss's gradient: sign(d), sign(0) = 0
                                  const double sign = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
                                  return sign * norm * g;
                                }
                                if (d < -beta) return -norm * g;
                                if (d > beta) return norm * g;
                                return norm * d * g / beta;
                              });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/smooth_l1_loss_backward", smooth_l1_loss_backward_reference);
