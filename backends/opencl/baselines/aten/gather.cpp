// aten/gather, plain OpenCL baseline: one work-item per out element, its
// position decomposed over all dimensions of index; the self coordinate along
// dim is the index value.
#include "../plain_common.h"
#include "kgb_entries/aten/gather.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + word_prelude() + R"CLC(
// Dims: s0 = out strides, s1 = self strides (0 at dim), s2 = index strides.
__kernel void gather(__global E* o, long oo, __global const E* x, long xo, __global const long* idx, long io,
                     Dims g, int rank, long n, long self_dim_step) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, unused;
  offsets(&g, rank, i, &a, &b, &c, &unused);
  o[oo + a] = x[xo + b + idx[io + c] * self_dim_step];
}
)CLC";

int gather(const kgb_tensor* self, int64_t dim_arg, const kgb_tensor* index, kgb_tensor* out, kgb_stream stream) {
  const int64_t dim = normalise_dim(dim_arg, self->rank);
  Dims g;
  for (int d = 0; d < index->rank; ++d)
    g.add(index->sizes[d], out->strides[d], d == dim ? 0 : self->strides[d], index->strides[d]);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, word_options(self->dtype), "gather");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).tensor(index).dims(g).value(g.count);
  args.value(static_cast<cl_long>(self->rank ? self->strides[dim] : 0));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_gather, kKind, gather);
}  // namespace kgb::opencl::plain
