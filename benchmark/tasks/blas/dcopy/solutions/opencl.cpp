// blas/dcopy in OpenCL: y[i*incy] = x[i*incx], f64 moved as 8-byte words
// (no double arithmetic, so no cl_khr_fp64 needed). Equal unit increments
// (both +1, or both -1: the same memory block from each vector's lowest
// address) are one clEnqueueCopyBuffer on the harness queue; everything else
// one work-item per element.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
__kernel void dcopy_strided(long n, __global const ulong* x, long x_off, long incx, __global ulong* y, long y_off,
                            long incy) {
  long i = get_global_id(0);
  if (i < n) y[y_off + i * incy] = x[x_off + i * incx];
}
)CLC";

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

extern "C" int kgb_blas_dcopy(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const cl_long n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  if (n <= 0) return KGB_OK;
  if (incx == incy && (incx == 1 || incx == -1)) {
    cl_mem xb = nullptr, yb = nullptr;
    cl_long xo = 0, yo = 0;
    if (kgb_cl_tensor_buffer(stream, x, &xb, &xo) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, y, &yb, &yo) != CL_SUCCESS)
      return KGB_ERR_INVALID;
    const cl_long low = incx == 1 ? 0 : n - 1;  // both blocks start at their lowest address
    const size_t elem = sizeof(cl_double);
    return clEnqueueCopyBuffer(kgb_cl_get_queue(stream), xb, yb, (xo - low) * elem, (yo - low) * elem, n * elem, 0, nullptr,
                               nullptr) == CL_SUCCESS
               ? KGB_OK
               : KGB_ERR_INVALID;
  }
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "dcopy_strided", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= kgb_cl_set_tensor_arg(stream, k, 1, x);  // arguments 1, 2
  err |= clSetKernelArg(k, 3, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, y);  // arguments 4, 5
  err |= clSetKernelArg(k, 6, sizeof incy, &incy);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256, global = round_up(static_cast<size_t>(n), local);
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
