// Reference for aten/soft_margin_loss: log1p(exp(-target * self)) in double
// with broadcasting, then ATen's reduction (loss_reference.h).
#include <cmath>
#include <vector>

#include "../loss_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void soft_margin_loss_reference(kgb::RefArgs& args) {
  kgb::loss_reference::apply({&args.tensor("self"), &args.tensor("target")}, args.tensor("out"),
                             args.int_scalar("reduction"),
                             [](const std::vector<double>& v) { return std::log1p(std::exp(-v[1] * v[0])); });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/soft_margin_loss", soft_margin_loss_reference);
