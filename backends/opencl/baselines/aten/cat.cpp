// aten/cat, plain OpenCL baseline: one launch per item, one work-item per
// element of the item, its index decomposed over all dimensions.
#include "../plain_common.h"
#include "kgb_entries/aten/cat.h"

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
// Dims: s0 = strides of the item, s1 = strides of out.
__kernel void cat_item(__global E* o, long oo, __global const E* x, long xo, Dims g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, unused0, unused1;
  offsets(&g, rank, i, &a, &b, &unused0, &unused1);
  o[oo + b] = x[xo + a];
}
)CLC";

int cat(const kgb_tensor_list* tensors, int64_t dim_arg, kgb_tensor* out, kgb_stream stream) {
  const char* options = nullptr;
  switch (kgb_dtype_size(out->dtype)) {
    case 1: options = "-cl-std=CL1.2 -DELEM=1"; break;
    case 2: options = "-cl-std=CL1.2 -DELEM=2"; break;
    case 4: options = "-cl-std=CL1.2 -DELEM=4"; break;
    case 8: options = "-cl-std=CL1.2 -DELEM=8"; break;
  }
  cl_kernel k = kernel(stream, kSource, options, "cat_item");
  if (!k) return KGB_ERR_UNSUPPORTED;
  const int64_t dim = normalise_dim(dim_arg, out->rank);
  cl_mem out_buffer = nullptr;
  cl_long out_offset = 0;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &out_offset) != CL_SUCCESS) return KGB_ERR_INVALID;
  int64_t at = 0;  // where the next item starts along dim
  for (int64_t i = 0; i < tensors->count; ++i) {
    const kgb_tensor* t = tensors->items[i];
    if (t->rank == 1 && t->sizes[0] == 0) continue;  // ATen's legacy rule
    Dims g;
    for (int d = 0; d < t->rank; ++d) g.add(t->sizes[d], t->strides[d], out->strides[d]);
    const cl_long slice = out_offset + at * out->strides[dim];
    at += t->sizes[dim];
    if (g.count == 0) continue;
    Args args{stream, k};
    args.value(out_buffer).value(slice).tensor(t).dims(g).value(g.count);
    if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
    if (int r = launch(stream, k, g.count); r != KGB_OK) return r;
  }
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_cat, kKind, cat);
}  // namespace kgb::opencl::plain
