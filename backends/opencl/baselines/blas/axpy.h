// Shared by the saxpy and daxpy OpenCL baselines: CLBlast's Axpy<T> where
// CLBlast is installed and the increments are both positive or both negative;
// otherwise (incx == 0, mixed signs, no CLBlast) a plain kernel written here,
// one work-item per element. alpha == 0 leaves y as it is (BLAS).
#pragma once

#include <string>
#include <type_traits>

#include "../plain_common.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {

// T: float or double.
template <class T>
int axpy_plain(double alpha_d, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "axpy on float or double");
  static const std::string source = R"CLC(
#if IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double T;
#else
typedef float T;
#endif
__kernel void axpy(long n, T alpha, __global const T* x, long xo, long incx, __global T* y, long yo, long incy) {
  long i = get_global_id(0);
  if (i < n) y[yo + i * incy] += alpha * x[xo + i * incx];
}
)CLC";
  constexpr bool is_double = std::is_same_v<T, double>;
  const cl_long n = x->sizes[0];
  const T alpha = static_cast<T>(alpha_d);
  if (n == 0 || alpha == T(0)) return KGB_OK;
  if (is_double && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  cl_kernel k = kernel(stream, source, is_double ? "-cl-std=CL1.2 -DIS_DOUBLE=1" : "-cl-std=CL1.2 -DIS_DOUBLE=0", "axpy");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).value(alpha).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
template <class T>
int axpy_clblast(double alpha_d, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  const T alpha = static_cast<T>(alpha_d);
  if (n == 0 || alpha == T(0)) return KGB_OK;
  level1::ClVector cx, cy;
  if (!level1::clblast_vectors(stream, x, y, &cx, &cy)) return axpy_plain<T>(alpha_d, x, y, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Axpy<T>(static_cast<size_t>(n), alpha, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, &queue,
                                 nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
#endif

}  // namespace kgb::opencl::plain
