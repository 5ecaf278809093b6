// aten/eq, plain OpenCL baseline: one work-item per output element, compared
// in ATen's common dtype (promoting_binary.h).
#include "kgb_entries/aten/eq.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = "typedef int R;\nR op(C x, C y) { return x == y; }\n";

int eq(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  return binary::run(stream, kOp, binary::of(self), binary::of(other), out, binary::result_type(binary::of(self), binary::of(other)), 0);
}
int eq_scalar(const kgb_tensor* self, kgb_scalar other, kgb_tensor* out, kgb_stream stream) {
  return binary::run(stream, kOp, binary::of(self), binary::of(other), out, binary::result_type(binary::of(self), binary::of(other)), 0);
}

}  // namespace
KGB_BASELINE(aten_eq, kKind, eq);
KGB_BASELINE(aten_eq_Scalar, kKind, eq_scalar);
}  // namespace kgb::opencl::plain
