// The right kernel, enqueued on a command queue of the kernel's own (lint
// rejects clCreateCommandQueue; this checks the runtime guard beneath it).
// Its events are not the harness's to time: must be rejected as `foreign-queue`.
#include "kgb_opencl.h"

namespace {
const char kSource[] = R"CLC(
__kernel void saxpy(long n, float alpha, __global const float* x, long x_off, long incx,
                    __global float* y, long y_off, long incy) {
  long i = get_global_id(0);
  if (i < n) y[y_off + i * incy] = fma(alpha, x[x_off + i * incx], y[y_off + i * incy]);
}
)CLC";
}

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0) return 0;
  const cl_float a = (cl_float)alpha;
  const cl_long incx = x->strides[0], incy = y->strides[0];
  cl_kernel k = NULL;
  if (kgb_cl_get_kernel(stream, kSource, "", "saxpy", &k) != CL_SUCCESS) return 2;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof a, &a);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x);
  err |= clSetKernelArg(k, 4, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, k, 5, y);
  err |= clSetKernelArg(k, 7, sizeof incy, &incy);
  if (err != CL_SUCCESS) return 3;
  cl_command_queue own = clCreateCommandQueue(kgb_cl_get_context(stream), kgb_cl_get_device(stream), 0, &err);
  if (!own) return 4;
  const size_t global = (size_t)n;
  err = clEnqueueNDRangeKernel(own, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  clFinish(own);
  clReleaseCommandQueue(own);
  return err == CL_SUCCESS ? 0 : 5;
}
