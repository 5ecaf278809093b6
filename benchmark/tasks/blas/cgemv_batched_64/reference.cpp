// Reference for blas/cgemv_batched_64 (emitted by scripts/taskgen/gemv.py): y
// := alpha * op(A) x + beta * y for pointer arrays (lists Aarray, xarray,
// yarray), in std::complex<double> on logical elements, rounded once into c64,
// with the BLAS rules of gemv_reference.h (m == 0 or n == 0 leaves y
// untouched, alpha == 0 reads neither A nor x, beta == 0 never reads y).
#include <complex>
#include <cstdint>

#include "../gemv_reference.h"
#include "kgb/reference.h"

namespace {

namespace gr = kgb::gemv_reference;

void cgemv_batched_64_reference(kgb::RefArgs& args) {
  const int64_t trans = args.int_scalar("trans");
  const std::complex<double> alpha = args.complex_scalar("alpha"), beta = args.complex_scalar("beta");
  const gr::Batch batch = gr::pointer_arrays(args, trans, "blas/cgemv_batched_64");
  gr::gemv_batch<std::complex<double>>(trans, alpha, beta, batch.m, batch.n, batch.problems);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/cgemv_batched_64", cgemv_batched_64_reference);
KGB_REGISTER_GENERATOR("blas/cgemv_batched_64/yarray", kgb::gemv_reference::complex_y_with_nans);
