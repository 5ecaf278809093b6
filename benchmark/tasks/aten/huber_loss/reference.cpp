// Reference for aten/huber_loss: the elementwise loss in double with
// broadcasting, then ATen's reduction (loss_reference.h). self - target is
// rounded to the dtype first: ATen's kernel subtracts in scalar_t (for 16-bit
// types a rounded result), the rest runs in float.
#include <cmath>
#include <vector>

#include "../loss_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void huber_loss_reference(kgb::RefArgs& args) {
  const double delta = args.scalar("delta");
  const kgb::DType dtype = args.tensor("out").dtype();
  kgb::loss_reference::apply({&args.tensor("self"), &args.tensor("target")}, args.tensor("out"),
                             args.int_scalar("reduction"), [&](const std::vector<double>& v) {
                               const double z = std::fabs(kgb::round_to(dtype, v[0] - v[1]));
                               return z < delta ? 0.5 * z * z : delta * (z - 0.5 * delta);
                             });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/huber_loss", huber_loss_reference);
