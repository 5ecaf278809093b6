// Shared by the OpenCL baselines of the level-1 reductions (sdot, dasum,
// cdotu, zdotc): CLBlast's routine where CLBlast is installed and can take the
// increments (both positive, or both negative for two vectors); otherwise
// (an increment of 0 or mixed signs, n == 0, incx <= 0 for asum, no CLBlast) a
// plain kernel written here: one work-group of 256 work-items, each summing a
// strided slice, reduced in local memory, the sum written to the one-element
// result.
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

enum class Reduction { Dot, Asum, ComplexDotu, ComplexDotc };

inline const std::string& reduce_plain_source() {
  static const std::string source = R"CLC(
#if IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double R;
typedef double2 C;
#else
typedef float R;
typedef float2 C;
#endif
#if KIND == 0 || KIND == 1
typedef R T;
#else
typedef C T;
#endif
// The term i of the sum: KIND 0 x*y, 1 |x|, 2 x*y complex, 3 conj(x)*y complex.
T term(__global const T* x, long xi, __global const T* y, long yi) {
#if KIND == 0
  return x[xi] * y[yi];
#elif KIND == 1
  return fabs(x[xi]);
#else
  C a = x[xi], b = y[yi];
#if KIND == 3
  a.y = -a.y;
#endif
  return (C)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
#endif
}
__kernel void reduce1(long n, __global const T* x, long xo, long incx, __global const T* y, long yo, long incy,
                      __global T* r, long ro) {
  __local T s[256];
  int l = get_local_id(0);
  T acc = (T)(0);
  for (long i = l; i < n; i += 256) acc += term(x, xo + i * incx, y, yo + i * incy);
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

// y may be x (asum reads one vector); its increment is then unused.
template <Reduction Kind, bool Double>
int reduce_plain(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (Double && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  static const std::string options = "-cl-std=CL1.2 -DIS_DOUBLE=" + std::to_string(Double ? 1 : 0) +
                                     " -DKIND=" + std::to_string(static_cast<int>(Kind));
  cl_kernel k = kernel(stream, reduce_plain_source(), options.c_str(), "reduce1");
  if (!k) return KGB_ERR_INVALID;
  // BLAS asum sums nothing for incx <= 0.
  const cl_long n = Kind == Reduction::Asum && x->strides[0] <= 0 ? 0 : x->sizes[0];
  Args args{stream, k};
  args.value(n).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]).tensor(result);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t group = 256;
  return kgb_cl_enqueue(stream, k, 1, &group, &group) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
// Kind's CLBlast routine (Dot, Asum, Dotu, Dotc) on the views, or the plain
// kernel where CLBlast cannot take them.
template <Reduction Kind, bool Double>
int reduce_clblast(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  using Real = std::conditional_t<Double, double, float>;
  using Complex = std::complex<Real>;
  const cl_long n = x->sizes[0];
  level1::ClVector cx, cy;
  cl_mem rb = nullptr;
  size_t ro = 0;
  const bool vectors = Kind == Reduction::Asum ? level1::clblast_vector(stream, x, &cx) : level1::clblast_vectors(stream, x, y, &cx, &cy);
  if (n == 0 || !vectors || !level1::clblast_scalar(stream, result, &rb, &ro)) return reduce_plain<Kind, Double>(x, y, result, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  const size_t count = static_cast<size_t>(n);
  clblast::StatusCode status = clblast::StatusCode::kNotImplemented;
  if constexpr (Kind == Reduction::Dot)
    status = clblast::Dot<Real>(count, rb, ro, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, &queue, nullptr);
  else if constexpr (Kind == Reduction::Asum)
    status = clblast::Asum<Real>(count, rb, ro, cx.buffer, cx.offset, cx.inc, &queue, nullptr);
  else if constexpr (Kind == Reduction::ComplexDotu)
    status = clblast::Dotu<Complex>(count, rb, ro, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, &queue, nullptr);
  else
    status = clblast::Dotc<Complex>(count, rb, ro, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
#endif

}  // namespace kgb::opencl::plain
