// Reference for blas/ssyrk: the `uplo` triangle of C becomes
// alpha * op(A) op(A)^T + beta * C, column-major cuBLAS semantics on logical
// indices, accumulated in fp64 and rounded once to f32; the other triangle is
// left exactly as it arrived (C is inout, so the check compares it too).
// alpha == 0 never reads A, beta == 0 never reads C.
#include <cstdint>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace br = kgb::blas_reference;
namespace l3 = kgb::level3_reference;

void ssyrk_reference(kgb::RefArgs& args) {
  const int64_t uplo = args.int_scalar("uplo"), trans = args.int_scalar("trans");
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const kgb::HostTensor& a = args.tensor("A");
  kgb::HostTensor& c = args.tensor("C");
  if (uplo != l3::kLower && uplo != l3::kUpper) throw std::runtime_error("blas/ssyrk: uplo must be LOWER or UPPER");
  if (trans < br::kOpN || trans > br::kOpC) throw std::runtime_error("blas/ssyrk: trans must be CUBLAS_OP_N, _T or _C");
  const int64_t n = c.size(0), k = trans == br::kOpN ? a.size(1) : a.size(0);
  if (c.size(1) != n || (trans == br::kOpN ? a.size(0) : a.size(1)) != n)
    throw std::runtime_error("blas/ssyrk: shapes of A and C do not agree");
  auto cv = l3::dense<double>(c);
  std::vector<double> opa;
  if (alpha != 0.0) opa = br::op_values<double>(a, trans, false);  // op(A), n x k row-major
  l3::syrk_triangle(uplo, alpha, opa, k, beta, cv);
  l3::store(c, cv);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/ssyrk", ssyrk_reference);
