// blas/saxpy in OpenCL: y[i*incy] = alpha * x[i*incx] + y[i*incy].
// One work-item per element; unit increments take a kernel where each
// work-item handles four consecutive elements (a float4 when aligned), the
// general kernel handles any increments, including incx == 0.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
__kernel void saxpy_unit(long n, float alpha, __global const float* x, long x_off, __global float* y, long y_off) {
  long i = 4 * (long)get_global_id(0);
  __global const float* xp = x + x_off;
  __global float* yp = y + y_off;
  if (i + 3 < n) {
    float4 a = vload4(0, xp + i);
    float4 b = vload4(0, yp + i);
    vstore4(fma((float4)(alpha), a, b), 0, yp + i);
  } else {
    for (; i < n; ++i) yp[i] = fma(alpha, xp[i], yp[i]);
  }
}

__kernel void saxpy_strided(long n, float alpha, __global const float* x, long x_off, long incx,
                            __global float* y, long y_off, long incy) {
  long i = get_global_id(0);
  if (i < n) y[y_off + i * incy] = fma(alpha, x[x_off + i * incx], y[y_off + i * incy]);
}
)CLC";

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const cl_long n = x->sizes[0];
  const cl_float a = static_cast<cl_float>(alpha);
  if (n == 0 || a == 0.0f) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is
  const cl_long incx = x->strides[0], incy = y->strides[0];
  const bool unit = incx == 1 && incy == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", unit ? "saxpy_unit" : "saxpy_strided", &k) != CL_SUCCESS)
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
  const size_t items = unit ? static_cast<size_t>((n + 3) / 4) : static_cast<size_t>(n);
  const size_t global = round_up(items, local);
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
