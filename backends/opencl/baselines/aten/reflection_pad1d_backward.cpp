// aten/reflection_pad1d_backward, plain OpenCL baseline: one work-item per
// grad_input element, which sums the grad_output positions x of its row with
// reflect(x - pad_left) == i (its own, the left and the right mirror) in the
// compute type (float for 16-bit).
#include "../plain_common.h"
#include "kgb_entries/aten/reflection_pad1d_backward.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
// d: sizes (rows..., W); s0 = grad_input strides, s1 = grad_output strides.
__kernel void reflection_pad1d_backward(__global const S* g, long go, __global S* o, long oo, Dims d, int rank, long n,
                                        long pl, long OW) {
  long e = get_global_id(0);
  if (e >= n) return;
  long a, b, unused2, unused3;
  offsets(&d, rank, e, &a, &b, &unused2, &unused3);
  const long W = d.size[rank - 1], i = e % W;
  b -= i * d.s1[rank - 1];  // b: start of the grad_output row
  // Its own position, the left mirror and the right mirror, where they exist.
  const long gs = d.s1[rank - 1], x = i + pl;
  C sum = 0;
  if (x >= 0 && x < OW) sum += LOAD(g[go + b + x * gs]);
  if (i >= 1 && i <= pl) sum += LOAD(g[go + b + (pl - i) * gs]);
  const long right = 2 * (W - 1) - i + pl;
  if (i <= W - 2 && right < OW) sum += LOAD(g[go + b + right * gs]);
  o[oo + a] = STORE(sum);
}
)CLC";

int reflection_pad1d_backward(const kgb_tensor* grad_output, const kgb_tensor* self, kgb_int_list padding,
                              kgb_tensor* grad_input, kgb_stream stream) {
  const int rank = self->rank;
  if (padding.count != 2 || (rank != 2 && rank != 3) || grad_output->rank != rank || grad_input->rank != rank)
    return KGB_ERR_INVALID;
  const int64_t W = self->sizes[rank - 1], pl = padding.values[0], pr = padding.values[1];
  if (pl >= W || pr >= W || grad_output->sizes[rank - 1] != W + pl + pr) return KGB_ERR_INVALID;
  Dims d;
  for (int k = 0; k < rank; ++k) d.add(grad_input->sizes[k], grad_input->strides[k], grad_output->strides[k]);
  if (d.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(grad_input->dtype), "reflection_pad1d_backward");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(grad_output).tensor(grad_input).dims(d).value(d.count).value(static_cast<cl_long>(pl));
  args.value(static_cast<cl_long>(W + pl + pr));
  return args.error == CL_SUCCESS ? launch(stream, k, d.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_reflection_pad1d_backward, kKind, reflection_pad1d_backward);
}  // namespace kgb::opencl::plain
