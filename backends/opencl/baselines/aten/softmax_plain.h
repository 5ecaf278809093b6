// Shared by the plain OpenCL baselines of aten/softmax and aten/_softmax: one
// work-item per slice, three passes (max, sum of exp, write); out in self's
// dtype or, for _softmax's half_to_float, f32.
#pragma once

#include <string>

#include "../plain_common.h"

namespace kgb::opencl::plain {

// KGB_DT: self's dtype; KGB_OT: out's.
inline const std::string& softmax_source() {
  static const std::string s = std::string(dtype_prelude()) + R"CLC(
#if KGB_OT == KGB_DT
typedef S O;
#define STORE_O(v) STORE(v)
#else
typedef float O;
#define STORE_O(v) (v)
#endif
__kernel void softmax(__global O* o, long oo, __global const S* x, long xo, Dims g, int rank, long slices, long len,
                      long xs, long os) {
  long s = get_global_id(0);
  if (s >= slices) return;
  long a, b, c, d;
  offsets(&g, rank, s, &a, &b, &c, &d);
  C m = -INFINITY;
  for (long k = 0; k < len; ++k) m = fmax(m, LOAD(x[xo + b + k * xs]));
  C total = 0;
  for (long k = 0; k < len; ++k) total += exp(LOAD(x[xo + b + k * xs]) - m);
  for (long k = 0; k < len; ++k) o[oo + a + k * os] = STORE_O(exp(LOAD(x[xo + b + k * xs]) - m) / total);
}
)CLC";
  return s;
}

// Softmax of self along dim_arg into out (dtypes already checked by the caller).
inline int softmax_slices(const kgb_tensor* self, int64_t dim_arg, kgb_tensor* out, kgb_stream stream) {
  const int64_t dim = normalise_dim(dim_arg, self->rank);
  Dims g;
  for (int d = 0; d < self->rank; ++d)
    if (d != dim) g.add(self->sizes[d], out->strides[d], self->strides[d]);
  const cl_long len = self->rank == 0 ? 1 : self->sizes[dim];
  if (g.count == 0 || len == 0) return KGB_OK;
  const std::string options =
      "-cl-std=CL1.2 -DKGB_DT=" + std::to_string(self->dtype) + " -DKGB_OT=" + std::to_string(out->dtype);
  cl_kernel k = kernel(stream, softmax_source(), options.c_str(), "softmax");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(g).value(g.count).value(len);
  args.value(static_cast<cl_long>(self->rank ? self->strides[dim] : 0)).value(static_cast<cl_long>(self->rank ? out->strides[dim] : 0));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace kgb::opencl::plain
