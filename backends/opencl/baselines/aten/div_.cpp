// aten/div_, plain OpenCL baseline: self = self / other in place, one
// work-item per element of self, other broadcast to it; div's kernel
// (promoting_binary.h: binary::divide) with self as both dividend and output.
// A float quotient cannot be written into an integer self (ATen raises an
// error there): such calls return KGB_ERR_UNSUPPORTED.
#include "kgb_entries/aten/div_.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

int divide_in_place(kgb_tensor* self, const binary::Operand& other, int mode, kgb_stream stream) {
  const binary::Operand a = binary::of(self);
  if (!binary::is_float(self->dtype) && (mode == 0 || binary::is_float(binary::result_type(a, other))))
    return KGB_ERR_UNSUPPORTED;
  return binary::divide(stream, a, other, self, mode);
}
int div_(kgb_tensor* self, const kgb_tensor* other, kgb_stream stream) {
  return divide_in_place(self, binary::of(other), 0, stream);
}
int div__scalar(kgb_tensor* self, kgb_scalar other, kgb_stream stream) {
  return divide_in_place(self, binary::of(other), 0, stream);
}
int div__tensor_mode(kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode, kgb_stream stream) {
  return divide_in_place(self, binary::of(other), rounding_mode ? *rounding_mode : 0, stream);
}
int div__scalar_mode(kgb_tensor* self, kgb_scalar other, const int* rounding_mode, kgb_stream stream) {
  return divide_in_place(self, binary::of(other), rounding_mode ? *rounding_mode : 0, stream);
}

}  // namespace
KGB_BASELINE(aten_div_, kKind, div_);
KGB_BASELINE(aten_div__Scalar, kKind, div__scalar);
KGB_BASELINE(aten_div__Tensor_mode, kKind, div__tensor_mode);
KGB_BASELINE(aten_div__Scalar_mode, kKind, div__scalar_mode);
}  // namespace kgb::opencl::plain
