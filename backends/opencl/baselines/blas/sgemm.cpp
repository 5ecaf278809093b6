// blas/sgemm baseline: CLBlast's column-major Gemm where CLBlast is installed
// and the matrices have unit row strides; otherwise a plain kernel written here
// (one work-item per element of C, dot products from global memory).
#include "../plain_common.h"
#include "kgb_entries/blas/sgemm.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void sgemm(__global float* c, long co, __global const float* a, long ao, __global const float* b, long bo,
                    long M, long N, long K, long ai, long al, long bl, long bj, long ci, long cj, float alpha,
                    float beta, int read_c) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long j = w / M, i = w - j * M;
  float acc = 0.0f;
  for (long l = 0; l < K; ++l) acc += a[ao + i * ai + l * al] * b[bo + l * bl + j * bj];
  float r = alpha * acc;
  if (read_c) r += beta * c[co + i * ci + j * cj];
  c[co + i * ci + j * cj] = r;
}
)CLC";

int sgemm_plain(int64_t transa, int64_t transb, double alpha_d, const kgb_tensor* A, const kgb_tensor* B, double beta_d,
                kgb_tensor* C, kgb_stream stream) {
  const bool ta = transa != 0, tb = transb != 0;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  cl_long K = ta ? A->sizes[0] : A->sizes[1];
  const cl_float alpha = static_cast<cl_float>(alpha_d), beta = static_cast<cl_float>(beta_d);
  if (M * N == 0) return KGB_OK;
  if (alpha == 0.0f) K = 0;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "sgemm");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(C).tensor(A).tensor(B).value(M).value(N).value(K);
  args.value(ta ? A->strides[1] : A->strides[0]).value(ta ? A->strides[0] : A->strides[1]);
  args.value(tb ? B->strides[1] : B->strides[0]).value(tb ? B->strides[0] : B->strides[1]);
  args.value(C->strides[0]).value(C->strides[1]).value(alpha).value(beta).value(static_cast<cl_int>(beta != 0.0f));
  return args.error == CL_SUCCESS ? launch(stream, k, M * N) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int sgemm_clblast(int64_t transa, int64_t transb, double alpha_d, const kgb_tensor* A, const kgb_tensor* B, double beta_d,
                  kgb_tensor* C, kgb_stream stream) {
  const bool ta = transa != 0, tb = transb != 0;
  const size_t m = static_cast<size_t>(C->sizes[0]), n = static_cast<size_t>(C->sizes[1]);
  const size_t k = static_cast<size_t>(ta ? A->sizes[0] : A->sizes[1]);
  if (m == 0 || n == 0) return KGB_OK;
  // Column-major storage with unit row stride is what BLAS takes.
  auto column_major = [](const kgb_tensor* x) { return x->strides[0] == 1 || x->sizes[0] <= 1; };
  if (!column_major(A) || !column_major(B) || !column_major(C) || k == 0) return sgemm_plain(transa, transb, alpha_d, A, B, beta_d, C, stream);
  auto ld = [](const kgb_tensor* x) { return static_cast<size_t>(x->strides[1] > 0 ? x->strides[1] : 1); };
  cl_mem ab = nullptr, bb = nullptr, cb = nullptr;
  cl_long ao = 0, bo = 0, co = 0;
  if (kgb_cl_tensor_buffer(stream, A, &ab, &ao) != CL_SUCCESS || kgb_cl_tensor_buffer(stream, B, &bb, &bo) != CL_SUCCESS ||
      kgb_cl_tensor_buffer(stream, C, &cb, &co) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Gemm<float>(clblast::Layout::kColMajor, ta ? clblast::Transpose::kYes : clblast::Transpose::kNo,
                                     tb ? clblast::Transpose::kYes : clblast::Transpose::kNo, m, n, k,
                                     static_cast<float>(alpha_d), ab, static_cast<size_t>(ao), ld(A), bb,
                                     static_cast<size_t>(bo), ld(B), static_cast<float>(beta_d), cb,
                                     static_cast<size_t>(co), ld(C), &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_sgemm, "clblast", sgemm_clblast);
#else
KGB_BASELINE(blas_sgemm, kKind, sgemm_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
