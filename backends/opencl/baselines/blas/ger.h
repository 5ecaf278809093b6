// Shared by the ger, geru and gerc OpenCL baselines: A := alpha * x * op(y)^T
// + A (op = conj for gerc), column-major A. CLBlast's Ger / Geru / Gerc where
// CLBlast is installed and both increments are positive (CLBlast takes
// unsigned increments and cannot walk a vector from its far end); otherwise
// a plain kernel written here, one work-item per element of A with the
// signed increments. alpha == 0 returns before reading x or y (BLAS).
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

enum class GerKind { Real, Unconjugated, Conjugated };

// T: float, double, std::complex<float> or std::complex<double>; `alpha` is
// the task's alpha (real part only for real T).
template <class T, GerKind kKindOf>
int ger_plain(kgb_complex alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  static const std::string source = R"CLC(
#if IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double R;
typedef double2 R2;
#else
typedef float R;
typedef float2 R2;
#endif
#if IS_COMPLEX
typedef R2 T;
T mul(T p, T q) { return (T)(p.x * q.x - p.y * q.y, p.x * q.y + p.y * q.x); }
#if CONJ_Y
#define OPY(v) ((T)((v).x, -(v).y))
#else
#define OPY(v) (v)
#endif
#else
typedef R T;
#define mul(p, q) ((p) * (q))
#define OPY(v) (v)
#endif
__kernel void ger(long m, long n, T alpha, __global const T* x, long xo, long incx, __global const T* y, long yo, long incy,
                  __global T* a, long ao, long lda) {
  long w = get_global_id(0);
  if (w >= m * n) return;
  long j = w / m, i = w - j * m;
  a[ao + i + j * lda] += mul(mul(alpha, x[xo + i * incx]), OPY(y[yo + j * incy]));
}
)CLC";
  constexpr bool is_double = std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>;
  constexpr bool is_complex = !std::is_same_v<T, float> && !std::is_same_v<T, double>;
  const cl_long m = a->sizes[0], n = a->sizes[1];
  if (m == 0 || n == 0 || (alpha.re == 0.0 && alpha.im == 0.0)) return KGB_OK;
  if (is_double && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const std::string options = std::string("-cl-std=CL1.2 -DIS_DOUBLE=") + (is_double ? "1" : "0") +
                              " -DIS_COMPLEX=" + (is_complex ? "1" : "0") + " -DCONJ_Y=" + (kKindOf == GerKind::Conjugated ? "1" : "0");
  cl_kernel k = kernel(stream, source, options.c_str(), "ger");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(m).value(n);
  if constexpr (std::is_same_v<T, float>) args.value(static_cast<cl_float>(alpha.re));
  if constexpr (std::is_same_v<T, double>) args.value(static_cast<cl_double>(alpha.re));
  if constexpr (std::is_same_v<T, std::complex<float>>) args.value(cl_float2{{static_cast<float>(alpha.re), static_cast<float>(alpha.im)}});
  if constexpr (std::is_same_v<T, std::complex<double>>) args.value(cl_double2{{alpha.re, alpha.im}});
  args.tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]).tensor(a).value(a->strides[1]);
  return args.error == CL_SUCCESS ? launch(stream, k, m * n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
template <class T, GerKind kKindOf>
int ger_clblast(kgb_complex alpha_d, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  const size_t m = static_cast<size_t>(a->sizes[0]), n = static_cast<size_t>(a->sizes[1]);
  if (m == 0 || n == 0 || (alpha_d.re == 0.0 && alpha_d.im == 0.0)) return KGB_OK;
  level1::ClVector cx, cy;
  if (!level1::clblast_vector(stream, x, &cx) || !level1::clblast_vector(stream, y, &cy))
    return ger_plain<T, kKindOf>(alpha_d, x, y, a, stream);
  cl_mem ab = nullptr;
  cl_long ao = 0;
  if (kgb_cl_tensor_buffer(stream, a, &ab, &ao) != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t lda = n <= 1 ? std::max<size_t>(1, m) : static_cast<size_t>(a->strides[1]);
  T alpha;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    alpha = static_cast<T>(alpha_d.re);
  else
    alpha = T(static_cast<typename T::value_type>(alpha_d.re), static_cast<typename T::value_type>(alpha_d.im));
  cl_command_queue queue = kgb_cl_get_queue(stream);
  clblast::StatusCode status;
  if constexpr (kKindOf == GerKind::Real)
    status = clblast::Ger<T>(clblast::Layout::kColMajor, m, n, alpha, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, ab,
                             static_cast<size_t>(ao), lda, &queue, nullptr);
  else if constexpr (kKindOf == GerKind::Unconjugated)
    status = clblast::Geru<T>(clblast::Layout::kColMajor, m, n, alpha, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, ab,
                              static_cast<size_t>(ao), lda, &queue, nullptr);
  else
    status = clblast::Gerc<T>(clblast::Layout::kColMajor, m, n, alpha, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc, ab,
                              static_cast<size_t>(ao), lda, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
#endif

}  // namespace kgb::opencl::plain
