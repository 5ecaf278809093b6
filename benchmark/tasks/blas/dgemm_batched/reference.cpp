// Reference for blas/dgemm_batched: C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b]
// for every item of the pointer arrays, column-major cuBLAS semantics on the
// items' logical [row, col] indices, in fp64 with the BLAS rules (beta == 0
// never reads C, alpha == 0 never reads A or B, k == 0 gives beta * C).
// Repeated A or B items are simply read again.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../blas_reference.h"
#include "kgb/reference.h"

namespace {

namespace br = kgb::blas_reference;

void dgemm_batched_reference(kgb::RefArgs& args) {
  const int64_t transa = args.int_scalar("transa"), transb = args.int_scalar("transb");
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const auto& a = args.list("Aarray");
  const auto& b = args.list("Barray");
  const auto& c = args.list("Carray");
  if (a.size() != c.size() || b.size() != c.size()) throw std::runtime_error("blas/dgemm_batched: the three lists differ in length");
  if (c.empty()) return;
  std::vector<int64_t> dims;
  std::vector<br::GemmOperands<double>> ops;
  for (size_t i = 0; i < c.size(); ++i) {
    if (!a[i] || !b[i] || !c[i]) throw std::runtime_error("blas/dgemm_batched: lists hold no None items");
    const auto d = br::gemm_dims(*a[i], transa, *b[i], transb, *c[i], "blas/dgemm_batched");
    if (!dims.empty() && d != dims) throw std::runtime_error("blas/dgemm_batched: items of one batch differ in shape");
    dims = d;
    ops.push_back(br::gemm_operands(*a[i], transa, *b[i], transb, *c[i], alpha, beta));
  }
  const auto results = br::gemm_batch(dims[0], dims[1], dims[2], alpha, beta, ops);
  for (size_t i = 0; i < c.size(); ++i) kgb::from_doubles(*c[i], results[i]);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/dgemm_batched", dgemm_batched_reference);
