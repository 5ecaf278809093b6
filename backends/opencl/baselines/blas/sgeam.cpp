// blas/sgeam baseline: CLBlast has no geam (matrix add with transposes), so
// this is a plain kernel written here: one work-item per element of C, both
// operands read through their strides (op() swaps them), a scale of 0 never
// reading its operand. In place (C on A, transa == N) each work-item reads
// the element it then overwrites.
#include "../plain_common.h"
#include "kgb_entries/blas/sgeam.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void sgeam(__global float* c, long co, __global const float* a, long ao, __global const float* b, long bo,
                    long M, long N, long ai, long aj, long bi, long bj, long ci, long cj, float alpha, float beta) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long j = w / M, i = w - j * M;
  float r = 0.0f;
  if (alpha != 0.0f) r = alpha * a[ao + i * ai + j * aj];
  if (beta != 0.0f) r += beta * b[bo + i * bi + j * bj];
  c[co + i * ci + j * cj] = r;
}
)CLC";

int sgeam_plain(int transa, int transb, double alpha_d, const kgb_tensor* A, double beta_d, const kgb_tensor* B,
                kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  if (M * N == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "sgeam");
  if (!k) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  Args args{stream, k};
  args.tensor(C).tensor(A).tensor(B).value(M).value(N);
  args.value(ta ? A->strides[1] : A->strides[0]).value(ta ? A->strides[0] : A->strides[1]);
  args.value(tb ? B->strides[1] : B->strides[0]).value(tb ? B->strides[0] : B->strides[1]);
  args.value(C->strides[0]).value(C->strides[1]);
  args.value(static_cast<cl_float>(alpha_d)).value(static_cast<cl_float>(beta_d));
  return args.error == CL_SUCCESS ? launch(stream, k, M * N) : KGB_ERR_INVALID;
}

KGB_BASELINE(blas_sgeam, kKind, sgeam_plain);

}  // namespace
}  // namespace kgb::opencl::plain
