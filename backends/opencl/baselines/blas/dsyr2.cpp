// blas/dsyr2 baseline: CLBlast's Syr2<double> where CLBlast is installed and
// both increments are positive (CLBlast takes unsigned increments and cannot
// walk a vector from its far end); otherwise a plain kernel written here, one
// work-item per element of the stored triangle's columns. alpha == 0 returns
// before reading x or y (BLAS). Needs cl_khr_fp64.
#include "../plain_common.h"
#include "kgb_entries/blas/dsyr2.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dsyr2(long n, int lower, double alpha, __global const double* x, long xo, long incx, __global const double* y,
                    long yo, long incy, __global double* a, long ao, long lda) {
  long w = get_global_id(0);
  if (w >= n * n) return;
  long j = w / n, i = w - j * n;
  if (lower ? i < j : i > j) return;
  a[ao + i + j * lda] += alpha * (x[xo + i * incx] * y[yo + j * incy] + y[yo + i * incy] * x[xo + j * incx]);
}
)CLC";

int dsyr2_plain(int uplo, double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64 || a->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const cl_long n = a->sizes[0];
  if (n == 0 || alpha == 0.0) return KGB_OK;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "dsyr2");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).value(static_cast<cl_int>(uplo == 0)).value(static_cast<cl_double>(alpha));
  args.tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]).tensor(a).value(n > 1 ? a->strides[1] : n);
  return args.error == CL_SUCCESS ? launch(stream, k, n * n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int dsyr2_clblast(int uplo, double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64 || a->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const size_t n = static_cast<size_t>(a->sizes[0]);
  if (n == 0 || alpha == 0.0) return KGB_OK;
  level1::ClVector cx, cy;
  if (!level1::clblast_vector(stream, x, &cx) || !level1::clblast_vector(stream, y, &cy))
    return dsyr2_plain(uplo, alpha, x, y, a, stream);
  cl_mem ab = nullptr;
  cl_long ao = 0;
  if (kgb_cl_tensor_buffer(stream, a, &ab, &ao) != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t lda = n <= 1 ? 1 : static_cast<size_t>(a->strides[1]);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Syr2<double>(clblast::Layout::kColMajor, uplo == 0 ? clblast::Triangle::kLower : clblast::Triangle::kUpper, n,
                                      alpha, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, ab, static_cast<size_t>(ao), lda,
                                      &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_dsyr2, "clblast", dsyr2_clblast);
#else
KGB_BASELINE(blas_dsyr2, kKind, dsyr2_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
