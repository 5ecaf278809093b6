// Reference for blas/csymm: C = alpha * A * B + beta * C (LEFT) or
// alpha * B * A + beta * C (RIGHT) with A complex symmetric (A^T = A, no
// conjugation) of which only the uplo triangle is stored and read,
// column-major cuBLAS semantics on logical indices, complex<double> with the
// textbook product, rounded once to c64. beta == 0 never reads C, alpha == 0
// reads neither A nor B.
//
// Generators (level3_reference.h): A has its unreferenced triangle NaN; C is
// complex normal with ~3% NaN in both parts (see fill_complex_with_nans).
#include <complex>
#include <cstdint>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace br = kgb::blas_reference;
namespace l3 = kgb::level3_reference;
using cd = std::complex<double>;

void csymm_reference(kgb::RefArgs& args) {
  const int64_t side = args.int_scalar("side"), uplo = args.int_scalar("uplo");
  const cd alpha = args.complex_scalar("alpha"), beta = args.complex_scalar("beta");
  const kgb::HostTensor& a = args.tensor("A");
  const kgb::HostTensor& b = args.tensor("B");
  kgb::HostTensor& c = args.tensor("C");
  const int64_t m = c.size(0), n = c.size(1), d = side == l3::kLeft ? m : n;
  if (a.rank() != 2 || a.size(0) != d || a.size(1) != d || b.size(0) != m || b.size(1) != n)
    throw std::runtime_error("blas/csymm: shapes of A, B and C do not agree");
  br::GemmOperands<cd> g;
  if (alpha != cd(0)) {
    const std::vector<cd> s = l3::symmetric_full(l3::dense<cd>(a), uplo);
    const auto bv = l3::dense<cd>(b);
    if (side == l3::kLeft) {
      g.a = s;  // A (m x m) row-major; B^T (n x m) row-major
      g.bt.resize(static_cast<size_t>(n * m));
      for (int64_t j = 0; j < n; ++j)
        for (int64_t l = 0; l < m; ++l) g.bt[static_cast<size_t>(j * m + l)] = bv.at(l, j);
    } else {
      g.a = bv.v;  // B (m x n) row-major; A^T = A (n x n)
      g.bt = s;
    }
  }
  if (beta != cd(0)) g.c = br::logical_values<cd>(c);
  const auto result = br::gemm_batch(m, n, d, alpha, beta, {g});
  kgb::from_complex(c, result.front());
}

void symmetric_a(kgb::GeneratorArgs& g) { l3::fill_symmetric_triangle(g, l3::case_enum(g, "uplo")); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/csymm", csymm_reference);
KGB_REGISTER_GENERATOR("blas/csymm/A", symmetric_a);
KGB_REGISTER_GENERATOR("blas/csymm/C", kgb::level3_reference::fill_complex_with_nans);
