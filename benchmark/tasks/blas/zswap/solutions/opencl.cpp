// blas/zswap in OpenCL: x[i*incx] <-> y[i*incy], c128 moved as ulong2 (16
// bytes, no fp64 arithmetic needed). One work-item per element; the signed
// increments address reversed vectors directly (offset + i * inc).
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
__kernel void zswap(long n, __global ulong2* x, long x_off, long incx, __global ulong2* y, long y_off, long incy) {
  long i = get_global_id(0);
  if (i < n) {
    __global ulong2* a = x + x_off + i * incx;
    __global ulong2* b = y + y_off + i * incy;
    const ulong2 t = *a;
    *a = *b;
    *b = t;
  }
}
)CLC";

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

extern "C" int kgb_blas_zswap(kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const cl_long n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  if (n <= 0) return KGB_OK;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "zswap", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= kgb_cl_set_tensor_arg(stream, k, 1, x);  // arguments 1, 2
  err |= clSetKernelArg(k, 3, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, y);  // arguments 4, 5
  err |= clSetKernelArg(k, 6, sizeof incy, &incy);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256, global = round_up(static_cast<size_t>(n), local);
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
