// Reference for blas/cgemm: C = alpha * op(A) * op(B) + beta * C with complex
// alpha and beta, op N/T/C (C conjugates), column-major cuBLAS semantics on
// logical [row, col] indices. Accumulated in complex<double> with the
// textbook product and rounded once to c64, with the BLAS rules (beta == 0
// never reads C, alpha == 0 never reads A or B).
//
// C's generator: complex normal values with ~3% of the elements NaN in both
// parts. The harness's `special` modifier covers real dtypes only, and an
// infinity (or a NaN in one part) would make the expected result depend on
// how an implementation multiplies by beta = 1 + 0i (OpenBLAS skips that
// scaling; the textbook product turns 0 * Inf into NaN). A NaN in both parts
// stays NaN under any of them, and still catches a kernel that reads C when
// beta == 0.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

#include "../blas_reference.h"
#include "kgb/reference.h"

namespace {

namespace br = kgb::blas_reference;

void cgemm_reference(kgb::RefArgs& args) {
  const int64_t transa = args.int_scalar("transa"), transb = args.int_scalar("transb");
  const std::complex<double> alpha = args.complex_scalar("alpha"), beta = args.complex_scalar("beta");
  const kgb::HostTensor& a = args.tensor("A");
  const kgb::HostTensor& b = args.tensor("B");
  kgb::HostTensor& c = args.tensor("C");
  const auto d = br::gemm_dims(a, transa, b, transb, c, "blas/cgemm");
  const auto result = br::gemm_batch(d[0], d[1], d[2], alpha, beta, {br::gemm_operands(a, transa, b, transb, c, alpha, beta)});
  kgb::from_complex(c, result.front());
}

void c_with_nans(kgb::GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double re = kgb::standard_normal(g.rng);
    g.tensor.set_complex(i, {re, kgb::standard_normal(g.rng)});
  }
  if (n == 0) return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t specials = std::max<int64_t>(1, n * 3 / 100);
  for (int64_t k = 0; k < specials; ++k) g.tensor.set_complex(static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n)), {nan, nan});
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/cgemm", cgemm_reference);
KGB_REGISTER_GENERATOR("blas/cgemm/C", c_with_nans);
