// blas/daxpy baseline: CLBlast's Axpy<double> where CLBlast is installed and
// the increments are both positive or both negative; otherwise (incx == 0,
// mixed signs, no CLBlast) a plain kernel written here.
#include "../plain_common.h"
#include "kgb_entries/blas/daxpy.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void daxpy(long n, double alpha, __global const double* x, long xo, long incx, __global double* y, long yo,
                    long incy) {
  long i = get_global_id(0);
  if (i < n) y[yo + i * incy] += alpha * x[xo + i * incx];
}
)CLC";

int daxpy_plain(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0 || alpha == 0.0) return KGB_OK;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "daxpy");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).value(alpha).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int daxpy_clblast(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0 || alpha == 0.0) return KGB_OK;
  level1::ClVector cx, cy;
  if (!level1::clblast_vectors(stream, x, y, &cx, &cy)) return daxpy_plain(alpha, x, y, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Axpy<double>(static_cast<size_t>(n), alpha, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc,
                                      &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_daxpy, "clblast", daxpy_clblast);
#else
KGB_BASELINE(blas_daxpy, kKind, daxpy_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
