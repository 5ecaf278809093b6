// blas/daxpy in OpenCL: y[i*incy] = alpha * x[i*incx] + y[i*incy] in double
// (cl_khr_fp64; devices without it get KGB_ERR_UNSUPPORTED). Unit increments:
// each work-item updates two consecutive elements with vload2/vstore2. Any
// other increments, negative ones and incx == 0 included: one work-item per
// element at offset + i * inc (the signed increment walks the reversed vector).
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void daxpy_unit(long n, double alpha, __global const double* x, long x_off, __global double* y, long y_off) {
  long i = 2 * (long)get_global_id(0);
  __global const double* xp = x + x_off;
  __global double* yp = y + y_off;
  if (i + 1 < n) {
    vstore2(fma((double2)(alpha), vload2(0, xp + i), vload2(0, yp + i)), 0, yp + i);
  } else if (i < n) {
    yp[i] = fma(alpha, xp[i], yp[i]);
  }
}

__kernel void daxpy_strided(long n, double alpha, __global const double* x, long x_off, long incx,
                            __global double* y, long y_off, long incy) {
  long i = get_global_id(0);
  if (i < n) y[y_off + i * incy] = fma(alpha, x[x_off + i * incx], y[y_off + i * incy]);
}
)CLC";

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

extern "C" int kgb_blas_daxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const cl_long n = x->sizes[0];
  if (n <= 0 || alpha == 0.0) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is, x unread
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const cl_double a = alpha;
  const cl_long incx = x->strides[0], incy = y->strides[0];
  const bool unit = incx == 1 && incy == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", unit ? "daxpy_unit" : "daxpy_strided", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof a, &a);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x);  // arguments 2, 3
  if (unit) {
    err |= kgb_cl_set_tensor_arg(stream, k, 4, y);  // arguments 4, 5
  } else {
    err |= clSetKernelArg(k, 4, sizeof incx, &incx);
    err |= kgb_cl_set_tensor_arg(stream, k, 5, y);  // arguments 5, 6
    err |= clSetKernelArg(k, 7, sizeof incy, &incy);
  }
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t items = unit ? static_cast<size_t>((n + 1) / 2) : static_cast<size_t>(n);
  const size_t global = round_up(items, local);
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
