// Reference for blas/sdgmm: C = A * diag(x) (CUBLAS_SIDE_RIGHT) or
// diag(x) * A (CUBLAS_SIDE_LEFT), column-major, on logical indices (x's
// increment, negative or 0, is its view's stride). The product of two floats
// is exact in fp64, so rounding it once to f32 is exactly the float multiply.
// There is no CBLAS counterpart: tests/tasks/blas_hand_check_test.cpp checks
// this reference against hand-computed values instead.
//
// A's generator: standard normal values, and in matrices of 16 or more
// elements about 2% NaN, +Inf or -Inf (fewer elements would make the whole
// output special and the case degenerate).
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace l3 = kgb::level3_reference;

void sdgmm_reference(kgb::RefArgs& args) {
  const int64_t mode = args.int_scalar("mode");
  const kgb::HostTensor& a = args.tensor("A");
  const kgb::HostTensor& x = args.tensor("x");
  kgb::HostTensor& c = args.tensor("C");
  const int64_t m = c.size(0), n = c.size(1);
  if (mode != l3::kLeft && mode != l3::kRight) throw std::runtime_error("blas/sdgmm: mode must be CUBLAS_SIDE_LEFT or _RIGHT");
  if (a.size(0) != m || a.size(1) != n || x.rank() != 1 || x.size(0) != (mode == l3::kRight ? n : m))
    throw std::runtime_error("blas/sdgmm: shapes of A, x and C do not agree");
  auto out = l3::dense<double>(a);
  const std::vector<double> xv = kgb::to_doubles(x);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) out.at(i, j) *= xv[static_cast<size_t>(mode == l3::kRight ? j : i)];
  l3::store(c, out);
}

void a_with_specials(kgb::GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  for (int64_t i = 0; i < n; ++i) g.tensor.set(i, kgb::standard_normal(g.rng));
  if (n < 16) return;
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
  for (int64_t k = 0; k < n / 50 + 1; ++k)
    g.tensor.set(static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n)), specials[g.rng() % 3]);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/sdgmm", sdgmm_reference);
KGB_REGISTER_GENERATOR("blas/sdgmm/A", a_with_specials);
