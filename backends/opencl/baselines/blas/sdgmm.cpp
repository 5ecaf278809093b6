// blas/sdgmm baseline: CLBlast's Xhad (Hadamard product) works on vectors
// only, so this is a plain kernel written here: one work-item per element of
// C, x read through its increment (negative or 0 included). In place (C on
// A) each work-item reads the element it then overwrites.
#include "../plain_common.h"
#include "kgb_entries/blas/sdgmm.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void sdgmm(__global float* c, long co, __global const float* a, long ao, __global const float* x, long xo,
                    long M, long N, long ai, long aj, long ci, long cj, long incx, int right) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long j = w / M, i = w - j * M;
  c[co + i * ci + j * cj] = a[ao + i * ai + j * aj] * x[xo + (right ? j : i) * incx];
}
)CLC";

int sdgmm_plain(int mode, const kgb_tensor* A, const kgb_tensor* x, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  if (M * N == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "sdgmm");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(C).tensor(A).tensor(x).value(M).value(N).value(A->strides[0]).value(A->strides[1]);
  args.value(C->strides[0]).value(C->strides[1]).value(x->strides[0]).value(static_cast<cl_int>(mode != 0));
  return args.error == CL_SUCCESS ? launch(stream, k, M * N) : KGB_ERR_INVALID;
}

KGB_BASELINE(blas_sdgmm, kKind, sdgmm_plain);

}  // namespace
}  // namespace kgb::opencl::plain
