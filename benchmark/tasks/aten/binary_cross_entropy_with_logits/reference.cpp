// Reference for aten/binary_cross_entropy_with_logits: the loss in double
// with broadcasting (a None weight or pos_weight is 1), rounded once, then
// ATen's reduction (loss_reference.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "../loss_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void binary_cross_entropy_with_logits_reference(kgb::RefArgs& args) {
  const kgb::HostTensor* weight = args.optional_tensor("weight");
  const kgb::HostTensor* pos_weight = args.optional_tensor("pos_weight");
  std::vector<const kgb::HostTensor*> inputs{&args.tensor("self"), &args.tensor("target")};
  if (weight) inputs.push_back(weight);
  if (pos_weight) inputs.push_back(pos_weight);
  const size_t wi = 2, pi = weight ? 3 : 2;
  kgb::loss_reference::apply(inputs, args.tensor("out"), args.int_scalar("reduction"), [&](const std::vector<double>& v) {
    const double x = v[0], t = v[1];
    const double w = weight ? v[wi] : 1.0, p = pos_weight ? v[pi] : 1.0;
    const double m = std::max(-x, 0.0);
    const double softplus_neg = m + std::log(std::exp(-m) + std::exp(-x - m));  // log(1 + exp(-x))
    return w * ((1.0 - t) * x + (1.0 + (p - 1.0) * t) * softplus_neg);
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/binary_cross_entropy_with_logits", binary_cross_entropy_with_logits_reference);
