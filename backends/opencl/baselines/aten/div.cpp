// aten/div, plain OpenCL baseline: one work-item per output element, in
// ATen's common dtype (promoting_binary.h); true division in float(common).
#include "kgb_entries/aten/div.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

// MODE 0: true division, 1: trunc (f16/bf16: the quotient rounds first), 2: floor.
const std::string kOp = std::string(binary::floor_divide_source()) + R"CLC(
typedef C R;
R op(C x, C y) {
  if (MODE == 0) return x / y;
  if (MODE == 2) return floor_divide(x, y);
#if DC == 2 || DC == 3
  return x / y;
#else
  if (DC == 4) return trunc(h2f(f2h(x / y)));
  if (DC == 5) return trunc(bf2f(f2bf(x / y)));
  return trunc(x / y);
#endif
}
)CLC";

int divide(binary::Operand a, binary::Operand b, kgb_tensor* out, int mode, kgb_stream stream) {
  int32_t common = binary::result_type(a, b);
  if (mode == 0 && !binary::is_float(common)) common = KGB_F32;
  return binary::run(stream, kOp, a, b, out, common, mode);
}
int div_tensor(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  return divide(binary::of(self), binary::of(other), out, 0, stream);
}
int div_scalar(const kgb_tensor* self, kgb_scalar other, kgb_tensor* out, kgb_stream stream) {
  return divide(binary::of(self), binary::of(other), out, 0, stream);
}
int div_tensor_mode(const kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode, kgb_tensor* out,
                    kgb_stream stream) {
  return divide(binary::of(self), binary::of(other), out, rounding_mode ? *rounding_mode : 0, stream);
}
int div_scalar_mode(const kgb_tensor* self, kgb_scalar other, const int* rounding_mode, kgb_tensor* out,
                    kgb_stream stream) {
  return divide(binary::of(self), binary::of(other), out, rounding_mode ? *rounding_mode : 0, stream);
}

}  // namespace
KGB_BASELINE(aten_div, kKind, div_tensor);
KGB_BASELINE(aten_div_Scalar, kKind, div_scalar);
KGB_BASELINE(aten_div_Tensor_mode, kKind, div_tensor_mode);
KGB_BASELINE(aten_div_Scalar_mode, kKind, div_scalar_mode);
}  // namespace kgb::opencl::plain
