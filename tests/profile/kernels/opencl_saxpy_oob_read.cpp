// blas/saxpy in OpenCL whose last work-item reads x one element too far
// (x[n] instead of x[n-1]). Oclgrind must report the invalid read with this
// file's line.
#include "kgb_opencl.h"

static const char kSource[] = R"CLC(
__kernel void saxpy(long n, float alpha, __global const float* x, long xo, long incx,
                    __global float* y, long yo, long incy) {
  long i = get_global_id(0);
  long j = i == n - 1 ? n : i;
  if (i < n) y[yo + i * incy] += alpha * x[xo + j * incx];
}
)CLC";

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "saxpy", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_long n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  cl_float a = (cl_float)alpha;
  if (n == 0) return KGB_OK;
  clSetKernelArg(k, 0, sizeof n, &n);
  clSetKernelArg(k, 1, sizeof a, &a);
  kgb_cl_set_tensor_arg(stream, k, 2, x);
  clSetKernelArg(k, 4, sizeof incx, &incx);
  kgb_cl_set_tensor_arg(stream, k, 5, y);
  clSetKernelArg(k, 7, sizeof incy, &incy);
  size_t global = (size_t)n;
  return kgb_cl_enqueue(stream, k, 1, &global, NULL) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
