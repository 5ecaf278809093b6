// aten/reshape, plain OpenCL baseline: ATen's view rule (computeStride)
// decides; a view is described without any command, otherwise one work-item
// per element of out gathers self's element of the same row-major index
// from self's strided view. Elements move bit for bit (the program is built
// per element size).
#include "bit_copy.h"
#include "kgb_entries/aten/reshape.h"

namespace kgb::opencl::plain {
namespace {

// Dims: s0 = strides of self; out is row-major, so its offset is the index.
const std::string kSource = bit_copy_prelude() + R"CLC(
__kernel void gather(__global const E* src, long src_off, __global E* dst, long dst_off, Dims g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long from, unused0, unused1, unused2;
  offsets(&g, rank, i, &from, &unused0, &unused1, &unused2);
  dst[dst_off + i] = src[src_off + from];
}
)CLC";

// ATen's computeStride over the completed shape (out's sizes): self's dims
// in chunks of dense runs, each covered by whole dims of the new shape.
bool view_strides(const kgb_tensor* t, const int64_t* shape, int rank, int64_t* strides) {
  if (t->rank == 0) {
    for (int d = 0; d < rank; ++d) strides[d] = 1;
    return true;
  }
  if (kgb_numel(t) == 0) {  // any strides address nothing; ATen's choice
    bool same = rank == t->rank;
    for (int d = 0; same && d < rank; ++d) same = shape[d] == t->sizes[d];
    for (int d = rank - 1; d >= 0; --d)
      strides[d] = same ? t->strides[d] : d == rank - 1 ? 1 : (shape[d + 1] > 1 ? shape[d + 1] : 1) * strides[d + 1];
    return true;
  }
  int view_d = rank - 1;
  int64_t base = t->strides[t->rank - 1], tensor_numel = 1, view_numel = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    tensor_numel *= t->sizes[d];
    if (d == 0 || (t->sizes[d - 1] != 1 && t->strides[d - 1] != tensor_numel * base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * base;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        base = t->strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

int reshape(const kgb_tensor* self, kgb_int_list shape, kgb_tensor* out, kgb_stream stream) {
  (void)shape;  // out carries the completed shape
  int64_t strides[KGB_MAX_RANK];
  if (view_strides(self, out->sizes, out->rank, strides)) {  // ATen returns a view
    out->data = self->data;
    for (int32_t d = 0; d < out->rank; ++d) out->strides[d] = strides[d];
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  Dims g;  // self's row-major order is out's (out is row-major)
  for (int32_t d = 0; d < self->rank; ++d) g.add(self->sizes[d], self->strides[d]);
  cl_kernel k = kernel(stream, kSource, bit_copy_options(kgb_dtype_size(self->dtype)), "gather");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(out).dims(g).value(g.count);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, k, g.count);
}

}  // namespace
KGB_BASELINE(aten_reshape, kKind, reshape);
}  // namespace kgb::opencl::plain
