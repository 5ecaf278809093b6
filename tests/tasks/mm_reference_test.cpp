// aten/mm: the C++ reference agrees with libtorch on every correctness case
// and dtype, on the very input tensors the harness generates (same strides).
#include <doctest/doctest.h>

#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

#include "kgb/case.h"
#include "kgb/paths.h"
#include "kgb/task.h"

namespace {

at::ScalarType aten_type(kgb::DType t) {
  switch (t) {
    case kgb::DType::F32: return at::kFloat;
    case kgb::DType::F64: return at::kDouble;
    case kgb::DType::F16: return at::kHalf;
    case kgb::DType::BF16: return at::kBFloat16;
    default: FAIL("aten/mm has no dtype " << kgb::dtype_name(t)); return at::kFloat;
  }
}

// An ATen view over a host tensor's storage, with its sizes and strides.
at::Tensor wrap(kgb::HostTensor& t) {
  return at::from_blob(t.data(), t.sizes(), t.strides(), at::TensorOptions().dtype(aten_type(t.dtype())));
}

// libtorch's mm written into got["out"]. The 16-bit types go through float
// (inputs upcast exactly, one float mm, rounded once), which is what the task
// asks of kernels and what current PyTorch does on the CPU: libtorch 1.13 has
// no CPU half mm at all, and its bf16 mm rounds partial sums to bf16, an error
// that grows with K (about 3 at K = 300) and is not the op's semantics.
void aten_mm(std::map<std::string, kgb::HostTensor>& got) {
  at::Tensor self = wrap(got.at("self")), mat2 = wrap(got.at("mat2")), out = wrap(got.at("out"));
  if (out.scalar_type() == at::kHalf || out.scalar_type() == at::kBFloat16)
    out.copy_(at::mm(self.to(at::kFloat), mat2.to(at::kFloat)));
  else
    at::mm_out(out, self, mat2);
}

kgb::Task load_mm() {
  auto task = kgb::load_task_file(kgb::tasks_root() / "aten" / "mm" / "spec.json");
  REQUIRE_MESSAGE(task.ok(), (task.ok() ? "" : task.error().message));
  return task.value();
}

}  // namespace

TEST_CASE("aten/mm reference matches libtorch on every correctness case and dtype") {
  const kgb::Task task = load_mm();
  REQUIRE(task.correctness.size() >= 6);
  int compared = 0;
  for (const kgb::Case& c : task.correctness) {
    for (kgb::DType dtype : kgb::case_dtypes(task, c)) {
      CAPTURE(c.name);
      CAPTURE(std::string(kgb::dtype_name(dtype)));
      auto instance = kgb::instantiate_case(task, c, dtype, 0x5eed0001u);
      REQUIRE_MESSAGE(instance.ok(), (instance.ok() ? "" : instance.error().message));
      auto expected = kgb::run_reference(instance.value());
      REQUIRE_MESSAGE(expected.ok(), (expected.ok() ? "" : expected.error().message));

      std::map<std::string, kgb::HostTensor> got = instance->tensors;
      aten_mm(got);
      const kgb::CaseCheck check = kgb::check_outputs(instance.value(), expected.value(), got);
      CHECK_MESSAGE(check.passed, check.status << ": " << check.message << " expected " << check.expected << " got "
                                               << check.got << " max abs err " << check.max_abs_error);
      ++compared;
    }
  }
  CHECK(compared == static_cast<int>(task.correctness.size() * task.dtypes.size()));
}

TEST_CASE("aten/mm comparison notices a wrong product") {
  // Guards the test above against a vacuous comparison: a libtorch result with
  // one element changed must be rejected.
  const kgb::Task task = load_mm();
  const kgb::Case* primes = nullptr;
  for (const kgb::Case& c : task.correctness)
    if (c.name == "primes") primes = &c;
  REQUIRE(primes != nullptr);
  auto instance = kgb::instantiate_case(task, *primes, kgb::DType::F32, 7);
  REQUIRE(instance.ok());
  auto expected = kgb::run_reference(instance.value());
  REQUIRE(expected.ok());
  std::map<std::string, kgb::HostTensor> got = instance->tensors;
  aten_mm(got);
  kgb::HostTensor& out = got.at("out");
  out.set(5, out.get(5) + 0.5);
  CHECK_FALSE(kgb::check_outputs(instance.value(), expected.value(), got).passed);
}
