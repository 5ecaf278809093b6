// blas/csymm baseline: CLBlast's column-major complex Symm where CLBlast is
// installed and the matrices have unit row strides; otherwise (and for
// alpha == 0, which must not read A or B) a plain kernel written here: one
// work-item per element of C, complex dot products from global memory, each
// element of A read from the stored triangle (its mirror for the other one).
#include <algorithm>
#include <complex>

#include "../plain_common.h"
#include "kgb_entries/blas/csymm.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
float2 cmul(float2 x, float2 y) { return (float2)(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x); }
__kernel void csymm(__global float2* c, long co, __global const float2* a, long ao, __global const float2* b, long bo,
                    long M, long N, long D, long as0, long as1, long bs0, long bs1, long cs0, long cs1, int right, int upper,
                    float2 alpha, float2 beta, int read_c) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long j = w / M, i = w - j * M;
  float2 acc = (float2)(0.0f, 0.0f);
  for (long l = 0; l < D; ++l) {
    long r = right ? l : i, q = right ? j : l;  /* A(r, q) */
    int stored = upper ? r <= q : r >= q;
    float2 av = stored ? a[ao + r * as0 + q * as1] : a[ao + q * as0 + r * as1];
    float2 bv = right ? b[bo + i * bs0 + l * bs1] : b[bo + l * bs0 + j * bs1];
    acc += right ? cmul(bv, av) : cmul(av, bv);
  }
  float2 res = cmul(alpha, acc);
  if (read_c) res += cmul(beta, c[co + i * cs0 + j * cs1]);
  c[co + i * cs0 + j * cs1] = res;
}
)CLC";

int csymm_plain(int side, int uplo, kgb_complex alpha_d, const kgb_tensor* A, const kgb_tensor* B, kgb_complex beta_d,
                kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_C64 || B->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  cl_long D = side ? N : M;
  const cl_float2 alpha = {{static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im)}};
  const cl_float2 beta = {{static_cast<float>(beta_d.re), static_cast<float>(beta_d.im)}};
  if (M * N == 0) return KGB_OK;
  if (alpha.s[0] == 0.0f && alpha.s[1] == 0.0f) D = 0;  // A and B are not read
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "csymm");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(C).tensor(A).tensor(B).value(M).value(N).value(D).value(A->strides[0]).value(A->strides[1]);
  args.value(B->strides[0]).value(B->strides[1]).value(C->strides[0]).value(C->strides[1]);
  args.value(static_cast<cl_int>(side != 0)).value(static_cast<cl_int>(uplo != 0)).value(alpha).value(beta);
  args.value(static_cast<cl_int>(beta.s[0] != 0.0f || beta.s[1] != 0.0f));
  return args.error == CL_SUCCESS ? launch(stream, k, M * N) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int csymm_clblast(int side, int uplo, kgb_complex alpha_d, const kgb_tensor* A, const kgb_tensor* B, kgb_complex beta_d,
                  kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_C64 || B->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const size_t m = static_cast<size_t>(C->sizes[0]), n = static_cast<size_t>(C->sizes[1]);
  if (m == 0 || n == 0) return KGB_OK;
  auto column_major = [](const kgb_tensor* x) { return x->strides[0] == 1 || x->sizes[0] <= 1; };
  if (!column_major(A) || !column_major(B) || !column_major(C) || (alpha_d.re == 0.0 && alpha_d.im == 0.0))
    return csymm_plain(side, uplo, alpha_d, A, B, beta_d, C, stream);
  auto ld = [](const kgb_tensor* x) {
    return static_cast<size_t>(x->sizes[1] <= 1 ? std::max<int64_t>(1, x->sizes[0]) : x->strides[1]);
  };
  cl_mem ab = nullptr, bb = nullptr, cb = nullptr;
  cl_long ao = 0, bo = 0, co = 0;
  if (kgb_cl_tensor_buffer(stream, A, &ab, &ao) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, B, &bb, &bo) != CL_SUCCESS ||
      kgb_cl_tensor_buffer(stream, C, &cb, &co) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  const std::complex<float> alpha(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  const std::complex<float> beta(static_cast<float>(beta_d.re), static_cast<float>(beta_d.im));
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Symm<std::complex<float>>(clblast::Layout::kColMajor, side ? clblast::Side::kRight : clblast::Side::kLeft,
                                                   uplo ? clblast::Triangle::kUpper : clblast::Triangle::kLower, m, n, alpha, ab,
                                                   static_cast<size_t>(ao), ld(A), bb, static_cast<size_t>(bo), ld(B), beta, cb,
                                                   static_cast<size_t>(co), ld(C), &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_csymm, "clblast", csymm_clblast);
#else
KGB_BASELINE(blas_csymm, kKind, csymm_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
