// Reference for blas/ztrsm_batched: for every item, B[b] := X[b] with
// op(A[b]) X = alpha B[b] (LEFT) or X op(A[b]) = alpha B[b] (RIGHT), op C
// conjugating, column-major cuBLAS semantics on logical indices, substitution
// in complex<double> (kgb::level3_reference::trsm: only the uplo triangle of
// A[b] is read, its diagonal only for CUBLAS_DIAG_NON_UNIT; alpha == 0
// zeroes B without reading A).
//
// Aarray's generator fills each item with a diagonally dominant complex
// triangle (|diagonal| in [1, 2] with a random phase), the other triangle
// NaN, the stored diagonal NaN under CUBLAS_DIAG_UNIT.
#include <complex>
#include <cstdint>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace l3 = kgb::level3_reference;
using cd = std::complex<double>;

void ztrsm_batched_reference(kgb::RefArgs& args) {
  const int64_t side = args.int_scalar("side"), uplo = args.int_scalar("uplo"), trans = args.int_scalar("trans"),
                diag = args.int_scalar("diag");
  const cd alpha = args.complex_scalar("alpha");
  const auto& as = args.list("Aarray");
  const auto& bs = args.list("Barray");
  if (as.size() != bs.size()) throw std::runtime_error("blas/ztrsm_batched: Aarray and Barray differ in count");
  for (size_t item = 0; item < bs.size(); ++item) {
    kgb::HostTensor& b = *bs[item];
    const kgb::HostTensor& a = *as[item];
    const int64_t dim = side == l3::kLeft ? b.size(0) : b.size(1);
    if (a.rank() != 2 || a.size(0) != dim || a.size(1) != dim)
      throw std::runtime_error("blas/ztrsm_batched: A[b] must be square and match B[b]");
    auto bv = l3::dense<cd>(b);
    l3::Dense<cd> av;
    if (alpha != cd(0)) av = l3::dense<cd>(a);
    l3::trsm(side, uplo, trans, diag, alpha, av, bv);
    l3::store(b, bv);
  }
}

void triangular_item(kgb::GeneratorArgs& g) { l3::fill_triangular(g, l3::case_enum(g, "uplo"), l3::case_enum(g, "diag")); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/ztrsm_batched", ztrsm_batched_reference);
KGB_REGISTER_GENERATOR("blas/ztrsm_batched/Aarray", triangular_item);
