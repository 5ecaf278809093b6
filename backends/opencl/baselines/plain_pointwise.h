// Plain OpenCL baselines of ATen's pointwise operators with type promotion:
// one work-item per output element, the general strided index arithmetic of
// plain_common.h, and each operand in its own dtype. The program is built per
// dtype combination: -DKGB_DO, -DKGB_DA, -DKGB_DB are the kgb_dtype values of
// out, self and other (KGB_DB = -1 without a tensor other; KGB_BSCALAR = 1
// when other is an ATen Scalar passed by value). Loads convert to the compute
// type C of out's dtype (float for f16/bf16/f32, double for f64, long for
// integers, uchar for bool) and STORE_O rounds once. A baseline supplies only
// its scalar function `C op(C a, C b, C alpha)` (unary ones ignore b).
#pragma once

#include <cstdio>
#include <string>

#include "kgb_half.h"
#include "plain_common.h"

namespace kgb::opencl::plain {

inline const char* pointwise_prelude() {
  return KGB_CL_HALF_SOURCE R"CLC(
#if KGB_DO == 7 || KGB_DA == 7 || KGB_DB == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define STORAGE(dt) STORAGE_##dt
#define STORAGE_0 uchar
#define STORAGE_1 char
#define STORAGE_2 int
#define STORAGE_3 long
#define STORAGE_4 ushort
#define STORAGE_5 ushort
#define STORAGE_6 float
#define STORAGE_7 double
#define STORAGE_10 uchar
#define STORAGE_11 short
#define EXPAND_STORAGE(dt) STORAGE(dt)
typedef EXPAND_STORAGE(KGB_DO) TO;
typedef EXPAND_STORAGE(KGB_DA) TA;
#if KGB_DB >= 0
typedef EXPAND_STORAGE(KGB_DB) TB;
#endif
#if KGB_DO == 4 || KGB_DO == 5 || KGB_DO == 6
typedef float C;
#elif KGB_DO == 7
typedef double C;
#elif KGB_DO == 0
typedef uchar C;
#else
typedef long C;
#endif
#define LOAD(dt, v) ((dt) == 4 ? (C)kgb_f16_to_float(v) : (dt) == 5 ? (C)kgb_bf16_to_float(v) : (dt) == 0 ? (C)((v) != 0) : (C)(v))
#if KGB_DO == 4
#define STORE_O(v) kgb_float_to_f16(v)
#elif KGB_DO == 5
#define STORE_O(v) kgb_float_to_bf16(v)
#elif KGB_DO == 0
#define STORE_O(v) ((uchar)((v) != 0))
#else
#define STORE_O(v) ((TO)(v))
#endif
typedef struct { long size[8]; long s0[8]; long s1[8]; long s2[8]; long s3[8]; } Dims;
)CLC";
}

inline const char* pointwise_kernel() {
  return R"CLC(
#if KGB_BSCALAR
#define B_ARGS C b_value
#define B_AT(i) b_value
#elif KGB_DB >= 0
#define B_ARGS __global const TB* y, long yo
#define B_AT(i) LOAD(KGB_DB, y[yo + (i)])
#else
#define B_ARGS int no_other
#define B_AT(i) ((C)0)
#endif
__kernel void pointwise(__global TO* o, long oo, __global const TA* x, long xo, B_ARGS, Dims g, int rank, long n,
                        C alpha) {
  long i = get_global_id(0);
  if (i >= n) return;
  long io = 0, ix = 0, iy = 0, r = i;
  for (int k = rank - 1; k >= 0; --k) {
    long q = r / g.size[k], c = r - q * g.size[k];
    r = q;
    io += c * g.s0[k]; ix += c * g.s1[k]; iy += c * g.s2[k];
  }
  o[oo + io] = STORE_O(op(LOAD(KGB_DA, x[xo + ix]), B_AT(iy), alpha));
}
)CLC";
}

// A value of out's compute type as a kernel argument.
inline Args& compute_value(Args& args, int32_t out_dtype, double f, int64_t i) {
  switch (out_dtype) {
    case KGB_F16: case KGB_BF16: case KGB_F32: return args.value(static_cast<cl_float>(f));
    case KGB_F64: return args.value(static_cast<cl_double>(f));
    case KGB_BOOL: return args.value(static_cast<cl_uchar>(i != 0));
    default: return args.value(static_cast<cl_long>(i));
  }
}

// out = op(self, other, alpha) elementwise with broadcasting; `other` is a
// tensor, a Scalar (other_scalar) or absent (both null); alpha null = 1.
inline int run_pointwise(kgb_stream stream, const std::string& op_source, kgb_tensor* out, const kgb_tensor* self,
                         const kgb_tensor* other, const kgb_scalar* other_scalar, const kgb_scalar* alpha) {
  for (const kgb_tensor* t : {static_cast<const kgb_tensor*>(out), self, other})
    if (t && t->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Dims g;
  for (int d = 0; d < out->rank; ++d) {
    const int ds = d - (out->rank - self->rank);
    const cl_long sa = ds >= 0 && self->sizes[ds] != 1 ? self->strides[ds] : 0;
    cl_long sb = 0;
    if (other) {
      const int dt = d - (out->rank - other->rank);
      sb = dt >= 0 && other->sizes[dt] != 1 ? other->strides[dt] : 0;
    }
    g.add(out->sizes[d], out->strides[d], sa, sb);
  }
  if (g.count == 0) return KGB_OK;
  char options[128];
  std::snprintf(options, sizeof options, "-cl-std=CL1.2 -DKGB_DO=%d -DKGB_DA=%d -DKGB_DB=%d -DKGB_BSCALAR=%d", out->dtype,
                self->dtype, other ? other->dtype : -1, other_scalar ? 1 : 0);
  cl_kernel k = kernel(stream, std::string(pointwise_prelude()) + op_source + pointwise_kernel(), options, "pointwise");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self);
  if (other) args.tensor(other);
  else if (other_scalar) compute_value(args, out->dtype, other_scalar->dtype == KGB_F64 ? other_scalar->v.f : static_cast<double>(other_scalar->v.i), other_scalar->v.i);
  else args.value(cl_int{0});
  args.dims(g).value(g.count);
  const kgb_scalar one{KGB_I64, 0, {1}};
  const kgb_scalar& a = alpha ? *alpha : one;
  compute_value(args, out->dtype, a.dtype == KGB_F64 ? a.v.f : static_cast<double>(a.v.i),
                a.dtype == KGB_F64 ? static_cast<int64_t>(a.v.f) : a.v.i);
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace kgb::opencl::plain
