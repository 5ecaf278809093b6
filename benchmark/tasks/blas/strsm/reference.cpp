// Reference for blas/strsm: B := X with op(A) X = alpha B (LEFT) or
// X op(A) = alpha B (RIGHT), column-major cuBLAS semantics on logical
// indices, substitution in fp64 rounded once to f32. Only the uplo triangle
// of A is read (its diagonal only for CUBLAS_DIAG_NON_UNIT); alpha == 0
// zeroes B without reading A.
//
// A's generator (level3_reference.h): a diagonally dominant triangle, the
// other triangle NaN, and the stored diagonal NaN under CUBLAS_DIAG_UNIT.
#include <cstdint>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace l3 = kgb::level3_reference;

void strsm_reference(kgb::RefArgs& args) {
  const int64_t side = args.int_scalar("side"), uplo = args.int_scalar("uplo"), trans = args.int_scalar("trans"),
                diag = args.int_scalar("diag");
  const double alpha = args.scalar("alpha");
  const kgb::HostTensor& a = args.tensor("A");
  kgb::HostTensor& b = args.tensor("B");
  const int64_t dim = side == l3::kLeft ? b.size(0) : b.size(1);
  if (a.rank() != 2 || a.size(0) != dim || a.size(1) != dim) throw std::runtime_error("blas/strsm: A must be square and match B");
  auto bv = l3::dense<double>(b);
  l3::Dense<double> av;
  if (alpha != 0.0) av = l3::dense<double>(a);
  l3::trsm(side, uplo, trans, diag, alpha, av, bv);
  l3::store(b, bv);
}

void triangular_a(kgb::GeneratorArgs& g) { l3::fill_triangular(g, l3::case_enum(g, "uplo"), l3::case_enum(g, "diag")); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/strsm", strsm_reference);
KGB_REGISTER_GENERATOR("blas/strsm/A", triangular_a);
