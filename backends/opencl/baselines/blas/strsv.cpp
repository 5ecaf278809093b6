// blas/strsv baseline: CLBlast's Trsv<float> where CLBlast is installed and
// the increment is positive (CLBlast takes an unsigned increment and cannot
// walk the vector from its far end); otherwise a plain kernel written here:
// one work-item doing the whole substitution, in the order the triangle
// dictates (forward for lower-N and upper-T/C, backward otherwise).
#include "../plain_common.h"
#include "kgb_entries/blas/strsv.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void strsv(long n, int forward, int transposed, int unit, __global const float* a, long ao, long lda, __global float* x,
                    long xo, long incx) {
  if (get_global_id(0) != 0) return;
  for (long s = 0; s < n; ++s) {
    long i = forward ? s : n - 1 - s;
    float v = x[xo + i * incx];
    for (long t = 0; t < s; ++t) {
      long j = forward ? t : n - 1 - t;
      v -= (transposed ? a[ao + j + i * lda] : a[ao + i + j * lda]) * x[xo + j * incx];
    }
    x[xo + i * incx] = unit ? v : v / a[ao + i + i * lda];
  }
}
)CLC";

int strsv_plain(int uplo, int trans, int diag, const kgb_tensor* a, kgb_tensor* x, kgb_stream stream) {
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const cl_long n = a->sizes[0];
  if (n == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "strsv");
  if (!k) return KGB_ERR_INVALID;
  const cl_int transposed = trans != 0, forward = (uplo == 0) != (trans != 0);
  Args args{stream, k};
  args.value(n).value(forward).value(transposed).value(static_cast<cl_int>(diag == 1)).tensor(a).value(n > 1 ? a->strides[1] : n);
  args.tensor(x).value(x->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, 1) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int strsv_clblast(int uplo, int trans, int diag, const kgb_tensor* a, kgb_tensor* x, kgb_stream stream) {
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const size_t n = static_cast<size_t>(a->sizes[0]);
  if (n == 0) return KGB_OK;
  level1::ClVector cx;
  if (!level1::clblast_vector(stream, x, &cx)) return strsv_plain(uplo, trans, diag, a, x, stream);
  cl_mem ab = nullptr;
  cl_long ao = 0;
  if (kgb_cl_tensor_buffer(stream, a, &ab, &ao) != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t lda = n <= 1 ? 1 : static_cast<size_t>(a->strides[1]);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Trsv<float>(clblast::Layout::kColMajor, uplo == 0 ? clblast::Triangle::kLower : clblast::Triangle::kUpper,
                                     trans == 0 ? clblast::Transpose::kNo : trans == 1 ? clblast::Transpose::kYes : clblast::Transpose::kConjugate,
                                     diag == 0 ? clblast::Diagonal::kNonUnit : clblast::Diagonal::kUnit, n, ab, static_cast<size_t>(ao), lda,
                                     cx.buffer, cx.offset, cx.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_strsv, "clblast", strsv_clblast);
#else
KGB_BASELINE(blas_strsv, kKind, strsv_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
