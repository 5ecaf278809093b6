// blas/strsm baseline: CLBlast's column-major Trsm where CLBlast is installed,
// the device is not a CPU and the matrices have unit row strides; otherwise
// (and for alpha == 0, which must not read A) a plain kernel written here: one work-item per
// right-hand side (a column of B for LEFT, a row for RIGHT), a plain
// substitution in global memory that reads only the stored triangle.
#include <algorithm>

#include "../plain_common.h"
#include "kgb_entries/blas/strsm.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {
namespace {

// T(i, l) = A(i, l) or A(l, i) (t_transposed) is lower triangular when
// t_lower, else it is solved backwards; element p of right-hand side q is
// B(p, q) for LEFT and B(q, p) for RIGHT.
const std::string kSource = R"CLC(
__kernel void strsm(__global float* b, long bo, __global const float* a, long ao, long D, long R, long as0, long as1,
                    long bs0, long bs1, int left, int t_transposed, int t_lower, int unit, float alpha) {
  long q = get_global_id(0);
  if (q >= R) return;
  long bp = left ? bs0 : bs1, bq = left ? bs1 : bs0;
  long ti = t_transposed ? as1 : as0, tl = t_transposed ? as0 : as1;
  for (long s = 0; s < D; ++s) {
    long i = t_lower ? s : D - 1 - s;
    float sum = alpha * b[bo + i * bp + q * bq];
    for (long t = 0; t < s; ++t) {
      long l = t_lower ? t : D - 1 - t;
      sum -= a[ao + i * ti + l * tl] * b[bo + l * bp + q * bq];
    }
    b[bo + i * bp + q * bq] = unit ? sum : sum / a[ao + i * ti + i * tl];
  }
}
__kernel void zero(__global float* b, long bo, long M, long N, long bs0, long bs1) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long j = w / M, i = w - j * M;
  b[bo + i * bs0 + j * bs1] = 0.0f;
}
)CLC";

int strsm_plain(int side, int uplo, int trans, int diag, double alpha_d, const kgb_tensor* A, kgb_tensor* B, kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const cl_long M = B->sizes[0], N = B->sizes[1];
  if (M * N == 0) return KGB_OK;
  const cl_float alpha = static_cast<cl_float>(alpha_d);
  if (alpha == 0.0f) {  // B = 0, A not read
    cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "zero");
    if (!k) return KGB_ERR_INVALID;
    Args args{stream, k};
    args.tensor(B).value(M).value(N).value(B->strides[0]).value(B->strides[1]);
    return args.error == CL_SUCCESS ? launch(stream, k, M * N) : KGB_ERR_INVALID;
  }
  const bool left = side == 0;
  const bool t_transposed = (trans != 0) != !left;
  const bool t_lower = (uplo == 0) != t_transposed;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "strsm");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(B).tensor(A).value(left ? M : N).value(left ? N : M).value(A->strides[0]).value(A->strides[1]);
  args.value(B->strides[0]).value(B->strides[1]).value(static_cast<cl_int>(left)).value(static_cast<cl_int>(t_transposed));
  args.value(static_cast<cl_int>(t_lower)).value(static_cast<cl_int>(diag != 0)).value(alpha);
  return args.error == CL_SUCCESS ? launch(stream, k, left ? N : M) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int strsm_clblast(int side, int uplo, int trans, int diag, double alpha_d, const kgb_tensor* A, kgb_tensor* B, kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const size_t m = static_cast<size_t>(B->sizes[0]), n = static_cast<size_t>(B->sizes[1]);
  if (m == 0 || n == 0) return KGB_OK;
  auto column_major = [](const kgb_tensor* x) { return x->strides[0] == 1 || x->sizes[0] <= 1; };
  // On PoCL's CPU device CLBlast's Trsm gave no answer within the runner's
  // deadline (measured on 512 x 512): CPU devices take the plain kernel.
  const bool cpu_device = (kgb_cl_device_type(stream) & CL_DEVICE_TYPE_CPU) != 0;
  if (cpu_device || !column_major(A) || !column_major(B) || alpha_d == 0.0)
    return strsm_plain(side, uplo, trans, diag, alpha_d, A, B, stream);
  auto ld = [](const kgb_tensor* x) {
    return static_cast<size_t>(x->sizes[1] <= 1 ? std::max<int64_t>(1, x->sizes[0]) : x->strides[1]);
  };
  cl_mem ab = nullptr, bb = nullptr;
  cl_long ao = 0, bo = 0;
  if (kgb_cl_tensor_buffer(stream, A, &ab, &ao) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, B, &bb, &bo) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Trsm<float>(clblast::Layout::kColMajor, side ? clblast::Side::kRight : clblast::Side::kLeft,
                                     uplo ? clblast::Triangle::kUpper : clblast::Triangle::kLower,
                                     trans ? clblast::Transpose::kYes : clblast::Transpose::kNo,
                                     diag ? clblast::Diagonal::kUnit : clblast::Diagonal::kNonUnit, m, n,
                                     static_cast<float>(alpha_d), ab, static_cast<size_t>(ao), ld(A), bb,
                                     static_cast<size_t>(bo), ld(B), &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_strsm, "clblast (plain, written here, on CPU devices)", strsm_clblast);
#else
KGB_BASELINE(blas_strsm, kKind, strsm_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
