// aten/sum, plain OpenCL baseline: one work-item sums one slice.
#include "../plain_common.h"
#include "kgb_entries/aten/sum.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void sum(__global S* o, long oo, __global const S* x, long xo, Dims g, int rank, long slices, long len,
                  long xs) {
  long s = get_global_id(0);
  if (s >= slices) return;
  long a, b, c, d;
  offsets(&g, rank, s, &a, &b, &c, &d);
  C acc = 0;
  for (long k = 0; k < len; ++k) acc += LOAD(x[xo + b + k * xs]);
  o[oo + a] = STORE(acc);
}
)CLC";

int sum(const kgb_tensor* self, int64_t dim_arg, int keepdim_arg, kgb_tensor* out, kgb_stream stream) {
  const int64_t dim = normalise_dim(dim_arg, self->rank);
  const bool keepdim = keepdim_arg != 0;
  Dims g;
  for (int d = 0; d < self->rank; ++d) {
    if (d == dim) continue;
    int od = keepdim ? d : (d < dim ? d : d - 1);
    g.add(self->sizes[d], out->strides[od], self->strides[d]);
  }
  const cl_long len = self->rank == 0 ? 1 : self->sizes[dim];
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "sum");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(g).value(g.count).value(len);
  args.value(static_cast<cl_long>(self->rank ? self->strides[dim] : 0));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_sum, kKind, sum);
}  // namespace kgb::opencl::plain
