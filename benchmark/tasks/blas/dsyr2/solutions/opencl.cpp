// blas/dsyr2 in OpenCL: A(i, j) += alpha * (x[i] * y[j] + y[i] * x[j]) on the
// `uplo` triangle of a column-major f64 matrix (LOWER = 0: i >= j, UPPER = 1:
// i <= j); the other triangle is neither read nor written. Needs
// cl_khr_fp64; devices without it get KGB_ERR_UNSUPPORTED.
//
// Memory bound: every element of the triangle is read and written once.
// Work-item (i, t) owns row i of a tile of kCols columns, clipped to the
// triangle: it keeps alpha * x[i] and alpha * y[i] in registers and walks its
// columns, so neighbouring work-items touch neighbouring elements of one
// column (coalesced on GPUs; on CPU devices such as PoCL, which run a
// work-group as a loop over its work-items, the loop over i vectorises).
// Increments of either sign: data[i * inc] is element i. alpha == 0 returns
// before reading x or y.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define COLS 16
__kernel void dsyr2(long n, int lower, double alpha, __global const double* x, long x_off, long incx,
                    __global const double* y, long y_off, long incy, __global double* a, long a_off, long lda) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long j0 = (long)get_global_id(1) * COLS, j1 = min(j0 + COLS, n);
  if (lower) j1 = min(j1, i + 1); else j0 = max(j0, i);  /* columns of row i inside the triangle */
  if (j0 >= j1) return;
  __global const double* xp = x + x_off;
  __global const double* yp = y + y_off;
  const double xi = alpha * xp[i * incx], yi = alpha * yp[i * incy];
  __global double* ap = a + a_off + i;
  for (long j = j0; j < j1; ++j) ap[j * lda] = fma(xi, yp[j * incy], fma(yi, xp[j * incx], ap[j * lda]));
}
)CLC";

constexpr size_t kLocal = 64;
constexpr size_t kCols = 16;

}  // namespace

extern "C" int kgb_blas_dsyr2(int uplo, double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64 || A->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  const cl_long n = A->sizes[0];
  if (A->sizes[1] != n || x->sizes[0] != n || y->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0 || alpha == 0.0) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const cl_int lower = uplo == 0;
  const cl_double a = alpha;
  const cl_long incx = x->strides[0], incy = y->strides[0], lda = n > 1 ? A->strides[1] : 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "dsyr2", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof lower, &lower);
  err |= clSetKernelArg(k, 2, sizeof a, &a);
  err |= kgb_cl_set_tensor_arg(stream, k, 3, x);  // arguments 3, 4
  err |= clSetKernelArg(k, 5, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, k, 6, y);  // arguments 6, 7
  err |= clSetKernelArg(k, 8, sizeof incy, &incy);
  err |= kgb_cl_set_tensor_arg(stream, k, 9, A);  // arguments 9, 10
  err |= clSetKernelArg(k, 11, sizeof lda, &lda);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t global[2] = {(static_cast<size_t>(n) + kLocal - 1) / kLocal * kLocal, (static_cast<size_t>(n) + kCols - 1) / kCols};
  const size_t local[2] = {kLocal, 1};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
