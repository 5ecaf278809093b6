// Reference for blas/csyrk_ex: the uplo triangle of C becomes
// alpha * op(A) op(A)^T + beta * C with complex values and no conjugation,
// column-major cuBLAS semantics on logical indices, complex<double> with the
// textbook product, rounded once to c64; the other triangle is left exactly
// as it arrived (C is inout, so the check compares it too). alpha == 0 never
// reads A, beta == 0 never reads C.
//
// C's generator (level3_reference.h): complex normal values, ~3% NaN in both
// parts, in both triangles.
#include <complex>
#include <cstdint>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace br = kgb::blas_reference;
namespace l3 = kgb::level3_reference;
using cd = std::complex<double>;

void csyrk_ex_reference(kgb::RefArgs& args) {
  const int64_t uplo = args.int_scalar("uplo"), trans = args.int_scalar("trans");
  const cd alpha = args.complex_scalar("alpha"), beta = args.complex_scalar("beta");
  const kgb::HostTensor& a = args.tensor("A");
  kgb::HostTensor& c = args.tensor("C");
  if (uplo != l3::kLower && uplo != l3::kUpper) throw std::runtime_error("blas/csyrk_ex: uplo must be LOWER or UPPER");
  if (trans != br::kOpN && trans != br::kOpT) throw std::runtime_error("blas/csyrk_ex: trans must be CUBLAS_OP_N or _T");
  const int64_t n = c.size(0), k = trans == br::kOpN ? a.size(1) : a.size(0);
  if (c.size(1) != n || (trans == br::kOpN ? a.size(0) : a.size(1)) != n)
    throw std::runtime_error("blas/csyrk_ex: shapes of A and C do not agree");
  auto cv = l3::dense<cd>(c);
  std::vector<cd> opa;
  if (alpha != cd(0)) opa = br::op_values<cd>(a, trans, false);  // op(A), n x k row-major, unconjugated
  l3::syrk_triangle(uplo, alpha, opa, k, beta, cv);
  l3::store(c, cv);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/csyrk_ex", csyrk_ex_reference);
KGB_REGISTER_GENERATOR("blas/csyrk_ex/C", kgb::level3_reference::fill_complex_with_nans);
