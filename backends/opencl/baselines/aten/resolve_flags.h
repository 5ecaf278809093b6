// Shared by the plain OpenCL baselines of aten/resolve_conj and
// aten/resolve_neg: self itself when the flag to resolve is not set (no
// command), else one work-item per element writing the logical value into
// out's layout: an XOR of sign bits, or two's complement negation for i64.
#pragma once

#include <cstring>

#include "../plain_common.h"

namespace kgb::opencl::plain {

inline const char* kResolveSource = R"CLC(
#ifndef E
#define E uint
#endif
#ifdef NEGATE
#define OP(v) ((E)0 - (v))
#else
#define OP(v) ((v) ^ mask)
#endif
typedef struct { long size[8]; long s0[8]; long s1[8]; long s2[8]; long s3[8]; } Dims;
__kernel void resolve(__global const E* src, long src_off, __global E* dst, long dst_off, Dims g, int rank, long n, E mask) {
  long i = get_global_id(0);
  if (i >= n) return;
  long rest = i, from = 0, to = 0;
  for (int d = rank - 1; d >= 0; --d) {
    long q = rest / g.size[d], r = rest - q * g.size[d];
    from += r * g.s0[d];
    to += r * g.s1[d];
    rest = q;
  }
  dst[dst_off + to] = OP(src[src_off + from]);
}
)CLC";

// `flag` is the bit to resolve; `mask` the XOR mask of one element (of the
// dtype's size), unused when `negate`.
inline int resolve_flags(const kgb_tensor* self, kgb_tensor* out, uint32_t flag, const void* mask, bool negate, kgb_stream stream) {
  if (!(self->flags & flag)) {  // ATen returns self
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
  const int32_t elem = kgb_dtype_size(self->dtype);
  const char* options = negate ? (elem == 8 ? "-cl-std=CL1.2 -DE=ulong -DNEGATE" : nullptr)
                        : elem == 2  ? "-cl-std=CL1.2 -DE=ushort"
                        : elem == 4  ? "-cl-std=CL1.2 -DE=uint"
                        : elem == 8  ? "-cl-std=CL1.2 -DE=ulong"
                        : elem == 16 ? "-cl-std=CL1.2 -DE=ulong2"
                                     : nullptr;
  Dims g;
  for (int32_t d = 0; d < self->rank; ++d) g.add(self->sizes[d], self->strides[d], out->strides[d]);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kResolveSource, options, "resolve");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(out).dims(g).value(g.count);
  unsigned char bytes[16] = {};
  if (!negate) std::memcpy(bytes, mask, static_cast<size_t>(elem));
  if (args.error == CL_SUCCESS) args.error = clSetKernelArg(k, args.next, static_cast<size_t>(elem), bytes);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, k, g.count);
}

}  // namespace kgb::opencl::plain
