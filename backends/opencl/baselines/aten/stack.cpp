// aten/stack, plain OpenCL baseline: one launch per item, one work-item per
// element of the item, its index decomposed over all dimensions; item k goes
// to slice k of out along the new dimension.
#include "bit_copy.h"
#include "kgb_entries/aten/stack.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = bit_copy_prelude() + R"CLC(
// Dims: s0 = strides of the item, s1 = strides of out's slice.
__kernel void stack_item(__global E* o, long oo, __global const E* x, long xo, Dims g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, unused0, unused1;
  offsets(&g, rank, i, &a, &b, &unused0, &unused1);
  o[oo + b] = x[xo + a];
}
)CLC";

int stack(const kgb_tensor_list* tensors, int64_t dim_arg, kgb_tensor* out, kgb_stream stream) {
  cl_kernel k = kernel(stream, kSource, bit_copy_options(kgb_dtype_size(out->dtype)), "stack_item");
  if (!k) return KGB_ERR_UNSUPPORTED;
  const int64_t dim = dim_arg < 0 ? dim_arg + out->rank : dim_arg;  // out has the new dim
  cl_mem out_buffer = nullptr;
  cl_long out_offset = 0;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &out_offset) != CL_SUCCESS) return KGB_ERR_INVALID;
  for (int64_t i = 0; i < tensors->count; ++i) {
    const kgb_tensor* t = tensors->items[i];
    Dims g;
    for (int d = 0; d < t->rank; ++d) g.add(t->sizes[d], t->strides[d], out->strides[d < dim ? d : d + 1]);
    if (t->rank == 0) g.add(1, 0, 0);
    if (g.count == 0) continue;
    Args args{stream, k};
    args.value(out_buffer).value(out_offset + i * out->strides[dim]).tensor(t).dims(g).value(g.count);
    if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
    if (int r = launch(stream, k, g.count); r != KGB_OK) return r;
  }
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_stack, kKind, stack);
}  // namespace kgb::opencl::plain
