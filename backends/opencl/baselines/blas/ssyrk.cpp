// blas/ssyrk baseline: CLBlast's column-major Syrk where CLBlast is installed
// and the matrices have unit row strides; otherwise (and for alpha == 0 or
// k == 0, which must not read A) a plain kernel written here: one work-item
// per element of C, only the uplo triangle computed and written.
#include <algorithm>

#include "../plain_common.h"
#include "kgb_entries/blas/ssyrk.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void ssyrk(__global float* c, long co, __global const float* a, long ao, long N, long K, long ai, long al,
                    long ci, long cj, int upper, float alpha, float beta, int read_c) {
  long w = get_global_id(0);
  if (w >= N * N) return;
  long j = w / N, i = w - j * N;
  if (upper ? i > j : i < j) return;
  float acc = 0.0f;
  for (long l = 0; l < K; ++l) acc += a[ao + i * ai + l * al] * a[ao + j * ai + l * al];
  float r = alpha * acc;
  if (read_c) r += beta * c[co + i * ci + j * cj];
  c[co + i * ci + j * cj] = r;
}
)CLC";

int ssyrk_plain(int uplo, int trans, double alpha_d, const kgb_tensor* A, double beta_d, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const bool t = trans != 0;
  const cl_long N = C->sizes[0];
  cl_long K = t ? A->sizes[0] : A->sizes[1];
  if (N == 0) return KGB_OK;
  const cl_float alpha = static_cast<cl_float>(alpha_d), beta = static_cast<cl_float>(beta_d);
  if (alpha == 0.0f) K = 0;  // A is not read
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "ssyrk");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(C).tensor(A).value(N).value(K);
  args.value(t ? A->strides[1] : A->strides[0]).value(t ? A->strides[0] : A->strides[1]);
  args.value(C->strides[0]).value(C->strides[1]).value(static_cast<cl_int>(uplo != 0)).value(alpha).value(beta);
  args.value(static_cast<cl_int>(beta != 0.0f));
  return args.error == CL_SUCCESS ? launch(stream, k, N * N) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int ssyrk_clblast(int uplo, int trans, double alpha_d, const kgb_tensor* A, double beta_d, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const bool t = trans != 0;
  const size_t n = static_cast<size_t>(C->sizes[0]), k = static_cast<size_t>(t ? A->sizes[0] : A->sizes[1]);
  if (n == 0) return KGB_OK;
  auto column_major = [](const kgb_tensor* x) { return x->strides[0] == 1 || x->sizes[0] <= 1; };
  if (!column_major(A) || !column_major(C) || k == 0 || alpha_d == 0.0)
    return ssyrk_plain(uplo, trans, alpha_d, A, beta_d, C, stream);
  auto ld = [](const kgb_tensor* x) {
    return static_cast<size_t>(x->sizes[1] <= 1 ? std::max<int64_t>(1, x->sizes[0]) : x->strides[1]);
  };
  cl_mem ab = nullptr, cb = nullptr;
  cl_long ao = 0, co = 0;
  if (kgb_cl_tensor_buffer(stream, A, &ab, &ao) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, C, &cb, &co) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Syrk<float>(clblast::Layout::kColMajor, uplo ? clblast::Triangle::kUpper : clblast::Triangle::kLower,
                                     t ? clblast::Transpose::kYes : clblast::Transpose::kNo, n, k, static_cast<float>(alpha_d),
                                     ab, static_cast<size_t>(ao), ld(A), static_cast<float>(beta_d), cb,
                                     static_cast<size_t>(co), ld(C), &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_ssyrk, "clblast", ssyrk_clblast);
#else
KGB_BASELINE(blas_ssyrk, kKind, ssyrk_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
