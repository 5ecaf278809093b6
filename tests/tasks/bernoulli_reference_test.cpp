// aten/bernoulli is checked statistically, so there is no elementwise answer
// to compare: for every correctness case and dtype, both the C++ reference and
// libtorch's bernoulli (on the same probability tensors, same strides) must
// pass the task's statistical check, be reproducible for one seed and change
// with the seed. The check itself must reject wrong samplers.
#include <doctest/doctest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

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
    default: FAIL("aten/bernoulli has no dtype " << kgb::dtype_name(t)); return at::kFloat;
  }
}

at::Tensor wrap(kgb::HostTensor& t) {
  return at::from_blob(t.data(), t.sizes(), t.strides(), at::TensorOptions().dtype(aten_type(t.dtype())));
}

// libtorch's draw into got["out"]. libtorch 1.13 has no CPU half bernoulli:
// f16 probabilities are upcast to float (exact) and the 0/1 result copied.
void aten_bernoulli(std::map<std::string, kgb::HostTensor>& got, int64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
  at::Tensor self = wrap(got.at("self")), out = wrap(got.at("out"));
  if (out.scalar_type() == at::kHalf)
    out.copy_(at::bernoulli(self.to(at::kFloat), gen));
  else
    at::bernoulli_out(out, self, gen);
}

kgb::Task load_bernoulli() {
  auto task = kgb::load_task_file(kgb::tasks_root() / "aten" / "bernoulli" / "spec.json");
  REQUIRE_MESSAGE(task.ok(), (task.ok() ? "" : task.error().message));
  return task.value();
}

std::string describe(const kgb::CaseCheck& c) { return c.status + ": " + c.message; }

}  // namespace

TEST_CASE("aten/bernoulli reference and libtorch pass the statistical check on every case and dtype") {
  const kgb::Task task = load_bernoulli();
  REQUIRE(task.check == kgb::CheckKind::Statistical);
  int cases = 0;
  for (const kgb::Case& c : task.correctness) {
    for (kgb::DType dtype : kgb::case_dtypes(task, c)) {
      CAPTURE(c.name);
      CAPTURE(std::string(kgb::dtype_name(dtype)));
      auto instance = kgb::instantiate_case(task, c, dtype, 0xB3A0000u + static_cast<uint64_t>(cases));
      REQUIRE_MESSAGE(instance.ok(), (instance.ok() ? "" : instance.error().message));
      auto reference = kgb::run_reference(instance.value());
      REQUIRE_MESSAGE(reference.ok(), (reference.ok() ? "" : reference.error().message));

      const kgb::CaseCheck ref_check = kgb::check_outputs(instance.value(), reference.value(), reference.value());
      CHECK_MESSAGE(ref_check.passed, "reference: " << describe(ref_check));

      std::map<std::string, kgb::HostTensor> got = instance->tensors;
      aten_bernoulli(got, static_cast<int64_t>(instance->scalars.at("seed")));
      const kgb::CaseCheck aten_check = kgb::check_outputs(instance.value(), reference.value(), got);
      CHECK_MESSAGE(aten_check.passed, "libtorch: " << describe(aten_check));

      // Reproducible for one seed; a different seed changes a large enough output.
      auto again = kgb::run_reference(instance.value());
      REQUIRE(again.ok());
      CHECK(kgb::to_doubles(again->at("out")) == kgb::to_doubles(reference->at("out")));
      if (instance->tensors.at("out").numel() >= 64) {
        kgb::CaseInstance reseeded = instance.value();
        reseeded.scalars["seed"] = instance->scalars.at("seed") + 1;
        auto other = kgb::run_reference(reseeded);
        REQUIRE(other.ok());
        CHECK(kgb::to_doubles(other->at("out")) != kgb::to_doubles(reference->at("out")));
      }
      ++cases;
    }
  }
  CHECK(cases == static_cast<int>(task.correctness.size() * task.dtypes.size()));
}

TEST_CASE("aten/bernoulli statistical check rejects wrong samplers") {
  const kgb::Task task = load_bernoulli();
  const kgb::Case* matrix = nullptr;
  for (const kgb::Case& c : task.correctness)
    if (c.name == "matrix_odd") matrix = &c;
  REQUIRE(matrix != nullptr);
  auto instance = kgb::instantiate_case(task, *matrix, kgb::DType::F32, 99);
  REQUIRE(instance.ok());
  auto reference = kgb::run_reference(instance.value());
  REQUIRE(reference.ok());
  const int64_t n = instance->tensors.at("out").numel();

  SUBCASE("all ones: the mean is far from mean(self)") {
    std::map<std::string, kgb::HostTensor> got = reference.value();
    from_doubles(got.at("out"), std::vector<double>(static_cast<size_t>(n), 1.0));
    CHECK_FALSE(kgb::check_outputs(instance.value(), reference.value(), got).passed);
  }
  SUBCASE("returning p itself: values outside the support {0, 1}") {
    std::map<std::string, kgb::HostTensor> got = reference.value();
    from_doubles(got.at("out"), to_doubles(instance->tensors.at("self")));
    CHECK_FALSE(kgb::check_outputs(instance.value(), reference.value(), got).passed);
  }
  SUBCASE("thresholding at 1/2 is biased when p is skewed") {
    // Take p = self^3 (mean 1/4): out = (p > 1/2) has mean 1 - 2^(-1/3) ~ 0.206,
    // about 8.5 standard errors away from 1/4 for 4087 draws.
    kgb::CaseInstance skewed = instance.value();
    kgb::HostTensor& self = skewed.tensors.at("self");
    std::vector<double> p = to_doubles(self);
    for (double& v : p) v = v * v * v;
    from_doubles(self, p);
    std::map<std::string, kgb::HostTensor> got = skewed.tensors;
    std::vector<double> draws(p.size());
    for (size_t i = 0; i < p.size(); ++i) draws[i] = p[i] > 0.5 ? 1.0 : 0.0;
    from_doubles(got.at("out"), draws);
    CHECK_FALSE(kgb::check_outputs(skewed, reference.value(), got).passed);
  }
}
