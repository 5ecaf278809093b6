// aten/softmax: the C++ reference against libtorch's torch.softmax on every correctness case.
#include <cmath>
#include <limits>

#include "aten_reference_check.h"

TEST_CASE("aten/softmax reference matches libtorch softmax(self, dim)") {
  kgb_test::check_reference_against_aten("aten/softmax", [](kgb::CaseInstance& instance, auto& got) {
    at::Tensor self = kgb_test::aten_view(got.at("self"));
    at::Tensor out = kgb_test::aten_view(got.at("out"));
    const int64_t dim = static_cast<int64_t>(instance.scalars.at("dim"));
    // This libtorch has no CPU Half softmax kernel: compute in float and round
    // once to half, exactly what PyTorch's Half path does.
    if (self.scalar_type() == at::kHalf) out.copy_(at::softmax(self, dim, at::kFloat));
    else out.copy_(at::softmax(self, dim));
  });
}

// The harness draws no NaN/Inf for softmax (input distributions are per
// parameter, so they would reach every case), but the spec states what they
// give. Inject them by hand into a row case and a column case and hold the
// reference to libtorch: NaN or +inf in a slice -> NaN slice, -inf -> 0,
// an all -inf slice -> NaN.
TEST_CASE("aten/softmax reference follows libtorch on NaN and infinities") {
  auto task = kgb::load_task_file(kgb::tasks_root() / "aten/softmax/spec.json");
  REQUIRE(task.ok());
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  int compared = 0;
  for (const kgb::Case& c : task->correctness) {
    if (c.name != "rows_odd" && c.name != "columns_dim0") continue;
    const bool rows = c.name == "rows_odd";  // slices are rows (dim 1) or columns (dim 0)
    for (kgb::DType dtype : kgb::case_dtypes(*task, c)) {
      auto instance = kgb::instantiate_case(*task, c, dtype, 0x5eed0004);
      REQUIRE(instance.ok());
      kgb::HostTensor& self = instance->tensors.at("self");
      const int64_t cols = self.sizes()[1];
      auto set = [&](int64_t slice, int64_t pos, double v) {
        self.set(rows ? slice * cols + pos : pos * cols + slice, v);
      };
      set(0, 3, nan);
      set(1, 5, inf);
      set(2, 7, -inf);
      for (int64_t k = 0; k < self.sizes()[rows ? 1 : 0]; ++k) set(3, k, -inf);
      auto expected = kgb::run_reference(*instance);
      REQUIRE(expected.ok());
      std::map<std::string, kgb::HostTensor> got = instance->tensors;
      at::Tensor x = kgb_test::aten_view(got.at("self"));
      at::Tensor out = kgb_test::aten_view(got.at("out"));
      const int64_t dim = static_cast<int64_t>(instance->scalars.at("dim"));
      if (x.scalar_type() == at::kHalf) out.copy_(at::softmax(x, dim, at::kFloat));
      else out.copy_(at::softmax(x, dim));
      const kgb::CaseCheck check = kgb::check_outputs(*instance, *expected, got);
      CHECK_MESSAGE(check.passed, instance->label() << ": " << check.message);
      // The injected slices really are NaN / hold a zero in the reference.
      const kgb::HostTensor& ref = expected->at("out");
      CHECK(std::isnan(ref.get(rows ? 0 * cols + 0 : 0)));
      CHECK(std::isnan(ref.get(rows ? 3 * cols + 0 : 3)));
      CHECK(ref.get(rows ? 2 * cols + 7 : 7 * cols + 2) == 0.0);
      ++compared;
    }
  }
  CHECK(compared == 8);
}
