// blas/stbmv in OpenCL: x := op(A) * x for an f32 triangular band matrix in
// (k + 1) x n column-major band storage (uplo LOWER = 0: diagonal in band row
// 0; UPPER = 1: diagonal in band row k; trans N = 0 / T = 1 / C = 2; diag
// NON_UNIT = 0 / UNIT = 1). The unused band corners, and the diagonal row for
// UNIT, are never read.
//
// The product goes into a temporary buffer (created per call, released once
// the queued kernels are done) and is then copied back into x, so the
// in-place update has no ordering hazard between work-items. One work-item
// per output; work-item i walks its band elements: for op T/C band column i
// itself (unit stride) against a window of x, for op N the band diagonal
// through (i, i), one element of each of the columns i .. i + k (upper) or
// i - k .. i (lower). Neighbouring work-items touch neighbouring band
// columns, and on the next steps reuse the same cache lines; consecutive
// work-items read consecutive elements of x. Increments of either sign:
// data[i * incx] is element i.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
__kernel void stbmv(long n, long k, int upper, int transposed, int unit, __global const float* a, long a_off, long lda,
                    __global const float* x, long x_off, long incx, __global float* out) {
  const long i = get_global_id(0);
  if (i >= n) return;
  a += a_off;
  x += x_off;
  const long diag_row = upper ? k : 0;
  long lo, hi;
  if (transposed) {
    lo = upper ? max(k - i, 0L) : 0;
    hi = upper ? k : min(n - 1 - i, k);
  } else {
    lo = upper ? max(i + k - (n - 1), 0L) : 0;
    hi = upper ? k : min(i, k);
  }
  float sum = unit ? x[i * incx] : 0.0f;
  for (long r = lo; r <= hi; ++r) {
    if (unit && r == diag_row) continue;
    const long c = transposed ? i : (upper ? i + k - r : i - r);
    const long j = transposed ? (upper ? i - k + r : i + r) : c;
    sum = fma(a[r + c * lda], x[j * incx], sum);
  }
  out[i] = sum;
}
__kernel void copy_back(long n, __global const float* t, __global float* x, long x_off, long incx) {
  const long i = get_global_id(0);
  if (i < n) x[x_off + i * incx] = t[i];
}
)CLC";

constexpr size_t kLocal = 128;

}  // namespace

extern "C" int kgb_blas_stbmv(int uplo, int trans, int diag, const kgb_tensor* A, kgb_tensor* x, kgb_stream stream) {
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const cl_long k = A->sizes[0] - 1, n = A->sizes[1];
  if (k < 0 || x->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const cl_long lda = n > 1 ? A->strides[1] : k + 1, incx = x->strides[0];
  const cl_int upper = uplo == 1, transposed = trans != 0, unit = diag == 1;
  cl_kernel product = nullptr, copy = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "stbmv", &product) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "copy_back", &copy) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = CL_SUCCESS;
  cl_mem t = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, static_cast<size_t>(n) * sizeof(float), nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  err = clSetKernelArg(product, 0, sizeof n, &n);
  err |= clSetKernelArg(product, 1, sizeof k, &k);
  err |= clSetKernelArg(product, 2, sizeof upper, &upper);
  err |= clSetKernelArg(product, 3, sizeof transposed, &transposed);
  err |= clSetKernelArg(product, 4, sizeof unit, &unit);
  err |= kgb_cl_set_tensor_arg(stream, product, 5, A);  // arguments 5, 6
  err |= clSetKernelArg(product, 7, sizeof lda, &lda);
  err |= kgb_cl_set_tensor_arg(stream, product, 8, x);  // arguments 8, 9
  err |= clSetKernelArg(product, 10, sizeof incx, &incx);
  err |= clSetKernelArg(product, 11, sizeof t, &t);
  err |= clSetKernelArg(copy, 0, sizeof n, &n);
  err |= clSetKernelArg(copy, 1, sizeof t, &t);
  err |= kgb_cl_set_tensor_arg(stream, copy, 2, x);  // arguments 2, 3
  err |= clSetKernelArg(copy, 4, sizeof incx, &incx);
  const size_t global = (static_cast<size_t>(n) + kLocal - 1) / kLocal * kLocal;
  if (err == CL_SUCCESS) err = kgb_cl_enqueue(stream, product, 1, &global, &kLocal);
  if (err == CL_SUCCESS) err = kgb_cl_enqueue(stream, copy, 1, &global, &kLocal);
  clReleaseMemObject(t);  // freed once the queued kernels are done
  return err == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
