// aten/contiguous, plain OpenCL baseline: self itself when it is contiguous
// (ATen's rule; no command), else one work-item per output element gathering
// from self's strided view into the row-major out. Elements move bit for bit
// (the program is built per element size).
#include "../plain_common.h"
#include "kgb_entries/aten/contiguous.h"

namespace kgb::opencl::plain {
namespace {

const char* kGatherSource = R"CLC(
#ifndef E
#define E uint
#endif
typedef struct { long size[8]; long s0[8]; long s1[8]; long s2[8]; long s3[8]; } Dims;
__kernel void gather(__global const E* src, long src_off, __global E* dst, long dst_off, Dims g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long rest = i, from = 0;
  for (int d = rank - 1; d >= 0; --d) {
    long q = rest / g.size[d];
    from += (rest - q * g.size[d]) * g.s0[d];
    rest = q;
  }
  dst[dst_off + i] = src[src_off + from];
}
)CLC";

const char* element_options(int32_t bytes) {
  switch (bytes) {
    case 1: return "-cl-std=CL1.2 -DE=uchar";
    case 2: return "-cl-std=CL1.2 -DE=ushort";
    case 4: return "-cl-std=CL1.2 -DE=uint";
    case 8: return "-cl-std=CL1.2 -DE=ulong";
    case 16: return "-cl-std=CL1.2 -DE=ulong2";
    default: return nullptr;
  }
}

bool aten_contiguous(const kgb_tensor* t) {
  if (kgb_numel(t) == 0) return true;
  int64_t expected = 1;
  for (int32_t d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] == 1) continue;
    if (t->strides[d] != expected) return false;
    expected *= t->sizes[d];
  }
  return true;
}

int contiguous(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (aten_contiguous(self)) {  // ATen returns self
    out->data = self->data;
    out->rank = self->rank;
    for (int32_t d = 0; d < self->rank; ++d) {
      out->sizes[d] = self->sizes[d];
      out->strides[d] = self->strides[d];
    }
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  Dims g;
  for (int32_t d = 0; d < self->rank; ++d) g.add(self->sizes[d], self->strides[d]);
  cl_kernel k = kernel(stream, kGatherSource, element_options(kgb_dtype_size(self->dtype)), "gather");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(out).dims(g).value(g.count);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, k, g.count);
}

}  // namespace
KGB_BASELINE(aten_contiguous, kKind, contiguous);
}  // namespace kgb::opencl::plain
