// Shared by the plain OpenCL baselines of ATen's promoting binary ops (eq, gt,
// le, div, floor_divide, pow, ...): torch.result_type of a tensor and a
// tensor or Scalar, and one straightforward kernel, one work-item per output
// element with the broadcast strides of both inputs, whose element
// conversions (-DDA, -DDB, -DDO, -DDC: the dtypes of a, b, out and the
// computation) and operation (`op`, from the op's own file) are compiled in.
#pragma once

#include <cstdio>
#include <string>

#include "../plain_common.h"

namespace kgb::opencl::plain::binary {

inline bool is_float(int32_t t) { return t == KGB_F16 || t == KGB_BF16 || t == KGB_F32 || t == KGB_F64; }
inline bool supported(int32_t t) { return t == KGB_BOOL || t == KGB_I32 || t == KGB_I64 || is_float(t); }

// torch.promote_types over bool, i32, i64, f16, bf16, f32, f64.
inline int32_t promote(int32_t a, int32_t b) {
  if (a == b) return a;
  if (a == KGB_BOOL) return b;
  if (b == KGB_BOOL) return a;
  if (is_float(a) != is_float(b)) return is_float(a) ? a : b;
  if (!is_float(a)) return KGB_I64;
  return a == KGB_F64 || b == KGB_F64 ? KGB_F64 : KGB_F32;
}

// An operand: a tensor (dimensioned or rank 0) or an ATen Scalar.
struct Operand {
  const kgb_tensor* t = nullptr;
  kgb_scalar s{};
  int32_t dtype() const { return t ? t->dtype : (s.dtype == KGB_F64 ? KGB_F32 : s.dtype == KGB_BOOL ? KGB_BOOL : KGB_I64); }
  int level() const { return t ? (t->rank == 0 ? 1 : 0) : 2; }
};
inline Operand of(const kgb_tensor* t) { return Operand{t, {}}; }
inline Operand of(kgb_scalar s) { return Operand{nullptr, s}; }

// torch.result_type(a, b).
inline int32_t result_type(const Operand& a, const Operand& b) {
  if (a.level() == b.level()) return promote(a.dtype(), b.dtype());
  const bool a_higher = a.level() < b.level();
  const int32_t hi = a_higher ? a.dtype() : b.dtype(), lo = a_higher ? b.dtype() : a.dtype();
  if (is_float(hi)) return hi;
  if (hi == KGB_BOOL || is_float(lo)) return promote(hi, lo);
  return hi;
}

// The computation type C is the dtype prelude's (plain_common.h), selected
// with -DKGB_DT=<DC> (bool computes as long: KGB_DT=3); defining C here as
// well would redefine it, an error wherever the two types differ.
inline const char* prelude() {
  return R"CLC(
C load_elem(__global const uchar* p, long i, int dt) {
  C v;
  if (dt == 6) v = (C)((__global const float*)p)[i];
  else if (dt == 7) v = (C)((__global const double*)p)[i];
  else if (dt == 4) v = (C)h2f(((__global const ushort*)p)[i]);
  else if (dt == 5) v = (C)bf2f(((__global const ushort*)p)[i]);
  else if (dt == 2) v = (C)((__global const int*)p)[i];
  else if (dt == 3) v = (C)((__global const long*)p)[i];
  else v = (C)(p[i] != 0);
  if (DC == 4 && dt != 4) v = (C)h2f(f2h((float)v));  /* operands of another dtype round to the common one */
  if (DC == 5 && dt != 5) v = (C)bf2f(f2bf((float)v));
  return v;
}
)CLC";
}

// Python's // in OpenCL C, for the ops' own sources: integers adjust the
// truncated quotient, floats follow ATen's div_floor_floating. quotient() is
// x / y correctly rounded, as ATen divides: OpenCL C's float division may be
// off by 2.5 ulp (NVIDIA's is), so run() builds with
// -cl-fp32-correctly-rounded-divide-sqrt (-DCORRECT_DIV) where the device
// supports it, and elsewhere the exact fma residual x - q*y corrects q.
inline const char* floor_divide_source() {
  return R"CLC(
C quotient(C x, C y) {
#if (DC == 4 || DC == 5 || DC == 6) && !defined(CORRECT_DIV)
  float q = x / y;
  if (isfinite(q) && q != 0.0f) q += fma(-q, y, x) / y;
  return q;
#else
  return x / y;
#endif
}
C floor_divide(C x, C y) {
#if DC == 0 || DC == 2 || DC == 3  /* bool and integers compute in long */
  C q = x / y, r = x % y;
  return r != 0 && ((r < 0) != (y < 0)) ? q - 1 : q;
#else
  if (y == (C)0) return x / y;
  C mod = fmod(x, y), div = quotient(x - mod, y);
  if (mod != (C)0 && (y < (C)0) != (mod < (C)0)) div -= (C)1;
  if (div == (C)0) return copysign((C)0, x / y);
  C f = floor(div);
  return div - f > (C)0.5 ? f + (C)1 : f;
#endif
}
)CLC";
}

