// blas/saxpy baseline: CLBlast's Axpy where CLBlast is installed, otherwise
// (or for increments CLBlast rejects) a plain kernel written here.
#include "../plain_common.h"
#include "kgb_entries/blas/saxpy.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
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
  if (x->strides[0] < 1 || y->strides[0] < 1) return saxpy_plain(alpha_d, x, y, stream);
  cl_mem xb = nullptr, yb = nullptr;
  cl_long xo = 0, yo = 0;
  if (kgb_cl_tensor_buffer(stream, x, &xb, &xo) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, y, &yb, &yo) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Axpy<float>(static_cast<size_t>(n), alpha, xb, static_cast<size_t>(xo),
                                     static_cast<size_t>(x->strides[0]), yb, static_cast<size_t>(yo),
                                     static_cast<size_t>(y->strides[0]), &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_saxpy, "clblast", saxpy_clblast);
#else
KGB_BASELINE(blas_saxpy, kKind, saxpy_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
