// blas/sdgmm in OpenCL: C = A * diag(x) (RIGHT) or diag(x) * A (LEFT),
// column-major.
//
// A 2-D range: dimension 0 walks a column's rows (contiguous), dimension 1 the
// columns, so no division per element. When the columns allow it (unit row
// stride, m a multiple of 4) each work-item
// moves four rows with vload4/vstore4 (and x with vload4 for LEFT with
// incx == 1); otherwise one element through the strides. RIGHT reads one x
// value per column. In place (C == A) each work-item reads exactly the
// elements it overwrites.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
__kernel void dgmm_vec4(__global float* c, long c_off, __global const float* a, long a_off, __global const float* x,
                        long x_off, long m4, long lda, long ldc, long incx, int right) {
  long i4 = get_global_id(0), j = get_global_id(1);
  if (i4 >= m4) return;
  long i = i4 * 4;
  float4 v = vload4(0, a + a_off + j * lda + i);
  float4 s;
  if (right) s = (float4)(x[x_off + j * incx]);
  else if (incx == 1) s = vload4(0, x + x_off + i);
  else s = (float4)(x[x_off + i * incx], x[x_off + (i + 1) * incx], x[x_off + (i + 2) * incx], x[x_off + (i + 3) * incx]);
  vstore4(v * s, 0, c + c_off + j * ldc + i);
}

__kernel void dgmm_strided(__global float* c, long c_off, __global const float* a, long a_off, __global const float* x,
                           long x_off, long m, long as0, long as1, long cs0, long cs1, long incx, int right) {
  long i = get_global_id(0), j = get_global_id(1);
  if (i >= m) return;
  c[c_off + i * cs0 + j * cs1] = a[a_off + i * as0 + j * as1] * x[x_off + (right ? j : i) * incx];
}
)CLC";

}  // namespace

extern "C" int kgb_blas_sdgmm(int mode, const kgb_tensor* A, const kgb_tensor* x, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || C->rank != 2 || x->rank != 1 || (mode != 0 && mode != 1)) return KGB_ERR_INVALID;
  const cl_long m = C->sizes[0], n = C->sizes[1];
  const cl_int right = mode == 1;
  if (A->sizes[0] != m || A->sizes[1] != n || x->sizes[0] != (right ? n : m)) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  const cl_long incx = x->strides[0];
  // vload4/vstore4 need only float alignment: any offset works.
  const bool vec = A->strides[0] == 1 && C->strides[0] == 1 && m % 4 == 0;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", vec ? "dgmm_vec4" : "dgmm_strided", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, C);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, x);
  cl_uint next = 6;
  auto arg = [&](cl_long v) { err |= clSetKernelArg(k, next++, sizeof v, &v); };
  if (vec) {
    arg(m / 4);
    arg(A->strides[1]);
    arg(C->strides[1]);
  } else {
    arg(m);
    arg(A->strides[0]);
    arg(A->strides[1]);
    arg(C->strides[0]);
    arg(C->strides[1]);
  }
  arg(incx);
  err |= clSetKernelArg(k, next++, sizeof right, &right);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t rows = static_cast<size_t>(vec ? m / 4 : m);
  const size_t local[2] = {64, 1};
  const size_t global[2] = {(rows + 63) / 64 * 64, static_cast<size_t>(n)};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
