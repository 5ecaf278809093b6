// Reference for blas/dtrsm_batched: for every item, B[b] := X[b] with
// op(A[b]) X = alpha B[b] (LEFT) or X op(A[b]) = alpha B[b] (RIGHT),
// column-major cuBLAS semantics on logical indices, substitution in fp64
// (kgb::level3_reference::trsm: only the uplo triangle of A[b] is read, its
// diagonal only for CUBLAS_DIAG_NON_UNIT; alpha == 0 zeroes B without
// reading A).
//
// Aarray's generator fills each item like strsm's A: a diagonally dominant
// triangle, the other triangle NaN, the stored diagonal NaN under
// CUBLAS_DIAG_UNIT.
#include <cstdint>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace l3 = kgb::level3_reference;

void dtrsm_batched_reference(kgb::RefArgs& args) {
  const int64_t side = args.int_scalar("side"), uplo = args.int_scalar("uplo"), trans = args.int_scalar("trans"),
                diag = args.int_scalar("diag");
  const double alpha = args.scalar("alpha");
  const auto& as = args.list("Aarray");
  const auto& bs = args.list("Barray");
  if (as.size() != bs.size()) throw std::runtime_error("blas/dtrsm_batched: Aarray and Barray differ in count");
  for (size_t item = 0; item < bs.size(); ++item) {
    kgb::HostTensor& b = *bs[item];
    const kgb::HostTensor& a = *as[item];
    const int64_t dim = side == l3::kLeft ? b.size(0) : b.size(1);
    if (a.rank() != 2 || a.size(0) != dim || a.size(1) != dim)
      throw std::runtime_error("blas/dtrsm_batched: A[b] must be square and match B[b]");
    auto bv = l3::dense<double>(b);
    l3::Dense<double> av;
    if (alpha != 0.0) av = l3::dense<double>(a);
    l3::trsm(side, uplo, trans, diag, alpha, av, bv);
    l3::store(b, bv);
  }
}

void triangular_item(kgb::GeneratorArgs& g) { l3::fill_triangular(g, l3::case_enum(g, "uplo"), l3::case_enum(g, "diag")); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/dtrsm_batched", dtrsm_batched_reference);
KGB_REGISTER_GENERATOR("blas/dtrsm_batched/Aarray", triangular_item);
