// aten/select_backward, plain OpenCL baseline: one work-item per out element,
// its position decomposed over all dimensions of out: the selected slice
// copies grad_output, every other element is zero.
#include "../plain_common.h"
#include "kgb_entries/aten/select_backward.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + word_prelude() + R"CLC(
// Dims: s0 = out strides, s1 = grad_output strides (0 at dim), s2 = 1 at dim.
__kernel void select_backward(__global E* o, long oo, __global const E* g, long go, Dims d, int rank, long n,
                              long index) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, unused;
  offsets(&d, rank, i, &a, &b, &c, &unused);
  o[oo + a] = c == index ? g[go + b] : (E)0;
}
)CLC";

int select_backward(const kgb_tensor* grad_output, kgb_int_list input_sizes, int64_t dim_arg, int64_t index,
                    kgb_tensor* out, kgb_stream stream) {
  const int rank = static_cast<int>(input_sizes.count);
  if (rank < 1 || out->rank != rank || grad_output->rank != rank - 1) return KGB_ERR_INVALID;
  const int64_t dim = normalise_dim(dim_arg, rank);
  if (index < 0) index += out->sizes[dim];
  Dims g;
  for (int d = 0; d < rank; ++d)
    g.add(out->sizes[d], out->strides[d], d == dim ? 0 : grad_output->strides[d < dim ? d : d - 1], d == dim ? 1 : 0);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, word_options(out->dtype), "select_backward");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(grad_output).dims(g).value(g.count).value(static_cast<cl_long>(index));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_select_backward, kKind, select_backward);
}  // namespace kgb::opencl::plain
