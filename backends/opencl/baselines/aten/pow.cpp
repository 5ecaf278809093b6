// aten/pow, plain OpenCL baseline: one work-item per output element, in
// ATen's common dtype (promoting_binary.h).
#include "kgb_entries/aten/pow.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

// MODE 0: tensor ** tensor, 1: tensor ** Scalar (0.5 and -0.5 as sqrt, 1/sqrt),
// 2: Scalar ** tensor (x is the exponent). Integers multiply repeatedly.
const char kOp[] = R"CLC(
typedef C R;
R op(C x, C y) {
  C base = MODE == 2 ? y : x, e = MODE == 2 ? x : y;
#if DC == 2 || DC == 3
  if (e < 0) return base == 1 ? 1 : (base == -1 ? ((e & 1) ? -1 : 1) : 0);
  C r = 1;
  for (C k = 0; k < e; ++k) r *= base;
  return r;
#else
  if (MODE == 1 && e == (C)0.5) return sqrt(base);
  if (MODE == 1 && e == (C)-0.5) return (C)1 / sqrt(base);
  return pow(base, e);
#endif
}
)CLC";

int run(binary::Operand a, binary::Operand b, kgb_tensor* out, int mode, kgb_stream stream) {
  return binary::run(stream, kOp, a, b, out, binary::result_type(a, b), mode);
}
int pow_tensor_tensor(const kgb_tensor* self, const kgb_tensor* exponent, kgb_tensor* out, kgb_stream stream) {
  return run(binary::of(self), binary::of(exponent), out, 0, stream);
}
int pow_tensor_scalar(const kgb_tensor* self, kgb_scalar exponent, kgb_tensor* out, kgb_stream stream) {
  return run(binary::of(self), binary::of(exponent), out, 1, stream);
}
int pow_scalar(kgb_scalar self, const kgb_tensor* exponent, kgb_tensor* out, kgb_stream stream) {
  return run(binary::of(exponent), binary::of(self), out, 2, stream);
}

}  // namespace
KGB_BASELINE(aten_pow, kKind, pow_tensor_tensor);
KGB_BASELINE(aten_pow_Tensor_Scalar, kKind, pow_tensor_scalar);
KGB_BASELINE(aten_pow_Scalar, kKind, pow_scalar);
}  // namespace kgb::opencl::plain
