// blas/stbmv baseline: a plain kernel written here, one work-item per element
// of the product walking the k + 1 band elements of its row into a temporary
// buffer, then a copy back into x. Not CLBlast's Tbmv: CLBlast runs its dense
// matrix-vector kernel over all n columns for banded routines (zeros outside
// the band), O(n^2) work that does not finish in time on PoCL at the task's
// sizes (n = 262144).
#include "../plain_common.h"
#include "kgb_entries/blas/stbmv.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void stbmv(long n, long k, int upper, int transposed, int unit, __global const float* a, long ao, long lda,
                    __global const float* x, long xo, long incx, __global float* t) {
  long i = get_global_id(0);
  if (i >= n) return;
  float sum = 0.0f;
  for (long j = max(0L, i - k); j <= min(n - 1, i + k); ++j) {
    long row = transposed ? j : i, col = transposed ? i : j;  /* op(A)(i, j) = A(row, col) */
    long d = upper ? col - row : row - col;
    if (d < 0) continue;
    float v = (d == 0 && unit) ? 1.0f : a[ao + (upper ? k + row - col : row - col) + col * lda];
    sum += v * x[xo + j * incx];
  }
  t[i] = sum;
}
__kernel void copy_back(long n, __global const float* t, __global float* x, long xo, long incx) {
  long i = get_global_id(0);
  if (i < n) x[xo + i * incx] = t[i];
}
)CLC";

int stbmv_plain(int uplo, int trans, int diag, const kgb_tensor* a, kgb_tensor* x, kgb_stream stream) {
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const cl_long k = a->sizes[0] - 1, n = a->sizes[1];
  if (n == 0) return KGB_OK;
  cl_kernel product = kernel(stream, kSource, "-cl-std=CL1.2", "stbmv");
  cl_kernel copy = kernel(stream, kSource, "-cl-std=CL1.2", "copy_back");
  if (!product || !copy) return KGB_ERR_INVALID;
  cl_int err = CL_SUCCESS;
  cl_mem t = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, static_cast<size_t>(n) * sizeof(float), nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  Args args{stream, product};
  args.value(n).value(k).value(static_cast<cl_int>(uplo == 1)).value(static_cast<cl_int>(trans != 0)).value(static_cast<cl_int>(diag == 1));
  args.tensor(a).value(n > 1 ? a->strides[1] : k + 1).tensor(x).value(x->strides[0]).value(t);
  Args back{stream, copy};
  back.value(n).value(t).tensor(x).value(x->strides[0]);
  int status = args.error == CL_SUCCESS && back.error == CL_SUCCESS ? launch(stream, product, n) : KGB_ERR_INVALID;
  if (status == KGB_OK) status = launch(stream, copy, n);
  clReleaseMemObject(t);  // freed once the queued kernels are done
  return status;
}

KGB_BASELINE(blas_stbmv, kKind, stbmv_plain);

}  // namespace
}  // namespace kgb::opencl::plain
