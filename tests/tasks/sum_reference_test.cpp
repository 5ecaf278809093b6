// aten/sum: the C++ reference against libtorch's torch.sum(self, dim, keepdim,
// dtype=self.dtype) on every correctness case.
#include "aten_reference_check.h"

TEST_CASE("aten/sum reference matches libtorch sum(self, [dim], keepdim, dtype=self.dtype)") {
  kgb_test::check_reference_against_aten("aten/sum", [](kgb::CaseInstance& instance, auto& got) {
    at::Tensor self = kgb_test::aten_view(got.at("self"));
    at::Tensor out = kgb_test::aten_view(got.at("out"));
    const int64_t dim = static_cast<int64_t>(instance.scalars.at("dim"));
    const bool keepdim = instance.scalars.at("keepdim") != 0;
    out.copy_(at::sum(self, at::IntArrayRef{dim}, keepdim, self.scalar_type()));
  });
}
