// Computes y on the host and publishes it through the kernel's own buffer:
// a fill first (so a device-time span would open before the host work), the
// inputs read back, the result computed on the host, written into a buffer of
// its own, copied into y on the device, then a kernel that does nothing. The
// output and the device-work count are right, and no harness buffer is
// written from the host. The host loop repeats the computation 64 times: it
// stands for a host path costlier than its transfers, which any operator with
// more than a few operations per byte has. Timed, the host work is not device
// time (the union of the commands' own intervals), so the host clock exceeds
// the event time: `hybrid-timing-mismatch`.
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
  cl_int err = CL_SUCCESS;
  cl_mem own = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, ys * sizeof(float), NULL, &err);
  if (!own) return 3;
  const float zero = 0;
  clEnqueueFillBuffer(q, own, &zero, sizeof zero, 0, ys * sizeof(float), 0, NULL, NULL);
  clFinish(q);
  float* hx = (float*)malloc(xs * sizeof(float));
  float* hy = (float*)malloc(ys * sizeof(float));
  float* out = (float*)malloc(ys * sizeof(float));
  clEnqueueReadBuffer(q, xb, CL_TRUE, (size_t)(xo - xlow) * sizeof(float), xs * sizeof(float), hx, 0, NULL, NULL);
  clEnqueueReadBuffer(q, yb, CL_TRUE, (size_t)(yo - ylow) * sizeof(float), ys * sizeof(float), hy, 0, NULL, NULL);
  for (int repeat = 0; repeat < 64; ++repeat) {
    for (size_t i = 0; i < ys; ++i) out[i] = hy[i];
    for (cl_long i = 0; i < n; ++i) out[ylow + i * incy] = hy[ylow + i * incy] + (float)alpha * hx[xlow + i * incx];
  }
  clEnqueueWriteBuffer(q, own, CL_TRUE, 0, ys * sizeof(float), out, 0, NULL, NULL);
  clEnqueueCopyBuffer(q, own, yb, 0, (size_t)(yo - ylow) * sizeof(float), ys * sizeof(float), 0, NULL, NULL);
  free(hx);
  free(hy);
  free(out);
  cl_kernel k = NULL;
  int status = 0;
  if (kgb_cl_get_kernel(stream, kNoOp, "", "touch", &k) != CL_SUCCESS || kgb_cl_set_tensor_arg(stream, k, 0, y) != CL_SUCCESS) {
    status = 4;
  } else {
    const size_t one = 1;
    if (kgb_cl_enqueue(stream, k, 1, &one, NULL) != CL_SUCCESS) status = 5;
  }
  clFinish(q);
  clReleaseMemObject(own);
  return status;
}
