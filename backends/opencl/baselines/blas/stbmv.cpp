// blas/stbmv baseline: CLBlast's Tbmv<float> where CLBlast is installed and
// the increment is positive (CLBlast takes an unsigned increment and cannot
// walk the vector from its far end); otherwise a plain kernel written here:
// one work-item per element of the product into a temporary buffer, then a
// copy back into x.
#include "../plain_common.h"
#include "kgb_entries/blas/stbmv.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

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

#ifdef KGB_HAVE_CLBLAST
int stbmv_clblast(int uplo, int trans, int diag, const kgb_tensor* a, kgb_tensor* x, kgb_stream stream) {
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const size_t k = static_cast<size_t>(a->sizes[0] - 1), n = static_cast<size_t>(a->sizes[1]);
  if (n == 0) return KGB_OK;
  level1::ClVector cx;
  if (!level1::clblast_vector(stream, x, &cx)) return stbmv_plain(uplo, trans, diag, a, x, stream);
  cl_mem ab = nullptr;
  cl_long ao = 0;
  if (kgb_cl_tensor_buffer(stream, a, &ab, &ao) != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t lda = n <= 1 ? k + 1 : static_cast<size_t>(a->strides[1]);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Tbmv<float>(clblast::Layout::kColMajor, uplo == 0 ? clblast::Triangle::kLower : clblast::Triangle::kUpper,
                                     trans == 0 ? clblast::Transpose::kNo : trans == 1 ? clblast::Transpose::kYes : clblast::Transpose::kConjugate,
                                     diag == 0 ? clblast::Diagonal::kNonUnit : clblast::Diagonal::kUnit, n, k, ab, static_cast<size_t>(ao), lda,
                                     cx.buffer, cx.offset, cx.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_stbmv, "clblast", stbmv_clblast);
#else
KGB_BASELINE(blas_stbmv, kKind, stbmv_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
