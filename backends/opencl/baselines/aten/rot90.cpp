// aten/rot90, plain OpenCL baseline: self read through the rotated view (in
// out's index space: the strides of d0 and d1 exchanged, one of them negated,
// starting at the far end of the reversed dim), one work-item per element of
// out, its index decomposed over all dimensions. Elements move bit for bit
// (the program is built per element size).
#include "bit_copy.h"
#include "kgb_entries/aten/rot90.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = bit_copy_prelude() + R"CLC(
// Dims: s0 = strides of out, s1 = strides of the rotated view of self.
__kernel void rot90_gather(__global E* o, long oo, __global const E* x, long xo, Dims g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, unused0, unused1;
  offsets(&g, rank, i, &a, &b, &unused0, &unused1);
  o[oo + a] = x[xo + b];
}
)CLC";

int rot90(const kgb_tensor* self, int64_t k, kgb_int_list dims, kgb_tensor* out, kgb_stream stream) {
  cl_kernel kern = kernel(stream, kSource, bit_copy_options(kgb_dtype_size(self->dtype)), "rot90_gather");
  if (!kern || dims.count != 2) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  const int d0 = static_cast<int>(normalise_dim(dims.values[0], rank));
  const int d1 = static_cast<int>(normalise_dim(dims.values[1], rank));
  const int64_t turns = ((k % 4) + 4) % 4;
  int64_t view[KGB_MAX_RANK];
  for (int d = 0; d < rank; ++d) view[d] = self->strides[d];
  const int64_t s0 = self->sizes[d0], s1 = self->sizes[d1], t0 = self->strides[d0], t1 = self->strides[d1];
  cl_long base = 0;
  if (turns == 1) {
    view[d0] = -t1, view[d1] = t0, base = (s1 - 1) * t1;
  } else if (turns == 2) {
    view[d0] = -t0, view[d1] = -t1, base = (s0 - 1) * t0 + (s1 - 1) * t1;
  } else if (turns == 3) {
    view[d0] = t1, view[d1] = -t0, base = (s0 - 1) * t0;
  }
  Dims g;
  for (int d = 0; d < rank; ++d) g.add(out->sizes[d], out->strides[d], view[d]);
  if (g.count == 0) return KGB_OK;
  cl_mem self_buffer = nullptr;
  cl_long self_offset = 0;
  if (kgb_cl_tensor_buffer(stream, self, &self_buffer, &self_offset) != CL_SUCCESS) return KGB_ERR_INVALID;
  Args args{stream, kern};
  args.tensor(out).value(self_buffer).value(static_cast<cl_long>(self_offset + base)).dims(g).value(g.count);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, kern, g.count);
}

}  // namespace
KGB_BASELINE(aten_rot90, kKind, rot90);
}  // namespace kgb::opencl::plain
