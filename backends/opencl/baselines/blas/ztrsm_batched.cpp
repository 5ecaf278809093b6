// blas/ztrsm_batched baseline: CLBlast has no batched trsm, so this is a
// plain kernel written here: one work-item per (item, right-hand side) -- a
// column of B[b] for LEFT, a row for RIGHT -- running a plain complex
// substitution in global memory that reads only the stored triangle (op C
// conjugating); the items are found through the lists' offsets buffers.
#include "../plain_common.h"
#include "kgb_entries/blas/ztrsm_batched.h"

namespace kgb::opencl::plain {
namespace {

// T(i, l) = A(i, l) or A(l, i) (t_transposed), conjugated for op C, is lower
// triangular when t_lower, else it is solved backwards; element p of
// right-hand side q is B(p, q) for LEFT and B(q, p) for RIGHT.
const std::string kSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
double2 cmul(double2 x, double2 y) { return (double2)(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x); }
double2 cdiv(double2 x, double2 y) {
  double den = y.x * y.x + y.y * y.y;
  return (double2)((x.x * y.x + x.y * y.y) / den, (x.y * y.x - x.x * y.y) / den);
}
__kernel void ztrsm_batched(__global double2* b, __global const long* bo, __global const double2* a, __global const long* ao,
                            long batch, long D, long R, long as0, long as1, long bs0, long bs1, int left, int t_transposed,
                            int t_lower, int unit, int conj, double2 alpha) {
  long w = get_global_id(0);
  if (w >= batch * R) return;
  long item = w / R, q = w - item * R;
  __global double2* bb = b + bo[item];
  __global const double2* ab = a + ao[item];
  long bp = left ? bs0 : bs1, bq = left ? bs1 : bs0;
  long ti = t_transposed ? as1 : as0, tl = t_transposed ? as0 : as1;
  double sgn = conj ? -1.0 : 1.0;
  for (long s = 0; s < D; ++s) {
    long i = t_lower ? s : D - 1 - s;
    double2 sum = cmul(alpha, bb[i * bp + q * bq]);
    for (long t = 0; t < s; ++t) {
      long l = t_lower ? t : D - 1 - t;
      double2 v = ab[i * ti + l * tl];
      v.y *= sgn;
      sum -= cmul(v, bb[l * bp + q * bq]);
    }
    double2 d = ab[i * ti + i * tl];
    d.y *= sgn;
    bb[i * bp + q * bq] = unit ? sum : cdiv(sum, d);
  }
}
__kernel void zero_batched(__global double2* b, __global const long* bo, long batch, long M, long N, long bs0, long bs1) {
  long w = get_global_id(0);
  if (w >= batch * M * N) return;
  long item = w / (M * N), r = w - item * M * N;
  long j = r / M, i = r - j * M;
  b[bo[item] + i * bs0 + j * bs1] = (double2)(0.0, 0.0);
}
)CLC";

int ztrsm_batched_plain(int side, int uplo, int trans, int diag, kgb_complex alpha_d, const kgb_tensor_list* A,
                        kgb_tensor_list* B, kgb_stream stream) {
  const cl_long batch = B->count;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* a0 = A->items[0];
  const kgb_tensor* b0 = B->items[0];
  if (a0->dtype != KGB_C128 || b0->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  const cl_long M = b0->sizes[0], N = b0->sizes[1];
  if (M * N == 0) return KGB_OK;
  cl_mem abuf = nullptr, aoff = nullptr, bbuf = nullptr, boff = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, A, &abuf, &aoff) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, B, &bbuf, &boff) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  if (alpha_d.re == 0.0 && alpha_d.im == 0.0) {  // every B[b] = 0, A not read
    cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "zero_batched");
    if (!k) return KGB_ERR_INVALID;
    Args args{stream, k};
    args.value(bbuf).value(boff).value(batch).value(M).value(N).value(b0->strides[0]).value(b0->strides[1]);
    return args.error == CL_SUCCESS ? launch(stream, k, batch * M * N) : KGB_ERR_INVALID;
  }
  const bool left = side == 0;
  const bool t_transposed = (trans != 0) != !left;
  const bool t_lower = (uplo == 0) != t_transposed;
  const cl_long D = left ? M : N, R = left ? N : M;
  const cl_double2 alpha = {{alpha_d.re, alpha_d.im}};
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "ztrsm_batched");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(bbuf).value(boff).value(abuf).value(aoff).value(batch).value(D).value(R).value(a0->strides[0]).value(a0->strides[1]);
  args.value(b0->strides[0]).value(b0->strides[1]).value(static_cast<cl_int>(left)).value(static_cast<cl_int>(t_transposed));
  args.value(static_cast<cl_int>(t_lower)).value(static_cast<cl_int>(diag != 0)).value(static_cast<cl_int>(trans == 2)).value(alpha);
  return args.error == CL_SUCCESS ? launch(stream, k, batch * R) : KGB_ERR_INVALID;
}

KGB_BASELINE(blas_ztrsm_batched, kKind, ztrsm_batched_plain);

}  // namespace
}  // namespace kgb::opencl::plain
