// Computes y on the host through a map of y's own buffer, then enqueues a
// kernel that does nothing, so the call has device work to show. On a CPU
// device the mapped pointer is the buffer itself, so the flags do not matter
// (it maps for reading only). Must be rejected as `host-device-access`.
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
  clEnqueueReadBuffer(q, xb, CL_TRUE, (size_t)(xo - xlow) * sizeof(float), xs * sizeof(float), hx, 0, NULL, NULL);
  cl_int err = CL_SUCCESS;
  float* hy = (float*)clEnqueueMapBuffer(q, yb, CL_TRUE, CL_MAP_READ, (size_t)(yo - ylow) * sizeof(float),
                                         ys * sizeof(float), 0, NULL, NULL, &err);
  if (hy) {
    for (cl_long i = 0; i < n; ++i) hy[ylow + i * incy] += (float)alpha * hx[xlow + i * incx];
    clEnqueueUnmapMemObject(q, yb, hy, 0, NULL, NULL);
  }
  free(hx);
  cl_kernel k = NULL;
  if (kgb_cl_get_kernel(stream, kNoOp, "", "touch", &k) != CL_SUCCESS || kgb_cl_set_tensor_arg(stream, k, 0, y) != CL_SUCCESS)
    return 3;
  const size_t one = 1;
  return kgb_cl_enqueue(stream, k, 1, &one, NULL) == CL_SUCCESS ? 0 : 4;
}
