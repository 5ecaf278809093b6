// Computes y on the host and writes it back through a sub-buffer of y's
// buffer (so the buffer the write names is not the harness's own handle),
// then enqueues a kernel that does nothing. Must be rejected as
// `host-device-access`: a sub-buffer reaches its parent's memory.
#include <stdlib.h>

#include "kgb_opencl.h"

namespace {
const char kNoOp[] = "__kernel void touch(__global float* y, long off) { if (get_global_id(0) == 1u << 30) y[off] = 0; }";
}

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0) return 0;
  cl_mem xb, yb;
  cl_long xo, yo;
  if (kgb_cl_tensor_buffer(stream, x, &xb, &xo) || kgb_cl_tensor_buffer(stream, y, &yb, &yo)) return 2;
  const cl_long incx = x->strides[0], incy = y->strides[0];
  const cl_long xlow = incx < 0 ? -(n - 1) * incx : 0, ylow = incy < 0 ? -(n - 1) * incy : 0;
  const size_t xs = (size_t)((n - 1) * (incx < 0 ? -incx : incx) + 1), ys = (size_t)((n - 1) * (incy < 0 ? -incy : incy) + 1);
  cl_command_queue q = kgb_cl_get_queue(stream);
  float* hx = (float*)malloc(xs * sizeof(float));
  float* hy = (float*)malloc(ys * sizeof(float));
  clEnqueueReadBuffer(q, xb, CL_TRUE, (size_t)(xo - xlow) * sizeof(float), xs * sizeof(float), hx, 0, NULL, NULL);
  clEnqueueReadBuffer(q, yb, CL_TRUE, (size_t)(yo - ylow) * sizeof(float), ys * sizeof(float), hy, 0, NULL, NULL);
  for (cl_long i = 0; i < n; ++i) hy[ylow + i * incy] += (float)alpha * hx[xlow + i * incx];
  // A sub-buffer must start at an aligned offset: take the whole buffer.
  size_t whole = 0;
  clGetMemObjectInfo(yb, CL_MEM_SIZE, sizeof whole, &whole, NULL);
  cl_buffer_region region = {0, whole};
  cl_int err = CL_SUCCESS;
  cl_mem alias = clCreateSubBuffer(yb, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  if (alias) {
    clEnqueueWriteBuffer(q, alias, CL_TRUE, (size_t)(yo - ylow) * sizeof(float), ys * sizeof(float), hy, 0, NULL, NULL);
    clReleaseMemObject(alias);
  }
  free(hx);
  free(hy);
  cl_kernel k = NULL;
  if (kgb_cl_get_kernel(stream, kNoOp, "", "touch", &k) != CL_SUCCESS || kgb_cl_set_tensor_arg(stream, k, 0, y) != CL_SUCCESS)
    return 3;
  const size_t one = 1;
  return kgb_cl_enqueue(stream, k, 1, &one, NULL) == CL_SUCCESS ? 0 : 4;
}
