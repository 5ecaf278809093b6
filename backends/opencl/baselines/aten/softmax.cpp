// aten/softmax, plain OpenCL baseline: one work-item per slice, three passes.
#include "../plain_common.h"
#include "kgb_entries/aten/softmax.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void softmax(__global S* o, long oo, __global const S* x, long xo, Dims g, int rank, long slices, long len,
                      long xs, long os) {
  long s = get_global_id(0);
  if (s >= slices) return;
  long a, b, c, d;
  offsets(&g, rank, s, &a, &b, &c, &d);
  C m = -INFINITY;
  for (long k = 0; k < len; ++k) m = fmax(m, LOAD(x[xo + b + k * xs]));
  C total = 0;
  for (long k = 0; k < len; ++k) total += exp(LOAD(x[xo + b + k * xs]) - m);
  for (long k = 0; k < len; ++k) o[oo + a + k * os] = STORE(exp(LOAD(x[xo + b + k * xs]) - m) / total);
}
)CLC";

int softmax(const kgb_tensor* self, int64_t dim_arg, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  const int64_t dim = normalise_dim(dim_arg, self->rank);
  Dims g;
  for (int d = 0; d < self->rank; ++d)
    if (d != dim) g.add(self->sizes[d], out->strides[d], self->strides[d]);
  const cl_long len = self->rank == 0 ? 1 : self->sizes[dim];
  if (g.count == 0 || len == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "softmax");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(g).value(g.count).value(len);
  args.value(static_cast<cl_long>(self->rank ? self->strides[dim] : 0)).value(static_cast<cl_long>(self->rank ? out->strides[dim] : 0));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_softmax, kKind, softmax);
}  // namespace kgb::opencl::plain
