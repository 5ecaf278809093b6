// aten/index_select, plain OpenCL baseline: one work-item per output element,
// the out index decomposed over all dimensions.
#include "../plain_common.h"
#include "kgb_entries/aten/index_select.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
#if ELEM == 1
typedef uchar E;
#elif ELEM == 2
typedef ushort E;
#elif ELEM == 4
typedef uint E;
#else
typedef ulong E;
#endif
// Dims: s0 = out strides, s1 = self strides (0 at dim), s2 = 1 at dim.
__kernel void index_select(__global E* o, long oo, __global const E* x, long xo, __global const long* idx, long io,
                           Dims g, int rank, long n, long index_step, long self_dim_step) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, k, unused;
  offsets(&g, rank, i, &a, &b, &k, &unused);
  o[oo + a] = x[xo + b + idx[io + k * index_step] * self_dim_step];
}
)CLC";

int index_select(const kgb_tensor* self, int64_t dim_arg, const kgb_tensor* index, kgb_tensor* out, kgb_stream stream) {
  const int64_t dim = normalise_dim(dim_arg, self->rank);
  Dims g;
  for (int d = 0; d < out->rank; ++d)
    g.add(out->sizes[d], out->strides[d], d == dim ? 0 : self->strides[d], d == dim ? 1 : 0);
  if (g.count == 0) return KGB_OK;
  const char* options = nullptr;
  switch (kgb_dtype_size(self->dtype)) {
    case 1: options = "-cl-std=CL1.2 -DELEM=1"; break;
    case 2: options = "-cl-std=CL1.2 -DELEM=2"; break;
    case 4: options = "-cl-std=CL1.2 -DELEM=4"; break;
    case 8: options = "-cl-std=CL1.2 -DELEM=8"; break;
  }
  cl_kernel k = kernel(stream, kSource, options, "index_select");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).tensor(index).dims(g).value(g.count);
  args.value(static_cast<cl_long>(index->rank ? index->strides[0] : 0)).value(static_cast<cl_long>(self->strides[dim]));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_index_select, kKind, index_select);
}  // namespace kgb::opencl::plain
