// blas/dsbmv in OpenCL: y := alpha * A * x + beta * y for an f64 symmetric
// band matrix given by one triangle of its (k + 1) x n column-major band
// (uplo LOWER = 0: diagonal in band row 0; UPPER = 1: diagonal in band row k).
// The unused band corners are never read. Needs cl_khr_fp64; devices without
// it get KGB_ERR_UNSUPPORTED.
//
// One work-item per output. Row i of the symmetric matrix is band column i
// (the stored triangle's column i read as a row, diagonal included; unit
// stride for the work-item) plus the off-diagonal elements A(i, j) of the
// neighbouring columns, one per column along the band diagonal through
// (i, i). Neighbouring work-items touch neighbouring band columns and reuse
// the same cache lines on the next steps; consecutive work-items read
// consecutive elements of x. Each work-item writes only its own y[i], so y
// is updated in place; beta == 0 never reads y, alpha == 0 reads neither A
// nor x. Increments of either sign: data[i * inc] is element i.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dsbmv(long n, long k, int upper, double alpha, double beta, int use_a, int read_y, __global const double* a,
                    long a_off, long lda, __global const double* x, long x_off, long incx, __global double* y, long y_off,
                    long incy) {
  const long i = get_global_id(0);
  if (i >= n) return;
  a += a_off;
  x += x_off;
  double sum = 0.0;
  if (use_a) {
    const long lo = upper ? max(k - i, 0L) : 0, hi = upper ? k : min(n - 1 - i, k), j0 = upper ? i - k : i;
    __global const double* col = a + i * lda;
    for (long r = lo; r <= hi; ++r) sum = fma(col[r], x[(j0 + r) * incx], sum);
    const long lo2 = upper ? max(i + k - (n - 1), 0L) : 1, hi2 = upper ? k - 1 : min(i, k);
    for (long r = lo2; r <= hi2; ++r) {
      const long j = upper ? i + k - r : i - r;
      sum = fma(a[r + j * lda], x[j * incx], sum);
    }
  }
  __global double* yi = y + y_off + i * incy;
  double v = alpha * sum;
  if (read_y) v = fma(beta, *yi, v);
  *yi = v;
}
)CLC";

constexpr size_t kLocal = 128;

}  // namespace

extern "C" int kgb_blas_dsbmv(int uplo, double alpha, const kgb_tensor* A, const kgb_tensor* x, double beta, kgb_tensor* y,
                              kgb_stream stream) {
  if (A->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  const cl_long k = A->sizes[0] - 1, n = A->sizes[1];
  if (k < 0 || x->sizes[0] != n || y->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const cl_long lda = n > 1 ? A->strides[1] : k + 1, incx = x->strides[0], incy = y->strides[0];
  const cl_int upper = uplo == 1, use_a = alpha != 0.0, read_y = beta != 0.0;
  const cl_double al = alpha, be = beta;
  cl_kernel kk = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "dsbmv", &kk) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(kk, 0, sizeof n, &n);
  err |= clSetKernelArg(kk, 1, sizeof k, &k);
  err |= clSetKernelArg(kk, 2, sizeof upper, &upper);
  err |= clSetKernelArg(kk, 3, sizeof al, &al);
  err |= clSetKernelArg(kk, 4, sizeof be, &be);
  err |= clSetKernelArg(kk, 5, sizeof use_a, &use_a);
  err |= clSetKernelArg(kk, 6, sizeof read_y, &read_y);
  err |= kgb_cl_set_tensor_arg(stream, kk, 7, A);  // arguments 7, 8
  err |= clSetKernelArg(kk, 9, sizeof lda, &lda);
  err |= kgb_cl_set_tensor_arg(stream, kk, 10, x);  // arguments 10, 11
  err |= clSetKernelArg(kk, 12, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, kk, 13, y);  // arguments 13, 14
  err |= clSetKernelArg(kk, 15, sizeof incy, &incy);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t global = (static_cast<size_t>(n) + kLocal - 1) / kLocal * kLocal;
  return kgb_cl_enqueue(stream, kk, 1, &global, &kLocal) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
