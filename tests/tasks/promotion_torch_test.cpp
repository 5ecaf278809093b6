// kgb::promote_types and kgb::result_type against libtorch's own on every
// dtype libtorch 1.13 has (all but float8): every pair for promote_types,
// and every list of one to three operands (each a dimensioned tensor, a
// zero-dim tensor or a scalar) for result_type, through ATen's
// ResultTypeState, the code behind torch.result_type.
#include <ATen/ATen.h>
#include <ATen/native/TypeProperties.h>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include "aten_dispatch.h"
#include "kgb/numerics.h"

namespace {

at::ScalarType aten_dtype(kgb::DType t) { return kgb::aten_dispatch::scalar_type_of(static_cast<int32_t>(t)); }


// The dtypes both sides have.
std::vector<kgb::DType> shared_dtypes() {
  std::vector<kgb::DType> out;
  for (kgb::DType t : kgb::kAllDTypes)
    if (!kgb::is_fp8(t)) out.push_back(t);
  return out;
}

std::string describe(const kgb::Operand& o) {
  const char* kind = o.kind == kgb::OperandKind::Tensor ? "[2]" : o.kind == kgb::OperandKind::ZeroDimTensor ? "[]" : " scalar";
  return std::string(kgb::dtype_name(o.dtype)) + kind;
}

// Every operand shape: each dtype as a dimensioned and as a zero-dim tensor,
// and the four scalar categories as the values PyTorch's Scalar holds.
std::vector<kgb::Operand> all_operands() {
  std::vector<kgb::Operand> out;
  for (kgb::DType t : shared_dtypes()) {
    out.push_back({t, kgb::OperandKind::Tensor});
    out.push_back({t, kgb::OperandKind::ZeroDimTensor});
  }
  for (kgb::DType t : {kgb::DType::Bool, kgb::DType::I64, kgb::DType::F64, kgb::DType::C128})
    out.push_back({t, kgb::OperandKind::Scalar});
  return out;
}

at::native::ResultTypeState add_to_state(const kgb::Operand& o, const at::native::ResultTypeState& state) {
  switch (o.kind) {
    case kgb::OperandKind::Tensor:
      return at::native::update_result_type_state(at::empty({2}, at::dtype(aten_dtype(o.dtype))), state);
    case kgb::OperandKind::ZeroDimTensor:
      return at::native::update_result_type_state(at::empty({}, at::dtype(aten_dtype(o.dtype))), state);
    case kgb::OperandKind::Scalar:
      switch (o.dtype) {
        case kgb::DType::Bool: return at::native::update_result_type_state(at::Scalar(true), state);
        case kgb::DType::I64: return at::native::update_result_type_state(at::Scalar(int64_t{3}), state);
        case kgb::DType::F64: return at::native::update_result_type_state(at::Scalar(2.5), state);
        default: return at::native::update_result_type_state(at::Scalar(c10::complex<double>(1.0, -2.0)), state);
      }
  }
  return state;
}

// One list of operands on both sides. PyTorch's complex32 (f16 with a
// complex operand below it) is an error in KGB, which has no such dtype.
void compare(const std::vector<kgb::Operand>& operands, int& compared) {
  at::native::ResultTypeState state;
  std::string text;
  for (const auto& o : operands) {
    state = add_to_state(o, state);
    text += describe(o) + " ";
  }
  const at::ScalarType torch = at::native::result_type(state);
  const auto ours = kgb::result_type(operands);
  if (torch == at::kComplexHalf) {
    CHECK_MESSAGE(!ours.ok(), text << "-> complex32 in libtorch, " << kgb::dtype_name(*ours) << " here");
  } else if (!ours.ok()) {
    FAIL_CHECK(text << "-> " << torch << " in libtorch, error here: " << ours.error().message);
  } else if (aten_dtype(*ours) != torch) {
    FAIL_CHECK(text << "-> " << torch << " in libtorch, " << kgb::dtype_name(*ours) << " here");
  }
  ++compared;
}

}  // namespace

TEST_CASE("promote_types equals at::promote_types on every pair libtorch has") {
  int compared = 0;
  for (kgb::DType a : shared_dtypes())
    for (kgb::DType b : shared_dtypes()) {
      CAPTURE(kgb::dtype_name(a));
      CAPTURE(kgb::dtype_name(b));
      const auto ours = kgb::promote_types(a, b);
      REQUIRE(ours.has_value());
      const at::ScalarType torch = at::promote_types(aten_dtype(a), aten_dtype(b));
      CHECK(std::string(c10::toString(aten_dtype(*ours))) == std::string(c10::toString(torch)));
      ++compared;
    }
  CHECK(compared == 12 * 12);
}

TEST_CASE("result_type equals ATen's on every list of up to three operands") {
  const auto operands = all_operands();
  int compared = 0;
  for (const auto& a : operands) {
    compare({a}, compared);
    for (const auto& b : operands) {
      compare({a, b}, compared);
      for (const auto& c : operands) compare({a, b, c}, compared);
    }
  }
  const int n = static_cast<int>(operands.size());
  CHECK(compared == n + n * n + n * n * n);
  MESSAGE("result_type compared with libtorch on " << compared << " operand lists");
}
