// blas/saxpy baseline: CLBlast's Axpy where CLBlast is installed and the
// increments are both positive or both negative; otherwise (incx == 0, mixed
// signs, no CLBlast) a plain kernel written here.
#include "../plain_common.h"
#include "kgb_entries/blas/saxpy.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void saxpy(long n, float alpha, __global const float* x, long xo, long incx, __global float* y, long yo,
                    long incy) {
  long i = get_global_id(0);
  if (i < n) y[yo + i * incy] += alpha * x[xo + i * incx];
}
)CLC";

int saxpy_plain(double alpha_d, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  const cl_float alpha = static_cast<cl_float>(alpha_d);
  if (n == 0 || alpha == 0.0f) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "saxpy");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).value(alpha).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int saxpy_clblast(double alpha_d, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  const float alpha = static_cast<float>(alpha_d);
  if (n == 0 || alpha == 0.0f) return KGB_OK;
  level1::ClVector cx, cy;
  if (!level1::clblast_vectors(stream, x, y, &cx, &cy)) return saxpy_plain(alpha_d, x, y, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Axpy<float>(static_cast<size_t>(n), alpha, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc,
                                     &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_saxpy, "clblast", saxpy_clblast);
#else
KGB_BASELINE(blas_saxpy, kKind, saxpy_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
