// Shared by the cdotu and zdotc OpenCL baselines: CLBlast's Dotu / Dotc where
// CLBlast is installed and the increments are both positive or both negative;
// otherwise (an increment of 0, mixed signs, n == 0, no CLBlast) a plain
// kernel written here: one work-group of 256 work-items, each summing a
// strided slice of complex products, reduced in local memory.
#pragma once

#include <complex>
#include <string>
#include <type_traits>

#include "../plain_common.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {

// REAL: float or double; CONJ: 1 conjugates x (dotc).
inline const std::string& complex_dot_source() {
  static const std::string source = R"CLC(
#if REAL_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double REAL;
typedef double2 CPLX;
#else
typedef float REAL;
typedef float2 CPLX;
#endif
__kernel void complex_dot(long n, __global const CPLX* x, long xo, long incx, __global const CPLX* y, long yo, long incy,
                          __global CPLX* r, long ro) {
  __local CPLX s[256];
  int l = get_local_id(0);
  CPLX acc = (CPLX)(0, 0);
  for (long i = l; i < n; i += 256) {
    CPLX a = x[xo + i * incx], b = y[yo + i * incy];
    if (CONJ) a.y = -a.y;
    acc += (CPLX)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
  }
  s[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = 128; width > 0; width >>= 1) {
    if (l < width) s[l] += s[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) r[ro] = s[0];
}
)CLC";
  return source;
}

template <bool Double, bool Conj>
int complex_dot_plain(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (Double && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const char* options = Double ? (Conj ? "-cl-std=CL1.2 -DREAL_IS_DOUBLE=1 -DCONJ=1" : "-cl-std=CL1.2 -DREAL_IS_DOUBLE=1 -DCONJ=0")
                               : (Conj ? "-cl-std=CL1.2 -DREAL_IS_DOUBLE=0 -DCONJ=1" : "-cl-std=CL1.2 -DREAL_IS_DOUBLE=0 -DCONJ=0");
  cl_kernel k = kernel(stream, complex_dot_source(), options, "complex_dot");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(static_cast<cl_long>(x->sizes[0])).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]).tensor(result);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t group = 256;
  return kgb_cl_enqueue(stream, k, 1, &group, &group) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
template <bool Double, bool Conj>
int complex_dot_clblast(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  using T = std::complex<std::conditional_t<Double, double, float>>;
  const cl_long n = x->sizes[0];
  level1::ClVector cx, cy;
  cl_mem rb = nullptr;
  size_t ro = 0;
  if (n == 0 || !level1::clblast_vectors(stream, x, y, &cx, &cy) || !level1::clblast_scalar(stream, result, &rb, &ro))
    return complex_dot_plain<Double, Conj>(x, y, result, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  const size_t count = static_cast<size_t>(n);
  auto status = Conj ? clblast::Dotc<T>(count, rb, ro, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, &queue, nullptr)
                     : clblast::Dotu<T>(count, rb, ro, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
#endif

}  // namespace kgb::opencl::plain
