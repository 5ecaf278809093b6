// aten/mul, plain OpenCL baseline: one work-item per output element with the
// broadcast strides of both inputs, each in its own dtype (plain_pointwise.h).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/mul.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
C op(C a, C b, C alpha) { return a * b; }
)CLC";

int mul(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, other, nullptr, nullptr);
}

int mul_scalar(const kgb_tensor* self, kgb_scalar other, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, nullptr, &other, nullptr);
}

}  // namespace
KGB_BASELINE(aten_mul, kKind, mul);
KGB_BASELINE(aten_mul_Scalar, kKind, mul_scalar);
}  // namespace kgb::opencl::plain
