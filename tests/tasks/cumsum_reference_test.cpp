// aten/cumsum: the C++ reference against libtorch's torch.cumsum(self, dim,
// dtype=self.dtype) on every correctness case.
#include "aten_reference_check.h"

TEST_CASE("aten/cumsum reference matches libtorch cumsum(self, dim, dtype=self.dtype)") {
  kgb_test::check_reference_against_aten("aten/cumsum", [](kgb::CaseInstance& instance, auto& got) {
    at::Tensor self = kgb_test::aten_view(got.at("self"));
    at::Tensor out = kgb_test::aten_view(got.at("out"));
    const int64_t dim = static_cast<int64_t>(instance.scalars.at("dim"));
    // This libtorch has no CPU Half cumsum kernel: accumulate through float
    // and round each output once to half.
    if (self.scalar_type() == at::kHalf) out.copy_(at::cumsum(self, dim, at::kFloat));
    else out.copy_(at::cumsum(self, dim, self.scalar_type()));
  });
}
