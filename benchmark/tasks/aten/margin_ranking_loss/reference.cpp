// Reference for aten/margin_ranking_loss: max(0, -target * (input1 - input2)
// + margin) in double with broadcasting (NaN propagates, as clamp_min does),
// then ATen's reduction (loss_reference.h). ATen composes tensor ops, so
// input1 - input2 is a tensor of the dtype: rounded before the rest.
#include <cmath>
#include <vector>

#include "../loss_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void margin_ranking_loss_reference(kgb::RefArgs& args) {
  const double margin = args.scalar("margin");
  const kgb::DType dtype = args.tensor("out").dtype();
  kgb::loss_reference::apply({&args.tensor("input1"), &args.tensor("input2"), &args.tensor("target")},
                             args.tensor("out"), args.int_scalar("reduction"), [&](const std::vector<double>& v) {
                               const double u = -v[2] * kgb::round_to(dtype, v[0] - v[1]) + margin;
                               return u < 0 ? 0.0 : u;
                             });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/margin_ranking_loss", margin_ranking_loss_reference);
