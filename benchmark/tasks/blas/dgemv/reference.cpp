// Reference for blas/dgemv (emitted by scripts/taskgen/gemv.py): y := alpha *
// op(A) x + beta * y for one product, in double on logical elements, rounded
// once into f64, with the BLAS rules of gemv_reference.h (m == 0 or n == 0
// leaves y untouched, alpha == 0 reads neither A nor x, beta == 0 never reads
// y).
#include <complex>
#include <cstdint>

#include "../gemv_reference.h"
#include "kgb/reference.h"

namespace {

namespace gr = kgb::gemv_reference;

void dgemv_reference(kgb::RefArgs& args) {
  const int64_t trans = args.int_scalar("trans");
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const gr::Batch batch = gr::single(args, trans, "blas/dgemv");
  gr::gemv_batch<double>(trans, alpha, beta, batch.m, batch.n, batch.problems);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/dgemv", dgemv_reference);
