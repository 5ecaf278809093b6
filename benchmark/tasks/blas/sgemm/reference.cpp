// Reference for blas/sgemm: C = alpha * op(A) * op(B) + beta * C (column-major
// BLAS semantics; the views carry the storage layout, so the reference works
// on logical [row, col] indices). Accumulated in double, rounded once to f32,
// with the BLAS rules: beta == 0 never reads C, alpha == 0 never reads A or B.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void sgemm_reference(kgb::RefArgs& args) {
  const int64_t transa = args.int_scalar("transa"), transb = args.int_scalar("transb");
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const kgb::HostTensor& a = args.tensor("A");
  const kgb::HostTensor& b = args.tensor("B");
  kgb::HostTensor& c = args.tensor("C");
  if ((transa != 0 && transa != 1) || (transb != 0 && transb != 1))
    throw std::runtime_error("blas/sgemm: transa and transb must be 0 or 1");
  if (a.rank() != 2 || b.rank() != 2 || c.rank() != 2) throw std::runtime_error("blas/sgemm: matrices must be 2-D");
  const int64_t m = c.size(0), n = c.size(1);
  const int64_t k = transa ? a.size(0) : a.size(1);
  if ((transa ? a.size(1) : a.size(0)) != m || (transb ? b.size(1) : b.size(0)) != k ||
      (transb ? b.size(0) : b.size(1)) != n)
    throw std::runtime_error("blas/sgemm: shapes of A, B and C do not agree");

  // Logical row-major values: X(i, j) = x[i * cols + j].
  const std::vector<double> av = kgb::to_doubles(a), bv = kgb::to_doubles(b), cv = kgb::to_doubles(c);
  const int64_t acols = a.size(1), bcols = b.size(1);
  std::vector<double> r(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      if (alpha != 0.0)
        for (int64_t l = 0; l < k; ++l) {
          const double opa = transa ? av[static_cast<size_t>(l * acols + i)] : av[static_cast<size_t>(i * acols + l)];
          const double opb = transb ? bv[static_cast<size_t>(j * bcols + l)] : bv[static_cast<size_t>(l * bcols + j)];
          sum += opa * opb;
        }
      const double old = beta == 0.0 ? 0.0 : beta * cv[static_cast<size_t>(i * n + j)];
      r[static_cast<size_t>(i * n + j)] = alpha * sum + old;
    }
  kgb::from_doubles(c, r);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/sgemm", sgemm_reference);
