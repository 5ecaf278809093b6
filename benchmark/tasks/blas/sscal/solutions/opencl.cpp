// blas/sscal in OpenCL: x[i*incx] *= alpha for incx > 0; incx <= 0 and
// n == 0 do nothing (BLAS). Unit increment: each work-item scales four
// consecutive elements with vload4/vstore4; other increments one element per
// work-item.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
__kernel void sscal_unit(long n, float alpha, __global float* x, long x_off) {
  long i = 4 * (long)get_global_id(0);
  __global float* xp = x + x_off;
  if (i + 3 < n) {
    vstore4(alpha * vload4(0, xp + i), 0, xp + i);
  } else {
    for (; i < n; ++i) xp[i] *= alpha;
  }
}

__kernel void sscal_strided(long n, float alpha, __global float* x, long x_off, long incx) {
  long i = get_global_id(0);
  if (i < n) x[x_off + i * incx] *= alpha;
}
)CLC";

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

extern "C" int kgb_blas_sscal(double alpha, kgb_tensor* x, kgb_stream stream) {
  if (x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1) return KGB_ERR_INVALID;
  const cl_long n = x->sizes[0], incx = x->strides[0];
  const cl_float a = static_cast<cl_float>(alpha);
  if (n <= 0 || incx <= 0 || a == 1.0f) return KGB_OK;  // BLAS: nothing to do
  const bool unit = incx == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", unit ? "sscal_unit" : "sscal_strided", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof a, &a);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x);  // arguments 2, 3
  if (!unit) err |= clSetKernelArg(k, 4, sizeof incx, &incx);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t items = unit ? static_cast<size_t>((n + 3) / 4) : static_cast<size_t>(n);
  const size_t global = round_up(items, local);
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
