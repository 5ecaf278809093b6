// aten/floor_divide, plain OpenCL baseline: one work-item per output element,
// in ATen's common dtype (promoting_binary.h).
#include "kgb_entries/aten/floor_divide.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

const std::string kOp = std::string(binary::floor_divide_source()) + "typedef C R;\nR op(C x, C y) { return floor_divide(x, y); }\n";

int floor_divide(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  return binary::run(stream, kOp, binary::of(self), binary::of(other), out, binary::result_type(binary::of(self), binary::of(other)), 0);
}
int floor_divide_scalar(const kgb_tensor* self, kgb_scalar other, kgb_tensor* out, kgb_stream stream) {
  return binary::run(stream, kOp, binary::of(self), binary::of(other), out, binary::result_type(binary::of(self), binary::of(other)), 0);
}

}  // namespace
KGB_BASELINE(aten_floor_divide, kKind, floor_divide);
KGB_BASELINE(aten_floor_divide_Scalar, kKind, floor_divide_scalar);
}  // namespace kgb::opencl::plain
