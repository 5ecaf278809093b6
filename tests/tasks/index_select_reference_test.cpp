// aten/index_select: the C++ reference against libtorch's torch.index_select
// on every correctness case.
#include "aten_reference_check.h"

TEST_CASE("aten/index_select reference matches libtorch index_select(self, dim, index)") {
  kgb_test::check_reference_against_aten("aten/index_select", [](kgb::CaseInstance& instance, auto& got) {
    at::Tensor self = kgb_test::aten_view(got.at("self"));
    at::Tensor index = kgb_test::aten_view(got.at("index"));
    at::Tensor out = kgb_test::aten_view(got.at("out"));
    out.copy_(at::index_select(self, static_cast<int64_t>(instance.scalars.at("dim")), index));
  });
}
