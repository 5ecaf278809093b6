// blas/csymv baseline: a plain kernel written here (CLBlast has Symv for real
// types and Hemv for complex ones, no complex symmetric product): one
// work-item per element of y, reading row i of the symmetric matrix from the
// stored triangle (A(i, j) inside it, A(j, i) outside), complex products from
// global memory. beta == 0 never reads y; alpha == 0 reads neither A nor x.
#include "../plain_common.h"
#include "kgb_entries/blas/csymv.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
float2 cmul(float2 p, float2 q) { return (float2)(p.x * q.x - p.y * q.y, p.x * q.y + p.y * q.x); }
__kernel void csymv(long n, int lower, float2 alpha, __global const float2* a, long ao, long lda, __global const float2* x, long xo,
                    long incx, float2 beta, int read_y, __global float2* y, long yo, long incy) {
  long i = get_global_id(0);
  if (i >= n) return;
  float2 acc = (float2)(0.0f, 0.0f);
  if (alpha.x != 0.0f || alpha.y != 0.0f)
    for (long j = 0; j < n; ++j) {
      int stored = lower ? i >= j : i <= j;
      float2 aij = stored ? a[ao + i + j * lda] : a[ao + j + i * lda];
      acc += cmul(aij, x[xo + j * incx]);
    }
  float2 r = cmul(alpha, acc);
  if (read_y) r += cmul(beta, y[yo + i * incy]);
  y[yo + i * incy] = r;
}
)CLC";

int csymv_plain(int uplo, kgb_complex alpha_d, const kgb_tensor* a, const kgb_tensor* x, kgb_complex beta_d, kgb_tensor* y,
                kgb_stream stream) {
  if (a->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const cl_long n = a->sizes[0];
  if (n == 0) return KGB_OK;
  const cl_float2 alpha = {{static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im)}};
  const cl_float2 beta = {{static_cast<float>(beta_d.re), static_cast<float>(beta_d.im)}};
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "csymv");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).value(static_cast<cl_int>(uplo == 0)).value(alpha).tensor(a).value(n > 1 ? a->strides[1] : n);
  args.tensor(x).value(x->strides[0]).value(beta).value(static_cast<cl_int>(beta.s[0] != 0.0f || beta.s[1] != 0.0f));
  args.tensor(y).value(y->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

KGB_BASELINE(blas_csymv, kKind, csymv_plain);

}  // namespace
}  // namespace kgb::opencl::plain
