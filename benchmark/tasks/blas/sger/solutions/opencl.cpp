// blas/sger in OpenCL: A(i, j) += alpha * x[i] * y[j], f32, column-major.
//
// Memory bound: A is read and written once. Work-item (i, t) owns row i of a
// tile of kCols columns: it keeps alpha * x[i] in a register and walks the
// tile's columns, so neighbouring work-items touch neighbouring addresses of
// one column (coalesced on GPUs; on CPU devices such as PoCL, which run a
// work-group as a loop over its work-items, the loop over i vectorises).
// y[j] is the same address for the whole work-group. Increments of either
// sign: data[i * inc] is element i. alpha == 0 returns before reading x or y.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#define COLS 16
__kernel void sger(long m, long n, float alpha, __global const float* x, long x_off, long incx,
                   __global const float* y, long y_off, long incy, __global float* a, long a_off, long lda) {
  const long i = get_global_id(0);
  if (i >= m) return;
  const long j0 = (long)get_global_id(1) * COLS;
  const long j1 = min(j0 + COLS, n);
  const float ax = alpha * x[x_off + i * incx];
  __global const float* yp = y + y_off;
  __global float* ap = a + a_off + i;
  for (long j = j0; j < j1; ++j) ap[j * lda] = fma(ax, yp[j * incy], ap[j * lda]);
}
)CLC";

constexpr size_t kLocal = 64;
constexpr size_t kCols = 16;

}  // namespace

extern "C" int kgb_blas_sger(double alpha_d, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || A->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2) return KGB_ERR_INVALID;
  const cl_long m = A->sizes[0], n = A->sizes[1];
  if (x->sizes[0] != m || y->sizes[0] != n) return KGB_ERR_INVALID;
  const cl_float alpha = static_cast<cl_float>(alpha_d);
  if (m == 0 || n == 0 || alpha == 0.0f) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  const cl_long incx = x->strides[0], incy = y->strides[0], lda = n > 1 ? A->strides[1] : m;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "sger", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof m, &m);
  err |= clSetKernelArg(k, 1, sizeof n, &n);
  err |= clSetKernelArg(k, 2, sizeof alpha, &alpha);
  err |= kgb_cl_set_tensor_arg(stream, k, 3, x);  // arguments 3, 4
  err |= clSetKernelArg(k, 5, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, k, 6, y);  // arguments 6, 7
  err |= clSetKernelArg(k, 8, sizeof incy, &incy);
  err |= kgb_cl_set_tensor_arg(stream, k, 9, A);  // arguments 9, 10
  err |= clSetKernelArg(k, 11, sizeof lda, &lda);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t global[2] = {(static_cast<size_t>(m) + kLocal - 1) / kLocal * kLocal, (static_cast<size_t>(n) + kCols - 1) / kCols};
  const size_t local[2] = {kLocal, 1};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
