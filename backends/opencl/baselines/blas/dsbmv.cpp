// blas/dsbmv baseline: CLBlast's Sbmv<double> where CLBlast is installed, the
// increments are both positive (CLBlast takes unsigned increments and cannot
// walk a vector from its far end) and beta != 0; otherwise a plain kernel
// written here, one work-item per element of y (beta == 0 never reads y,
// alpha == 0 reads neither A nor x). Needs cl_khr_fp64.
#include "../plain_common.h"
#include "kgb_entries/blas/dsbmv.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

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

#ifdef KGB_HAVE_CLBLAST
int dsbmv_clblast(int uplo, double alpha, const kgb_tensor* a, const kgb_tensor* x, double beta, kgb_tensor* y, kgb_stream stream) {
  if (a->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const size_t k = static_cast<size_t>(a->sizes[0] - 1), n = static_cast<size_t>(a->sizes[1]);
  if (n == 0) return KGB_OK;
  level1::ClVector cx, cy;
  // beta == 0 must not read y (NaN there stays out of the result): the plain kernel skips it.
  if (beta == 0.0 || alpha == 0.0 || !level1::clblast_vector(stream, x, &cx) || !level1::clblast_vector(stream, y, &cy))
    return dsbmv_plain(uplo, alpha, a, x, beta, y, stream);
  cl_mem ab = nullptr;
  cl_long ao = 0;
  if (kgb_cl_tensor_buffer(stream, a, &ab, &ao) != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t lda = n <= 1 ? k + 1 : static_cast<size_t>(a->strides[1]);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Sbmv<double>(clblast::Layout::kColMajor, uplo == 0 ? clblast::Triangle::kLower : clblast::Triangle::kUpper, n, k,
                                      alpha, ab, static_cast<size_t>(ao), lda, cx.buffer, cx.offset, cx.inc, beta, cy.buffer, cy.offset,
                                      cy.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_dsbmv, "clblast", dsbmv_clblast);
#else
KGB_BASELINE(blas_dsbmv, kKind, dsbmv_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
