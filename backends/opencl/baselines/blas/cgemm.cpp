// blas/cgemm baseline: CLBlast's column-major complex Gemm (op C as
// Transpose::kConjugate) where CLBlast is installed and the matrices have unit
// row strides; otherwise a plain kernel written here (one work-item per
// element of C, complex dot products from global memory).
#include <complex>

#include "../plain_common.h"
#include "kgb_entries/blas/cgemm.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void cgemm(__global float2* c, long co, __global const float2* a, long ao, __global const float2* b, long bo,
                    long M, long N, long K, long ai, long al, long bl, long bj, long ci, long cj, float2 alpha,
                    float2 beta, int read_c, float sa, float sb) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long j = w / M, i = w - j * M;
  float2 acc = (float2)(0.0f, 0.0f);
  for (long l = 0; l < K; ++l) {
    float2 x = a[ao + i * ai + l * al], y = b[bo + l * bl + j * bj];
    x.y *= sa;
    y.y *= sb;
    acc += (float2)(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
  }
  float2 r = (float2)(alpha.x * acc.x - alpha.y * acc.y, alpha.x * acc.y + alpha.y * acc.x);
  if (read_c) {
    float2 old = c[co + i * ci + j * cj];
    r += (float2)(beta.x * old.x - beta.y * old.y, beta.x * old.y + beta.y * old.x);
  }
  c[co + i * ci + j * cj] = r;
}
)CLC";

int cgemm_plain(int transa, int transb, kgb_complex alpha_d, const kgb_tensor* A, const kgb_tensor* B, kgb_complex beta_d,
                kgb_tensor* C, kgb_stream stream) {
  const bool ta = transa != 0, tb = transb != 0;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  cl_long K = ta ? A->sizes[0] : A->sizes[1];
  const cl_float2 alpha = {{static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im)}};
  const cl_float2 beta = {{static_cast<float>(beta_d.re), static_cast<float>(beta_d.im)}};
  if (M * N == 0) return KGB_OK;
  if (alpha.s[0] == 0.0f && alpha.s[1] == 0.0f) K = 0;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "cgemm");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(C).tensor(A).tensor(B).value(M).value(N).value(K);
  args.value(ta ? A->strides[1] : A->strides[0]).value(ta ? A->strides[0] : A->strides[1]);
  args.value(tb ? B->strides[1] : B->strides[0]).value(tb ? B->strides[0] : B->strides[1]);
  args.value(C->strides[0]).value(C->strides[1]).value(alpha).value(beta);
  args.value(static_cast<cl_int>(beta.s[0] != 0.0f || beta.s[1] != 0.0f));
  args.value(static_cast<cl_float>(transa == 2 ? -1.0f : 1.0f)).value(static_cast<cl_float>(transb == 2 ? -1.0f : 1.0f));
  return args.error == CL_SUCCESS ? launch(stream, k, M * N) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int cgemm_clblast(int transa, int transb, kgb_complex alpha_d, const kgb_tensor* A, const kgb_tensor* B, kgb_complex beta_d,
                  kgb_tensor* C, kgb_stream stream) {
  const size_t m = static_cast<size_t>(C->sizes[0]), n = static_cast<size_t>(C->sizes[1]);
  const size_t k = static_cast<size_t>(transa ? A->sizes[0] : A->sizes[1]);
  if (m == 0 || n == 0) return KGB_OK;
  const std::complex<float> alpha(static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im));
  const std::complex<float> beta(static_cast<float>(beta_d.re), static_cast<float>(beta_d.im));
  // Column-major storage with unit row stride is what BLAS takes; CLBlast wants
  // k >= 1, and alpha == 0 must not read A or B: those calls take the plain kernel.
  auto column_major = [](const kgb_tensor* x) { return x->strides[0] == 1 || x->sizes[0] <= 1; };
  if (!column_major(A) || !column_major(B) || !column_major(C) || k == 0 || alpha == 0.0f)
    return cgemm_plain(transa, transb, alpha_d, A, B, beta_d, C, stream);
  auto ld = [](const kgb_tensor* x) {
    return static_cast<size_t>(x->sizes[1] <= 1 ? std::max<int64_t>(1, x->sizes[0]) : x->strides[1]);
  };
  auto op = [](int t) { return t == 0 ? clblast::Transpose::kNo : t == 1 ? clblast::Transpose::kYes : clblast::Transpose::kConjugate; };
  cl_mem ab = nullptr, bb = nullptr, cb = nullptr;
  cl_long ao = 0, bo = 0, co = 0;
  if (kgb_cl_tensor_buffer(stream, A, &ab, &ao) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, B, &bb, &bo) != CL_SUCCESS ||
      kgb_cl_tensor_buffer(stream, C, &cb, &co) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Gemm<std::complex<float>>(clblast::Layout::kColMajor, op(transa), op(transb), m, n, k, alpha, ab,
                                                   static_cast<size_t>(ao), ld(A), bb, static_cast<size_t>(bo), ld(B), beta, cb,
                                                   static_cast<size_t>(co), ld(C), &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_cgemm, "clblast", cgemm_clblast);
#else
KGB_BASELINE(blas_cgemm, kKind, cgemm_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
