// Computes the right answer on the host: reads x and y back, loops on the
// CPU, writes y. The host write into y's buffer is rejected as
// `host-device-access` (and no kernel is enqueued either: `no-device-work`). Negative increments are read from the vector's lowest
// address (its storage lies below data).
#include <stdlib.h>

#include "kgb_opencl.h"

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0) return 0;
  cl_mem xb, yb;
  cl_long xo, yo;
  if (kgb_cl_tensor_buffer(stream, x, &xb, &xo) || kgb_cl_tensor_buffer(stream, y, &yb, &yo)) return 2;
  const cl_long incx = x->strides[0], incy = y->strides[0];
  // Elements below data: (n - 1) * |inc| for a negative increment.
  const cl_long xlow = incx < 0 ? -(n - 1) * incx : 0, ylow = incy < 0 ? -(n - 1) * incy : 0;
  const size_t xs = (size_t)((n - 1) * (incx < 0 ? -incx : incx) + 1), ys = (size_t)((n - 1) * (incy < 0 ? -incy : incy) + 1);
  float* hx = (float*)malloc(xs * sizeof(float));
  float* hy = (float*)malloc(ys * sizeof(float));
  cl_command_queue q = kgb_cl_get_queue(stream);
  clEnqueueReadBuffer(q, xb, CL_TRUE, (size_t)(xo - xlow) * sizeof(float), xs * sizeof(float), hx, 0, NULL, NULL);
  clEnqueueReadBuffer(q, yb, CL_TRUE, (size_t)(yo - ylow) * sizeof(float), ys * sizeof(float), hy, 0, NULL, NULL);
  for (cl_long i = 0; i < n; ++i) hy[ylow + i * incy] += (float)alpha * hx[xlow + i * incx];
  clEnqueueWriteBuffer(q, yb, CL_TRUE, (size_t)(yo - ylow) * sizeof(float), ys * sizeof(float), hy, 0, NULL, NULL);
  free(hx);
  free(hy);
  return 0;
}
