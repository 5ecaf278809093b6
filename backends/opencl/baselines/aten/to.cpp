// aten/to (.dtype, .other, .dtype_layout, .device), plain OpenCL baseline:
// ATen's to_will_alias (the dtype stays and copy is false: out describes
// self, no command); otherwise one work-item per element of out, self read
// through its strides and converted by the store, as copy_'s baseline does
// (promoting_binary.h; the unused second operand is a bool Scalar, so the
// computation type is self's). out's layout is the harness's.
#include "kgb_entries/aten/to.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = "typedef C R;\nR op(C x, C y) { return x; }\n";

int to_dtype(const kgb_tensor* self, int32_t target, int copy, kgb_tensor* out, kgb_stream stream) {
  if (target == self->dtype && !copy) {  // ATen returns self
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
  if (target != out->dtype) return KGB_ERR_INVALID;
  const binary::Operand none = binary::of(kgb_scalar{});  // KGB_BOOL 0, never read
  return binary::run(stream, kOp, binary::of(self), none, out, self->dtype, 0);
}

int to(const kgb_tensor* self, int dtype, int, int copy, kgb_tensor* out, kgb_stream stream) {
  return to_dtype(self, dtype, copy, out, stream);
}
int to_other(const kgb_tensor* self, const kgb_tensor* other, int, int copy, kgb_tensor* out, kgb_stream stream) {
  return to_dtype(self, other->dtype, copy, out, stream);
}
int to_dtype_layout(const kgb_tensor* self, const int* dtype, int, int copy, kgb_tensor* out, kgb_stream stream) {
  return to_dtype(self, dtype ? *dtype : self->dtype, copy, out, stream);
}

}  // namespace
KGB_BASELINE(aten_to, kKind, to);
KGB_BASELINE(aten_to_other, kKind, to_other);
KGB_BASELINE(aten_to_dtype_layout, kKind, to_dtype_layout);
KGB_BASELINE(aten_to_device, kKind, to);
}  // namespace kgb::opencl::plain
