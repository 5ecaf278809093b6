// Shared by the plain OpenCL baselines of ATen's unary float ops (sin, erfc,
// logit, polygamma, ...): one work-item per output element reading self
// through its strides. out's dtype selects the compute type (float for
// f32/f16/bf16, double for f64; plain_common.h's prelude); integer and bool
// inputs (KGB_IN) are read as their value into an f32 out, as ATen promotes
// them; complex dtypes (sgn) compute in float2/double2. Each op file supplies
// `C op(C x, long k, R p0, R p1)` (R: the real compute type); k, p0 and p1
// carry the op's scalar arguments (polygamma's order, logit's clamp bounds).
#pragma once

#include <string>

#include "../plain_common.h"

namespace kgb::opencl::plain::unary {

inline std::string source(const char* op_source) {
  return std::string(dtype_prelude()) + R"CLC(
#if KGB_DT == 8
typedef float2 S; typedef float2 C;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 9
typedef double2 S; typedef double2 C;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif
#if KGB_DT == 7 || KGB_DT == 9
typedef double R;  /* the real type of the op's scalar arguments */
#else
typedef float R;
#endif
#if KGB_IN == 0
typedef uchar SI;
#define LOADI(v) ((C)((v) != 0))
#elif KGB_IN == 2
typedef int SI;
#define LOADI(v) ((C)(v))
#elif KGB_IN == 3
typedef long SI;
#define LOADI(v) ((C)(v))
#elif KGB_IN == 8 || KGB_IN == 9
typedef C SI;
#define LOADI(v) (v)
#else
typedef S SI;
#define LOADI(v) LOAD(v)
#endif
)CLC" + op_source + R"CLC(
__kernel void unary(__global S* o, long oo, __global const SI* x, long xo, Dims g, int rank, long n, long k, R p0,
                    R p1) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  o[oo + a] = STORE(op(LOADI(x[xo + b]), k, p0, p1));
}
)CLC";
}

// The op's scalar arguments, converted to the compute type at launch.
struct OpScalars {
  long k = 0;
  double p0 = 0, p1 = 0;
};

// Floating self gives the same dtype; integer and bool self give f32.
inline bool supported(int32_t in, int32_t out) {
  switch (in) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: return out == in;
    case KGB_I32: case KGB_I64: case KGB_BOOL: return out == KGB_F32;
    case KGB_C64: case KGB_C128: return out == in;
    default: return false;
  }
}

inline int run(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream, const std::string& src, OpScalars s) {
  if (!supported(self->dtype, out->dtype) || self->rank != out->rank) return KGB_ERR_UNSUPPORTED;
  Dims g;
  for (int d = 0; d < out->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    g.add(out->sizes[d], out->strides[d], self->strides[d]);
  }
  if (g.count == 0) return KGB_OK;
  const char* base = out->dtype == KGB_C64    ? "-cl-std=CL1.2 -DKGB_DT=8"
                     : out->dtype == KGB_C128 ? "-cl-std=CL1.2 -DKGB_DT=9"
                                              : dtype_options(out->dtype);
  const std::string options = std::string(base) + " -DKGB_IN=" + std::to_string(static_cast<int>(self->dtype));
  cl_kernel k = kernel(stream, src, options.c_str(), "unary");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(g).value(g.count).value(static_cast<cl_long>(s.k));
  if (out->dtype == KGB_F64 || out->dtype == KGB_C128) args.value(static_cast<cl_double>(s.p0)).value(static_cast<cl_double>(s.p1));
  else args.value(static_cast<cl_float>(s.p0)).value(static_cast<cl_float>(s.p1));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace kgb::opencl::plain::unary
