// aten/add: the C++ reference against libtorch's torch.add on every correctness case.
#include <cmath>

#include "aten_reference_check.h"

TEST_CASE("aten/add reference matches libtorch add(self, other, alpha)") {
  kgb_test::check_reference_against_aten("aten/add", [](kgb::CaseInstance& instance, auto& got) {
    at::Tensor self = kgb_test::aten_view(got.at("self"));
    at::Tensor other = kgb_test::aten_view(got.at("other"));
    at::Tensor out = kgb_test::aten_view(got.at("out"));
    const double alpha = instance.scalars.at("alpha");
    const at::Scalar a = at::isIntegralType(self.scalar_type(), false)
                             ? at::Scalar(static_cast<int64_t>(std::llround(alpha)))
                             : at::Scalar(alpha);
    if (self.scalar_type() == at::kHalf || self.scalar_type() == at::kBFloat16) {
      // The spec follows PyTorch's opmath rule (compute in float, round once).
      // libtorch 1.13's Half/BFloat16 CPU add rounds alpha * other to 16 bits
      // first, so evaluate the same op in float and round once.
      out.copy_(at::add(self.to(at::kFloat), other.to(at::kFloat), a));
    } else {
      out.copy_(at::add(self, other, a));
    }
  });
}
