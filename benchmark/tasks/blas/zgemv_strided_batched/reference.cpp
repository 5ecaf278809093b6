// Reference for blas/zgemv_strided_batched (emitted by
// scripts/taskgen/gemv.py): y := alpha * op(A) x + beta * y for a strided
// batch (A [m, n, batch], x and y [length, batch]), in std::complex<double> on
// logical elements, rounded once into c128, with the BLAS rules of
// gemv_reference.h (m == 0 or n == 0 leaves y untouched, alpha == 0 reads
// neither A nor x, beta == 0 never reads y).
#include <complex>
#include <cstdint>

#include "../gemv_reference.h"
#include "kgb/reference.h"

namespace {

namespace gr = kgb::gemv_reference;

void zgemv_strided_batched_reference(kgb::RefArgs& args) {
  const int64_t trans = args.int_scalar("trans");
  const std::complex<double> alpha = args.complex_scalar("alpha"), beta = args.complex_scalar("beta");
  const gr::Batch batch = gr::strided(args, trans, "blas/zgemv_strided_batched");
  gr::gemv_batch<std::complex<double>>(trans, alpha, beta, batch.m, batch.n, batch.problems);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/zgemv_strided_batched", zgemv_strided_batched_reference);
KGB_REGISTER_GENERATOR("blas/zgemv_strided_batched/y", kgb::gemv_reference::complex_y_with_nans);
