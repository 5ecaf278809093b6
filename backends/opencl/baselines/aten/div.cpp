// aten/div, plain OpenCL baseline: one work-item per output element, in
// ATen's common dtype (promoting_binary.h: binary::divide); true division in
// float(common), trunc and floor in the common dtype.
#include "kgb_entries/aten/div.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

int div_tensor(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  return binary::divide(stream, binary::of(self), binary::of(other), out, 0);
}
int div_scalar(const kgb_tensor* self, kgb_scalar other, kgb_tensor* out, kgb_stream stream) {
  return binary::divide(stream, binary::of(self), binary::of(other), out, 0);
}
int div_tensor_mode(const kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode, kgb_tensor* out,
                    kgb_stream stream) {
  return binary::divide(stream, binary::of(self), binary::of(other), out, rounding_mode ? *rounding_mode : 0);
}
int div_scalar_mode(const kgb_tensor* self, kgb_scalar other, const int* rounding_mode, kgb_tensor* out,
                    kgb_stream stream) {
  return binary::divide(stream, binary::of(self), binary::of(other), out, rounding_mode ? *rounding_mode : 0);
}

}  // namespace
KGB_BASELINE(aten_div, kKind, div_tensor);
KGB_BASELINE(aten_div_Scalar, kKind, div_scalar);
KGB_BASELINE(aten_div_Tensor_mode, kKind, div_tensor_mode);
KGB_BASELINE(aten_div_Scalar_mode, kKind, div_scalar_mode);
}  // namespace kgb::opencl::plain