inline const char* kernel_source() {
  return R"CLC(
void store_elem(__global uchar* p, long i, R v) {
  if (DO == 6) ((__global float*)p)[i] = (float)v;
  else if (DO == 7) ((__global double*)p)[i] = (double)v;
  else if (DO == 4) ((__global ushort*)p)[i] = f2h((float)v);
  else if (DO == 5) ((__global ushort*)p)[i] = f2bf((float)v);
  else if (DO == 2) ((__global int*)p)[i] = (int)v;
  else if (DO == 3) ((__global long*)p)[i] = (long)v;
  else p[i] = (uchar)(v != 0);
}
__kernel void binary(__global uchar* o, long oo, __global const uchar* x, long xo, __global const uchar* y, long yo,
                     Dims g, int rank, long n, C bs) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  C u = load_elem(x, xo + b, DA);
  C w = B_TENSOR ? load_elem(y, yo + c, DB) : bs;
  store_elem(o, oo + a, op(u, w));
}
)CLC";
}

// Whether the device divides floats correctly rounded on request
// (-cl-fp32-correctly-rounded-divide-sqrt).
inline bool divides_correctly_rounded(kgb_stream stream) {
  cl_device_fp_config fp = 0;
  return clGetDeviceInfo(kgb_cl_get_device(stream), CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr) == CL_SUCCESS &&
         (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
}

// out = op(a, b), computed in `common` (an op may differ from result_type,
// e.g. true division's float); `op_source` defines R and R op(C, C).
inline int run(kgb_stream stream, const std::string& op_source, const Operand& a, const Operand& b, kgb_tensor* out,
               int32_t common, int mode) {
  if (!supported(a.dtype()) || !supported(b.dtype()) || !supported(out->dtype) || !supported(common))
    return KGB_ERR_UNSUPPORTED;
  const bool fp64 = common == KGB_F64 || a.dtype() == KGB_F64 || b.dtype() == KGB_F64 || out->dtype == KGB_F64;
  if (fp64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Dims g;
  for (int d = 0; d < out->rank; ++d) {
    const int da = d - (out->rank - a.t->rank), db = b.t ? d - (out->rank - b.t->rank) : -1;
    const cl_long sa = da >= 0 && a.t->sizes[da] != 1 ? a.t->strides[da] : 0;
    const cl_long sb = db >= 0 && b.t->sizes[db] != 1 ? b.t->strides[db] : 0;
    g.add(out->sizes[d], out->strides[d], sa, sb);
  }
  if (g.count == 0) return KGB_OK;
  char options[256];
  std::snprintf(options, sizeof options,
                "-cl-std=CL1.2 -DKGB_DT=%d -DDA=%d -DDB=%d -DDO=%d -DDC=%d -DB_TENSOR=%d -DMODE=%d%s",
                common == KGB_BOOL ? KGB_I64 : common, a.dtype(), b.t ? b.dtype() : 0, out->dtype, common, b.t ? 1 : 0,
                mode, divides_correctly_rounded(stream) ? " -cl-fp32-correctly-rounded-divide-sqrt -DCORRECT_DIV=1" : "");
  const std::string source = std::string(dtype_prelude()) + prelude() + op_source + kernel_source();
  cl_kernel k = kernel(stream, source, options, "binary");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(a.t).tensor(b.t ? b.t : a.t).dims(g).value(g.count);
  const double scalar = b.t ? 0.0 : (b.s.dtype == KGB_F64 ? b.s.v.f : static_cast<double>(b.s.v.i));
  if (common == KGB_F64) args.value(static_cast<cl_double>(scalar));
  else if (is_float(common)) args.value(static_cast<cl_float>(scalar));
  else args.value(static_cast<cl_long>(b.t ? 0 : b.s.v.i));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}


// div and div_: MODE 0 true division (in float(common)), 1 trunc (f16/bf16:
// the quotient rounds to 16 bits first), 2 floor.
inline std::string div_source() {
  return std::string(floor_divide_source()) + R"CLC(
typedef C R;
R op(C x, C y) {
  if (MODE == 0) return quotient(x, y);
  if (MODE == 2) return floor_divide(x, y);
#if DC == 0 || DC == 2 || DC == 3  /* bool and integers compute in long */
  return x / y;
#else
  if (DC == 4) return trunc(h2f(f2h(quotient(x, y))));
  if (DC == 5) return trunc(bf2f(f2bf(quotient(x, y))));
  return trunc(quotient(x, y));
#endif
}
)CLC";
}
inline int divide(kgb_stream stream, const Operand& a, const Operand& b, kgb_tensor* out, int mode) {
  int32_t common = result_type(a, b);
  if (mode == 0 && !is_float(common)) common = KGB_F32;
  return run(stream, div_source(), a, b, out, common, mode);
}

}  // namespace kgb::opencl::plain::binary
