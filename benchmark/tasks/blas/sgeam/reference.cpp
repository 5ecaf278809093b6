// Reference for blas/sgeam: C = alpha * op(A) + beta * op(B), column-major
// cuBLAS semantics on logical [row, col] indices, in fp64 and rounded once to
// f32. alpha == 0 never reads A, beta == 0 never reads B (their NaNs must not
// reach C). op(A) is read in full before C is written, so the in-place case
// (C on A's storage) needs nothing special here.
#include <cstdint>
#include <stdexcept>

#include "../level3_reference.h"
#include "kgb/reference.h"

namespace {

namespace l3 = kgb::level3_reference;

// op(X)(i, j) of an m x n result: X(i, j) for CUBLAS_OP_N, X(j, i) otherwise.
double op_at(const l3::Dense<double>& x, int64_t op, int64_t i, int64_t j) { return op == 0 ? x.at(i, j) : x.at(j, i); }

void check_shape(const kgb::HostTensor& x, int64_t op, int64_t m, int64_t n, const char* name) {
  if (x.rank() != 2 || (op == 0 ? x.size(0) : x.size(1)) != m || (op == 0 ? x.size(1) : x.size(0)) != n)
    throw std::runtime_error(std::string("blas/sgeam: shape of ") + name + " does not match op and C");
}

void sgeam_reference(kgb::RefArgs& args) {
  const int64_t transa = args.int_scalar("transa"), transb = args.int_scalar("transb");
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const kgb::HostTensor& a = args.tensor("A");
  const kgb::HostTensor& b = args.tensor("B");
  kgb::HostTensor& c = args.tensor("C");
  const int64_t m = c.size(0), n = c.size(1);
  check_shape(a, transa, m, n, "A");
  check_shape(b, transb, m, n, "B");
  l3::Dense<double> out{m, n, std::vector<double>(static_cast<size_t>(m * n), 0.0)};
  if (alpha != 0.0) {
    const auto av = l3::dense<double>(a);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) out.at(i, j) = alpha * op_at(av, transa, i, j);
  }
  if (beta != 0.0) {
    const auto bv = l3::dense<double>(b);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) out.at(i, j) += beta * op_at(bv, transb, i, j);
  }
  l3::store(c, out);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/sgeam", sgeam_reference);
