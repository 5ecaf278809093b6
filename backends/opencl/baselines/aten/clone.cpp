// aten/clone, plain OpenCL baseline: one work-item per element, copying from
// self's strided view into out's (whatever out's strides), bit for bit (the
// program is built per element size).
#include "../plain_common.h"
#include "kgb_entries/aten/clone.h"

namespace kgb::opencl::plain {
namespace {

const char* kCopySource = R"CLC(
#ifndef E
#define E uint
#endif
typedef struct { long size[8]; long s0[8]; long s1[8]; long s2[8]; long s3[8]; } Dims;
__kernel void copy(__global const E* src, long src_off, __global E* dst, long dst_off, Dims g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long rest = i, from = 0, to = 0;
  for (int d = rank - 1; d >= 0; --d) {
    long q = rest / g.size[d], r = rest - q * g.size[d];
    from += r * g.s0[d];
    to += r * g.s1[d];
    rest = q;
  }
  dst[dst_off + to] = src[src_off + from];
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

int clone(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (self->rank != out->rank || self->dtype != out->dtype) return KGB_ERR_INVALID;
  Dims g;
  for (int32_t d = 0; d < self->rank; ++d) g.add(self->sizes[d], self->strides[d], out->strides[d]);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kCopySource, element_options(kgb_dtype_size(self->dtype)), "copy");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(out).dims(g).value(g.count);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, k, g.count);
}

}  // namespace
KGB_BASELINE(aten_clone, kKind, clone);
}  // namespace kgb::opencl::plain
