// blas/cgeru in OpenCL: A(i, j) += alpha * x[i] * y[j], float complex
// (float2: real, imaginary), column-major A.
//
// Memory bound: A is read and written once. Work-item (i, t) owns row i of a
// tile of kCols columns: it keeps alpha * x[i] in registers and walks the
// tile's columns, so neighbouring work-items touch neighbouring elements of
// one column (coalesced on GPUs; on CPU devices such as PoCL, which run a
// work-group as a loop over its work-items, the loop over i vectorises).
// y[j] is the same address for the whole work-group. Increments of either
// sign: data[i * inc] is element i. alpha == 0 returns before reading x or y.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#define COLS 16
__kernel void cgeru(long m, long n, float2 alpha, __global const float2* x, long x_off, long incx,
                    __global const float2* y, long y_off, long incy, __global float2* a, long a_off, long lda) {
  const long i = get_global_id(0);
  if (i >= m) return;
  const long j0 = (long)get_global_id(1) * COLS;
  const long j1 = min(j0 + COLS, n);
  const float2 xi = x[x_off + i * incx];
  const float2 ax = (float2)(alpha.x * xi.x - alpha.y * xi.y, alpha.x * xi.y + alpha.y * xi.x);
  __global const float2* yp = y + y_off;
  __global float2* ap = a + a_off + i;
  for (long j = j0; j < j1; ++j) {
    const float2 yj = yp[j * incy];
    const float yr = yj.x, yi = yj.y;
    float2 v = ap[j * lda];
    v.x = fma(ax.x, yr, fma(-ax.y, yi, v.x));
    v.y = fma(ax.x, yi, fma(ax.y, yr, v.y));
    ap[j * lda] = v;
  }
}
)CLC";

constexpr size_t kLocal = 64;
constexpr size_t kCols = 16;

}  // namespace

extern "C" int kgb_blas_cgeru(kgb_complex alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || A->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2) return KGB_ERR_INVALID;
  const cl_long m = A->sizes[0], n = A->sizes[1];
  if (x->sizes[0] != m || y->sizes[0] != n) return KGB_ERR_INVALID;
  const cl_float2 al = {{static_cast<cl_float>(alpha.re), static_cast<cl_float>(alpha.im)}};
  if (m == 0 || n == 0 || (al.s[0] == 0 && al.s[1] == 0)) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  const cl_long incx = x->strides[0], incy = y->strides[0], lda = n > 1 ? A->strides[1] : m;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "cgeru", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof m, &m);
  err |= clSetKernelArg(k, 1, sizeof n, &n);
  err |= clSetKernelArg(k, 2, sizeof al, &al);
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
