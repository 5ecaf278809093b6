// blas/csyrk_ex baseline: CLBlast's column-major complex Syrk (symmetric, no
// conjugation) where CLBlast is installed and the matrices have unit row
// strides; otherwise (and for alpha == 0 or k == 0, which must not read A) a
// plain kernel written here: one work-item per element of C, only the uplo
// triangle computed and written.
#include <algorithm>
#include <complex>

#include "../plain_common.h"
#include "kgb_entries/blas/csyrk_ex.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
float2 cmul(float2 x, float2 y) { return (float2)(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x); }
__kernel void csyrk(__global float2* c, long co, __global const float2* a, long ao, long N, long K, long ai, long al,
                    long ci, long cj, int upper, float2 alpha, float2 beta, int read_c) {
  long w = get_global_id(0);
  if (w >= N * N) return;
  long j = w / N, i = w - j * N;
  if (upper ? i > j : i < j) return;
  float2 acc = (float2)(0.0f, 0.0f);
  for (long l = 0; l < K; ++l) acc += cmul(a[ao + i * ai + l * al], a[ao + j * ai + l * al]);
  float2 r = cmul(alpha, acc);
  if (read_c) r += cmul(beta, c[co + i * ci + j * cj]);
  c[co + i * ci + j * cj] = r;
}
)CLC";

int csyrk_plain(int uplo, int trans, kgb_complex alpha_d, const kgb_tensor* A, kgb_complex beta_d, kgb_tensor* C,
                kgb_stream stream) {
  if (A->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const bool t = trans != 0;
  const cl_long N = C->sizes[0];
  cl_long K = t ? A->sizes[0] : A->sizes[1];
  if (N == 0) return KGB_OK;
  const cl_float2 alpha = {{static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im)}};
  const cl_float2 beta = {{static_cast<float>(beta_d.re), static_cast<float>(beta_d.im)}};
  if (alpha.s[0] == 0.0f && alpha.s[1] == 0.0f) K = 0;  // A is not read
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "csyrk");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(C).tensor(A).value(N).value(K);
  args.value(t ? A->strides[1] : A->strides[0]).value(t ? A->strides[0] : A->strides[1]);
  args.value(C->strides[0]).value(C->strides[1]).value(static_cast<cl_int>(uplo != 0)).value(alpha).value(beta);
  args.value(static_cast<cl_int>(beta.s[0] != 0.0f || beta.s[1] != 0.0f));
  return args.error == CL_SUCCESS ? launch(stream, k, N * N) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int csyrk_clblast(int uplo, int trans, kgb_complex alpha_d, const kgb_tensor* A, kgb_complex beta_d, kgb_tensor* C,
                  kgb_stream stream) {
  if (A->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const bool t = trans != 0;
  const size_t n = static_cast<size_t>(C->sizes[0]), k = static_cast<size_t>(t ? A->sizes[0] : A->sizes[1]);
  if (n == 0) return KGB_OK;
  auto column_major = [](const kgb_tensor* x) { return x->strides[0] == 1 || x->sizes[0] <= 1; };
  if (!column_major(A) || !column_major(C) || k == 0 || (alpha_d.re == 0.0 && alpha_d.im == 0.0))
    return csyrk_plain(uplo, trans, alpha_d, A, beta_d, C, stream);
  auto ld = [](const kgb_tensor* x) {
    return static_cast<size_t>(x->sizes[1] <= 1 ? std::max<int64_t>(1, x->sizes[0]) : x->strides[1]);
  };
  cl_mem ab = nullptr, cb = nullptr;
  cl_long ao = 0, co = 0;
  if (kgb_cl_tensor_buffer(stream, A, &ab, &ao) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, C, &cb, &co) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  const std::complex<float> alpha(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  const std::complex<float> beta(static_cast<float>(beta_d.re), static_cast<float>(beta_d.im));
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Syrk<std::complex<float>>(clblast::Layout::kColMajor,
                                                   uplo ? clblast::Triangle::kUpper : clblast::Triangle::kLower,
                                                   t ? clblast::Transpose::kYes : clblast::Transpose::kNo, n, k, alpha, ab,
                                                   static_cast<size_t>(ao), ld(A), beta, cb, static_cast<size_t>(co), ld(C),
                                                   &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_csyrk_ex, "clblast", csyrk_clblast);
#else
KGB_BASELINE(blas_csyrk_ex, kKind, csyrk_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
