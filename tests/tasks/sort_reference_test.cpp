// aten/sort: the C++ reference against libtorch's torch.sort on every
// correctness case. libtorch's outputs go through the task's own sort check
// (values exact, indices consistent), so a different order among equal values
// is accepted, as it is for kernels.
#include "aten_reference_check.h"

TEST_CASE("aten/sort reference matches libtorch sort(self, dim, descending)") {
  kgb_test::check_reference_against_aten("aten/sort", [](kgb::CaseInstance& instance, auto& got) {
    at::Tensor self = kgb_test::aten_view(got.at("self"));
    at::Tensor values = kgb_test::aten_view(got.at("values"));
    at::Tensor indices = kgb_test::aten_view(got.at("indices"));
    auto [v, i] = at::sort(self, static_cast<int64_t>(instance.scalars.at("dim")), instance.scalars.at("descending") != 0);
    values.copy_(v);
    indices.copy_(i);
  });
}

// The reference's indices are never compared with libtorch's (ties may be
// ordered differently), so check them on their own: a permutation per slice
// with self[index] == value.
TEST_CASE("aten/sort reference indices are consistent with its values") {
  auto task = kgb::load_task_file(kgb::tasks_root() / "aten/sort/spec.json");
  REQUIRE(task.ok());
  for (const kgb::Case& c : task->correctness)
    for (kgb::DType dtype : kgb::case_dtypes(*task, c)) {
      auto instance = kgb::instantiate_case(*task, c, dtype, 0x5eed0003);
      REQUIRE(instance.ok());
      auto expected = kgb::run_reference(*instance);
      REQUIRE(expected.ok());
      std::map<std::string, kgb::HostTensor> got = *expected;
      const kgb::CaseCheck check = kgb::check_outputs(*instance, *expected, got);
      CHECK_MESSAGE(check.passed, instance->label() << ": " << check.message);
    }
}
