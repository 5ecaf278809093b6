// aten/_to_copy, plain OpenCL baseline: one work-item per element of out,
// self read through its strides and converted by the store, as copy_'s
// baseline does (promoting_binary.h; the unused second operand is a bool
// Scalar, so the computation type is self's). out's layout is the harness's.
#include "kgb_entries/aten/_to_copy.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = "typedef C R;\nR op(C x, C y) { return x; }\n";

int to_copy(const kgb_tensor* self, const int* dtype, int non_blocking, kgb_tensor* out, kgb_stream stream) {
  (void)non_blocking;
  if ((dtype ? *dtype : self->dtype) != out->dtype) return KGB_ERR_INVALID;
  const binary::Operand none = binary::of(kgb_scalar{});  // KGB_BOOL 0, never read
  return binary::run(stream, kOp, binary::of(self), none, out, self->dtype, 0);
}

}  // namespace
KGB_BASELINE(aten__to_copy, kKind, to_copy);
}  // namespace kgb::opencl::plain
