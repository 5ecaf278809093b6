// aten/renorm, plain OpenCL baseline: one work-item per slice computes the
// slice's p-norm and factor (rounded to self's dtype, as ATen keeps it), then
// one work-item per element multiplies. The factor lives in a per-call buffer.
#include <cmath>

#include "../plain_common.h"
#include "kgb_entries/aten/renorm.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void factors(__global C* f, __global const S* x, long xo, Dims g, int rank, long slices, long per, long xs,
                      int norm, double p, double maxnorm) {
  long s = get_global_id(0);
  if (s >= slices) return;
  C acc = 0;
  for (long k = 0; k < per; ++k) {
    long a, b, c, d;
    offsets(&g, rank, k, &a, &b, &c, &d);
    C v = fabs(LOAD(x[xo + s * xs + b]));
    if (norm == 2) acc = (v > acc || isnan(v)) ? v : acc;
    else acc += norm == 0 ? v : norm == 1 ? v * v : pow(v, (C)p);
  }
  C n = norm == 1 ? sqrt(acc) : norm == 3 ? pow(acc, (C)(1.0 / p)) : acc;
  C m = (C)maxnorm;
  f[s] = LOAD(STORE(n > m ? m / (n + (C)1e-7) : (C)1));
}
__kernel void scale(__global S* o, long oo, __global const S* x, long xo, Dims g, int rank, long slices, long per,
                    long xs, long os, __global const C* f) {
  long n = get_global_id(0);
  if (n >= slices * per) return;
  long s = n / per, a, b, c, d;
  offsets(&g, rank, n - s * per, &a, &b, &c, &d);
  o[oo + s * os + a] = STORE(LOAD(x[xo + s * xs + b]) * f[s]);
}
)CLC";

double value(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }

int renorm(const kgb_tensor* self, kgb_scalar p_arg, int64_t dim_arg, kgb_scalar maxnorm_arg, kgb_tensor* out,
           kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  if (self->rank < 2) return KGB_ERR_INVALID;
  const double p = value(p_arg), maxnorm = value(maxnorm_arg);
  const int64_t dim = normalise_dim(dim_arg, self->rank);
  Dims g;
  for (int d = 0; d < self->rank; ++d)
    if (d != dim) g.add(self->sizes[d], out->strides[d], self->strides[d]);
  const cl_long slices = self->sizes[dim], per = g.count;
  if (slices == 0 || per == 0) return KGB_OK;
  const cl_int norm = std::isinf(p) ? 2 : p == 1 ? 0 : p == 2 ? 1 : 3;
  const size_t elem = self->dtype == KGB_F64 ? sizeof(cl_double) : sizeof(cl_float);
  cl_int err = CL_SUCCESS;
  cl_mem f = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, elem * static_cast<size_t>(slices), nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  int status = KGB_ERR_INVALID;
  cl_kernel kf = kernel(stream, kSource, dtype_options(self->dtype), "factors");
  cl_kernel ks = kernel(stream, kSource, dtype_options(self->dtype), "scale");
  if (kf && ks) {
    Args a{stream, kf};
    a.value(f).tensor(self).dims(g).value(slices).value(per).value(static_cast<cl_long>(self->strides[dim]));
    a.value(norm).value(p).value(maxnorm);
    Args b{stream, ks};
    b.tensor(out).tensor(self).dims(g).value(slices).value(per);
    b.value(static_cast<cl_long>(self->strides[dim])).value(static_cast<cl_long>(out->strides[dim])).value(f);
    if (a.error == CL_SUCCESS && b.error == CL_SUCCESS && launch(stream, kf, slices) == KGB_OK)
      status = launch(stream, ks, slices * per);
  }
  clReleaseMemObject(f);  // freed once the enqueued kernels are done with it
  return status;
}

}  // namespace
KGB_BASELINE(aten_renorm, kKind, renorm);
}  // namespace kgb::opencl::plain
