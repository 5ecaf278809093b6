// Shared by the OpenCL GEMV baselines (blas/*gemv*): one column-major
// y := alpha * op(A) x + beta * y on OpenCL buffers. CLBlast's Gemv where
// CLBlast is installed and can take the call; otherwise a plain kernel
// written here (one work-item per element of y, the dot product from global
// memory). CLBlast takes unsigned increments and reads y even when beta == 0
// (0 * NaN would leak), and must not read A or x when alpha == 0: negative
// increments, alpha == 0, and beta == 0 with a stepped y take the plain
// kernel; beta == 0 with a unit-stride y zero-fills y first. Batched
// routines loop over their items, one call each (labelled "loop").
#pragma once

#include <complex>
#include <string>
#include <type_traits>

#include "../plain_common.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain::gemv {

// A's element (0, 0) and the vectors' element 0 as (buffer, element offset).
struct Item {
  cl_mem a = nullptr, x = nullptr, y = nullptr;
  cl_long ao = 0, xo = 0, yo = 0;
};

struct Shape {
  int trans;
  cl_long m, n, rs, cs, incx, incy;
  cl_long len_y() const { return trans == 0 ? m : n; }
};

// float, double, std::complex<float>, std::complex<double> (CLBlast's types)
// as OpenCL kernel arguments.
template <class T> struct Traits;
template <> struct Traits<float> {
  static constexpr const char* options = "-cl-std=CL1.2 -DKIND=0";
  static cl_float cl(float v) { return v; }
};
template <> struct Traits<double> {
  static constexpr const char* options = "-cl-std=CL1.2 -DKIND=1";
  static cl_double cl(double v) { return v; }
};
template <> struct Traits<std::complex<float>> {
  static constexpr const char* options = "-cl-std=CL1.2 -DKIND=2";
  static cl_float2 cl(std::complex<float> v) { return {{v.real(), v.imag()}}; }
};
template <> struct Traits<std::complex<double>> {
  static constexpr const char* options = "-cl-std=CL1.2 -DKIND=3";
  static cl_double2 cl(std::complex<double> v) { return {{v.real(), v.imag()}}; }
};

inline const std::string& plain_source() {
  static const std::string source = R"CLC(
#if KIND == 1 || KIND == 3
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if KIND == 0
typedef float T;
#elif KIND == 1
typedef double T;
#elif KIND == 2
typedef float2 T;
#else
typedef double2 T;
#endif
#if KIND >= 2
T mul(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
T conj_if(T a, int c) { return c ? (T)(a.x, -a.y) : a; }
#else
T mul(T a, T b) { return a * b; }
T conj_if(T a, int c) { return a; }
#endif
__kernel void gemv_plain(__global const T* a, long ao, __global const T* x, long xo, __global T* y, long yo, long m, long n,
                         long rs, long cs, long incx, long incy, int trans, T alpha, T beta, int read_ax, int read_y) {
  const long r = get_global_id(0);
  if (r >= (trans == 0 ? m : n)) return;
  T acc = (T)(0);
  if (read_ax) {
    if (trans == 0)
      for (long j = 0; j < n; ++j) acc += mul(a[ao + r * rs + j * cs], x[xo + j * incx]);
    else
      for (long i = 0; i < m; ++i) acc += mul(conj_if(a[ao + i * rs + r * cs], trans == 2), x[xo + i * incx]);
  }
  T v = mul(alpha, acc);
  if (read_y) v += mul(beta, y[yo + r * incy]);
  y[yo + r * incy] = v;
}
)CLC";
  return source;
}

template <class T>
int plain(kgb_stream stream, const Shape& s, const Item& it, T alpha, T beta) {
  if (s.m == 0 || s.n == 0) return KGB_OK;  // quick return: y untouched
  constexpr bool fp64 = std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>;
  if (fp64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  cl_kernel k = kernel(stream, plain_source(), Traits<T>::options, "gemv_plain");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(it.a).value(it.ao).value(it.x).value(it.xo).value(it.y).value(it.yo);
  args.value(s.m).value(s.n).value(s.rs).value(s.cs).value(s.incx).value(s.incy).value(static_cast<cl_int>(s.trans));
  args.value(Traits<T>::cl(alpha)).value(Traits<T>::cl(beta));
  args.value(static_cast<cl_int>(alpha != T(0))).value(static_cast<cl_int>(beta != T(0)));
  return args.error == CL_SUCCESS ? launch(stream, k, s.len_y()) : KGB_ERR_INVALID;
}

// The buffer and element offset of a tensor's element 0.
inline bool locate(kgb_stream stream, const kgb_tensor* t, cl_mem* buffer, cl_long* offset) {
  return kgb_cl_tensor_buffer(stream, t, buffer, offset) == CL_SUCCESS;
}

#ifdef KGB_HAVE_CLBLAST
inline constexpr const char* kKindGemv = "clblast";
inline constexpr const char* kKindGemvLoop = "clblast loop";

template <class T>
int call(kgb_stream stream, const Shape& s, const Item& it, T alpha, T beta) {
  if (s.m == 0 || s.n == 0) return KGB_OK;  // quick return: y untouched
  const bool column_major = s.rs == 1 || s.m <= 1;
  const cl_long lda = s.n <= 1 ? (s.m > 1 ? s.m : 1) : s.cs;
  if (!column_major || lda < s.m || s.incx <= 0 || s.incy <= 0 || alpha == T(0) || (beta == T(0) && s.incy != 1))
    return plain(stream, s, it, alpha, beta);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  if (beta == T(0)) {  // CLBlast reads y: give it zeros instead of the old values
    const T zero(0);
    if (clEnqueueFillBuffer(queue, it.y, &zero, sizeof zero, static_cast<size_t>(it.yo) * sizeof(T),
                            static_cast<size_t>(s.len_y()) * sizeof(T), 0, nullptr, nullptr) != CL_SUCCESS)
      return KGB_ERR_INVALID;
  }
  const auto op = s.trans == 0 ? clblast::Transpose::kNo
                  : (s.trans == 2 && !std::is_floating_point_v<T>) ? clblast::Transpose::kConjugate
                                                                   : clblast::Transpose::kYes;
  auto status = clblast::Gemv<T>(clblast::Layout::kColMajor, op, static_cast<size_t>(s.m), static_cast<size_t>(s.n), alpha,
                                 it.a, static_cast<size_t>(it.ao), static_cast<size_t>(lda), it.x, static_cast<size_t>(it.xo),
                                 static_cast<size_t>(s.incx), beta, it.y, static_cast<size_t>(it.yo),
                                 static_cast<size_t>(s.incy), &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
#else
inline constexpr const char* kKindGemv = kKind;
inline constexpr const char* kKindGemvLoop = "plain (written here) loop";

template <class T>
int call(kgb_stream stream, const Shape& s, const Item& it, T alpha, T beta) {
  return plain(stream, s, it, alpha, beta);
}
#endif

}  // namespace kgb::opencl::plain::gemv
