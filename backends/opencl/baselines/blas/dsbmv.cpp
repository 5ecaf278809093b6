// blas/dsbmv baseline: a plain kernel written here, one work-item per element
// of y walking the 2k + 1 band elements of its row (beta == 0 never reads y,
// alpha == 0 reads neither A nor x). Not CLBlast's Sbmv: CLBlast runs its
// dense matrix-vector kernel over all n columns for banded routines (zeros
// outside the band), O(n^2) work that does not finish in time on PoCL at the
// task's sizes (n = 131072). Needs cl_khr_fp64.
#include "../plain_common.h"
#include "kgb_entries/blas/dsbmv.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dsbmv(long n, long k, int upper, double alpha, __global const double* a, long ao, long lda, __global const double* x,
                    long xo, long incx, double beta, __global double* y, long yo, long incy) {
  long i = get_global_id(0);
  if (i >= n) return;
  double sum = 0.0;
  if (alpha != 0.0)
    for (long j = max(0L, i - k); j <= min(n - 1, i + k); ++j) {
      int stored = upper ? i <= j : i >= j;
      long row = stored ? i : j, col = stored ? j : i;
      sum += a[ao + (upper ? k + row - col : row - col) + col * lda] * x[xo + j * incx];
    }
  double r = alpha * sum;
  if (beta != 0.0) r += beta * y[yo + i * incy];
  y[yo + i * incy] = r;
}
)CLC";

int dsbmv_plain(int uplo, double alpha, const kgb_tensor* a, const kgb_tensor* x, double beta, kgb_tensor* y, kgb_stream stream) {
  if (a->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const cl_long k = a->sizes[0] - 1, n = a->sizes[1];
  if (n == 0) return KGB_OK;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  cl_kernel kk = kernel(stream, kSource, "-cl-std=CL1.2", "dsbmv");
  if (!kk) return KGB_ERR_INVALID;
  Args args{stream, kk};
  args.value(n).value(k).value(static_cast<cl_int>(uplo == 1)).value(static_cast<cl_double>(alpha)).tensor(a);
  args.value(n > 1 ? a->strides[1] : k + 1).tensor(x).value(x->strides[0]).value(static_cast<cl_double>(beta)).tensor(y).value(y->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, kk, n) : KGB_ERR_INVALID;
}

KGB_BASELINE(blas_dsbmv, kKind, dsbmv_plain);

}  // namespace
}  // namespace kgb::opencl::plain
