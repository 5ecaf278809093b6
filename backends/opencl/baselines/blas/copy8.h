// Shared by the dcopy and ccopy OpenCL baselines, whose elements are both 8
// bytes (f64, c64): CLBlast's Copy<T> where CLBlast is installed and the
// increments are both positive or both negative; otherwise (incx == 0, mixed
// signs, no CLBlast) a plain kernel written here moving one 8-byte word per
// element (no fp64 arithmetic needed).
#pragma once

#include "../plain_common.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {

inline int copy8_plain(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  static const std::string source = R"CLC(
__kernel void copy8(long n, __global const ulong* x, long xo, long incx, __global ulong* y, long yo, long incy) {
  long i = get_global_id(0);
  if (i < n) y[yo + i * incy] = x[xo + i * incx];
}
)CLC";
  const cl_long n = x->sizes[0];
  if (n == 0) return KGB_OK;
  cl_kernel k = kernel(stream, source, "-cl-std=CL1.2", "copy8");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
// T: CLBlast's element type (double, std::complex<float>).
template <class T>
int copy8_clblast(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  static_assert(sizeof(T) == 8, "copy8 moves 8-byte elements");
  const cl_long n = x->sizes[0];
  if (n == 0) return KGB_OK;
  level1::ClVector cx, cy;
  if (!level1::clblast_vectors(stream, x, y, &cx, &cy)) return copy8_plain(x, y, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Copy<T>(static_cast<size_t>(n), cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
#endif

}  // namespace kgb::opencl::plain
