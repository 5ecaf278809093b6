// Hand checks for the BLAS tasks that have no CBLAS counterpart (cuBLAS
// extensions): the task's reference and its CPU baseline, each on small
// inputs whose results were computed by hand, so that neither is only
// checked against the other.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"
#include "kgb_baseline.h"
#include "kgb_runner_abi.h"

namespace {

using kgb::DType;
using kgb::HostTensor;

kgb::ScalarValue enum_value(int64_t v, const char* name) {
  kgb::ScalarValue s;
  s.kind = kgb::ScalarValue::Kind::Enum;
  s.i = v;
  s.name = name;
  return s;
}

// A 2 x 3 column-major matrix with ld 3 (one padding row):
//   [ 1  2  3 ]
//   [ 4  5  6 ]
HostTensor matrix_2x3() {
  HostTensor a(DType::F32, {2, 3}, {1, 3}, 9);
  const float values[] = {1, 2, 3, 4, 5, 6};
  for (int64_t k = 0; k < 6; ++k) a.set(k, values[k]);
  return a;
}

// x as a vector view with the given stride (negative: data at the far end).
HostTensor vector_view(const std::vector<double>& values, int64_t stride) {
  const int64_t n = static_cast<int64_t>(values.size()), step = std::abs(stride);
  const int64_t storage = n == 0 ? 1 : (n - 1) * step + 1;
  HostTensor x(DType::F32, {n}, {stride}, storage, stride < 0 ? (n - 1) * step : 0);
  for (int64_t k = 0; k < n; ++k) x.set(k, values[static_cast<size_t>(k)]);
  return x;
}

struct SdgmmRun {
  std::vector<double> reference, baseline;
};

SdgmmRun run_sdgmm(int64_t mode, const HostTensor& a, const HostTensor& x) {
  SdgmmRun r;
  {
    HostTensor a_in = a, x_in = x;
    HostTensor c(DType::F32, {2, 3}, {1, 4}, 12);  // ld 4: padding that must stay 0
    kgb::RefArgs args;
    args.tensors = {{"A", &a_in}, {"x", &x_in}, {"C", &c}};
    args.scalars = {{"mode", enum_value(mode, mode ? "CUBLAS_SIDE_RIGHT" : "CUBLAS_SIDE_LEFT")}};
    const kgb::ReferenceFn* ref = kgb::find_reference("blas/sdgmm");
    REQUIRE(ref);
    (*ref)(args);
    r.reference = kgb::to_doubles(c);
  }
  {
    HostTensor a_in = a, x_in = x;
    HostTensor c(DType::F32, {2, 3}, {1, 4}, 12);
    kgb_tensor av = a_in.view(), xv = x_in.view(), cv = c.view();
    kgb_arg argv[4];
    argv[0].i = mode;
    argv[1].t = &av;
    argv[2].t = &xv;
    argv[3].t = &cv;
    const kgb::BaselineEntry* base = kgb::find_baseline("blas/sdgmm");
    REQUIRE(base);
    REQUIRE(base->invoke(argv, 4, nullptr) == KGB_OK);
    r.baseline = kgb::to_doubles(c);
    for (int64_t e = 0; e < c.storage_elements(); ++e)
      if (e % 4 == 3) CHECK(reinterpret_cast<const float*>(c.storage().data())[e] == 0.0f);  // padding untouched
  }
  return r;
}

void check_values(const std::vector<double>& got, const std::vector<double>& expected, const char* who) {
  REQUIRE(got.size() == expected.size());
  for (size_t k = 0; k < got.size(); ++k) {
    INFO(who << " element " << k << " (row-major)");
    if (std::isnan(expected[k]))
      CHECK(std::isnan(got[k]));
    else
      CHECK(got[k] == expected[k]);
  }
}

}  // namespace

TEST_CASE("blas/sdgmm by hand: diag(x) * A with a reversed x" * doctest::test_suite("hand_check")) {
  // incx = -1: element 0 of x is 10, element 1 is -0.5. Row i scaled by x[i].
  const SdgmmRun r = run_sdgmm(0, matrix_2x3(), vector_view({10, -0.5}, -1));
  const std::vector<double> expected = {10, 20, 30, -2, -2.5, -3};
  check_values(r.reference, expected, "reference");
  check_values(r.baseline, expected, "baseline");
}

TEST_CASE("blas/sdgmm by hand: A * diag(x) with incx = 2, Inf * 0 is NaN" * doctest::test_suite("hand_check")) {
  HostTensor a = matrix_2x3();
  a.set(1, INFINITY);  // A(0, 1) = Inf: column 1 is scaled by x[1] = 0, giving NaN
  const SdgmmRun r = run_sdgmm(1, a, vector_view({2, 0, -1}, 2));
  const std::vector<double> expected = {2, NAN, -3, 8, 0, -6};
  check_values(r.reference, expected, "reference");
  check_values(r.baseline, expected, "baseline");
}

TEST_CASE("blas/sdgmm by hand: incx = 0 scales every row by x[0]" * doctest::test_suite("hand_check")) {
  const SdgmmRun r = run_sdgmm(0, matrix_2x3(), vector_view({3, 3}, 0));
  const std::vector<double> expected = {3, 6, 9, 12, 15, 18};
  check_values(r.reference, expected, "reference");
  check_values(r.baseline, expected, "baseline");
}
